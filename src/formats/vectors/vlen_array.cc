#include "formats/vectors/vlen_array.h"

#include <algorithm>

#include "codec/codec_registry.h"
#include "formats/vectors/layout.h"
#include "formats/zarr/array_metadata.h"

namespace chunkwise::formats::vectors {
namespace {

// No cell of ours or zarr-vectors' comes near this; it bounds a hostile codec.
constexpr std::size_t kMaxCellBytes = std::size_t{1} << 34;

const codec::CodecRegistry& Registry() {
  static const codec::CodecRegistry registry = codec::CodecRegistry::WithBuiltins();
  return registry;
}

Status Bad(const VectorStore& store, const std::string& path, const std::string& why) {
  return Status::InvalidArgument(store.Describe(path + "zarr.json") + ": " + why);
}

}  // namespace

Result<std::optional<VlenArray>> OpenVlenArray(const VectorStore& store, const std::string& path) {
  const std::string key = store.prefix() + path + "zarr.json";
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> text, store.raw_store()->Get(key));
  if (!text) return std::optional<VlenArray>();
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json document,
                             zarr::ParseJsonDocument(AsChars(*text), store.Describe(path)));
  if (!document.is_object() || document.value("node_type", "") != "array") {
    return Bad(store, path, "not an array node (a layout-0.9 family is one array)");
  }
  if (document.value("data_type", nlohmann::json()) != v0_9::kVlenDataType) {
    return Bad(store, path, "data_type is not " + std::string(v0_9::kVlenDataType));
  }
  const nlohmann::json& codecs = document.value("codecs", nlohmann::json());
  if (!codecs.is_array() || codecs.empty() || !codecs[0].is_object()) {
    return Bad(store, path, "codecs is not a non-empty list");
  }
  const std::string first = codecs[0].value("name", "");
  if (first == "sharding_indexed") {
    return Status::Unsupported(store.Describe(path) +
                               ": sharded layout-0.9 arrays are not read yet");
  }
  if (first != v0_9::kVlenCodec) {
    return Bad(store, path,
               "the first codec is " + first + ", not " + std::string(v0_9::kVlenCodec));
  }
  const nlohmann::json grid = document.value("chunk_grid", nlohmann::json::object());
  const nlohmann::json cells =
      grid.value("configuration", nlohmann::json::object()).value("chunk_shape", nlohmann::json());
  const nlohmann::json shape = document.value("shape", nlohmann::json());
  if (cells != nlohmann::json({1, 1, 1}) || !shape.is_array() || shape.size() != 3) {
    return Bad(store, path, "not a 3-d array of one-cell chunks");
  }
  VlenArray array;
  array.path = path;
  array.attributes = document.value("attributes", nlohmann::json::object());
  const nlohmann::json origin =
      array.attributes.value(std::string(v0_9::kOriginKey), nlohmann::json({0, 0, 0}));
  if (!origin.is_array() || origin.size() != 3) return Bad(store, path, "bad chunk_grid_origin");
  for (int d = 0; d < kSpatialDims; ++d) {
    if (!origin[d].is_number_integer()) return Bad(store, path, "bad chunk_grid_origin");
    array.origin[d] = origin[d].get<std::int64_t>();
  }
  const nlohmann::json nonempty =
      array.attributes.value(std::string(v0_9::kNonemptyKey), nlohmann::json::array());
  if (!nonempty.is_array()) return Bad(store, path, "nonempty_chunks is not a list");
  for (const nlohmann::json& entry : nonempty) {
    Result<ChunkCoord> chunk = entry.is_string()
                                   ? ParseChunkKey(entry.get<std::string>())
                                   : Result<ChunkCoord>(Status::InvalidArgument("not a string"));
    if (!chunk.ok()) {
      return Bad(
          store, path,
          "nonempty_chunks entry " + entry.dump() + ": " + std::string(chunk.status().message()));
    }
    array.nonempty.push_back(*chunk);
  }
  std::sort(array.nonempty.begin(), array.nonempty.end());
  CHUNKWISE_ASSIGN_OR_RETURN(array.compressors,
                             CompressorsAfterFirst(codecs, store.Describe(path + "zarr.json")));
  return std::optional<VlenArray>(std::move(array));
}

Result<std::shared_ptr<const codec::CodecChain>> CompressorsAfterFirst(const nlohmann::json& codecs,
                                                                       std::string_view where) {
  nlohmann::json compressors = nlohmann::json::array({{{"name", "bytes"}}});
  for (std::size_t i = 1; i < codecs.size(); ++i) compressors.push_back(codecs[i]);
  Result<codec::CodecChain> chain = codec::CodecChain::FromJson(compressors, Registry());
  if (!chain.ok()) return chain.status().WithContext(where);
  return std::make_shared<const codec::CodecChain>(*std::move(chain));
}

Result<std::optional<Bytes>> ReadVlenCell(const VectorStore& store, const VlenArray& array,
                                          const ChunkCoord& chunk) {
  const std::string cell = array.path + v0_9::CellKey(chunk, array.origin);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> stored,
                             store.raw_store()->Get(store.prefix() + cell));
  if (!stored) return std::optional<Bytes>();
  Result<Bytes> plain = array.compressors->DecodeBytes(*stored, kMaxCellBytes);
  if (!plain.ok()) return plain.status().WithContext(store.Describe(cell));
  if (plain->size() < 8 || LoadLittleEndian<std::uint32_t>(plain->data()) != 1) {
    return Status::Corruption(store.Describe(cell) + ": not one vlen-bytes element");
  }
  const std::uint32_t length = LoadLittleEndian<std::uint32_t>(plain->data() + 4);
  if (plain->size() != 8 + static_cast<std::size_t>(length)) {
    return Status::Corruption(store.Describe(cell) + ": element length " + std::to_string(length) +
                              " does not match the " + std::to_string(plain->size() - 8) +
                              " bytes stored");
  }
  if (length == 0) return std::optional<Bytes>();
  return std::optional<Bytes>(Bytes(plain->begin() + 8, plain->end()));
}

Bytes EncodeVlenCell(ByteView element) {
  Bytes cell(8 + element.size());
  StoreLittleEndian(std::uint32_t{1}, cell.data());
  StoreLittleEndian(static_cast<std::uint32_t>(element.size()), cell.data() + 4);
  std::copy(element.begin(), element.end(), cell.begin() + 8);
  return cell;
}

}  // namespace chunkwise::formats::vectors
