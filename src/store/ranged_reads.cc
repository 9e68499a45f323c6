#include "store/ranged_reads.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "store/range_coalescing.h"

namespace chunkwise::store {
namespace {

// How often an unpinned read is repeated when the object changes under it.
constexpr int kConsistentReadAttempts = 3;

struct ContentRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  std::optional<std::uint64_t> total;
  bool unsatisfied = false;  // "bytes */T"
};

bool ParseNumber(std::string_view text, std::uint64_t* value) {
  if (text.empty() || text.size() > 20) return false;
  std::uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (n > (UINT64_MAX - digit) / 10) return false;
    n = n * 10 + digit;
  }
  *value = n;
  return true;
}

// "bytes a-b/T", "bytes a-b/*" or "bytes */T".
std::optional<ContentRange> ParseContentRange(std::string_view value) {
  if (!value.starts_with("bytes ")) return std::nullopt;
  value.remove_prefix(6);
  const std::size_t slash = value.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  ContentRange range;
  const std::string_view total = value.substr(slash + 1), span = value.substr(0, slash);
  if (total != "*") {
    std::uint64_t n = 0;
    if (!ParseNumber(total, &n)) return std::nullopt;
    range.total = n;
  }
  if (span == "*") {
    range.unsatisfied = true;
    return range;
  }
  const std::size_t dash = span.find('-');
  if (dash == std::string_view::npos || !ParseNumber(span.substr(0, dash), &range.first) ||
      !ParseNumber(span.substr(dash + 1), &range.last) || range.last < range.first) {
    return std::nullopt;
  }
  return range;
}

std::string SpanText(std::uint64_t offset, std::uint64_t length) {
  // Built by appending: GCC 12 warns falsely (-Wrestrict) on "[" + std::to_string(...).
  std::string text = "[";
  text += std::to_string(offset);
  text += ", +";
  text += std::to_string(length);
  text += ")";
  return text;
}

Status OutsideValue(const std::string& url, std::uint64_t offset, std::uint64_t length,
                    std::optional<std::uint64_t> total) {
  return Status::OutOfRange("range " + SpanText(offset, length) + " lies outside " + url +
                            (total ? " (" + std::to_string(*total) + " bytes)" : ""));
}

bool SameVersion(const ObjectVersion& a, const ObjectVersion& b) {
  return a.etag == b.etag && a.version_id == b.version_id;
}

// One ranged GET's outcome.
struct PieceReply {
  enum class Kind { kOk, kAbsent, kChanged };
  Kind kind = Kind::kOk;
  ObjectVersion version;
  std::optional<std::uint64_t> total;
};

// The GET of bytes [offset, offset + into.size()) straight into `into`.
RangedObject::RangedGet PieceGet(const RangedObject& object, std::uint64_t offset,
                                 MutableByteView into) {
  const std::string range = std::to_string(offset) + "-" + std::to_string(offset + into.size() - 1);
  return {range, BodyTarget::Into(into), "GET " + object.url() + " bytes " + range};
}

// Checks the reply to the GET of bytes [offset, offset + length): a short or
// shifted body is an error.
Result<PieceReply> CheckPiece(const RangedObject& object, std::uint64_t offset,
                              std::uint64_t length, const ObjectVersion* pin,
                              const std::string& what, const HttpResponse& response) {
  const std::string& url = object.url();
  PieceReply reply;
  reply.version = VersionOf(response);
  switch (response.status) {
    case 206: {
      const std::optional<ContentRange> range =
          ParseContentRange(response.Header("content-range").value_or(""));
      if (!range || range->unsatisfied || range->first != offset) {
        return Status::IOError(what + ": the reply's Content-Range is \"" +
                               response.Header("content-range").value_or("") + "\"");
      }
      reply.total = range->total;
      if (range->last != offset + length - 1) {
        if (range->total && *range->total < offset + length) {
          return OutsideValue(url, offset, length, range->total);
        }
        return Status::IOError(what + ": the server sent bytes " + std::to_string(range->first) +
                               "-" + std::to_string(range->last));
      }
      break;
    }
    case 200:  // The server sent the whole value: right only if it is exactly the range.
      if (offset != 0) return OutsideValue(url, offset, length, response.body_size);
      reply.total = response.body_size;
      if (response.body_size < length) return OutsideValue(url, offset, length, reply.total);
      break;
    case 404:
      if (!object.MeansAbsent(response)) return object.ReplyError(what, response);
      reply.kind = pin != nullptr ? PieceReply::Kind::kChanged : PieceReply::Kind::kAbsent;
      return reply;
    case 412:
      reply.kind = PieceReply::Kind::kChanged;
      return reply;
    case 416: {
      const std::optional<ContentRange> range =
          ParseContentRange(response.Header("content-range").value_or(""));
      return OutsideValue(url, offset, length, range ? range->total : std::nullopt);
    }
    default:
      return object.ReplyError(what, response);
  }
  if (response.body_size != length) {
    return Status::IOError(what + ": the server sent " + std::to_string(response.body_size) +
                           " of " + std::to_string(length) + " bytes");
  }
  return reply;
}

// A span of the object and where its bytes go.
struct SpanTarget {
  std::uint64_t offset = 0;
  MutableByteView into;
};

// One request's worth of a coalesced group.
struct Piece {
  std::uint64_t offset = 0;
  MutableByteView into;
};

enum class SpansOutcome { kRead, kAbsent, kChanged };

// One try at reading `targets`: the groups' pieces at once, then checked to
// come from one version, then copied into place.
Result<SpansOutcome> ReadTargetsOnce(const RangedObject& object,
                                     std::span<const SpanTarget> targets,
                                     const ObjectVersion* pin) {
  const RangeReadOptions& options = object.options();
  std::vector<ByteRange> ranges;
  ranges.reserve(targets.size());
  for (const SpanTarget& target : targets) {
    ranges.push_back(ByteRange::Span(target.offset, target.into.size()));
  }
  const std::vector<CoalescedRange> groups = CoalesceRanges(ranges, options.coalescing);
  std::vector<Bytes> scratch(groups.size());
  std::vector<Piece> pieces;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const CoalescedRange& group = groups[g];
    MutableByteView into;
    const SpanTarget& only = targets[group.members.front()];
    if (group.members.size() == 1 && only.offset == group.offset) {
      into = only.into;  // A group of one range lands in place.
    } else {
      scratch[g].resize(group.length);
      into = scratch[g];
    }
    for (std::uint64_t at = 0; at < group.length; at += options.piece_size) {
      const std::uint64_t n = std::min(options.piece_size, group.length - at);
      pieces.push_back({group.offset + at, into.subspan(at, n)});
    }
  }
  // Every piece at once from this thread: the transport's loop keeps them in flight.
  std::vector<RangedObject::RangedGet> gets;
  gets.reserve(pieces.size());
  for (const Piece& piece : pieces) gets.push_back(PieceGet(object, piece.offset, piece.into));
  std::vector<Result<HttpResponse>> responses = object.GetAll(gets, pin);
  std::vector<PieceReply> replies(pieces.size());
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    CHUNKWISE_RETURN_IF_ERROR(responses[i].status());
    CHUNKWISE_ASSIGN_OR_RETURN(
        replies[i], CheckPiece(object, pieces[i].offset, pieces[i].into.size(), pin, gets[i].what,
                               *responses[i]));
  }
  std::size_t absent = 0;
  for (const PieceReply& reply : replies) {
    if (reply.kind == PieceReply::Kind::kChanged) return SpansOutcome::kChanged;
    if (reply.kind == PieceReply::Kind::kAbsent) ++absent;
  }
  if (absent == replies.size()) return SpansOutcome::kAbsent;
  if (absent > 0) return SpansOutcome::kChanged;
  for (const PieceReply& reply : replies) {
    if (!SameVersion(reply.version, replies.front().version)) return SpansOutcome::kChanged;
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (scratch[g].empty()) continue;
    for (std::size_t member : groups[g].members) {
      const SpanTarget& target = targets[member];
      std::memcpy(target.into.data(), scratch[g].data() + (target.offset - groups[g].offset),
                  target.into.size());
    }
  }
  return SpansOutcome::kRead;
}

// Reads every target (lengths > 0): false if the object is absent.
Result<bool> ReadTargets(const RangedObject& object, std::span<const SpanTarget> targets,
                         const ObjectVersion* pin) {
  for (int attempt = 1;; ++attempt) {
    CHUNKWISE_ASSIGN_OR_RETURN(SpansOutcome outcome, ReadTargetsOnce(object, targets, pin));
    if (outcome == SpansOutcome::kRead) return true;
    if (outcome == SpansOutcome::kAbsent) return false;
    if (pin != nullptr) {
      return Status::NotFound(object.url() + " changed or vanished after it was opened");
    }
    if (attempt >= kConsistentReadAttempts) {
      return Status::IOError(object.url() + " kept changing while it was read (" +
                             std::to_string(attempt) + " tries)");
    }
  }
}

// Checks spans of no bytes against the object's size (a HEAD: no GET tells it).
Result<bool> CheckEmptySpans(const RangedObject& object, std::span<const ByteRange> spans,
                             const ObjectVersion* pin) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<ObjectInfo> info, object.Head(pin));
  if (!info) return false;
  for (const ByteRange& span : spans) {
    if (span.offset > info->size) return OutsideValue(object.url(), span.offset, 0, info->size);
  }
  return true;
}

class RangedValueReader final : public ValueReader {
 public:
  RangedValueReader(std::shared_ptr<const RangedObject> object, std::uint64_t size,
                    ObjectVersion version, Bytes tail)
      : object_(std::move(object)),
        size_(size),
        version_(std::move(version)),
        tail_(std::move(tail)),
        tail_offset_(size_ - tail_.size()) {}

  std::uint64_t size() const override { return size_; }
  // The whole value came with the first reply, or the bucket keeps versions.
  // Otherwise reads carry If-Match and fail, rather than mix, after a change.
  bool pinned() const override { return tail_offset_ == 0 || !version_.version_id.empty(); }
  // The ETag: a conditional write of a changed value sends it as If-Match.
  std::optional<Generation> generation() const override {
    if (version_.etag.empty()) return std::nullopt;
    return Generation::Of(version_.etag);
  }

  Status ReadInto(std::span<const ByteRange> ranges, MutableByteView out) const override {
    const std::string& url = object_->url();
    CHUNKWISE_RETURN_IF_ERROR(CheckRangesFill(ranges, out.size(), url));
    std::vector<SpanTarget> remote;
    std::size_t at = 0;
    for (const ByteRange& range : ranges) {
      CHUNKWISE_ASSIGN_OR_RETURN(ByteRange resolved, range.Resolve(size_, url));
      MutableByteView into = out.subspan(at, resolved.length);
      at += resolved.length;
      if (resolved.length == 0) continue;
      if (resolved.offset >= tail_offset_) {
        std::memcpy(into.data(), tail_.data() + (resolved.offset - tail_offset_), into.size());
      } else {
        remote.push_back({resolved.offset, into});
      }
    }
    if (remote.empty()) return Status::Ok();
    const bool versioned = !version_.etag.empty() || !version_.version_id.empty();
    CHUNKWISE_ASSIGN_OR_RETURN(const bool found,
                               ReadTargets(*object_, remote, versioned ? &version_ : nullptr));
    if (!found) return Status::NotFound(url + " vanished after it was opened");
    return Status::Ok();
  }

 private:
  std::shared_ptr<const RangedObject> object_;
  std::uint64_t size_;
  ObjectVersion version_;
  Bytes tail_;                 // The value's last bytes, fetched on open.
  std::uint64_t tail_offset_;  // Where they start.
};

}  // namespace

ObjectVersion VersionOf(const HttpResponse& response) {
  ObjectVersion version;
  version.etag = response.Header("etag").value_or("");
  version.version_id = response.Header("x-amz-version-id").value_or("");
  if (version.version_id == "null") version.version_id.clear();
  return version;
}

Result<bool> ReadSpans(const RangedObject& object, std::span<const ByteRange> spans,
                       MutableByteView out, const ObjectVersion* pin) {
  CHUNKWISE_RETURN_IF_ERROR(CheckRangesFill(spans, out.size(), object.url()));
  std::vector<SpanTarget> targets;
  std::vector<ByteRange> empty;
  std::size_t at = 0;
  for (const ByteRange& span : spans) {
    if (span.suffix) return Status::Internal("ReadSpans takes no suffix ranges");
    if (span.offset > UINT64_MAX - span.length) {
      return OutsideValue(object.url(), span.offset, span.length, std::nullopt);
    }
    if (span.length == 0) {
      empty.push_back(span);
    } else {
      targets.push_back({span.offset, out.subspan(at, span.length)});
    }
    at += span.length;
  }
  if (!targets.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(const bool found, ReadTargets(object, targets, pin));
    if (!found) return false;
  }
  if (!empty.empty() || targets.empty()) return CheckEmptySpans(object, empty, pin);
  return true;
}

bool FitsOneGet(ByteRange span, const RangeReadOptions& options) {
  return !span.suffix && span.length > 0 && span.length <= options.piece_size &&
         span.offset <= UINT64_MAX - span.length;
}

RangedObject::RangedGet SpanGet(const RangedObject& object, ByteRange span) {
  const std::string range =
      std::to_string(span.offset) + "-" + std::to_string(span.offset + span.length - 1);
  return {range, BodyTarget::Collect(span.length), "GET " + object.url() + " bytes " + range};
}

Result<std::optional<Bytes>> SpanFrom(const RangedObject& object, ByteRange span,
                                      Result<HttpResponse> reply, const ObjectVersion* pin) {
  CHUNKWISE_RETURN_IF_ERROR(reply.status());
  const RangedObject::RangedGet get = SpanGet(object, span);
  CHUNKWISE_ASSIGN_OR_RETURN(const PieceReply piece,
                             CheckPiece(object, span.offset, span.length, pin, get.what, *reply));
  if (piece.kind == PieceReply::Kind::kAbsent) return std::optional<Bytes>();
  if (piece.kind == PieceReply::Kind::kChanged) {
    if (pin != nullptr) {
      return Status::NotFound(object.url() + " changed since version " + pin->etag + " was read (" +
                              DescribeReply(*reply) + ")");
    }
    return Status::IOError(get.what + ": " + DescribeReply(*reply));  // A 412 none asked for.
  }
  return std::optional<Bytes>(std::move(reply->body));
}

bool FitsVersionedGet(ByteRange range, const RangeReadOptions& options) {
  if (range.suffix) return range.length > 0 && range.length <= options.piece_size;
  return FitsOneGet(range, options);
}

RangedObject::RangedGet VersionedRangeGet(const RangedObject& object, ByteRange range) {
  if (!range.suffix) return SpanGet(object, range);
  std::string text = std::to_string(range.length);
  text.insert(text.begin(), '-');  // "-" + ... trips GCC 12's -Wrestrict.
  return {text, BodyTarget::Collect(range.length), "GET " + object.url() + " bytes " + text};
}

Result<std::optional<VersionedRange>> VersionedRangeFrom(const RangedObject& object,
                                                         ByteRange range,
                                                         Result<HttpResponse> reply) {
  CHUNKWISE_RETURN_IF_ERROR(reply.status());
  const HttpResponse& response = *reply;
  const std::string what = VersionedRangeGet(object, range).what;
  VersionedRange got;
  got.info.version = VersionOf(response);
  if (!range.suffix) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        const PieceReply piece,
        CheckPiece(object, range.offset, range.length, nullptr, what, response));
    if (piece.kind == PieceReply::Kind::kAbsent) return std::optional<VersionedRange>();
    if (piece.kind == PieceReply::Kind::kChanged) {
      return Status::IOError(what + ": " + DescribeReply(response));
    }
    if (!piece.total) {
      return Status::IOError(what + ": the reply's Content-Range names no size");
    }
    got.info.size = *piece.total;
    got.bytes = std::move(reply->body);
    return std::optional<VersionedRange>(std::move(got));
  }
  if (response.status == 404) {
    if (!object.MeansAbsent(response)) return object.ReplyError(what, response);
    return std::optional<VersionedRange>();
  }
  if (response.status == 416) {  // An empty object has no last bytes.
    got.info.version = {};
    return std::optional<VersionedRange>(std::move(got));
  }
  if (response.status != 200 && response.status != 206) return object.ReplyError(what, response);
  got.info.size = response.body.size();
  if (response.status == 206) {
    const std::optional<ContentRange> content =
        ParseContentRange(response.Header("content-range").value_or(""));
    if (!content || !content->total || content->unsatisfied ||
        content->last + 1 != *content->total ||
        content->last - content->first + 1 != response.body.size()) {
      return Status::IOError(what + ": the reply's Content-Range is \"" +
                             response.Header("content-range").value_or("") + "\"");
    }
    got.info.size = *content->total;
  }
  got.bytes = std::move(reply->body);
  return std::optional<VersionedRange>(std::move(got));
}

RangedObject::RangedGet FirstWholeGet(const RangedObject& object) {
  const std::uint64_t piece = object.options().piece_size;
  return {"0-" + std::to_string(piece - 1), BodyTarget::Collect(piece), "GET " + object.url()};
}

namespace {

// One try at the whole value from the reply to FirstWholeGet; sets *again
// when the value changed under the read, which a new try may get past.
Result<std::optional<Bytes>> WholeFromFirstReply(const RangedObject& object, HttpResponse response,
                                                 const std::string& what, bool* again,
                                                 ObjectVersion* read_at) {
  const std::string& url = object.url();
  if (read_at != nullptr) *read_at = {};
  if (response.status == 404) {
    if (!object.MeansAbsent(response)) return object.ReplyError(what, response);
    return std::optional<Bytes>();
  }
  if (response.status == 416) return std::optional<Bytes>(Bytes());  // An empty object.
  if (response.status != 200 && response.status != 206) return object.ReplyError(what, response);
  if (read_at != nullptr) *read_at = VersionOf(response);
  if (response.status == 200) return std::optional<Bytes>(std::move(response.body));
  const std::optional<ContentRange> range =
      ParseContentRange(response.Header("content-range").value_or(""));
  if (!range || !range->total || range->unsatisfied || range->first != 0 ||
      response.body.size() != range->last + 1) {
    return Status::IOError(what + ": the reply's Content-Range is \"" +
                           response.Header("content-range").value_or("") + "\" for " +
                           std::to_string(response.body.size()) + " bytes");
  }
  const std::uint64_t total = *range->total;
  if (total == response.body.size()) return std::optional<Bytes>(std::move(response.body));
  // The rest in pieces at once, each pinned to the version the first piece saw.
  Bytes value(total);
  const std::size_t first = response.body.size();
  std::memcpy(value.data(), response.body.data(), first);
  const ObjectVersion version = VersionOf(response);
  const ByteRange rest[] = {ByteRange::Span(first, total - first)};
  Result<bool> found =
      ReadSpans(object, rest, MutableByteView(value).subspan(first),
                version.etag.empty() && version.version_id.empty() ? nullptr : &version);
  if (found.ok() && *found) return std::optional<Bytes>(std::move(value));
  if (found.ok()) return Status::NotFound(url + " vanished while it was read");
  *again = found.status().code() == StatusCode::kNotFound;
  return found.status();
}

}  // namespace

Result<std::optional<Bytes>> ReadWholeFrom(const RangedObject& object, Result<HttpResponse> first,
                                           ObjectVersion* version) {
  const RangedObject::RangedGet get = FirstWholeGet(object);
  for (int attempt = 1;; ++attempt) {
    CHUNKWISE_RETURN_IF_ERROR(first.status());
    bool again = false;
    Result<std::optional<Bytes>> whole =
        WholeFromFirstReply(object, *std::move(first), get.what, &again, version);
    if (!again || attempt >= kConsistentReadAttempts) return whole;
    first = object.Get(get.range, get.target, nullptr, get.what);
  }
}

RangedObject::RangedGet SizeGet(const RangedObject& object) {
  return {"0-0", BodyTarget::Discard(), "GET " + object.url() + " bytes 0-0"};
}

Result<std::optional<std::uint64_t>> SizeFrom(const RangedObject& object,
                                              Result<HttpResponse> reply) {
  CHUNKWISE_RETURN_IF_ERROR(reply.status());
  const HttpResponse& response = *reply;
  const std::string what = "GET " + object.url() + " bytes 0-0";
  if (response.status == 404) {
    if (!object.MeansAbsent(response)) return object.ReplyError(what, response);
    return std::optional<std::uint64_t>();
  }
  if (response.status == 200) return std::optional<std::uint64_t>(response.body_size);
  if (response.status != 206 && response.status != 416) return object.ReplyError(what, response);
  const std::optional<ContentRange> range =
      ParseContentRange(response.Header("content-range").value_or(""));
  if (range && range->total) return std::optional<std::uint64_t>(*range->total);
  if (response.status == 416) return std::optional<std::uint64_t>(0);  // An empty object.
  return Status::IOError(what + ": the reply's Content-Range is \"" +
                         response.Header("content-range").value_or("") + "\"");
}

Result<std::optional<Bytes>> ReadWhole(const RangedObject& object) {
  const RangedObject::RangedGet get = FirstWholeGet(object);
  return ReadWholeFrom(object, object.Get(get.range, get.target, nullptr, get.what));
}

std::unique_ptr<ValueReader> RangedReaderOfVersion(std::shared_ptr<const RangedObject> object,
                                                   std::uint64_t size, ObjectVersion version) {
  return std::make_unique<RangedValueReader>(std::move(object), size, std::move(version), Bytes());
}

Result<std::unique_ptr<ValueReader>> OpenRangedReader(std::shared_ptr<const RangedObject> object) {
  const std::uint64_t tail = object->options().reader_tail_bytes;
  const std::string url = object->url();
  std::optional<ObjectInfo> info;
  Bytes tail_bytes;
  if (tail > 0) {
    std::string range = std::to_string(tail);
    range.insert(range.begin(),
                 '-');  // The last `tail` bytes ("-" + ... trips GCC 12's -Wrestrict).
    const std::string what = "GET " + url + " bytes " + range;
    CHUNKWISE_ASSIGN_OR_RETURN(HttpResponse response,
                               object->Get(range, BodyTarget::Collect(tail), nullptr, what));
    if (response.status == 404) {
      if (!object->MeansAbsent(response)) return object->ReplyError(what, response);
      return std::unique_ptr<ValueReader>();
    }
    if (response.status == 200 || response.status == 206) {
      info.emplace();
      info->version = VersionOf(response);
      info->size = response.body.size();
      if (response.status == 206) {
        const std::optional<ContentRange> range =
            ParseContentRange(response.Header("content-range").value_or(""));
        if (!range || !range->total || range->unsatisfied || range->last + 1 != *range->total ||
            range->last - range->first + 1 != response.body.size()) {
          return Status::IOError(what + ": the reply's Content-Range is \"" +
                                 response.Header("content-range").value_or("") + "\"");
        }
        info->size = *range->total;
      }
      tail_bytes = std::move(response.body);
    } else if (response.status != 416) {  // 416: an empty object, which the HEAD below finds.
      return object->ReplyError(what, response);
    }
  }
  if (!info) {
    CHUNKWISE_ASSIGN_OR_RETURN(info, object->Head(nullptr));
    if (!info) return std::unique_ptr<ValueReader>();
  }
  return std::unique_ptr<ValueReader>(std::make_unique<RangedValueReader>(
      std::move(object), info->size, std::move(info->version), std::move(tail_bytes)));
}

}  // namespace chunkwise::store
