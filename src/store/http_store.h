// HttpStore: a read-only Store over the objects under an http(s) URL, for
// public datasets.
//
// Key "a/b" is the object at "<base>/a/b" (each segment percent-encoded). Reads
// are range GETs, as the S3 store's (store/range_read_options.h): nearby ranges
// coalesced, large reads in pieces at once, the requests of one read held to
// one version by the object's ETag where the server gives one; HEAD gives a
// value's size. Redirects are followed. A 404 is an absent key; any other
// failure is an error naming the URL. GetMany (store/batched_gets.h) sends
// the GETs of many keys at once.
//
// HTTP cannot list a directory, so List works only where a layout says what
// exists: an HttpKeyLister reads that from the store itself (zarr metadata
// with store/http_listing.h, an export's info and CSV indexes with
// pipelines/export_listing.h). Without one, List is Unsupported. Writes are
// Unsupported. Thread-safe.
#ifndef CHUNKWISE_STORE_HTTP_STORE_H_
#define CHUNKWISE_STORE_HTTP_STORE_H_

#include <memory>
#include <string>
#include <vector>

#include "chunkwise/store/store.h"
#include "store/batched_gets.h"
#include "store/http_transport.h"
#include "store/range_read_options.h"

namespace chunkwise::store {

// The hook that lets a store that cannot list say what exists, from what the
// data's own layout records.
class HttpKeyLister {
 public:
  virtual ~HttpKeyLister() = default;
  // Every key under `store`'s root that the layout says exists, read through
  // `store` (sorted or not; the store sorts and filters by prefix).
  virtual Result<std::vector<std::string>> ListKeys(const Store& store) const = 0;
  // What the listing comes from, for messages ("zarr consolidated metadata").
  virtual std::string Describe() const = 0;
};

struct HttpStoreOptions {
  std::string base_url;  // "https://host/path"; keys are below it.
  // Timeouts, retries, and max_in_flight: requests on the wire at once,
  // the pieces and range groups of every read together.
  HttpTransportOptions http;
  RangeReadOptions reads;
  std::shared_ptr<const HttpKeyLister> lister;  // Null: List is Unsupported.
};

class HttpStore final : public Store, public BatchedGets {
 public:
  // InvalidArgument for a base URL that is not http(s). Sends no request.
  static Result<std::shared_ptr<HttpStore>> Open(HttpStoreOptions options);
  ~HttpStore() override;

  Result<std::optional<Bytes>> Get(std::string_view key) const override;
  // Every key's first GET at once (a value larger than a piece sends the
  // rest of its pieces after).
  std::vector<Result<std::optional<Bytes>>> GetMany(
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
  // pinned by If-Match where there is an ETag, trusting `size` otherwise.
  Result<std::unique_ptr<ValueReader>> OpenReaderOfVersion(
      std::string_view key, std::uint64_t size, const std::optional<Generation>& generation) const;
  // Unsupported: the store is read-only.
  Status Set(std::string_view key, ByteView value) override;
  Status Erase(std::string_view key) override;
  // The lister's keys that start with `prefix`, sorted; Unsupported without one.
  Result<std::vector<std::string>> List(std::string_view prefix) const override;
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override;
  StoreCapabilities capabilities() const override;
  // The key's URL.
  std::string Describe(std::string_view key) const override;

  HttpTransport::Stats stats() const;

 private:
  class Object;
  explicit HttpStore(HttpStoreOptions options);
  std::shared_ptr<const Object> ObjectFor(std::string_view key) const;
  // One GET per key, all sent at once (GetMany, SizeMany): plan(object) is
  // a key's request, read(object, reply) its value; a key that is not valid
  // gets ValidateKey's error, unsent.
  template <typename Value, typename Plan, typename Read>
  std::vector<Result<Value>> SendPerKey(std::span<const std::string> keys, const Plan& plan,
                                        const Read& read,
                                        const core::Cancellation* cancellation) const;

  HttpStoreOptions options_;
  std::shared_ptr<HttpTransport> transport_;
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_HTTP_STORE_H_
