#include "store/s3_client.h"

#include <algorithm>

#include "store/md5.h"
#include "store/percent_encoding.h"
#include "store/xml_document.h"

namespace chunkwise::store {
namespace {

// S3's limits on a multipart upload's parts.
constexpr std::uint64_t kMinPartSize = std::uint64_t{5} << 20;
constexpr std::uint64_t kMaxPartSize = std::uint64_t{5} << 30;
// Replies whose bodies we read (XML documents) are held up to this size.
constexpr std::uint64_t kXmlReplyLimit = std::uint64_t{64} << 20;

std::string_view AsText(const Bytes& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string CanonicalQuery(S3Client::Query query) {
  for (auto& [name, value] : query) {
    name = PercentEncode(name, false);
    value = PercentEncode(value, false);
  }
  std::sort(query.begin(), query.end());
  std::string text;
  for (const auto& [name, value] : query) {
    if (!text.empty()) text += '&';
    text += name;
    text += '=';
    text += value;
  }
  return text;
}

Result<XmlElement> ParseReply(const HttpResponse& response, std::string_view what) {
  return ParseXml(AsText(response.body), what);
}

std::vector<std::string> ConditionHeaders(const S3WriteCondition& condition, S3Dialect dialect) {
  std::vector<std::string> headers;
  if (condition.if_absent) {
    headers.push_back(dialect == S3Dialect::kGcs ? "x-goog-if-generation-match: 0"
                                                 : "If-None-Match: *");
  }
  if (!condition.if_match.empty()) headers.push_back("If-Match: " + condition.if_match);
  return headers;
}

Status CheckTransfer(const S3TransferOptions& transfer) {
  if (transfer.part_size < kMinPartSize || transfer.part_size > kMaxPartSize) {
    return Status::InvalidArgument("S3 part size " + std::to_string(transfer.part_size) +
                                   " lies outside S3's 5 MiB to 5 GiB");
  }
  if (transfer.multipart_threshold > kMaxPartSize) {
    return Status::InvalidArgument("S3 multipart threshold " +
                                   std::to_string(transfer.multipart_threshold) +
                                   " is past the 5 GiB a PUT may carry");
  }
  if (transfer.parts_in_flight < 1 || transfer.max_requests_in_flight < 1) {
    return Status::InvalidArgument("S3 transfers need at least one request in flight");
  }
  if (transfer.list_page_size < 1 || transfer.list_page_size > 1000) {
    return Status::InvalidArgument("S3 list pages hold 1 to 1,000 keys");
  }
  if (transfer.reads.piece_size == 0) {
    return Status::InvalidArgument("S3 read piece size must be positive");
  }
  return Status::Ok();
}

}  // namespace

Result<S3StoreOptions> S3StoreOptions::ForUrl(std::string_view url, const AwsSettings& settings) {
  S3StoreOptions options;
  CHUNKWISE_ASSIGN_OR_RETURN(options.location, ParseS3Url(url));
  options.credentials = settings.credentials;
  options.http.ca_bundle = settings.ca_bundle.value_or("");
  if (options.location.scheme == "gs") {
    options.dialect = S3Dialect::kGcs;
    options.endpoint = "https://storage.googleapis.com";
    options.region = "auto";
    options.addressing = S3AddressingStyle::kPath;
    return options;
  }
  options.endpoint = settings.s3_endpoint_url.value_or("");
  options.region = settings.region.value_or("");
  const std::string style = settings.s3_addressing_style.value_or("auto");
  if (style == "path") {
    options.addressing = S3AddressingStyle::kPath;
  } else if (style == "virtual") {
    options.addressing = S3AddressingStyle::kVirtual;
  } else if (style != "auto") {
    return Status::InvalidArgument("the AWS profile \"" + settings.profile +
                                   "\" sets s3 addressing_style to \"" + style +
                                   "\"; expected auto, path or virtual");
  }
  return options;
}

S3Client::S3Client(S3StoreOptions options)
    : options_(std::move(options)),
      transport_(options_.http),
      pool_(std::make_unique<core::ThreadPool>(
          static_cast<std::size_t>(options_.transfer.max_requests_in_flight))) {}

Result<std::shared_ptr<S3Client>> S3Client::Make(S3StoreOptions options) {
  CHUNKWISE_RETURN_IF_ERROR(CheckTransfer(options.transfer));
  const bool gcs = options.dialect == S3Dialect::kGcs;
  if (options.region.empty()) options.region = gcs ? "auto" : "us-east-1";
  const bool default_endpoint = options.endpoint.empty();
  if (default_endpoint) {
    options.endpoint =
        gcs ? "https://storage.googleapis.com" : "https://s3." + options.region + ".amazonaws.com";
  }
  const std::string& endpoint = options.endpoint;
  const std::size_t scheme_end = endpoint.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : endpoint.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    return Status::InvalidArgument("S3 endpoint \"" + endpoint +
                                   "\" is not an http:// or https:// URL");
  }
  const std::size_t path_start = endpoint.find('/', scheme_end + 3);
  std::string authority = endpoint.substr(scheme_end + 3, path_start == std::string::npos
                                                              ? std::string::npos
                                                              : path_start - scheme_end - 3);
  std::string base_path = path_start == std::string::npos ? "" : endpoint.substr(path_start);
  while (!base_path.empty() && base_path.back() == '/') base_path.pop_back();
  if (authority.empty() || authority.find_first_of("?#@ ") != std::string::npos) {
    return Status::InvalidArgument("S3 endpoint \"" + endpoint + "\" names no host");
  }
  std::shared_ptr<S3Client> client(new S3Client(std::move(options)));
  client->scheme_ = scheme;
  client->base_path_ = std::move(base_path);
  client->default_endpoint_ = default_endpoint && !gcs;
  client->region_ = client->options_.region;
  client->endpoint_authority_ = std::move(authority);
  const S3AddressingStyle style = client->options_.addressing;
  client->virtual_hosted_ = style == S3AddressingStyle::kVirtual ||
                            (style == S3AddressingStyle::kAuto && client->default_endpoint_ &&
                             client->options_.location.bucket.find('.') == std::string::npos);
  return client;
}

std::string S3Client::Url(std::string_view object_key) const {
  return options_.location.scheme + "://" + options_.location.bucket + "/" +
         std::string(object_key);
}

std::string S3Client::RequestUrl(const Call& call) const {
  std::string authority;
  {
    std::lock_guard lock(region_mutex_);
    authority = endpoint_authority_;
  }
  const std::string& bucket = options_.location.bucket;
  std::string url =
      scheme_ + "://" + (virtual_hosted_ ? bucket + "." + authority : authority) + base_path_;
  if (!virtual_hosted_) url += "/" + bucket;
  if (!call.object_key.empty() || virtual_hosted_)
    url += "/" + PercentEncode(call.object_key, true);
  if (!call.query.empty()) url += "?" + CanonicalQuery(call.query);
  return url;
}

SigV4Signer S3Client::Signer() const {
  SigV4Signer signer;
  signer.credentials = options_.credentials;
  std::lock_guard lock(region_mutex_);
  signer.region = region_;
  return signer;
}

bool S3Client::FollowRegion(const HttpResponse& response) const {
  if (response.status != 301 && response.status != 400 && response.status != 307) return false;
  const std::optional<std::string> region = response.Header("x-amz-bucket-region");
  if (!region || region->empty()) return false;
  std::lock_guard lock(region_mutex_);
  if (*region == region_) return false;
  region_ = *region;
  if (default_endpoint_) endpoint_authority_ = "s3." + region_ + ".amazonaws.com";
  return true;
}

void S3Client::Count(Op op) const { ++counts_[static_cast<int>(op)]; }

S3StoreStats S3Client::stats() const {
  S3StoreStats stats;
  stats.gets = counts_[static_cast<int>(Op::kGet)];
  stats.heads = counts_[static_cast<int>(Op::kHead)];
  stats.puts = counts_[static_cast<int>(Op::kPut)];
  stats.parts = counts_[static_cast<int>(Op::kPart)];
  stats.lists = counts_[static_cast<int>(Op::kList)];
  stats.deletes = counts_[static_cast<int>(Op::kDelete)];
  stats.other = counts_[static_cast<int>(Op::kOther)];
  stats.http = transport_.stats();
  return stats;
}

Result<HttpResponse> S3Client::Send(const Call& call, const BodyTarget& target,
                                    std::string_view what) const {
  for (int redirect = 0;; ++redirect) {
    HttpRequest request;
    request.method = call.method;
    request.url = RequestUrl(call);
    request.headers = call.headers;
    request.range = call.range;
    request.body = call.body;
    request.has_body = call.has_body;
    const SigV4Signer signer = Signer();
    request.signer = &signer;
    Count(call.op);
    CHUNKWISE_ASSIGN_OR_RETURN(HttpResponse response, transport_.Send(request, target, what));
    if (redirect == 0 && FollowRegion(response)) continue;
    return response;
  }
}

std::vector<Result<HttpResponse>> S3Client::SendAll(std::span<const Call> calls,
                                                    std::span<const BodyTarget> targets,
                                                    std::span<const std::string> whats,
                                                    const core::Cancellation* cancellation) const {
  const SigV4Signer signer = Signer();
  std::vector<HttpRequest> requests(calls.size());
  std::vector<HttpCall> http_calls;
  http_calls.reserve(calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    HttpRequest& request = requests[i];
    request.method = calls[i].method;
    request.url = RequestUrl(calls[i]);
    request.headers = calls[i].headers;
    request.range = calls[i].range;
    request.body = calls[i].body;
    request.has_body = calls[i].has_body;
    request.signer = &signer;
    Count(calls[i].op);
    http_calls.push_back({&request, targets[i], whats[i]});
  }
  std::vector<Result<HttpResponse>> results = transport_.SendAll(http_calls, cancellation);
  for (std::size_t i = 0; i < results.size(); ++i) {
    // A bucket in another region: the first such reply moves the client
    // there, and every call it refused goes again (one by one: a rare case).
    if (!results[i].ok() || !results[i]->Header("x-amz-bucket-region")) continue;
    if (FollowRegion(*results[i]) || Signer().region != signer.region) {
      results[i] = Send(calls[i], targets[i], whats[i]);
    }
  }
  return results;
}

Status S3Client::ReplyError(std::string_view what, const HttpResponse& response) const {
  const std::string code = S3ErrorCode(response);
  if (code == "NoSuchBucket") {
    return Status::NotFound(std::string(what) + ": bucket \"" + options_.location.bucket +
                            "\" does not exist at " + options_.endpoint);
  }
  std::string message = std::string(what) + ": " + DescribeReply(response);
  if ((response.status == 403 || response.status == 401) && options_.credentials.anonymous()) {
    message +=
        "; the request was unsigned because no AWS credentials were found "
        "(set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)";
  } else if (response.status == 403) {
    message += " with credentials from " + options_.credentials.source;
  }
  return Status::IOError(std::move(message));
}

Status S3Client::ConditionFailed(std::string_view what, const S3WriteCondition& condition) const {
  if (condition.if_absent) {
    return Status::Conflict(std::string(what) +
                            ": the object already exists (refused to overwrite it)");
  }
  return Status::Conflict(std::string(what) + ": changed since it was read (expected ETag " +
                          condition.if_match + "; refused to overwrite it)");
}

bool S3Client::ConditionRefused(const HttpResponse& response,
                                const S3WriteCondition& condition) const {
  // An If-Match on an object that is gone answers 404 NoSuchKey: it is no
  // longer at the version expected either.
  return response.status == 412 || (response.status == 404 && !condition.if_match.empty() &&
                                    S3ErrorCode(response) == "NoSuchKey");
}

Status S3Client::CheckBucketAfter404() const {
  if (bucket_checked_.load()) return Status::Ok();
  Call call;
  call.op = Op::kHead;
  call.method = "HEAD";
  const std::string what = "HEAD " + options_.location.scheme + "://" + options_.location.bucket;
  CHUNKWISE_ASSIGN_OR_RETURN(HttpResponse response, Send(call, BodyTarget::Discard(), what));
  if (response.status == 404) {
    return Status::NotFound("bucket \"" + options_.location.bucket + "\" does not exist at " +
                            options_.endpoint);
  }
  bucket_checked_ = true;  // Found, or not ours to list (403): either way not a missing bucket.
  return Status::Ok();
}

Result<std::optional<ObjectInfo>> S3Client::Head(const std::string& object_key,
                                                 const ObjectVersion* pin) const {
  Call call;
  call.op = Op::kHead;
  call.method = "HEAD";
  call.object_key = object_key;
  if (pin != nullptr && !pin->version_id.empty()) {
    call.query.emplace_back("versionId", pin->version_id);
  } else if (pin != nullptr && !pin->etag.empty()) {
    call.headers.push_back("If-Match: " + pin->etag);
  }
  const std::string what = "HEAD " + Url(object_key);
  CHUNKWISE_ASSIGN_OR_RETURN(HttpResponse response, Send(call, BodyTarget::Discard(), what));
  if (response.status == 200) {
    ObjectInfo info;
    info.version = VersionOf(response);
    const std::string length = response.Header("content-length").value_or("");
    char* end = nullptr;
    info.size = std::strtoull(length.c_str(), &end, 10);
    if (length.empty() || end == nullptr || *end != '\0') {
      return Status::IOError(what + ": the reply has no Content-Length");
    }
    return std::optional<ObjectInfo>(std::move(info));
  }
  if (pin != nullptr && (response.status == 404 || response.status == 412)) {
    return Status::NotFound(Url(object_key) + " changed or vanished after it was opened");
  }
  if (response.status == 404) {
    CHUNKWISE_RETURN_IF_ERROR(CheckBucketAfter404());
    return std::optional<ObjectInfo>();
  }
  return ReplyError(what, response);
}

BodyTarget S3Client::ReplyTarget() { return BodyTarget::Collect(kXmlReplyLimit); }

S3Client::Call S3Client::PutCall(const std::string& object_key, std::span<const ByteView> body,
                                 const S3WriteCondition& condition) const {
  Call call;
  call.op = Op::kPut;
  call.method = "PUT";
  call.object_key = object_key;
  call.headers = ConditionHeaders(condition, options_.dialect);
  call.body = body;
  call.has_body = true;
  return call;
}

Result<ObjectVersion> S3Client::PutReply(std::string_view what, Result<HttpResponse> reply,
                                         const S3WriteCondition& condition) const {
  CHUNKWISE_RETURN_IF_ERROR(reply.status());
  if (reply->status == 200) return VersionOf(*reply);
  if (ConditionRefused(*reply, condition)) return ConditionFailed(what, condition);
  return ReplyError(what, *reply);
}

Result<ObjectVersion> S3Client::Put(const std::string& object_key, std::span<const ByteView> body,
                                    const S3WriteCondition& condition) const {
  const std::string what = "PUT " + Url(object_key);
  return PutReply(
      what, Send(PutCall(object_key, body, condition), BodyTarget::Collect(kXmlReplyLimit), what),
      condition);
}

Result<std::string> S3Client::CreateMultipartUpload(const std::string& object_key) const {
  Call call;
  call.op = Op::kOther;
  call.method = "POST";
  call.object_key = object_key;
  call.query = {{"uploads", ""}};
  call.has_body = true;
  const std::string what = "CreateMultipartUpload " + Url(object_key);
  CHUNKWISE_ASSIGN_OR_RETURN(HttpResponse response,
                             Send(call, BodyTarget::Collect(kXmlReplyLimit), what));
  if (response.status != 200) return ReplyError(what, response);
  CHUNKWISE_ASSIGN_OR_RETURN(XmlElement root, ParseReply(response, what));
  std::string upload_id = root.ChildText("UploadId");
  if (root.name != "InitiateMultipartUploadResult" || upload_id.empty()) {
    return Status::IOError(what + ": the reply names no UploadId");
  }
  return upload_id;
}

Result<std::string> S3Client::UploadPart(const std::string& object_key,
                                         const std::string& upload_id, int part_number,
                                         std::span<const ByteView> body) const {
  Call call;
  call.op = Op::kPart;
  call.method = "PUT";
  call.object_key = object_key;
  call.query = {{"partNumber", std::to_string(part_number)}, {"uploadId", upload_id}};
  call.body = body;
  call.has_body = true;
  const std::string what = "UploadPart " + std::to_string(part_number) + " of " + Url(object_key);
  CHUNKWISE_ASSIGN_OR_RETURN(HttpResponse response,
                             Send(call, BodyTarget::Collect(kXmlReplyLimit), what));
  if (response.status != 200) return ReplyError(what, response);
  std::optional<std::string> etag = response.Header("etag");
  if (!etag || etag->empty()) return Status::IOError(what + ": the reply has no ETag");
  return *etag;
}

Result<ObjectVersion> S3Client::CompleteOnce(const Call& call, std::string_view what,
                                             const S3WriteCondition& condition, bool* retry) const {
  *retry = false;
  CHUNKWISE_ASSIGN_OR_RETURN(HttpResponse response,
                             Send(call, BodyTarget::Collect(kXmlReplyLimit), what));
  if (ConditionRefused(response, condition)) return ConditionFailed(what, condition);
  if (response.status != 200) return ReplyError(what, response);
  // A 200 may still carry an error: the server fails after it began to reply.
  CHUNKWISE_ASSIGN_OR_RETURN(XmlElement root, ParseReply(response, what));
  if (root.name == "Error") {
    const std::string code = root.ChildText("Code");
    *retry = code == "InternalError" || code == "SlowDown" || code == "ServiceUnavailable";
    return Status::IOError(std::string(what) + ": " + code + ": " + root.ChildText("Message"));
  }
  ObjectVersion version = VersionOf(response);
  if (version.etag.empty()) version.etag = root.ChildText("ETag");
  return version;
}

Result<ObjectVersion> S3Client::CompleteMultipartUpload(const std::string& object_key,
                                                        const std::string& upload_id,
                                                        const std::vector<std::string>& part_etags,
                                                        const S3WriteCondition& condition) const {
  std::string body = "<CompleteMultipartUpload>";
  for (std::size_t i = 0; i < part_etags.size(); ++i) {
    body += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" +
            XmlEscape(part_etags[i]) + "</ETag></Part>";
  }
  body += "</CompleteMultipartUpload>";
  const ByteView parts[] = {AsBytes(body)};
  Call call;
  call.op = Op::kOther;
  call.method = "POST";
  call.object_key = object_key;
  call.query = {{"uploadId", upload_id}};
  call.headers = ConditionHeaders(condition, options_.dialect);
  call.headers.push_back("Content-Type: application/xml");
  call.body = parts;
  call.has_body = true;
  const std::string what = "CompleteMultipartUpload " + Url(object_key);
  for (int attempt = 1;; ++attempt) {
    bool retry = false;
    Result<ObjectVersion> version = CompleteOnce(call, what, condition, &retry);
    if (version.ok() || !retry || attempt >= options_.http.retry.max_attempts) return version;
    transport_.Backoff(attempt);
  }
}

Status S3Client::AbortMultipartUpload(const std::string& object_key,
                                      const std::string& upload_id) const {
  Call call;
  call.op = Op::kOther;
  call.method = "DELETE";
  call.object_key = object_key;
  call.query = {{"uploadId", upload_id}};
  const std::string what = "AbortMultipartUpload " + Url(object_key);
  CHUNKWISE_ASSIGN_OR_RETURN(HttpResponse response,
                             Send(call, BodyTarget::Collect(kXmlReplyLimit), what));
  if (response.status == 204 || response.status == 200 || response.status == 404) {
    return Status::Ok();  // 404: already gone (aborted or completed).
  }
  return ReplyError(what, response);
}

S3Client::Call S3Client::DeleteCall(const std::string& object_key,
                                    const std::string& if_match) const {
  Call call;
  call.op = Op::kDelete;
  call.method = "DELETE";
  call.object_key = object_key;
  S3WriteCondition condition;
  condition.if_match = if_match;
  call.headers = ConditionHeaders(condition, options_.dialect);
  return call;
}

Status S3Client::DeleteReply(std::string_view what, Result<HttpResponse> reply,
                             const std::string& if_match) const {
  CHUNKWISE_RETURN_IF_ERROR(reply.status());
  const HttpResponse& response = *reply;
  S3WriteCondition condition;
  condition.if_match = if_match;
  if (response.status == 204 || response.status == 200) return Status::Ok();
  if (ConditionRefused(response, condition)) return ConditionFailed(what, condition);
  // GCS answers 404 for a key that is not there; absent is what we wanted.
  if (response.status == 404 && S3ErrorCode(response) != "NoSuchBucket") return Status::Ok();
  return ReplyError(what, response);
}

Status S3Client::Delete(const std::string& object_key, const std::string& if_match) const {
  const std::string what = "DELETE " + Url(object_key);
  return DeleteReply(
      what, Send(DeleteCall(object_key, if_match), BodyTarget::Collect(kXmlReplyLimit), what),
      if_match);
}

Status S3Client::DeleteBatch(std::span<const std::string> object_keys) const {
  if (object_keys.empty()) return Status::Ok();
  if (options_.dialect == S3Dialect::kGcs) {
    return pool_->ParallelFor(object_keys.size(),
                              [&](std::size_t i) { return Delete(object_keys[i]); });
  }
  std::string body = "<Delete><Quiet>true</Quiet>";
  for (const std::string& key : object_keys)
    body += "<Object><Key>" + XmlEscape(key) + "</Key></Object>";
  body += "</Delete>";
  const ByteView parts[] = {AsBytes(body)};
  Call call;
  call.op = Op::kDelete;
  call.method = "POST";
  call.query = {{"delete", ""}};
  call.headers = {"Content-MD5: " + Md5Base64(body), "Content-Type: application/xml"};
  call.body = parts;
  call.has_body = true;
  const std::string what = "DeleteObjects in " + Url(object_keys.front());
  CHUNKWISE_ASSIGN_OR_RETURN(HttpResponse response,
                             Send(call, BodyTarget::Collect(kXmlReplyLimit), what));
  if (response.status != 200) return ReplyError(what, response);
  CHUNKWISE_ASSIGN_OR_RETURN(XmlElement root, ParseReply(response, what));
  if (root.name == "Error") {
    return Status::IOError(what + ": " + root.ChildText("Code") + ": " + root.ChildText("Message"));
  }
  for (const XmlElement& child : root.children) {
    if (child.name != "Error") continue;
    // A key the batch could not delete is retried alone (with its own retries).
    const std::string key = child.ChildText("Key");
    if (Status status = Delete(key); !status.ok()) {
      return Status::IOError("DELETE " + Url(key) + " (in a batch: " + child.ChildText("Code") +
                             "): " + std::string(status.message()));
    }
  }
  return Status::Ok();
}

Result<S3Client::ListPage> S3Client::List(const std::string& prefix, const std::string& delimiter,
                                          const std::string& token) const {
  Call call;
  call.op = Op::kList;
  call.query = {{"list-type", "2"}, {"encoding-type", "url"}};
  if (options_.transfer.list_page_size != 1000) {
    call.query.emplace_back("max-keys", std::to_string(options_.transfer.list_page_size));
  }
  if (!prefix.empty()) call.query.emplace_back("prefix", prefix);
  if (!delimiter.empty()) call.query.emplace_back("delimiter", delimiter);
  if (!token.empty()) call.query.emplace_back("continuation-token", token);
  const std::string what = "ListObjectsV2 " + Url(prefix);
  CHUNKWISE_ASSIGN_OR_RETURN(HttpResponse response,
                             Send(call, BodyTarget::Collect(kXmlReplyLimit), what));
  if (response.status != 200) return ReplyError(what, response);
  CHUNKWISE_ASSIGN_OR_RETURN(XmlElement root, ParseReply(response, what));
  if (root.name != "ListBucketResult") {
    return Status::IOError(what + ": the reply is a <" + root.name + ">, not a ListBucketResult");
  }
  const bool encoded = root.ChildText("EncodingType") == "url";
  ListPage page;
  for (const XmlElement& child : root.children) {
    const XmlElement* name = nullptr;
    std::vector<std::string>* into = nullptr;
    if (child.name == "Contents") {
      name = child.Child("Key");
      into = &page.keys;
    } else if (child.name == "CommonPrefixes") {
      name = child.Child("Prefix");
      into = &page.prefixes;
    }
    if (name == nullptr) continue;
    if (!encoded) {
      into->push_back(name->text);
      continue;
    }
    CHUNKWISE_ASSIGN_OR_RETURN(std::string decoded, PercentDecode(name->text));
    into->push_back(std::move(decoded));
  }
  if (root.ChildText("IsTruncated") == "true") {
    page.next_token = root.ChildText("NextContinuationToken");
    if (page.next_token.empty() || page.next_token == token) {
      return Status::IOError(what + ": a truncated page gives no new continuation token");
    }
  }
  return page;
}

}  // namespace chunkwise::store
