// S3Client: the S3 protocol under S3Store, its reader and its writer.
//
// It turns a call (a method, an object key, a query) into a request to the
// right URL for the addressing style, signs it, sends it through the
// transport with its retries, and follows a bucket's region when the server
// names another. Object keys here are the bucket's (the store's prefix
// included). Thread-safe.
#ifndef CHUNKWISE_SRC_STORE_S3_CLIENT_H_
#define CHUNKWISE_SRC_STORE_S3_CLIENT_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "chunkwise/core/thread_pool.h"
#include "store/object_version.h"
#include "store/s3_store.h"

namespace chunkwise::store {

// The condition a PUT, CompleteMultipartUpload or DELETE is sent with: the
// conditional writes of the Store interface, an ETag being a generation.
// A write refused for it fails with Conflict naming the URL.
struct S3WriteCondition {
  bool if_absent = false;  // If-None-Match: *
  std::string if_match;    // If-Match: <etag>, when not empty.
};

class S3Client {
 public:
  enum class Op { kGet, kHead, kPut, kPart, kList, kDelete, kOther };
  using Query = std::vector<std::pair<std::string, std::string>>;

  struct Call {
    Op op = Op::kGet;
    std::string method = "GET";
    std::string object_key;  // "" for a request on the bucket.
    Query query;             // Names and values unencoded; a name alone is "name=".
    std::vector<std::string> headers;
    std::string range;  // libcurl's form: "0-99" or "-16".
    std::span<const ByteView> body;
    bool has_body = false;
  };

  static Result<std::shared_ptr<S3Client>> Make(S3StoreOptions options);

  // Sends `call`. The reply is returned whatever its status, once it is not
  // one to retry; `what` names the operation in errors ("GET s3://b/k").
  Result<HttpResponse> Send(const Call& call, const BodyTarget& target,
                            std::string_view what) const;
  // Sends every call at once through the transport's loop (HttpTransport::
  // SendAll); result i is calls[i]'s, as Send would return it.
  // With `cancellation` set, calls not yet answered end Cancelled.
  std::vector<Result<HttpResponse>> SendAll(std::span<const Call> calls,
                                            std::span<const BodyTarget> targets,
                                            std::span<const std::string> whats,
                                            const core::Cancellation* cancellation = nullptr) const;

  // The object's size and version, or nullopt if absent (NotFound if the
  // bucket is). With `pin`, that version (NotFound if it is gone).
  Result<std::optional<ObjectInfo>> Head(const std::string& object_key,
                                         const ObjectVersion* pin = nullptr) const;
  // Where the reply of a write goes (an error's XML, or the reply a
  // CompleteMultipartUpload sends).
  static BodyTarget ReplyTarget();
  // The PUT of `body` under `condition`, and what its reply means (the
  // stored version): Put's two halves, for batches sent with SendAll.
  Call PutCall(const std::string& object_key, std::span<const ByteView> body,
               const S3WriteCondition& condition) const;
  Result<ObjectVersion> PutReply(std::string_view what, Result<HttpResponse> reply,
                                 const S3WriteCondition& condition) const;
  // The DELETE (with `if_match`, only at that ETag) and what its reply
  // means: Delete's two halves.
  Call DeleteCall(const std::string& object_key, const std::string& if_match = "") const;
  Status DeleteReply(std::string_view what, Result<HttpResponse> reply,
                     const std::string& if_match = "") const;
  // PUT of `body` under `condition`; the stored version.
  Result<ObjectVersion> Put(const std::string& object_key, std::span<const ByteView> body,
                            const S3WriteCondition& condition) const;
  Result<std::string> CreateMultipartUpload(const std::string& object_key) const;
  // The part's ETag.
  Result<std::string> UploadPart(const std::string& object_key, const std::string& upload_id,
                                 int part_number, std::span<const ByteView> body) const;
  Result<ObjectVersion> CompleteMultipartUpload(const std::string& object_key,
                                                const std::string& upload_id,
                                                const std::vector<std::string>& part_etags,
                                                const S3WriteCondition& condition) const;
  Status AbortMultipartUpload(const std::string& object_key, const std::string& upload_id) const;
  // With `if_match`, only while the object's ETag is that (Conflict otherwise).
  Status Delete(const std::string& object_key, const std::string& if_match = "") const;
  // Deletes up to 1,000 objects in one request (one by one on GCS).
  Status DeleteBatch(std::span<const std::string> object_keys) const;

  struct ListPage {
    std::vector<std::string> keys;      // Object keys, decoded.
    std::vector<std::string> prefixes;  // Common prefixes, decoded.
    std::string next_token;             // "" on the last page.
  };
  Result<ListPage> List(const std::string& prefix, const std::string& delimiter,
                        const std::string& token) const;

  // A full object key's URL for messages ("s3://bucket/key").
  std::string Url(std::string_view object_key) const;
  // NotFound for a missing bucket, else IOError naming the URL and reply.
  Status ReplyError(std::string_view what, const HttpResponse& response) const;

  const S3StoreOptions& options() const { return options_; }
  core::ThreadPool& pool() const { return *pool_; }
  S3StoreStats stats() const;

 private:
  explicit S3Client(S3StoreOptions options);

  std::string RequestUrl(const Call& call) const;
  SigV4Signer Signer() const;
  // True when `response` says the bucket lives in another region, which is then used.
  bool FollowRegion(const HttpResponse& response) const;
  // NotFound if the bucket does not exist; checked once, after the first 404 of a HEAD.
  Status CheckBucketAfter404() const;
  void Count(Op op) const;
  // Conflict: the object is not at the version `condition` expects.
  Status ConditionFailed(std::string_view what, const S3WriteCondition& condition) const;
  // True if `response` refuses a write for its `condition`.
  bool ConditionRefused(const HttpResponse& response, const S3WriteCondition& condition) const;
  Result<ObjectVersion> CompleteOnce(const Call& call, std::string_view what,
                                     const S3WriteCondition& condition, bool* retry) const;

  S3StoreOptions options_;
  HttpTransport transport_;
  std::unique_ptr<core::ThreadPool> pool_;
  std::string scheme_;     // "http" or "https".
  std::string authority_;  // "host[:port]" of the endpoint.
  std::string base_path_;  // The endpoint's path, without a trailing "/".
  bool virtual_hosted_ = false;
  bool default_endpoint_ = false;  // Ours to move when the bucket's region differs.

  mutable std::mutex region_mutex_;
  mutable std::string region_;
  mutable std::string endpoint_authority_;  // authority_ under region_mutex_ once it may change.
  mutable std::atomic<bool> bucket_checked_{false};
  mutable std::atomic<std::uint64_t> counts_[7] = {};
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_S3_CLIENT_H_
