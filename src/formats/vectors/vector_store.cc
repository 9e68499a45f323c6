#include "formats/vectors/vector_store.h"

#include <algorithm>
#include <cmath>

#include "formats/vectors/blob_array.h"
#include "formats/vectors/layout.h"
#include "formats/vectors/vlen_array.h"
#include "formats/zarr/array.h"
#include "formats/zarr/array_metadata.h"
#include "store/batched_gets.h"

namespace chunkwise::formats::vectors {
namespace {

constexpr std::string_view kMetadataKey = "zarr.json";

std::string NormalizePrefix(std::string prefix) {
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  return prefix;
}

// Zarr v3 has no implicit groups: a reader that walks the hierarchy (zarr-python
// 3's members(), say) reaches a node only through group nodes above it. So every
// folder between the root and a group written here (links/, cross_chunk_links/,
// vertex_attributes/, ...) gets an attribute-less group node if it has none.
Status WriteMissingParentGroups(store::Store& store, const std::string& prefix,
                                const std::string& path) {
  for (std::size_t slash = path.find('/'); slash != std::string::npos && slash + 1 < path.size();
       slash = path.find('/', slash + 1)) {
    const std::string key = prefix + path.substr(0, slash + 1) + std::string(kMetadataKey);
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> existing, store.Get(key));
    if (existing) continue;
    CHUNKWISE_RETURN_IF_ERROR(
        store.Set(key, AsBytes(zarr::FormatV3Group(nlohmann::json::object()))));
  }
  return Status::Ok();
}

}  // namespace

VectorStore::VectorStore(std::shared_ptr<store::Store> store, std::string prefix,
                         RootMetadata metadata, VectorStoreOptions options)
    : store_(std::move(store)),
      prefix_(std::move(prefix)),
      metadata_(std::move(metadata)),
      pool_(options.pool ? options.pool : std::make_shared<core::ThreadPool>()),
      zstd_level_(options.zstd_level) {}

Result<VectorStore> VectorStore::Create(std::shared_ptr<store::Store> store, std::string prefix,
                                        RootMetadata metadata, bool overwrite,
                                        VectorStoreOptions options) {
  prefix = NormalizePrefix(std::move(prefix));
  CHUNKWISE_RETURN_IF_ERROR(
      zarr::ClearForOverwrite(*store, prefix, overwrite, zarr::DescribePrefix(*store, prefix)));
  VectorStore vectors(std::move(store), std::move(prefix), std::move(metadata), std::move(options));
  CHUNKWISE_RETURN_IF_ERROR(vectors.SetMetadata(vectors.metadata_));
  return vectors;
}

Result<VectorStore> VectorStore::CreateUnpublished(std::shared_ptr<store::Store> store,
                                                   std::string prefix, RootMetadata metadata,
                                                   bool overwrite, VectorStoreOptions options) {
  prefix = NormalizePrefix(std::move(prefix));
  CHUNKWISE_RETURN_IF_ERROR(zarr::CreateUnpublishedGroup(*store, prefix, overwrite));
  return VectorStore(std::move(store), std::move(prefix), std::move(metadata), std::move(options));
}

Status VectorStore::Publish() {
  if (metadata_.layout == LayoutVersion::k0_9) CHUNKWISE_RETURN_IF_ERROR(FinishArrays09());
  return zarr::PublishGroup(*store_, prefix_, 3, FormatRootAttributes(metadata_));
}

Result<VectorStore> VectorStore::Open(std::shared_ptr<store::Store> store, std::string prefix,
                                      VectorStoreOptions options) {
  prefix = NormalizePrefix(std::move(prefix));
  const std::string key = prefix + std::string(kMetadataKey);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> text, store->Get(key));
  if (!text) return Status::NotFound(store->Describe(key) + ": no zarr-vectors root (zarr.json)");
  const std::string described = store->Describe(key);
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json document,
                             zarr::ParseJsonDocument(AsChars(*text), described));
  if (!document.is_object() || !document.contains("node_type") ||
      document["node_type"] != "group") {
    return Status::InvalidArgument(described + ": the root is not a zarr v3 group");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      RootMetadata metadata,
      ParseRootAttributes(document.value("attributes", nlohmann::json::object()), described));
  return VectorStore(std::move(store), std::move(prefix), std::move(metadata), std::move(options));
}

Status VectorStore::SetMetadata(RootMetadata metadata) {
  metadata_ = std::move(metadata);
  return WriteGroup("", FormatRootAttributes(metadata_));
}

std::string VectorStore::Describe(const std::string& path) const {
  return store_->Describe(prefix_ + path);
}

Status VectorStore::WriteBlob(const std::string& path, ByteView blob) const {
  if (metadata_.layout == LayoutVersion::k0_9) return WriteCellOf09(path, blob);
  const std::string node = prefix_ + path;
  if (blob.empty()) return EraseAll(path);
  CHUNKWISE_ASSIGN_OR_RETURN(EncodedBlobArray encoded,
                             EncodeBlobArray(blob, zstd_level_, *blob_chains_));
  CHUNKWISE_RETURN_IF_ERROR(store_->Set(node + std::string(kBlobChunkKey), encoded.chunk));
  return store_->Set(node + std::string(kMetadataKey), AsBytes(encoded.metadata));
}

Result<std::optional<Bytes>> VectorStore::ReadBlob(const std::string& path) const {
  if (metadata_.layout == LayoutVersion::k0_9) return ReadCellOf09(path);
  const std::string node = prefix_ + path;
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> metadata,
                             GetValue(node + std::string(kMetadataKey)));
  if (!metadata) return std::optional<Bytes>();
  const std::string chunk_key = node + std::string(kBlobChunkKey);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> chunk, GetValue(chunk_key));
  if (!chunk) return Status::Corruption(store_->Describe(chunk_key) + ": blob chunk is missing");
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes blob, DecodeBlobArray(AsChars(*metadata), *chunk,
                                                         store_->Describe(node), *blob_chains_));
  return std::optional<Bytes>(std::move(blob));
}

Result<std::optional<Bytes>> VectorStore::GetValue(const std::string& key) const {
  if (fetched_ != nullptr) {
    if (auto found = fetched_->find(key); found != fetched_->end()) return found->second;
  }
  return store_->Get(key);
}

bool VectorStore::fetches_blobs_in_batches() const {
  return metadata_.layout != LayoutVersion::k0_9 && store::BatchesGets(*store_);
}

VectorStore VectorStore::WithBlobsFetched(std::span<const std::string> paths) const {
  VectorStore copy = *this;
  if (!fetches_blobs_in_batches()) return copy;
  std::vector<std::string> keys;
  keys.reserve(2 * paths.size());
  for (const std::string& path : paths) {
    keys.push_back(prefix_ + path + std::string(kMetadataKey));
    keys.push_back(prefix_ + path + std::string(kBlobChunkKey));
  }
  std::vector<Result<std::optional<Bytes>>> values = store::GetMany(*store_, keys);
  auto fetched = std::make_shared<std::map<std::string, Result<std::optional<Bytes>>>>();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    fetched->insert_or_assign(std::move(keys[i]), std::move(values[i]));
  }
  copy.fetched_ = std::move(fetched);
  return copy;
}

// A 0.8 blob path "<array>/<chunk_key>/" names the cell of that chunk in the
// 0.9 array "<array>/".
Result<std::optional<Bytes>> VectorStore::ReadCellOf09(const std::string& path) const {
  const std::size_t slash = path.size() > 1 ? path.rfind('/', path.size() - 2) : std::string::npos;
  if (slash == std::string::npos) return Status::InvalidArgument(Describe(path) + ": not a cell");
  const std::string array_path = path.substr(0, slash + 1);
  Result<ChunkCoord> chunk = ParseChunkKey(path.substr(slash + 1, path.size() - slash - 2));
  if (!chunk.ok()) return chunk.status().WithContext(Describe(path));
  std::shared_ptr<const VlenArray> array;
  {
    std::lock_guard lock(arrays09_->mutex);
    if (auto found = arrays09_->opened.find(array_path); found != arrays09_->opened.end())
      array = found->second;
  }
  if (!array) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<VlenArray> opened, OpenVlenArray(*this, array_path));
    if (!opened)
      return std::optional<Bytes>();  // Absent arrays are not kept: a writer may add them.
    array = std::make_shared<const VlenArray>(*std::move(opened));
    std::lock_guard lock(arrays09_->mutex);
    arrays09_->opened.emplace(array_path, array);
  }
  return ReadVlenCell(*this, *array, *chunk);
}

std::string VectorStore::DescribeBlob(const std::string& path) const {
  const std::size_t slash = path.size() > 1 ? path.rfind('/', path.size() - 2) : std::string::npos;
  if (metadata_.layout != LayoutVersion::k0_9 || slash == std::string::npos) return Describe(path);
  const std::string array_path = path.substr(0, slash + 1);
  Result<ChunkCoord> chunk = ParseChunkKey(path.substr(slash + 1, path.size() - slash - 2));
  if (!chunk.ok()) return Describe(path);
  ChunkCoord origin = Origin09();
  {
    std::lock_guard lock(arrays09_->mutex);
    if (auto found = arrays09_->opened.find(array_path); found != arrays09_->opened.end())
      origin = found->second->origin;
  }
  return Describe(array_path + v0_9::CellKey(*chunk, origin));
}

Status VectorStore::WriteCellOf09(const std::string& path, ByteView blob) const {
  const std::size_t slash = path.size() > 1 ? path.rfind('/', path.size() - 2) : std::string::npos;
  if (slash == std::string::npos) return Status::InvalidArgument(Describe(path) + ": not a cell");
  const std::string array_path = path.substr(0, slash + 1);
  CHUNKWISE_ASSIGN_OR_RETURN(ChunkCoord chunk,
                             ParseChunkKey(path.substr(slash + 1, path.size() - slash - 2)));
  if (blob.empty()) return Status::Ok();  // An absent cell is no data.
  CHUNKWISE_RETURN_IF_ERROR(
      store_->Set(prefix_ + array_path + v0_9::CellKey(chunk, Origin09()), EncodeVlenCell(blob)));
  std::lock_guard lock(arrays09_->mutex);
  arrays09_->cells[array_path].insert(chunk);
  return Status::Ok();
}

ChunkCoord VectorStore::Origin09() const {
  ChunkCoord origin{};
  for (int d = 0; d < kSpatialDims; ++d) {
    origin[d] =
        static_cast<std::int64_t>(std::floor(metadata_.bounds_min[d] / metadata_.chunk_shape[d]));
  }
  return origin;
}

Status VectorStore::FinishArrays09() const {
  std::lock_guard lock(arrays09_->mutex);
  const ChunkCoord origin = Origin09();
  for (const auto& [path, cells] : arrays09_->cells) {
    nlohmann::json attributes = arrays09_->attributes.contains(path)
                                    ? arrays09_->attributes.at(path)
                                    : nlohmann::json::object();
    nlohmann::json nonempty = nlohmann::json::array();
    std::array<std::int64_t, kSpatialDims> shape{1, 1, 1};
    for (const ChunkCoord& chunk : cells) {
      nonempty.push_back(FormatChunkKey(chunk));
      for (int d = 0; d < kSpatialDims; ++d)
        shape[d] = std::max<std::int64_t>(shape[d], chunk[d] - origin[d] + 1);
    }
    attributes[std::string(v0_9::kNonemptyKey)] = nonempty;
    attributes[std::string(v0_9::kOriginKey)] = origin;
    const nlohmann::json document = {
        {"zarr_format", 3},
        {"node_type", "array"},
        {"shape", shape},
        {"data_type", v0_9::kVlenDataType},
        {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {1, 1, 1}}}}}},
        {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
        {"fill_value", ""},
        {"codecs", {{{"name", v0_9::kVlenCodec}, {"configuration", nlohmann::json::object()}}}},
        {"attributes", attributes}};
    CHUNKWISE_RETURN_IF_ERROR(WriteMissingParentGroups(*store_, prefix_, path));
    CHUNKWISE_RETURN_IF_ERROR(
        store_->Set(prefix_ + path + std::string(kMetadataKey), AsBytes(document.dump(2))));
  }
  return Status::Ok();
}

Status VectorStore::WriteGroup(const std::string& path, const nlohmann::json& attributes) const {
  if (metadata_.layout == LayoutVersion::k0_9 && attributes.is_object() &&
      attributes.contains("zv_array") &&
      attributes.value("zv_array", std::string()) != v0_9::kLinksFamilyArray &&
      attributes.value("zv_array", std::string()) != v0_9::kLinkAttributeFamilyArray) {
    // A family: in 0.9 its attributes go on the family array.
    std::lock_guard lock(arrays09_->mutex);
    arrays09_->attributes[path] = attributes;
    return Status::Ok();
  }
  CHUNKWISE_RETURN_IF_ERROR(WriteMissingParentGroups(*store_, prefix_, path));
  const std::string text = zarr::FormatV3Group(attributes);
  return store_->Set(prefix_ + path + std::string(kMetadataKey), AsBytes(text));
}

Result<std::optional<nlohmann::json>> VectorStore::ReadGroupAttributes(
    const std::string& path) const {
  const std::string key = prefix_ + path + std::string(kMetadataKey);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> text, store_->Get(key));
  if (!text) return std::optional<nlohmann::json>();
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json document,
                             zarr::ParseJsonDocument(AsChars(*text), store_->Describe(key)));
  if (!document.is_object())
    return Status::InvalidArgument(store_->Describe(key) + ": not an object");
  nlohmann::json attributes = document.value("attributes", nlohmann::json::object());
  if (!attributes.is_object()) {
    return Status::InvalidArgument(store_->Describe(key) + ": attributes is not an object");
  }
  return std::optional<nlohmann::json>(std::move(attributes));
}

Result<std::vector<std::string>> VectorStore::ListChildren(const std::string& path) const {
  const std::string base = prefix_ + path;
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> keys, store_->List(base));
  std::vector<std::string> children;
  for (const std::string& key : keys) {
    const std::string_view rest = std::string_view(key).substr(base.size());
    const std::size_t slash = rest.find('/');
    if (slash == std::string_view::npos) continue;  // A key of the node itself (zarr.json).
    const std::string_view child = rest.substr(0, slash);
    if (children.empty() || children.back() != child) children.emplace_back(child);
  }
  std::sort(children.begin(), children.end());
  children.erase(std::unique(children.begin(), children.end()), children.end());
  return children;
}

Status VectorStore::EraseAll(const std::string& path) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> keys, store_->List(prefix_ + path));
  for (const std::string& key : keys) CHUNKWISE_RETURN_IF_ERROR(store_->Erase(key));
  return Status::Ok();
}

Result<LevelMetadata> VectorStore::ReadLevel(int level) const {
  const std::string path = layout::LevelPath(level);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<nlohmann::json> attributes, ReadGroupAttributes(path));
  if (!attributes)
    return Status::NotFound(Describe(path) + ": level " + std::to_string(level) + " is absent");
  return ParseLevelAttributes(*attributes, Describe(path + std::string(kMetadataKey)));
}

Status VectorStore::WriteLevel(const LevelMetadata& metadata) const {
  return WriteGroup(layout::LevelPath(metadata.level), FormatLevelAttributes(metadata));
}

}  // namespace chunkwise::formats::vectors
