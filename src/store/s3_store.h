// S3Store: a Store over a bucket and key prefix of an S3-protocol server
// (Amazon S3, MinIO, Ceph, moto, and Google Cloud Storage's XML API).
//
// See docs/stores.md for the user's view. In short:
//   Reads     Get fetches a large value as pieces in parallel; GetRange is one
//             ranged GET ("bytes=-N" for a suffix); GetRangesInto and readers
//             coalesce nearby ranges of one object (gap and size limits in
//             RangeReadOptions) and fetch the groups in parallel. All the
//             requests of one call carry If-Match on the first reply's ETag,
//             so a value replaced meanwhile fails the read instead of mixing
//             two versions. OpenReader fetches the value's tail with its size
//             (a shard's index is there) and pins the version by its
//             versionId on a versioned bucket, else by If-Match.
//   Writes    Set of a value up to multipart_threshold is one PUT, and so is a
//             writer's value that never fills two parts; a larger one is a
//             multipart upload, parts in flight at once; it appears whole on
//             CompleteMultipartUpload or not at all, and a failure or a writer
//             dropped uncommitted aborts it. PutMany (store/batched_puts.h)
//             sends many values' PUTs (and DELETEs) at once.
//             The writer keeps the first part until Commit, so a shard index
//             at the start is filled in last without uploading it twice.
//   Conditional writes  a generation is the object's ETag (GetGeneration is a
//             HEAD; GetVersioned and readers report the ETag they read).
//             SetPartsIf sends If-Match: <etag> on the PUT or the
//             CompleteMultipartUpload, or If-None-Match: * for the absent
//             generation (CreateIfAbsent); EraseIf a DELETE with If-Match.
//             The server refusing (412, or 404 for an If-Match on an object
//             that is gone) is Conflict naming the URL. OpenWriter(key,
//             kIfAbsent) sends If-None-Match: * too. GCS (kGcs) takes only
//             "if absent" (capabilities().conditional_writes is false).
//   Listing   ListObjectsV2, page by page; EraseKeys / ErasePrefix delete in
//             batches of 1,000 (DeleteObjects; one by one on GCS, which lacks it).
//   Retries   every request (store/http_transport.h); errors name the
//             object's URL and the last status.
// Thread-safe: any number of threads may call at once.
#ifndef CHUNKWISE_STORE_S3_STORE_H_
#define CHUNKWISE_STORE_S3_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/store/store.h"
#include "store/aws_config.h"
#include "store/batched_gets.h"
#include "store/batched_puts.h"
#include "store/http_transport.h"
#include "store/range_read_options.h"
#include "store/s3_location.h"

namespace chunkwise::store {

enum class S3AddressingStyle {
  kAuto,     // Virtual-hosted on AWS's endpoints for names without dots; else path-style.
  kPath,     // https://endpoint/bucket/key
  kVirtual,  // https://bucket.endpoint/key
};

// What the server supports beyond the core protocol.
enum class S3Dialect {
  kAws,  // DeleteObjects; If-None-Match on PUT and CompleteMultipartUpload.
  kGcs,  // No DeleteObjects (deletes go one by one); x-goog-if-generation-match: 0.
};

struct S3TransferOptions {
  // Set and SetParts send a value up to this size as one PUT (one request,
  // as TensorStore and boto3's put_object do); larger ones as multipart uploads.
  std::uint64_t multipart_threshold = std::uint64_t{64} << 20;
  // The parts of a multipart upload (S3's least is 5 MiB), doubling every
  // 1,000 parts so that 10,000 parts reach S3's 5 TiB limit. A writer
  // (OpenWriter) sends its value as one PUT if it never fills two parts.
  std::uint64_t part_size = std::uint64_t{8} << 20;
  int parts_in_flight = 4;  // Per writer: the memory held is (this + 2) parts.
  // Pieces, coalescing and the reader's tail.
  RangeReadOptions reads;
  // Requests one call sends at once (pieces, range groups, parts, deletes).
  int max_requests_in_flight = 16;
  // Keys asked for per ListObjectsV2 page (S3 sends at most 1,000).
  int list_page_size = 1000;
};

struct S3StoreOptions {
  S3Location location;
  // "" for the provider's: https://s3.<region>.amazonaws.com, or
  // https://storage.googleapis.com for gs://. "http://127.0.0.1:9000" for a local server.
  std::string endpoint;
  std::string region;  // "" for us-east-1 (s3) or "auto" (gs).
  S3AddressingStyle addressing = S3AddressingStyle::kAuto;
  S3Dialect dialect = S3Dialect::kAws;
  AwsCredentials credentials;  // Anonymous when empty: requests go unsigned.
  S3TransferOptions transfer;
  HttpTransportOptions http;

  // Options for an s3:// or gs:// `url` with `settings` (LoadAwsSettings):
  // the endpoint, region, addressing style, CA bundle and credentials they
  // give; gs:// takes its dialect, endpoint and region from GCS instead.
  static Result<S3StoreOptions> ForUrl(std::string_view url, const AwsSettings& settings);
};

// The requests a store has made, for benchmarks and tests.
struct S3StoreStats {
  std::uint64_t gets = 0, heads = 0, puts = 0, parts = 0, lists = 0, deletes = 0, other = 0;
  HttpTransport::Stats http;
  std::uint64_t requests() const { return gets + heads + puts + parts + lists + deletes + other; }
};

// How a write treats a value already there.
enum class S3WriteMode {
  kOverwrite,  // Replace it.
  kIfAbsent,   // Refuse (Conflict "already exists"); If-None-Match: *.
};

class S3Client;
struct ObjectVersion;

class S3Store final : public Store,
                      public BatchedGets,
                      public BatchedVersionedGets,
                      public BatchedPuts {
 public:
  // InvalidArgument for an endpoint that is not an http(s) URL or part sizes
  // outside S3's limits. Sends no request.
  static Result<std::shared_ptr<S3Store>> Open(S3StoreOptions options);
  ~S3Store() override;

  Result<std::optional<Bytes>> Get(std::string_view key) const override;
  // Every key's first GET at once (store/batched_gets.h).
  std::vector<Result<std::optional<Bytes>>> GetMany(
      std::span<const std::string> keys,
      const core::Cancellation* cancellation = nullptr) const override;
  // GetMany's requests, each value with the ETag of the reply it came from
  // (an empty value, whose GET a 416 answers, is read again by GetVersioned).
  std::vector<Result<std::optional<VersionedValue>>> GetVersionedMany(
      std::span<const std::string> keys,
      const core::Cancellation* cancellation = nullptr) const override;
  // Every range's GET at once (a range that is not one GET is read after).
  std::vector<Result<std::optional<Bytes>>> GetRangeMany(
      std::span<const RangedKey> reads,
      const core::Cancellation* cancellation = nullptr) const override;
  // Every read's GET at once (a suffix too), each reply naming the value's
  // size and ETag.
  std::optional<std::vector<Result<std::optional<RangeAtVersion>>>> GetRangeAtVersionMany(
      std::span<const RangedKey> reads,
      const core::Cancellation* cancellation = nullptr) const override;
  // Every key's one-byte GET at once, its reply naming the value's size.
  std::vector<Result<std::optional<std::uint64_t>>> SizeMany(
      std::span<const std::string> keys,
      const core::Cancellation* cancellation = nullptr) const override;
  Result<std::optional<Bytes>> GetRange(std::string_view key, ByteRange range) const override;
  Result<bool> GetRangesInto(std::string_view key, std::span<const ByteRange> ranges,
                             MutableByteView out) const override;
  Result<std::unique_ptr<ValueReader>> OpenReader(std::string_view key) const override;
  // A reader of the version of `key` an earlier reader saw (its size and
  // generation, the ETag), made without a request (RangedReaderOfVersion):
  // pinned by If-Match.
  Result<std::unique_ptr<ValueReader>> OpenReaderOfVersion(
      std::string_view key, std::uint64_t size, const std::optional<Generation>& generation) const;
  Status Set(std::string_view key, ByteView value) override;
  Status SetParts(std::string_view key, std::span<const ByteView> parts) override;
  // Every item's PUT or DELETE at once (store/batched_puts.h), with
  // If-Match / If-None-Match for an expected generation; a value past
  // multipart_threshold goes as Set does, after the others.
  std::vector<Status> PutMany(std::span<const PutItem> items,
                              const core::Cancellation* cancellation = nullptr) override;
  Result<std::unique_ptr<ValueWriter>> OpenWriter(std::string_view key) override;
  Status Erase(std::string_view key) override;
  Result<std::vector<std::string>> List(std::string_view prefix) const override;
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override;
  StoreCapabilities capabilities() const override;
  // "s3://bucket/prefix/key".
  std::string Describe(std::string_view key) const override;

  Result<Generation> GetGeneration(std::string_view key) const override;
  Result<std::optional<VersionedValue>> GetVersioned(std::string_view key) const override;
  Result<Generation> SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                const Generation& expected) override;
  Status EraseIf(std::string_view key, const Generation& expected) override;
  // A writer whose Commit follows `mode`.
  Result<std::unique_ptr<ValueWriter>> OpenWriter(std::string_view key, S3WriteMode mode);
  // Removes `keys` (absent ones too), in batches of 1,000.
  Status EraseKeys(std::span<const std::string> keys);
  // Removes every key that starts with `prefix`.
  Status ErasePrefix(std::string_view prefix);

  // The keys directly under `prefix` and the "directories" (common prefixes,
  // ending in `delimiter`) below it, each sorted.
  struct DelimitedListing {
    std::vector<std::string> keys;
    std::vector<std::string> prefixes;
  };
  Result<DelimitedListing> ListDelimited(std::string_view prefix, char delimiter = '/') const;

  S3StoreStats stats() const;
  const S3StoreOptions& options() const;

 private:
  explicit S3Store(std::shared_ptr<S3Client> client);
  // The generation `version` stands for; IOError if the server sent no ETag.
  Result<Generation> GenerationOf(std::string_view key, const ObjectVersion& version) const;
  // GetMany's batch; versions[i] is the version keys[i]'s value was read at.
  std::vector<Result<std::optional<Bytes>>> GetManyAt(std::span<const std::string> keys,
                                                      std::vector<ObjectVersion>* versions,
                                                      const core::Cancellation* cancellation) const;
  // One GET per key, all sent at once (GetManyAt, SizeMany): plan(object)
  // is a key's request, read(object, reply, i) keys[i]'s value; a key that
  // is not valid gets ValidateKey's error, unsent.
  template <typename Value, typename Plan, typename Read>
  std::vector<Result<Value>> SendPerKey(std::span<const std::string> keys, const Plan& plan,
                                        const Read& read,
                                        const core::Cancellation* cancellation) const;

  std::shared_ptr<S3Client> client_;
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_S3_STORE_H_
