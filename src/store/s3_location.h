// S3Location: the bucket and key prefix an s3:// or gs:// URL names.
//
// "s3://bucket/a/b" names the keys under "a/b/" in the bucket: the prefix
// always ends in "/" (or is empty), so a store opened on it cannot see
// "a/bc". gs:// is Google Cloud Storage through its S3-compatible XML API
// (docs/stores.md, "gs://").
#ifndef CHUNKWISE_STORE_S3_LOCATION_H_
#define CHUNKWISE_STORE_S3_LOCATION_H_

#include <string>
#include <string_view>

#include "chunkwise/core/result.h"

namespace chunkwise::store {

struct S3Location {
  std::string scheme = "s3";  // "s3" or "gs".
  std::string bucket;
  std::string prefix;  // "" or ending in "/".

  // "s3://bucket/prefix" + key.
  std::string Url(std::string_view key = {}) const;
};

// Parses "s3://bucket[/prefix]" or "gs://bucket[/prefix]". InvalidArgument
// naming the URL for another scheme, a bucket name S3 would refuse (3–63
// characters of a–z, 0–9, ".", "-"; GCS also allows "_" and up to 222), or a
// prefix that is not a valid key prefix (store/key.h).
Result<S3Location> ParseS3Url(std::string_view url);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_S3_LOCATION_H_
