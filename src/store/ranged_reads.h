// Reading remote objects by HTTP range requests, for the S3 and HTTP stores:
// whole values in parallel pieces, ranges coalesced, and a ValueReader.
//
// Every read of one call comes from one version of the object: a pinned read
// sends its version (If-Match on the ETag, or S3's versionId) and fails with
// NotFound if that version is gone; an unpinned one compares the ETags of its
// replies and starts again (up to 3 times) if they differ. A reply's
// Content-Range and length are checked against what was asked, so a short or
// shifted body is an error, never data.
#ifndef CHUNKWISE_SRC_STORE_RANGED_READS_H_
#define CHUNKWISE_SRC_STORE_RANGED_READS_H_

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "chunkwise/store/value_reader.h"
#include "store/object_version.h"
#include "store/range_read_options.h"

namespace chunkwise::store {

// One object behind range GETs: what the reads need of a store.
class RangedObject {
 public:
  virtual ~RangedObject() = default;
  // GET with Range `range` (libcurl's form: "0-99", "-16"), pinned to `pin`.
  virtual Result<HttpResponse> Get(const std::string& range, const BodyTarget& target,
                                   const ObjectVersion* pin, std::string_view what) const = 0;
  // The object's size and version, or nullopt if absent.
  virtual Result<std::optional<ObjectInfo>> Head(const ObjectVersion* pin) const = 0;
  // The error for a reply that no read expects.
  virtual Status ReplyError(std::string_view what, const HttpResponse& response) const = 0;
  // True when a 404 means the object is absent (and not, say, its bucket).
  virtual bool MeansAbsent(const HttpResponse& response) const = 0;
  virtual const std::string& url() const = 0;
  // The GETs of one read (its coalesced groups, a large value's pieces), all
  // sent at once from the calling thread (HttpTransport::SendAll): result i
  // is gets[i]'s, as Get would return it.
  struct RangedGet {
    std::string range;
    BodyTarget target;
    std::string what;
  };
  virtual std::vector<Result<HttpResponse>> GetAll(std::span<const RangedGet> gets,
                                                   const ObjectVersion* pin) const = 0;
  virtual const RangeReadOptions& options() const = 0;
};

// The whole object, or nullopt if absent.
Result<std::optional<Bytes>> ReadWhole(const RangedObject& object);
// ReadWhole in two steps, for stores that send the first GETs of many
// objects in one batch: the GET of the value's first piece (all of a value
// no larger than RangeReadOptions::piece_size), and the value from its
// reply; a larger value's rest is read by ReadWholeFrom itself. With
// `version`, the version the value was read at goes there (an empty ETag if
// the server named none, or for an empty value, which a 416 answers).
RangedObject::RangedGet FirstWholeGet(const RangedObject& object);
Result<std::optional<Bytes>> ReadWholeFrom(const RangedObject& object, Result<HttpResponse> first,
                                           ObjectVersion* version = nullptr);

// GetRange in two steps, for stores that send the GETs of many values'
// ranges in one batch: whether absolute `span` is one GET (not a suffix,
// not empty, no larger than a piece), that GET (collecting the body), and
// the bytes from its reply, nullopt if the object is absent. The reply is
// checked as ReadSpans checks its pieces.
bool FitsOneGet(ByteRange span, const RangeReadOptions& options);
RangedObject::RangedGet SpanGet(const RangedObject& object, ByteRange span);
// With `pin`, the GET was sent pinned to it: a 412 (the object changed) or
// a 404 is NotFound naming the URL.
Result<std::optional<Bytes>> SpanFrom(const RangedObject& object, ByteRange span,
                                      Result<HttpResponse> reply,
                                      const ObjectVersion* pin = nullptr);

// A range read with the object's whole size and the version the reply
// named, for stores that read many values' index ranges in one batch.
struct VersionedRange {
  Bytes bytes;
  ObjectInfo info;
};
// Whether `range` (a suffix too, or a span) is one GET of VersionedRangeGet.
bool FitsVersionedGet(ByteRange range, const RangeReadOptions& options);
// The GET of `range` (a suffix: "-N"), its body collected, and the bytes,
// size and version from its reply (nullopt if the object is absent). A suffix
// longer than the object gets the whole object (a 200, or a 206 of it all);
// a span is checked as SpanFrom checks it; the size comes from the reply's
// Content-Range (a 200: the body's length).
RangedObject::RangedGet VersionedRangeGet(const RangedObject& object, ByteRange range);
Result<std::optional<VersionedRange>> VersionedRangeFrom(const RangedObject& object,
                                                         ByteRange range,
                                                         Result<HttpResponse> reply);

// Size in two steps, for stores that ask the sizes of many values in one
// batch: the GET of the value's first byte (its body discarded), and the
// value's size from its reply's Content-Range (0 for the 416 of an empty
// value, the body's length from a server that ignores the range), nullopt
// if the object is absent.
RangedObject::RangedGet SizeGet(const RangedObject& object);
Result<std::optional<std::uint64_t>> SizeFrom(const RangedObject& object,
                                              Result<HttpResponse> reply);

// Reads absolute `spans` (no suffixes) one after another into `out`, whose
// size is their sum. False if the object is absent (never with a pin).
// OutOfRange, naming the URL, for a span past the object's end.
Result<bool> ReadSpans(const RangedObject& object, std::span<const ByteRange> spans,
                       MutableByteView out, const ObjectVersion* pin);

// A reader of one version of the object: its size and tail come with the
// first request. Null if the object is absent.
Result<std::unique_ptr<ValueReader>> OpenRangedReader(std::shared_ptr<const RangedObject> object);
// A reader of the version an earlier reader saw (its size and version),
// made without a request. With an ETag (or version id) its reads are pinned
// to that version and fail with NotFound once it is gone; with neither, the
// size is trusted and each read sees what the object holds then.
std::unique_ptr<ValueReader> RangedReaderOfVersion(std::shared_ptr<const RangedObject> object,
                                                   std::uint64_t size, ObjectVersion version);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_RANGED_READS_H_
