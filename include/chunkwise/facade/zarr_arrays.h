// Zarr arrays by URL: create, open, and read or write any box.
//
// Thin: a ZarrArray holds the library's array over the store the URL names
// (prefix ""), run on the context's thread pool, with the context's progress
// and cancellation around each call; each call passes straight through to it.
#ifndef CHUNKWISE_FACADE_ZARR_ARRAYS_H_
#define CHUNKWISE_FACADE_ZARR_ARRAYS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/communicator.h"
#include "chunkwise/core/data_type.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/core/region.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/options.h"

namespace chunkwise {

// What an open array's metadata says, as its users read it (zarr.json, or a
// v2 array's .zarray and .zattrs translated to v3's terms).
struct ZarrArrayMetadata {
  int zarr_format = 3;
  core::Shape shape;
  core::DataType data_type;
  // The data type's zarr name: its NumPy typestr for the parameterized
  // types ("<M8[ns]", "|S5"), else the v3 name ("uint16").
  std::string data_type_name;
  // The chunk grid's chunk_shape: the shard when the array is sharded.
  core::Shape chunk_shape;
  // The inner chunk when the codecs are exactly [sharding_indexed]; absent otherwise.
  std::optional<core::Shape> inner_chunk_shape;
  // The v3 `codecs` list (for v2, the translation of order/filters/compressor).
  nlohmann::json codecs = nlohmann::json::array();
  nlohmann::json attributes = nlohmann::json::object();
  // One string or null per dimension; absent when the metadata has none.
  std::optional<nlohmann::json> dimension_names;
};

// What an array holds in its store (`zarr info`).
struct ZarrArrayStorageStats {
  std::uint64_t stored_keys = 0;          // Chunk (or shard) objects present.
  std::uint64_t stored_bytes = 0;         // Their total size.
  std::uint64_t grid_chunks = 0;          // Chunks (or shards) the grid has.
  std::uint64_t stored_inner_chunks = 0;  // Non-empty index entries (sharded arrays).
  std::uint64_t grid_inner_chunks = 0;    // Inner chunks the grid of shards has.
  std::uint64_t logical_bytes = 0;        // Elements × element size.
};

// An open zarr v3 or v2 array: its metadata, read when opened, and what the
// functions below read and write it through. Movable, not copyable.
// Concurrent reads are safe; a write must not run concurrently with another
// write or read of the same chunks.
class ZarrArray {
 public:
  ZarrArray(ZarrArray&& other) noexcept;
  ZarrArray& operator=(ZarrArray&& other) noexcept;
  ZarrArray(const ZarrArray&) = delete;
  ZarrArray& operator=(const ZarrArray&) = delete;
  ~ZarrArray();

  const ZarrArrayMetadata& metadata() const { return metadata_; }
  // Makes reads and writes that take no progress of their own (a file's
  // import or export) count their bytes on `progress` (may be null; not owned).
  void set_progress(core::ProgressReporter* progress);
  // Counts what is stored: the chunk (shard) objects, their sizes and, when
  // sharded, their indexes' entries.
  Result<ZarrArrayStorageStats> Stats() const;

 private:
  friend class ZarrArrayAccess;  // src/facade: makes and unwraps arrays.
  struct Held;                   // The library's array.
  ZarrArray(std::unique_ptr<Held> held, ZarrArrayMetadata metadata);

  std::unique_ptr<Held> held_;
  ZarrArrayMetadata metadata_;
};

// What a new array is: the choices a person makes, the rest by convention
// (docs/formats/zarr.md).
struct ZarrArraySpec {
  core::Shape shape;
  core::DataType data_type;
  core::Shape chunks;                 // The (inner) chunk.
  std::optional<core::Shape> shards;  // zarr v3 only; a multiple of chunks.
  CodecChainSpec codecs = {{CodecSpec{CodecSpec::Kind::kZstd, 3}}};
  // The end-to-end checksum added to `codecs` (options.h). Absent: the
  // default, a crc32c codec last on zarr v3 arrays (none on v2), so that a
  // flipped bit in a stored chunk is refused as Corruption, not read as data.
  std::optional<ChunkChecksum> checksum;
  // The chunks' byte order: the bytes codec's "endian" (v2: the dtype's, ">u2").
  // Reads and writes take elements in host order whatever it is.
  core::Endian endian = core::Endian::kLittle;
  ZarrIndexLocation index_location = ZarrIndexLocation::kEnd;
  std::optional<std::string> fill_value;  // As text ("0", "nan", "-1"); absent: 0.
  // Empty, or one per dimension; an absent entry is written as null (zarr v3
  // allows a dimension without a name; v2's _ARRAY_DIMENSIONS gets null too).
  std::vector<std::optional<std::string>> dimension_names;
  int zarr_format = 3;
  // A JSON object (CreateZarrArray refuses anything else, field "attributes").
  nlohmann::json attributes = nlohmann::json::object();
  // Not null: the (inner) chunks' bytes→bytes codecs as a JSON array of
  // zarr v3 codec documents ([{"name": "zstd", ...}]), in place of `codecs`,
  // taken as given: no checksum is added (a `checksum` other than none is
  // refused; put the crc32c codec among them).
  nlohmann::json codec_documents = nullptr;
};

struct ZarrCreateOptions {
  bool overwrite = false;  // Replace an array or group already at the URL.
  // false: the metadata is written only by PublishZarrArray, so that until
  // then no reader sees an array at the URL (writers elsewhere join it with
  // JoinUnpublishedZarrArray). An array appears whole or not at all.
  bool publish = true;
};

// How chunks are written beside the codecs' own description: "c-blosc" (or
// empty) or "deterministic" (blosc lz4 chunks with the deterministic encoder,
// the same bytes on any machine and the GPU). A codec shorthand that names
// lz4det picks the deterministic encoder by itself.
struct ZarrWriteEncoders {
  std::string blosc_encoder;
};

// Creates the array at `url` (its store created if missing). InvalidArgument
// naming the field for a spec that is not an array (ranks differ, shards not
// a multiple of chunks, a v2 array with shards, a bad fill value, attributes
// that are not a JSON object), or naming
// the URL when something is there and !overwrite.
// `call.threads` sets the array's pool for as long as it lives.
Result<ZarrArray> CreateZarrArray(const Context& context, std::string_view url,
                                  const ZarrArraySpec& spec, const ZarrCreateOptions& options = {},
                                  const CallOptions& call = {});

// The array a creator made with `publish = false`, for another writer of it
// (a task or rank elsewhere): `zarr_json` is the creator's metadata as
// ZarrMetadataJson gives it, `codecs` the shorthand it was created with (""
// for the default encoders). Nothing is written. NotFound naming the marker
// key when no unpublished array is at `url` (never created, or published).
Result<ZarrArray> JoinUnpublishedZarrArray(const Context& context, std::string_view url,
                                           std::string_view zarr_json,
                                           std::string_view codecs = "");
// Writes the metadata of an array created with `publish = false`: call it
// once, after every writer has succeeded.
Status PublishZarrArray(ZarrArray& array);
// The array's metadata as zarr v3 zarr.json text (a v2 array's translated).
std::string ZarrMetadataJson(const ZarrArray& array);
// The byte order its chunks store elements in (the bytes codec's, the inner
// chunks' when sharded): what a reader that keeps byte order (numpy's ">u2")
// calls the array's dtype. Reads and writes are in host order regardless.
core::Endian ZarrByteOrder(const ZarrArray& array);

// Opens the zarr v3 or v2 array at `url`. NotFound naming the metadata key
// when there is no array there. The array runs on `call.threads` threads for
// as long as it lives where that is given, else on the context's pool for
// its store; `encoders` say how its chunks are written.
Result<ZarrArray> OpenZarrArray(const Context& context, std::string_view url,
                                const ZarrWriteEncoders& encoders = {},
                                const CallOptions& call = {});

// The elements of `region` in C order (little-endian). InvalidArgument if
// the region is not inside the array; Cancelled if the call (or the context,
// when the call has no flag of its own) was. Progress goes to the call's
// observer, else the context's. The array runs on the pool it was opened with.
Result<Bytes> ReadRegion(const Context& context, ZarrArray& array, const core::Region& region,
                         const CallOptions& call = {});
// As ReadRegion, into `out` (region.num_elements() elements): a caller's
// buffer, e.g. a numpy array. Cancelled mid-way leaves `out` partly filled.
Status ReadRegionInto(const Context& context, const ZarrArray& array, const core::Region& region,
                      void* out, const CallOptions& call = {});
// One whole decoded chunk, by its coordinates in the grid of chunks (of
// inner chunks when sharded: ZarrArrayMetadata's inner_chunk_shape, else
// chunk_shape), as a shared, immutable buffer of that chunk shape's
// elements in C order, host byte order. At the array's edge the chunk
// reaches past the array, as it is encoded; the elements there are not the
// array's (its box inside the array: the chunk's origin up to the shape).
// With the context's chunk cache on, the cache's own buffer when it holds
// the chunk (no copy; counted as a hit), else the chunk decoded into the
// cache; with it off, or a chunk larger than it, a buffer of its own. A
// chunk not stored is the fill value (not kept). The buffer outlives the
// array, the cache's entry and the context. InvalidArgument naming the
// coordinates and the grid when they are outside it; Corruption naming the
// key for a damaged chunk; Cancelled if the call (or the context) was.
Result<std::shared_ptr<const Bytes>> ReadChunk(const Context& context, const ZarrArray& array,
                                               const core::Coord& chunk,
                                               const CallOptions& call = {});
// Writes `data` (C order, little-endian) over `region`. Cancelled mid-way:
// the chunks written are whole, the rest untouched.
Status WriteRegion(const Context& context, ZarrArray& array, const core::Region& region,
                   ByteView data, const CallOptions& call = {});

// The destination's layout: what it leaves unset is the source's (its chunks,
// its shards unless `unsharded` or zarr v2, its codecs).
struct ZarrConversionLayout {
  std::optional<core::Shape> chunks;  // The (inner) chunk; absent: the source's.
  // zarr v3 only. Absent: the source's shards (none when the source is not
  // sharded or the destination is zarr v2), so that a copy with no choices
  // keeps the source's objects; `unsharded` drops them.
  std::optional<core::Shape> shards;
  bool unsharded = false;  // Not sharded, whatever the source; excludes `shards`.
  // Shorthand ("zstd:1", "blosc:lz4:5:shuffle+crc32c"); absent: the source's
  // bytes codecs, kept exactly as they are.
  std::optional<std::string> codecs;
  ZarrIndexLocation index_location = ZarrIndexLocation::kEnd;
  int zarr_format = 3;
};

// How ConvertZarrArray runs.
struct ZarrConvertOptions {
  // The checksum added to `layout.codecs` (options.h; absent: crc32c on a
  // zarr v3 destination). Without `layout.codecs` the source's codecs are
  // kept exactly, and a checksum other than the default or none is refused.
  std::optional<ChunkChecksum> checksum;
  bool overwrite = false;  // Replace an array or group already at the destination.
  bool resume = false;     // Finish an unpublished convert of the same source and layout.
  // The job's ranks (an MPI launch, docs/scale.md); null: this process alone.
  core::Communicator* ranks = nullptr;
  ZarrWriteEncoders encoders;
  // Called with a destination object's key before it is written; an error
  // fails the job there (a test seam for jobs stopped part-way). May be empty.
  std::function<Status(const std::string& object_key)> before_object;
};

// Copies the array at `source_url` into a new array at `destination_url` in
// `layout` (what it leaves unset is the source's: `zarr convert SRC DST`
// keeps the chunks, shards and codecs), on the call's threads or the
// context's pool, reporting to the call's progress and checking its
// cancellation before each object, the metadata written last (one job over
// the ranks given: docs/scale.md). InvalidArgument naming the field for a
// layout that does not fit, or naming the URL when something is there and
// neither overwrite nor resume was asked for.
Result<ZarrArray> ConvertZarrArray(const Context& context, std::string_view source_url,
                                   std::string_view destination_url,
                                   const ZarrConversionLayout& layout,
                                   const ZarrConvertOptions& options = {},
                                   const CallOptions& call = {});

// Where a shard's index lies: "end" or "start"; InvalidArgument otherwise.
Result<ZarrIndexLocation> ParseIndexLocation(std::string_view text);

// "0:10,5:7" in the array's own axis order, stop exclusive (core/region.h).
Result<core::Region> ParseRegion(std::string_view text, const ZarrArray& array);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_ZARR_ARRAYS_H_
