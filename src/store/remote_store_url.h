// OpenRemoteStore: a store for an object-storage URL (s3://, gs://,
// http://, https://), configured as the AWS tools would configure it.
//
// A separate helper so that the facade's scheme registry (include/chunkwise/
// chunkwise.h) can register these schemes with one call each; it holds no
// logic of its own beyond choosing the store and reading the settings.
#ifndef CHUNKWISE_STORE_REMOTE_STORE_URL_H_
#define CHUNKWISE_STORE_REMOTE_STORE_URL_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "store/aws_config.h"
#include "store/http_store.h"
#include "store/s3_store.h"

namespace chunkwise::store {

struct RemoteStoreOptions {
  // Where credentials, region and endpoint come from (aws_config.h).
  AwsEnvironment environment = AwsEnvironment::Process();
  std::optional<std::string> profile;  // An AWS profile named by the caller.
  // For http(s): what says which keys exist (null: the store cannot list).
  std::shared_ptr<const HttpKeyLister> http_lister;
  S3TransferOptions s3_transfer;
  RangeReadOptions http_reads;
  HttpTransportOptions http;  // Timeouts and retries; an AWS CA bundle overrides ca_bundle.
};

// True for the schemes OpenRemoteStore opens.
bool IsRemoteStoreUrl(std::string_view url);

// The store for `url`: S3Store for s3:// and gs://, HttpStore for http(s)://.
// InvalidArgument for another scheme or a malformed URL; the settings'
// errors (LoadAwsSettings) for s3:// and gs://.
Result<std::shared_ptr<Store>> OpenRemoteStore(std::string_view url,
                                               const RemoteStoreOptions& options = {});

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_REMOTE_STORE_URL_H_
