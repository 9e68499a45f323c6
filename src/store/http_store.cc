#include "store/http_store.h"

#include <algorithm>

#include "store/key.h"
#include "store/percent_encoding.h"
#include "store/pinned_ranges.h"
#include "store/ranged_reads.h"

namespace chunkwise::store {
namespace {

bool HasSuffix(std::span<const ByteRange> ranges) {
  return std::any_of(ranges.begin(), ranges.end(), [](const ByteRange& r) { return r.suffix; });
}

bool ParseSize(const std::string& text, std::uint64_t* size) {
  if (text.empty() || text.size() > 20) return false;
  char* end = nullptr;
  *size = std::strtoull(text.c_str(), &end, 10);
  return end != nullptr && *end == '\0' && text.front() != '-';
}

}  // namespace

// One object under the base URL, as the range reads see it. It holds what it
// uses, so a reader may outlive the store.
class HttpStore::Object final : public RangedObject {
 public:
  Object(std::shared_ptr<HttpTransport> transport, RangeReadOptions options, std::string url)
      : transport_(std::move(transport)), options_(options), url_(std::move(url)) {}

  Result<HttpResponse> Get(const std::string& range, const BodyTarget& target,
                           const ObjectVersion* pin, std::string_view what) const override {
    return transport_->Send(RangeRequest(range, pin), target, what);
  }

  std::vector<Result<HttpResponse>> GetAll(std::span<const RangedGet> gets,
                                           const ObjectVersion* pin) const override {
    std::vector<HttpRequest> requests;
    requests.reserve(gets.size());
    std::vector<HttpCall> calls;
    calls.reserve(gets.size());
    for (const RangedGet& get : gets) {
      requests.push_back(RangeRequest(get.range, pin));
      calls.push_back({&requests.back(), get.target, get.what});
    }
    return transport_->SendAll(calls);
  }

  // The GET of `range` ("0-99"), pinned to `pin`.
  HttpRequest RangeRequest(const std::string& range, const ObjectVersion* pin) const {
    HttpRequest request = Request("GET", pin);
    request.range = range;
    return request;
  }

  Result<std::optional<ObjectInfo>> Head(const ObjectVersion* pin) const override {
    const std::string what = "HEAD " + url_;
    CHUNKWISE_ASSIGN_OR_RETURN(HttpResponse response,
                               transport_->Send(Request("HEAD", pin), BodyTarget::Discard(), what));
    if (response.status == 404) return std::optional<ObjectInfo>();
    if (response.status == 412) return Status::NotFound(url_ + " changed after it was opened");
    if (response.status != 200) return ReplyError(what, response);
    ObjectInfo info;
    info.version = VersionOf(response);
    if (ParseSize(response.Header("content-length").value_or(""), &info.size)) {
      return std::optional<ObjectInfo>(std::move(info));
    }
    return SizeByRange(pin);
  }

  Status ReplyError(std::string_view what, const HttpResponse& response) const override {
    return Status::IOError(std::string(what) + ": " + DescribeReply(response));
  }
  bool MeansAbsent(const HttpResponse&) const override { return true; }
  const std::string& url() const override { return url_; }
  const RangeReadOptions& options() const override { return options_; }

 private:
  HttpRequest Request(const std::string& method, const ObjectVersion* pin) const {
    HttpRequest request;
    request.method = method;
    request.url = url_;
    request.follow_redirects = true;
    if (pin != nullptr && !pin->etag.empty()) request.headers.push_back("If-Match: " + pin->etag);
    return request;
  }

  // A HEAD without Content-Length: the first byte's Content-Range gives the size.
  Result<std::optional<ObjectInfo>> SizeByRange(const ObjectVersion* pin) const {
    const std::string what = "GET " + url_ + " bytes 0-0";
    HttpRequest request = Request("GET", pin);
    request.range = "0-0";
    CHUNKWISE_ASSIGN_OR_RETURN(HttpResponse response,
                               transport_->Send(request, BodyTarget::Discard(), what));
    ObjectInfo info;
    info.version = VersionOf(response);
    const std::string content_range = response.Header("content-range").value_or("");
    const std::size_t slash = content_range.rfind('/');
    if ((response.status == 206 || response.status == 416) && slash != std::string::npos &&
        ParseSize(content_range.substr(slash + 1), &info.size)) {
      return std::optional<ObjectInfo>(std::move(info));
    }
    if (response.status == 404) return std::optional<ObjectInfo>();
    return Status::IOError(what + ": the server says neither Content-Length nor Content-Range (" +
                           DescribeReply(response) + ")");
  }

  std::shared_ptr<HttpTransport> transport_;
  RangeReadOptions options_;
  std::string url_;
};

HttpStore::HttpStore(HttpStoreOptions options)
    : options_(std::move(options)), transport_(std::make_shared<HttpTransport>(options_.http)) {}

HttpStore::~HttpStore() = default;

Result<std::shared_ptr<HttpStore>> HttpStore::Open(HttpStoreOptions options) {
  if (!options.base_url.starts_with("http://") && !options.base_url.starts_with("https://")) {
    return Status::InvalidArgument("\"" + options.base_url +
                                   "\" is not an http:// or https:// URL");
  }
  if (options.base_url.find_first_of("?#") != std::string::npos) {
    return Status::InvalidArgument("the store URL \"" + options.base_url +
                                   "\" has a query or fragment; keys would not go below it");
  }
  const std::size_t host = options.base_url.find("://") + 3;
  while (options.base_url.size() > host && options.base_url.back() == '/') {
    options.base_url.pop_back();
  }
  if (options.base_url.size() == host) {
    return Status::InvalidArgument("\"" + options.base_url + "\" names no host");
  }
  return std::shared_ptr<HttpStore>(new HttpStore(std::move(options)));
}

std::string HttpStore::Describe(std::string_view key) const {
  return options_.base_url + "/" + PercentEncode(key, true);
}

std::shared_ptr<const HttpStore::Object> HttpStore::ObjectFor(std::string_view key) const {
  return std::make_shared<Object>(transport_, options_.reads, Describe(key));
}

StoreCapabilities HttpStore::capabilities() const {
  StoreCapabilities capabilities;
  capabilities.listable = options_.lister != nullptr;
  capabilities.efficient_ranges = true;
  capabilities.durable = true;
  return capabilities;
}

HttpTransport::Stats HttpStore::stats() const { return transport_->stats(); }

Result<std::optional<Bytes>> HttpStore::Get(std::string_view key) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  return ReadWhole(*ObjectFor(key));
}

template <typename Value, typename Plan, typename Read>
std::vector<Result<Value>> HttpStore::SendPerKey(std::span<const std::string> keys,
                                                 const Plan& plan, const Read& read,
                                                 const core::Cancellation* cancellation) const {
  std::vector<Result<Value>> values(keys.size(), Value());
  std::vector<std::shared_ptr<const Object>> objects(keys.size());
  std::vector<RangedObject::RangedGet> gets;
  std::vector<HttpRequest> requests;
  std::vector<std::size_t> sent;  // The key of each request.
  gets.reserve(keys.size());
  requests.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (Status valid = ValidateKey(keys[i]); !valid.ok()) {
      values[i] = std::move(valid);
      continue;
    }
    objects[i] = ObjectFor(keys[i]);
    gets.push_back(plan(*objects[i]));
    requests.push_back(objects[i]->RangeRequest(gets.back().range, nullptr));
    sent.push_back(i);
  }
  std::vector<HttpCall> calls;
  calls.reserve(sent.size());
  for (std::size_t j = 0; j < sent.size(); ++j) {
    calls.push_back({&requests[j], gets[j].target, gets[j].what});
  }
  std::vector<Result<HttpResponse>> replies = transport_->SendAll(calls, cancellation);
  for (std::size_t j = 0; j < sent.size(); ++j) {
    values[sent[j]] = read(*objects[sent[j]], std::move(replies[j]));
  }
  return values;
}

std::vector<Result<std::optional<Bytes>>> HttpStore::GetMany(
    std::span<const std::string> keys, const core::Cancellation* cancellation) const {
  return SendPerKey<std::optional<Bytes>>(
      keys, [](const Object& object) { return FirstWholeGet(object); },
      [](const Object& object, Result<HttpResponse> reply) {
        return ReadWholeFrom(object, std::move(reply));
      },
      cancellation);
}

std::vector<Result<std::optional<std::uint64_t>>> HttpStore::SizeMany(
    std::span<const std::string> keys, const core::Cancellation* cancellation) const {
  return SendPerKey<std::optional<std::uint64_t>>(
      keys, [](const Object& object) { return SizeGet(object); },
      [](const Object& object, Result<HttpResponse> reply) {
        return SizeFrom(object, std::move(reply));
      },
      cancellation);
}

std::vector<Result<std::optional<Bytes>>> HttpStore::GetRangeMany(
    std::span<const RangedKey> reads, const core::Cancellation* cancellation) const {
  std::vector<Result<std::optional<Bytes>>> values(reads.size(), std::optional<Bytes>());
  std::vector<std::shared_ptr<const Object>> objects(reads.size());
  std::vector<ObjectVersion> pins(reads.size());
  std::vector<RangedObject::RangedGet> gets;
  std::vector<HttpRequest> requests;
  std::vector<std::size_t> sent, alone;  // The reads batched, and those read after.
  gets.reserve(reads.size());
  requests.reserve(reads.size());
  const auto pin_of = [&](std::size_t i) -> const ObjectVersion* {
    return PinOf(reads[i].pin, pins[i]);
  };
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (Status valid = ValidateKey(reads[i].key); !valid.ok()) {
      values[i] = std::move(valid);
    } else if (!FitsOneGet(reads[i].range, options_.reads)) {
      alone.push_back(i);
    } else {
      objects[i] = ObjectFor(reads[i].key);
      gets.push_back(SpanGet(*objects[i], reads[i].range));
      requests.push_back(objects[i]->RangeRequest(gets.back().range, pin_of(i)));
      sent.push_back(i);
    }
  }
  std::vector<HttpCall> calls;
  calls.reserve(sent.size());
  for (std::size_t j = 0; j < sent.size(); ++j) {
    calls.push_back({&requests[j], gets[j].target, gets[j].what});
  }
  std::vector<Result<HttpResponse>> replies = transport_->SendAll(calls, cancellation);
  for (std::size_t j = 0; j < sent.size(); ++j) {
    const std::size_t i = sent[j];
    values[i] = SpanFrom(*objects[i], reads[i].range, std::move(replies[j]), pin_of(i));
  }
  ReadEachAlone(*this, reads, alone, cancellation, values);
  return values;
}

std::optional<std::vector<Result<std::optional<RangeAtVersion>>>> HttpStore::GetRangeAtVersionMany(
    std::span<const RangedKey> reads, const core::Cancellation* cancellation) const {
  std::vector<Result<std::optional<RangeAtVersion>>> values(reads.size(),
                                                            std::optional<RangeAtVersion>());
  std::vector<std::shared_ptr<const Object>> objects(reads.size());
  std::vector<RangedObject::RangedGet> gets;
  std::vector<HttpRequest> requests;
  std::vector<std::size_t> sent;
  gets.reserve(reads.size());
  requests.reserve(reads.size());
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (Status valid = ValidateKey(reads[i].key); !valid.ok()) {
      values[i] = std::move(valid);
    } else if (!FitsVersionedGet(reads[i].range, options_.reads)) {
      values[i] =
          Status::InvalidArgument(Describe(reads[i].key) + ": the range is not one request");
    } else {
      objects[i] = ObjectFor(reads[i].key);
      gets.push_back(VersionedRangeGet(*objects[i], reads[i].range));
      requests.push_back(objects[i]->RangeRequest(gets.back().range, nullptr));
      sent.push_back(i);
    }
  }
  std::vector<HttpCall> calls;
  calls.reserve(sent.size());
  for (std::size_t j = 0; j < sent.size(); ++j) {
    calls.push_back({&requests[j], gets[j].target, gets[j].what});
  }
  std::vector<Result<HttpResponse>> replies = transport_->SendAll(calls, cancellation);
  for (std::size_t j = 0; j < sent.size(); ++j) {
    const std::size_t i = sent[j];
    values[i] = AtVersion(VersionedRangeFrom(*objects[i], reads[i].range, std::move(replies[j])));
  }
  return values;
}

Result<std::optional<Bytes>> HttpStore::GetRange(std::string_view key, ByteRange range) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  if (range.suffix || range.length > options_.reads.piece_size) {
    // A suffix needs the size, and a large buffer is made only for a range that fits.
    CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<ValueReader> reader, OpenReader(key));
    if (reader == nullptr) return std::optional<Bytes>();
    CHUNKWISE_ASSIGN_OR_RETURN(ByteRange resolved, range.Resolve(reader->size(), Describe(key)));
    Bytes bytes(resolved.length);
    const ByteRange absolute[] = {resolved};
    CHUNKWISE_RETURN_IF_ERROR(reader->ReadInto(absolute, bytes));
    return std::optional<Bytes>(std::move(bytes));
  }
  if (range.offset > UINT64_MAX - range.length) return range.Resolve(0, Describe(key)).status();
  Bytes bytes(range.length);
  const ByteRange spans[] = {range};
  CHUNKWISE_ASSIGN_OR_RETURN(const bool found, ReadSpans(*ObjectFor(key), spans, bytes, nullptr));
  if (!found) return std::optional<Bytes>();
  return std::optional<Bytes>(std::move(bytes));
}

Result<bool> HttpStore::GetRangesInto(std::string_view key, std::span<const ByteRange> ranges,
                                      MutableByteView out) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  CHUNKWISE_RETURN_IF_ERROR(CheckRangesFill(ranges, out.size(), Describe(key)));
  if (HasSuffix(ranges)) return GetRangesThroughReader(key, ranges, out);
  return ReadSpans(*ObjectFor(key), ranges, out, nullptr);
}

Result<std::unique_ptr<ValueReader>> HttpStore::OpenReader(std::string_view key) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  return OpenRangedReader(ObjectFor(key));
}

Result<std::unique_ptr<ValueReader>> HttpStore::OpenReaderOfVersion(
    std::string_view key, std::uint64_t size, const std::optional<Generation>& generation) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  ObjectVersion version;
  if (generation && !generation->absent()) version.etag = generation->token();
  return RangedReaderOfVersion(ObjectFor(key), size, std::move(version));
}

Status HttpStore::Set(std::string_view key, ByteView) {
  return Status::Unsupported(Describe(key) + ": an http(s) store is read-only");
}

Status HttpStore::Erase(std::string_view key) {
  return Status::Unsupported(Describe(key) + ": an http(s) store is read-only");
}

Result<std::vector<std::string>> HttpStore::List(std::string_view prefix) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidatePrefix(prefix));
  if (options_.lister == nullptr) {
    return Status::Unsupported(options_.base_url +
                               ": HTTP cannot list a directory, and no layout was given to say "
                               "what exists (zarr consolidated metadata, an export's info)");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> keys, options_.lister->ListKeys(*this));
  std::erase_if(keys, [&](const std::string& key) { return !key.starts_with(prefix); });
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

Result<std::optional<std::uint64_t>> HttpStore::Size(std::string_view key) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<ObjectInfo> info, ObjectFor(key)->Head(nullptr));
  if (!info) return std::optional<std::uint64_t>();
  return std::optional<std::uint64_t>(info->size);
}

}  // namespace chunkwise::store
