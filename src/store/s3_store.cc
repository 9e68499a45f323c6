#include "store/s3_store.h"

#include <algorithm>

#include "store/key.h"
#include "store/pinned_ranges.h"
#include "store/ranged_reads.h"
#include "store/s3_client.h"
#include "store/s3_writer.h"

namespace chunkwise::store {
namespace {

// DeleteObjects takes at most this many keys.
constexpr std::size_t kDeleteBatch = 1000;
// How often GetVersioned reads a value again that changed while it was read.
constexpr int kVersionedReadAttempts = 5;

// One object of the bucket, as the range reads see it.
class S3Object final : public RangedObject {
 public:
  S3Object(std::shared_ptr<const S3Client> client, std::string object_key)
      : client_(std::move(client)),
        object_key_(std::move(object_key)),
        url_(client_->Url(object_key_)) {}

  Result<HttpResponse> Get(const std::string& range, const BodyTarget& target,
                           const ObjectVersion* pin, std::string_view what) const override {
    return client_->Send(GetCall(range, pin), target, what);
  }
  std::vector<Result<HttpResponse>> GetAll(std::span<const RangedGet> gets,
                                           const ObjectVersion* pin) const override {
    std::vector<S3Client::Call> calls;
    std::vector<BodyTarget> targets;
    std::vector<std::string> whats;
    for (const RangedGet& get : gets) {
      calls.push_back(GetCall(get.range, pin));
      targets.push_back(get.target);
      whats.push_back(get.what);
    }
    return client_->SendAll(calls, targets, whats);
  }
  Result<std::optional<ObjectInfo>> Head(const ObjectVersion* pin) const override {
    return client_->Head(object_key_, pin);
  }
  Status ReplyError(std::string_view what, const HttpResponse& response) const override {
    return client_->ReplyError(what, response);
  }
  bool MeansAbsent(const HttpResponse& response) const override {
    return S3ErrorCode(response) != "NoSuchBucket";
  }
  const std::string& url() const override { return url_; }
  const RangeReadOptions& options() const override { return client_->options().transfer.reads; }

  // The GET of `range` ("0-99"), pinned to `pin`.
  S3Client::Call GetCall(const std::string& range, const ObjectVersion* pin) const {
    S3Client::Call call;
    call.object_key = object_key_;
    call.range = range;
    if (pin != nullptr && !pin->version_id.empty()) {
      call.query.emplace_back("versionId", pin->version_id);
    } else if (pin != nullptr && !pin->etag.empty()) {
      call.headers.push_back("If-Match: " + pin->etag);
    }
    return call;
  }

 private:
  std::shared_ptr<const S3Client> client_;
  std::string object_key_;
  std::string url_;
};

bool HasSuffix(std::span<const ByteRange> ranges) {
  return std::any_of(ranges.begin(), ranges.end(), [](const ByteRange& r) { return r.suffix; });
}

}  // namespace

S3Store::S3Store(std::shared_ptr<S3Client> client) : client_(std::move(client)) {}

S3Store::~S3Store() = default;

Result<std::shared_ptr<S3Store>> S3Store::Open(S3StoreOptions options) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<S3Client> client, S3Client::Make(std::move(options)));
  return std::shared_ptr<S3Store>(new S3Store(std::move(client)));
}

const S3StoreOptions& S3Store::options() const { return client_->options(); }

S3StoreStats S3Store::stats() const { return client_->stats(); }

std::string S3Store::Describe(std::string_view key) const {
  return client_->options().location.Url(key);
}

StoreCapabilities S3Store::capabilities() const {
  StoreCapabilities capabilities;
  capabilities.writable = true;
  capabilities.listable = true;
  capabilities.lists_every_key = true;
  capabilities.efficient_ranges = true;
  capabilities.durable = true;
  capabilities.local = false;
  // If-Match on PUT, CompleteMultipartUpload and DELETE; GCS's XML API
  // compares its own generation numbers instead (only "if absent" here).
  capabilities.conditional_writes = options().dialect == S3Dialect::kAws;
  return capabilities;
}

Result<std::optional<Bytes>> S3Store::Get(std::string_view key) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  return ReadWhole(S3Object(client_, options().location.prefix + std::string(key)));
}

std::vector<Result<std::optional<Bytes>>> S3Store::GetMany(
    std::span<const std::string> keys, const core::Cancellation* cancellation) const {
  return GetManyAt(keys, nullptr, cancellation);
}

std::vector<Result<std::optional<VersionedValue>>> S3Store::GetVersionedMany(
    std::span<const std::string> keys, const core::Cancellation* cancellation) const {
  std::vector<ObjectVersion> versions;
  std::vector<Result<std::optional<Bytes>>> got = GetManyAt(keys, &versions, cancellation);
  std::vector<Result<std::optional<VersionedValue>>> values;
  values.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (!got[i].ok()) {
      values.push_back(got[i].status());
    } else if (!got[i]->has_value()) {
      values.push_back(std::optional<VersionedValue>());
    } else if (versions[i].etag.empty()) {
      values.push_back(GetVersioned(keys[i]));  // An empty value: no ETag came with it.
    } else {
      values.push_back(std::optional<VersionedValue>(
          VersionedValue{std::move(**got[i]), Generation::Of(versions[i].etag)}));
    }
  }
  return values;
}

template <typename Value, typename Plan, typename Read>
std::vector<Result<Value>> S3Store::SendPerKey(std::span<const std::string> keys, const Plan& plan,
                                               const Read& read,
                                               const core::Cancellation* cancellation) const {
  std::vector<Result<Value>> values(keys.size(), Value());
  std::vector<S3Object> objects;
  std::vector<std::size_t> sent;  // The key of each object.
  std::vector<S3Client::Call> calls;
  std::vector<BodyTarget> targets;
  std::vector<std::string> whats;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (Status valid = ValidateKey(keys[i]); !valid.ok()) {
      values[i] = std::move(valid);
      continue;
    }
    objects.emplace_back(client_, options().location.prefix + keys[i]);
    RangedObject::RangedGet get = plan(objects.back());
    calls.push_back(objects.back().GetCall(get.range, nullptr));
    targets.push_back(get.target);
    whats.push_back(std::move(get.what));
    sent.push_back(i);
  }
  std::vector<Result<HttpResponse>> replies = client_->SendAll(calls, targets, whats, cancellation);
  for (std::size_t j = 0; j < sent.size(); ++j) {
    values[sent[j]] = read(objects[j], std::move(replies[j]), sent[j]);
  }
  return values;
}

std::vector<Result<std::optional<Bytes>>> S3Store::GetManyAt(
    std::span<const std::string> keys, std::vector<ObjectVersion>* versions,
    const core::Cancellation* cancellation) const {
  if (versions != nullptr) versions->assign(keys.size(), ObjectVersion());
  return SendPerKey<std::optional<Bytes>>(
      keys, [](const S3Object& object) { return FirstWholeGet(object); },
      [&](const S3Object& object, Result<HttpResponse> reply, std::size_t i) {
        return ReadWholeFrom(object, std::move(reply),
                             versions != nullptr ? &(*versions)[i] : nullptr);
      },
      cancellation);
}

std::vector<Result<std::optional<std::uint64_t>>> S3Store::SizeMany(
    std::span<const std::string> keys, const core::Cancellation* cancellation) const {
  return SendPerKey<std::optional<std::uint64_t>>(
      keys, [](const S3Object& object) { return SizeGet(object); },
      [](const S3Object& object, Result<HttpResponse> reply, std::size_t) {
        return SizeFrom(object, std::move(reply));
      },
      cancellation);
}

std::vector<Result<std::optional<Bytes>>> S3Store::GetRangeMany(
    std::span<const RangedKey> reads, const core::Cancellation* cancellation) const {
  std::vector<Result<std::optional<Bytes>>> values(reads.size(), std::optional<Bytes>());
  std::vector<S3Object> objects;
  std::vector<ObjectVersion> pins(reads.size());
  std::vector<std::size_t> sent, alone;  // The reads batched, and those read after.
  std::vector<S3Client::Call> calls;
  std::vector<BodyTarget> targets;
  std::vector<std::string> whats;
  const auto pin_of = [&](std::size_t i) -> const ObjectVersion* {
    return PinOf(reads[i].pin, pins[i]);
  };
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (Status valid = ValidateKey(reads[i].key); !valid.ok()) {
      values[i] = std::move(valid);
    } else if (!FitsOneGet(reads[i].range, options().transfer.reads)) {
      alone.push_back(i);
    } else {
      objects.emplace_back(client_, options().location.prefix + reads[i].key);
      RangedObject::RangedGet get = SpanGet(objects.back(), reads[i].range);
      calls.push_back(objects.back().GetCall(get.range, pin_of(i)));
      targets.push_back(get.target);
      whats.push_back(std::move(get.what));
      sent.push_back(i);
    }
  }
  std::vector<Result<HttpResponse>> replies = client_->SendAll(calls, targets, whats, cancellation);
  for (std::size_t j = 0; j < sent.size(); ++j) {
    const std::size_t i = sent[j];
    values[i] = SpanFrom(objects[j], reads[i].range, std::move(replies[j]), pin_of(i));
  }
  ReadEachAlone(*this, reads, alone, cancellation, values);
  return values;
}

std::optional<std::vector<Result<std::optional<RangeAtVersion>>>> S3Store::GetRangeAtVersionMany(
    std::span<const RangedKey> reads, const core::Cancellation* cancellation) const {
  std::vector<Result<std::optional<RangeAtVersion>>> values(reads.size(),
                                                            std::optional<RangeAtVersion>());
  std::vector<S3Object> objects;
  std::vector<std::size_t> sent;
  std::vector<S3Client::Call> calls;
  std::vector<BodyTarget> targets;
  std::vector<std::string> whats;
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (Status valid = ValidateKey(reads[i].key); !valid.ok()) {
      values[i] = std::move(valid);
    } else if (!FitsVersionedGet(reads[i].range, options().transfer.reads)) {
      values[i] =
          Status::InvalidArgument(Describe(reads[i].key) + ": the range is not one request");
    } else {
      objects.emplace_back(client_, options().location.prefix + reads[i].key);
      RangedObject::RangedGet get = VersionedRangeGet(objects.back(), reads[i].range);
      calls.push_back(objects.back().GetCall(get.range, nullptr));
      targets.push_back(get.target);
      whats.push_back(std::move(get.what));
      sent.push_back(i);
    }
  }
  std::vector<Result<HttpResponse>> replies = client_->SendAll(calls, targets, whats, cancellation);
  for (std::size_t j = 0; j < sent.size(); ++j) {
    const std::size_t i = sent[j];
    values[i] = AtVersion(VersionedRangeFrom(objects[j], reads[i].range, std::move(replies[j])));
  }
  return values;
}

Result<std::optional<Bytes>> S3Store::GetRange(std::string_view key, ByteRange range) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  if (range.suffix) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<ValueReader> reader, OpenReader(key));
    if (reader == nullptr) return std::optional<Bytes>();
    CHUNKWISE_ASSIGN_OR_RETURN(ByteRange resolved, range.Resolve(reader->size(), Describe(key)));
    Bytes bytes(resolved.length);
    const ByteRange absolute[] = {resolved};
    CHUNKWISE_RETURN_IF_ERROR(reader->ReadInto(absolute, bytes));
    return std::optional<Bytes>(std::move(bytes));
  }
  if (range.offset > UINT64_MAX - range.length) return range.Resolve(0, Describe(key)).status();
  if (range.length > options().transfer.reads.piece_size) {
    // Checked against the size before a buffer that large is made.
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::uint64_t> size, Size(key));
    if (!size) return std::optional<Bytes>();
    CHUNKWISE_RETURN_IF_ERROR(range.Resolve(*size, Describe(key)).status());
  }
  Bytes bytes(range.length);
  const ByteRange spans[] = {range};
  CHUNKWISE_ASSIGN_OR_RETURN(
      const bool found, ReadSpans(S3Object(client_, options().location.prefix + std::string(key)),
                                  spans, bytes, nullptr));
  if (!found) return std::optional<Bytes>();
  return std::optional<Bytes>(std::move(bytes));
}

Result<bool> S3Store::GetRangesInto(std::string_view key, std::span<const ByteRange> ranges,
                                    MutableByteView out) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  CHUNKWISE_RETURN_IF_ERROR(CheckRangesFill(ranges, out.size(), Describe(key)));
  // A suffix needs the size first; a reader's first request brings it.
  if (HasSuffix(ranges)) return GetRangesThroughReader(key, ranges, out);
  return ReadSpans(S3Object(client_, options().location.prefix + std::string(key)), ranges, out,
                   nullptr);
}

Result<std::unique_ptr<ValueReader>> S3Store::OpenReader(std::string_view key) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  return OpenRangedReader(
      std::make_shared<S3Object>(client_, options().location.prefix + std::string(key)));
}

Result<std::unique_ptr<ValueReader>> S3Store::OpenReaderOfVersion(
    std::string_view key, std::uint64_t size, const std::optional<Generation>& generation) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  ObjectVersion version;
  if (generation && !generation->absent()) version.etag = generation->token();
  return RangedReaderOfVersion(
      std::make_shared<S3Object>(client_, options().location.prefix + std::string(key)), size,
      std::move(version));
}

Status S3Store::Set(std::string_view key, ByteView value) {
  return SetParts(key, std::span<const ByteView>(&value, 1));
}

Status S3Store::SetParts(std::string_view key, std::span<const ByteView> parts) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  std::uint64_t total = 0;
  for (ByteView part : parts) total += part.size();
  const std::string object_key = options().location.prefix + std::string(key);
  if (total <= options().transfer.multipart_threshold) {
    return client_->Put(object_key, parts, {}).status();
  }
  S3ValueWriter writer(client_, object_key, {});
  for (ByteView part : parts) CHUNKWISE_RETURN_IF_ERROR(writer.Append(part));
  return writer.Commit();
}

std::vector<Status> S3Store::PutMany(std::span<const PutItem> items,
                                     const core::Cancellation* cancellation) {
  std::vector<Status> statuses(items.size());
  std::vector<S3Client::Call> calls;
  std::vector<std::string> whats;
  std::vector<S3WriteCondition> conditions;
  std::vector<std::size_t> sent;   // The item of each call.
  std::vector<std::size_t> alone;  // Items written one by one, after the batch.
  const bool aws = options().dialect == S3Dialect::kAws;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const PutItem& item = items[i];
    if (Status valid = ValidateKey(item.key); !valid.ok()) {
      statuses[i] = std::move(valid);
      continue;
    }
    const std::string object_key = options().location.prefix + item.key;
    S3WriteCondition condition;
    if (item.expected && !item.expected->absent()) {
      if (!aws) {
        statuses[i] = NoConditionalWrites(
            item.key, item.value ? "a conditional write" : "a conditional erase");
        continue;
      }
      condition.if_match = item.expected->token();
    }
    if (item.value) {
      if (item.value->size() > options().transfer.multipart_threshold) {
        alone.push_back(i);  // A multipart upload, its parts in flight of their own.
        continue;
      }
      condition.if_absent = item.expected && item.expected->absent();
      calls.push_back(
          client_->PutCall(object_key, std::span<const ByteView>(&*item.value, 1), condition));
      whats.push_back("PUT " + client_->Url(object_key));
    } else {
      if (item.expected && item.expected->absent()) {
        alone.push_back(i);  // S3 has no "delete if absent": EraseIf asks first.
        continue;
      }
      calls.push_back(client_->DeleteCall(object_key, condition.if_match));
      whats.push_back("DELETE " + client_->Url(object_key));
    }
    conditions.push_back(std::move(condition));
    sent.push_back(i);
  }
  const std::vector<BodyTarget> targets(calls.size(), S3Client::ReplyTarget());
  std::vector<Result<HttpResponse>> replies = client_->SendAll(calls, targets, whats, cancellation);
  for (std::size_t j = 0; j < sent.size(); ++j) {
    statuses[sent[j]] =
        items[sent[j]].value
            ? client_->PutReply(whats[j], std::move(replies[j]), conditions[j]).status()
            : client_->DeleteReply(whats[j], std::move(replies[j]), conditions[j].if_match);
  }
  for (std::size_t i : alone) {
    const PutItem& item = items[i];
    if (cancellation != nullptr && cancellation->cancelled()) {
      statuses[i] = cancellation->Check(Describe(item.key));
    } else if (!item.value) {
      statuses[i] = EraseIf(item.key, *item.expected);
    } else {
      const std::span<const ByteView> parts(&*item.value, 1);
      statuses[i] = item.expected ? SetPartsIf(item.key, parts, *item.expected).status()
                                  : SetParts(item.key, parts);
    }
  }
  return statuses;
}

Result<Generation> S3Store::GetGeneration(std::string_view key) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<ObjectInfo> info,
                             client_->Head(options().location.prefix + std::string(key)));
  if (!info) return Generation::Absent();
  return GenerationOf(key, info->version);
}

Result<std::optional<VersionedValue>> S3Store::GetVersioned(std::string_view key) const {
  for (int attempt = 1;; ++attempt) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<ValueReader> reader, OpenReader(key));
    if (reader == nullptr) return std::optional<VersionedValue>();
    const std::optional<Generation> generation = reader->generation();
    if (!generation) return Status::IOError(Describe(key) + ": the server sent no ETag");
    VersionedValue versioned{Bytes(reader->size()), *generation};
    const ByteRange whole = ByteRange::Span(0, reader->size());
    // Every read carries the ETag: a value replaced meanwhile fails with
    // NotFound rather than mix versions, and is read again.
    const Status read = reader->ReadInto(std::span(&whole, 1), versioned.value);
    if (read.ok()) return std::optional<VersionedValue>(std::move(versioned));
    if (read.code() != StatusCode::kNotFound || attempt >= kVersionedReadAttempts) return read;
  }
}

Result<Generation> S3Store::SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                       const Generation& expected) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  S3WriteCondition condition;
  if (expected.absent()) {
    condition.if_absent = true;
  } else if (options().dialect != S3Dialect::kAws) {
    return NoConditionalWrites(key, "a conditional write");
  } else {
    condition.if_match = expected.token();
  }
  std::uint64_t total = 0;
  for (ByteView part : parts) total += part.size();
  const std::string object_key = options().location.prefix + std::string(key);
  if (total <= options().transfer.multipart_threshold) {
    CHUNKWISE_ASSIGN_OR_RETURN(ObjectVersion version, client_->Put(object_key, parts, condition));
    return GenerationOf(key, version);
  }
  S3ValueWriter writer(client_, object_key, std::move(condition));
  for (ByteView part : parts) CHUNKWISE_RETURN_IF_ERROR(writer.Append(part));
  CHUNKWISE_RETURN_IF_ERROR(writer.Commit());
  return GenerationOf(key, writer.version());
}

Status S3Store::EraseIf(std::string_view key, const Generation& expected) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  if (expected.absent()) {
    // Nothing to erase if it is still absent; S3 has no "delete if absent".
    CHUNKWISE_ASSIGN_OR_RETURN(Generation now, GetGeneration(key));
    if (now.absent()) return Status::Ok();
    return GenerationConflict(Describe(key), expected, now);
  }
  if (options().dialect != S3Dialect::kAws) return NoConditionalWrites(key, "a conditional erase");
  return client_->Delete(options().location.prefix + std::string(key), expected.token());
}

Result<Generation> S3Store::GenerationOf(std::string_view key, const ObjectVersion& version) const {
  if (version.etag.empty()) return Status::IOError(Describe(key) + ": the server sent no ETag");
  return Generation::Of(version.etag);
}

Result<std::unique_ptr<ValueWriter>> S3Store::OpenWriter(std::string_view key) {
  return OpenWriter(key, S3WriteMode::kOverwrite);
}

Result<std::unique_ptr<ValueWriter>> S3Store::OpenWriter(std::string_view key, S3WriteMode mode) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  const std::string object_key = options().location.prefix + std::string(key);
  S3WriteCondition condition;
  if (mode == S3WriteMode::kIfAbsent) {
    condition.if_absent = true;
    // Refused early rather than after the whole upload; If-None-Match still
    // guards the moment of Commit against a writer that comes in between.
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<ObjectInfo> existing, client_->Head(object_key));
    if (existing) {
      return Status::Conflict(Describe(key) + " already exists (refused to overwrite it)");
    }
  }
  return std::unique_ptr<ValueWriter>(
      std::make_unique<S3ValueWriter>(client_, object_key, std::move(condition)));
}

Status S3Store::Erase(std::string_view key) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  return client_->Delete(options().location.prefix + std::string(key));
}

Status S3Store::EraseKeys(std::span<const std::string> keys) {
  std::vector<std::string> object_keys;
  object_keys.reserve(keys.size());
  for (const std::string& key : keys) {
    CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
    object_keys.push_back(options().location.prefix + key);
  }
  const std::size_t batches = (object_keys.size() + kDeleteBatch - 1) / kDeleteBatch;
  return client_->pool().ParallelFor(batches, [&](std::size_t batch) {
    const std::size_t begin = batch * kDeleteBatch;
    const std::size_t n = std::min(kDeleteBatch, object_keys.size() - begin);
    return client_->DeleteBatch(std::span<const std::string>(object_keys).subspan(begin, n));
  });
}

Status S3Store::ErasePrefix(std::string_view prefix) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> keys, List(prefix));
  return EraseKeys(keys);
}

Result<std::vector<std::string>> S3Store::List(std::string_view prefix) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidatePrefix(prefix));
  CHUNKWISE_ASSIGN_OR_RETURN(DelimitedListing listing, ListDelimited(prefix, '\0'));
  return std::move(listing.keys);
}

Result<S3Store::DelimitedListing> S3Store::ListDelimited(std::string_view prefix,
                                                         char delimiter) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidatePrefix(prefix));
  const std::string& root = options().location.prefix;
  const std::string full_prefix = root + std::string(prefix);
  const std::string delimiter_text = delimiter == '\0' ? "" : std::string(1, delimiter);
  DelimitedListing listing;
  std::string token;
  do {
    CHUNKWISE_ASSIGN_OR_RETURN(S3Client::ListPage page,
                               client_->List(full_prefix, delimiter_text, token));
    for (std::string& key : page.keys) {
      // Objects whose names no key could have ("a//b", made by another tool) are skipped.
      if (!key.starts_with(full_prefix) || !ValidateKey(key.substr(root.size())).ok()) continue;
      listing.keys.push_back(key.substr(root.size()));
    }
    for (std::string& common : page.prefixes) {
      if (common.starts_with(full_prefix)) listing.prefixes.push_back(common.substr(root.size()));
    }
    token = std::move(page.next_token);
  } while (!token.empty());
  std::sort(listing.keys.begin(), listing.keys.end());
  std::sort(listing.prefixes.begin(), listing.prefixes.end());
  return listing;
}

Result<std::optional<std::uint64_t>> S3Store::Size(std::string_view key) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<ObjectInfo> info,
                             client_->Head(options().location.prefix + std::string(key)));
  if (!info) return std::optional<std::uint64_t>();
  return std::optional<std::uint64_t>(info->size);
}

}  // namespace chunkwise::store
