#include "formats/vectors/object_index.h"

#include <algorithm>
#include <iterator>
#include <limits>

#include "formats/vectors/layout.h"
#include "formats/vectors/vlen_array.h"
#include "formats/zarr/array_metadata.h"

namespace chunkwise::formats::vectors {
namespace {

constexpr std::uint8_t kModeSingle = 0, kModeRange = 1, kModeList = 2;
// Rows per chunk of the two arrays, as zarr-vectors 0.9.2 writes them.
constexpr std::int64_t kRowsPerChunk = 16384;
// Bounds what a hostile shape can make us allocate or fetch.
constexpr std::int64_t kMaxObjects = std::int64_t{1} << 31;
constexpr std::size_t kMaxChunkBytes = std::size_t{1} << 34;

// Reads manifests front to back; every load is checked against the end.
class Cursor {
 public:
  explicit Cursor(ByteView bytes) : bytes_(bytes) {}
  bool Has(std::size_t n) const { return bytes_.size() - at_ >= n; }
  template <typename T>
  T Take() {
    const T value = LoadLittleEndian<T>(bytes_.data() + at_);
    at_ += sizeof(T);
    return value;
  }
  std::size_t remaining() const { return bytes_.size() - at_; }

 private:
  ByteView bytes_;
  std::size_t at_ = 0;
};

Status Truncated(std::string_view where, std::uint32_t block, std::string_view what) {
  return Status::Corruption(std::string(where) + ": object manifest block " +
                            std::to_string(block) + " is cut short in its " + std::string(what));
}

// The metadata of one of the two 1-d object_index arrays.
struct Array1D {
  std::string path;  // Layout path ("<level>/object_index/manifests/").
  std::int64_t size = 0;
  std::int64_t rows_per_chunk = 1;
  std::shared_ptr<const codec::CodecChain> compressors;
};

Result<std::optional<Array1D>> OpenArray1D(const VectorStore& store, const std::string& path,
                                           std::string_view data_type,
                                           std::string_view first_codec) {
  const std::string described = store.Describe(path + "zarr.json");
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> text,
                             store.raw_store()->Get(store.prefix() + path + "zarr.json"));
  if (!text) return std::optional<Array1D>();
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json document,
                             zarr::ParseJsonDocument(AsChars(*text), described));
  const auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(described + ": " + why);
  };
  if (!document.is_object() || document.value("node_type", "") != "array")
    return bad("not an array node");
  if (document.value("data_type", nlohmann::json()) != data_type)
    return bad("data_type is not " + std::string(data_type));
  const nlohmann::json shape = document.value("shape", nlohmann::json());
  const nlohmann::json chunks = document.value("chunk_grid", nlohmann::json::object())
                                    .value("configuration", nlohmann::json::object())
                                    .value("chunk_shape", nlohmann::json());
  if (!shape.is_array() || shape.size() != 1 || !shape[0].is_number_integer() ||
      !chunks.is_array() || chunks.size() != 1 || !chunks[0].is_number_integer()) {
    return bad("not a 1-d array with a regular chunk grid");
  }
  Array1D array{path, shape[0].get<std::int64_t>(), chunks[0].get<std::int64_t>(), nullptr};
  if (array.size < 0 || array.size > kMaxObjects || array.rows_per_chunk < 1 ||
      array.rows_per_chunk > kMaxObjects) {
    return bad("shape " + shape.dump() + " or chunk shape " + chunks.dump() + " is out of range");
  }
  const nlohmann::json& codecs = document.value("codecs", nlohmann::json());
  if (!codecs.is_array() || codecs.empty() || !codecs[0].is_object() ||
      codecs[0].value("name", "") != first_codec) {
    return bad("the first codec is not " + std::string(first_codec));
  }
  const nlohmann::json endian =
      codecs[0].value("configuration", nlohmann::json::object()).value("endian", "little");
  if (endian != "little") return bad("only little-endian " + std::string(first_codec) + " is read");
  CHUNKWISE_ASSIGN_OR_RETURN(array.compressors, CompressorsAfterFirst(codecs, described));
  return std::optional<Array1D>(std::move(array));
}

// Chunk `c` of `array`, decompressed; nullopt when it is absent (all fill).
Result<std::optional<Bytes>> ReadChunk1D(const VectorStore& store, const Array1D& array,
                                         std::int64_t c) {
  const std::string key = array.path + "c/" + std::to_string(c);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> stored,
                             store.raw_store()->Get(store.prefix() + key));
  if (!stored) return std::optional<Bytes>();
  Result<Bytes> plain = array.compressors->DecodeBytes(*stored, kMaxChunkBytes);
  if (!plain.ok()) return plain.status().WithContext(store.Describe(key));
  return std::optional<Bytes>(*std::move(plain));
}

// The rows of the int64 object_ids array (absent chunks are the fill, 0).
Result<std::vector<std::int64_t>> ReadIds(const VectorStore& store, const Array1D& array) {
  std::vector<std::int64_t> ids(array.size, 0);
  for (std::int64_t first = 0, c = 0; first < array.size; first += array.rows_per_chunk, ++c) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> chunk, ReadChunk1D(store, array, c));
    if (!chunk) continue;
    const std::int64_t rows = std::min(array.rows_per_chunk, array.size - first);
    // A whole chunk, or (some writers) only the rows inside the shape.
    if (chunk->size() != static_cast<std::size_t>(array.rows_per_chunk) * 8 &&
        chunk->size() != static_cast<std::size_t>(rows) * 8) {
      return Status::Corruption(store.Describe(array.path + "c/" + std::to_string(c)) + ": " +
                                std::to_string(chunk->size()) + " bytes are not " +
                                std::to_string(rows) + " int64 ids");
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      ids[first + r] =
          static_cast<std::int64_t>(LoadLittleEndian<std::uint64_t>(chunk->data() + 8 * r));
    }
  }
  return ids;
}

// Calls `each(row, element)` for the elements of the vlen-bytes manifests array.
template <typename Each>
Status ForEachManifest(const VectorStore& store, const Array1D& array, Each each) {
  for (std::int64_t first = 0, c = 0; first < array.size; first += array.rows_per_chunk, ++c) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> chunk, ReadChunk1D(store, array, c));
    if (!chunk) continue;
    const std::string where = store.Describe(array.path + "c/" + std::to_string(c));
    const std::int64_t rows = std::min(array.rows_per_chunk, array.size - first);
    Cursor cursor(*chunk);
    if (!cursor.Has(4)) return Status::Corruption(where + ": no vlen-bytes element count");
    const std::uint32_t count = cursor.Take<std::uint32_t>();
    if (count < rows) {
      return Status::Corruption(where + ": " + std::to_string(count) + " elements for " +
                                std::to_string(rows) + " object rows");
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      if (!cursor.Has(4))
        return Status::Corruption(where + ": element " + std::to_string(r) + " is cut short");
      const std::uint32_t length = cursor.Take<std::uint32_t>();
      if (!cursor.Has(length)) {
        return Status::Corruption(where + ": element " + std::to_string(r) + " claims " +
                                  std::to_string(length) + " bytes, " +
                                  std::to_string(cursor.remaining()) + " remain");
      }
      const std::size_t at = chunk->size() - cursor.remaining();
      CHUNKWISE_RETURN_IF_ERROR(each(first + r, ByteView(chunk->data() + at, length), where));
      for (std::uint32_t skip = 0; skip < length; ++skip) cursor.Take<std::uint8_t>();
    }
  }
  return Status::Ok();
}

std::string ObjectIndexPath(int level) { return v0_8::FamilyPath(level, v0_9::kObjectIndexDir); }

nlohmann::json ArrayDocument(std::int64_t size, std::string_view data_type,
                             const nlohmann::json& fill, const nlohmann::json& codec) {
  return {{"zarr_format", 3},
          {"node_type", "array"},
          {"shape", {size}},
          {"data_type", data_type},
          {"chunk_grid",
           {{"name", "regular"},
            {"configuration", {{"chunk_shape", {std::min(size, kRowsPerChunk)}}}}}},
          {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
          {"fill_value", fill},
          {"codecs", {codec}},
          {"attributes", nlohmann::json::object()}};
}

// Records `range` as `id`'s; Corruption when another object claims part of it.
Status Claim(ChunkOwners& owners, const FragmentRange& range, std::int64_t id,
             const ChunkCoord& chunk, const std::string& where) {
  const std::int64_t end = range.start + range.count;
  auto next = owners.lower_bound(range.start);
  const bool overlaps_next = next != owners.end() && next->first < end;
  const bool overlaps_previous =
      next != owners.begin() && std::prev(next)->second.end > range.start;
  if (overlaps_next || overlaps_previous) {
    const OwnedRange& other = overlaps_next ? next->second : std::prev(next)->second;
    if (other.id == id) return Status::Ok();  // A fragment named twice by its own object.
    return Status::Corruption(where + ": fragment " + std::to_string(range.start) + " of chunk " +
                              FormatChunkKey(chunk) + " is claimed by objects " +
                              std::to_string(other.id) + " and " + std::to_string(id));
  }
  owners.emplace(range.start, OwnedRange{end, id});
  return Status::Ok();
}

}  // namespace

std::optional<std::int64_t> OwnerOf(const ChunkOwners& owners, std::int64_t fragment) {
  auto after = owners.upper_bound(fragment);
  if (after == owners.begin()) return std::nullopt;
  const auto& [start, owned] = *std::prev(after);
  if (fragment >= owned.end) return std::nullopt;
  return owned.id;
}

Result<std::vector<ManifestBlock>> DecodeObjectManifest(ByteView blob, std::string_view where) {
  Cursor cursor(blob);
  if (!cursor.Has(4))
    return Status::Corruption(std::string(where) + ": object manifest has no block count");
  const std::uint32_t count = cursor.Take<std::uint32_t>();
  std::vector<ManifestBlock> blocks;
  for (std::uint32_t b = 0; b < count; ++b) {
    if (!cursor.Has(3 * 8 + 1)) return Truncated(where, b, "chunk and mode");
    ManifestBlock block;
    for (int d = 0; d < kSpatialDims; ++d)
      block.chunk[d] = static_cast<std::int64_t>(cursor.Take<std::uint64_t>());
    const std::uint8_t mode = cursor.Take<std::uint8_t>();
    if (mode == kModeSingle) {
      if (!cursor.Has(8)) return Truncated(where, b, "fragment");
      block.fragments.push_back({static_cast<std::int64_t>(cursor.Take<std::uint64_t>()), 1});
    } else if (mode == kModeRange) {
      if (!cursor.Has(16)) return Truncated(where, b, "range");
      const auto start = static_cast<std::int64_t>(cursor.Take<std::uint64_t>());
      const auto n = static_cast<std::int64_t>(cursor.Take<std::uint64_t>());
      if (n < 0 || start > std::numeric_limits<std::int64_t>::max() - n) {
        return Status::Corruption(std::string(where) + ": object manifest block " +
                                  std::to_string(b) + " has the range " + std::to_string(start) +
                                  " + " + std::to_string(n));
      }
      if (n > 0) block.fragments.push_back({start, n});
    } else if (mode == kModeList) {
      if (!cursor.Has(4)) return Truncated(where, b, "fragment count");
      const std::uint32_t n = cursor.Take<std::uint32_t>();
      if (!cursor.Has(std::size_t{n} * 8)) return Truncated(where, b, "fragment list");
      for (std::uint32_t f = 0; f < n; ++f)
        block.fragments.push_back({static_cast<std::int64_t>(cursor.Take<std::uint64_t>()), 1});
    } else {
      return Status::Corruption(std::string(where) + ": object manifest block " +
                                std::to_string(b) + " has the unknown mode " +
                                std::to_string(mode));
    }
    for (const FragmentRange& range : block.fragments) {
      if (range.start < 0) {
        return Status::Corruption(std::string(where) + ": object manifest block " +
                                  std::to_string(b) + " names fragment " +
                                  std::to_string(range.start));
      }
    }
    blocks.push_back(std::move(block));
  }
  if (cursor.remaining() != 0) {
    return Status::Corruption(std::string(where) + ": " + std::to_string(cursor.remaining()) +
                              " bytes follow the object manifest's " + std::to_string(count) +
                              " blocks");
  }
  return blocks;
}

Bytes EncodeObjectManifest(std::span<const ManifestBlock> blocks) {
  Bytes out;
  AppendLittleEndian(static_cast<std::uint32_t>(blocks.size()), out);
  for (const ManifestBlock& block : blocks) {
    for (int d = 0; d < kSpatialDims; ++d)
      AppendLittleEndian(static_cast<std::uint64_t>(block.chunk[d]), out);
    const std::vector<FragmentRange>& f = block.fragments;
    if (f.size() == 1 && f[0].count == 1) {
      out.push_back(kModeSingle);
      AppendLittleEndian(static_cast<std::uint64_t>(f[0].start), out);
    } else if (f.size() == 1) {
      out.push_back(kModeRange);
      AppendLittleEndian(static_cast<std::uint64_t>(f[0].start), out);
      AppendLittleEndian(static_cast<std::uint64_t>(f[0].count), out);
    } else {
      std::vector<std::int64_t> listed;
      for (const FragmentRange& range : f) {
        for (std::int64_t i = 0; i < range.count; ++i) listed.push_back(range.start + i);
      }
      out.push_back(kModeList);
      AppendLittleEndian(static_cast<std::uint32_t>(listed.size()), out);
      for (const std::int64_t fragment : listed)
        AppendLittleEndian(static_cast<std::uint64_t>(fragment), out);
    }
  }
  return out;
}

Result<std::optional<FragmentOwners>> ReadObjectIndex(const VectorStore& store, int level) {
  const std::string base = ObjectIndexPath(level);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Array1D> manifests,
                             OpenArray1D(store, base + std::string(v0_9::kManifestsArray) + "/",
                                         v0_9::kVlenDataType, v0_9::kVlenCodec));
  if (!manifests) return std::optional<FragmentOwners>();
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::optional<Array1D> id_array,
      OpenArray1D(store, base + std::string(v0_9::kObjectIdsArray) + "/", "int64", "bytes"));
  std::vector<std::int64_t> ids;
  if (id_array) {
    if (id_array->size != manifests->size) {
      return Status::Corruption(store.Describe(id_array->path + "zarr.json") + ": " +
                                std::to_string(id_array->size) + " ids for " +
                                std::to_string(manifests->size) + " manifests");
    }
    CHUNKWISE_ASSIGN_OR_RETURN(ids, ReadIds(store, *id_array));
  }
  FragmentOwners owners;
  CHUNKWISE_RETURN_IF_ERROR(ForEachManifest(
      store, *manifests,
      [&](std::int64_t row, ByteView element, const std::string& where) -> Status {
        // Without object_ids (the older layout) the row is the id.
        const std::int64_t id = id_array ? ids[row] : row;
        const std::string named = where + " (object row " + std::to_string(row) + ")";
        if (element.empty()) return Status::Ok();  // The fill: no object in this row.
        CHUNKWISE_ASSIGN_OR_RETURN(std::vector<ManifestBlock> blocks,
                                   DecodeObjectManifest(element, named));
        for (const ManifestBlock& block : blocks) {
          for (const FragmentRange& range : block.fragments) {
            CHUNKWISE_RETURN_IF_ERROR(Claim(owners[block.chunk], range, id, block.chunk, named));
          }
        }
        return Status::Ok();
      }));
  return std::optional<FragmentOwners>(std::move(owners));
}

Status WriteObjectIndex(const VectorStore& store, int level,
                        std::span<const ObjectManifest> objects) {
  store::Store& raw = *store.raw_store();
  const std::string base = store.prefix() + ObjectIndexPath(level);
  const auto size = static_cast<std::int64_t>(objects.size());
  const std::string manifests = base + std::string(v0_9::kManifestsArray) + "/";
  const std::string ids = base + std::string(v0_9::kObjectIdsArray) + "/";
  for (std::int64_t first = 0, c = 0; first < size; first += kRowsPerChunk, ++c) {
    // zarr stores whole chunks: the last one is padded with empty rows (id 0).
    const std::int64_t rows = std::min(kRowsPerChunk, size);
    Bytes elements, id_bytes;
    AppendLittleEndian(static_cast<std::uint32_t>(rows), elements);
    for (std::int64_t r = first; r < first + rows; ++r) {
      const Bytes manifest = r < size ? EncodeObjectManifest(objects[r].blocks) : Bytes();
      AppendLittleEndian(static_cast<std::uint32_t>(manifest.size()), elements);
      elements.insert(elements.end(), manifest.begin(), manifest.end());
      AppendLittleEndian(static_cast<std::uint64_t>(r < size ? objects[r].id : 0), id_bytes);
    }
    CHUNKWISE_RETURN_IF_ERROR(raw.Set(manifests + "c/" + std::to_string(c), elements));
    CHUNKWISE_RETURN_IF_ERROR(raw.Set(ids + "c/" + std::to_string(c), id_bytes));
  }
  const nlohmann::json vlen = {{"name", v0_9::kVlenCodec},
                               {"configuration", nlohmann::json::object()}};
  const nlohmann::json little = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
  CHUNKWISE_RETURN_IF_ERROR(
      raw.Set(manifests + "zarr.json",
              AsBytes(ArrayDocument(size, v0_9::kVlenDataType, "", vlen).dump(2))));
  CHUNKWISE_RETURN_IF_ERROR(
      raw.Set(ids + "zarr.json", AsBytes(ArrayDocument(size, "int64", 0, little).dump(2))));
  const bool sorted =
      std::is_sorted(objects.begin(), objects.end(),
                     [](const ObjectManifest& a, const ObjectManifest& b) { return a.id < b.id; });
  const nlohmann::json attributes = {{"zv_array", "object_index"},
                                     {"num_objects", size},
                                     {"num_present", size},
                                     {"sid_ndim", kSpatialDims},
                                     {"layout", v0_9::kObjectIndexLayout},
                                     {"object_ids_sorted", sorted}};
  return raw.Set(base + "zarr.json", AsBytes(zarr::FormatV3Group(attributes)));
}

}  // namespace chunkwise::formats::vectors
