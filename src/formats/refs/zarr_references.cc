#include "formats/refs/zarr_references.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "core/ravel.h"
#include "formats/zarr/array.h"
#include "formats/zarr/array_metadata.h"
#include "formats/zarr/sharding_codec.h"

namespace chunkwise::formats::refs {
namespace {

using store::Reference;
using zarr::Array;
using zarr::ArrayMetadata;

Reference InlineText(std::string_view text) {
  return Reference::Inline(CopyToBytes(AsBytes(text)));
}

// The v2 form of `metadata` with `chunk_shape` and `codecs` in place of its own.
Result<ArrayMetadata> V2View(ArrayMetadata metadata, core::Shape chunk_shape, nlohmann::json codecs,
                             const std::string& where) {
  metadata.zarr_format = 2;
  metadata.chunk_shape = std::move(chunk_shape);
  metadata.codecs = std::move(codecs);
  metadata.chunk_key_encoding = zarr::ChunkKeyEncoding::V2('.');
  Result<std::string> zarray = zarr::FormatV2Zarray(metadata);
  if (!zarray.ok()) {
    return Status::InvalidArgument(where + ": a zarr v2 view cannot express this array: " +
                                   std::string(zarray.status().message()));
  }
  return metadata;
}

// The bytes a crc32c codec last in `codecs` appends to each chunk (its
// checksum, which a zarr v2 view has no codec for), and `codecs` without it.
// The view references each chunk short of those bytes: it reads the same
// data, unverified (docs/formats/refs.md).
std::uint64_t DropTrailingCrc32c(nlohmann::json& codecs) {
  if (!codecs.is_array() || codecs.empty()) return 0;
  const nlohmann::json& last = codecs.back();
  const bool crc32c = last == "crc32c" || (last.is_object() && last.value("name", "") == "crc32c");
  if (!crc32c) return 0;
  codecs.erase(codecs.size() - 1);
  return 4;
}

class ArrayReferenceBuilder {
 public:
  ArrayReferenceBuilder(std::shared_ptr<store::Store> store, const ZarrReferenceOptions& options,
                        ReferenceSet& out)
      : store_(std::move(store)), options_(options), out_(out) {}

  // The array at store prefix `array_prefix`, keyed as `out_prefix` + key.
  Status Build(const std::string& array_prefix, const std::string& out_prefix) {
    CHUNKWISE_ASSIGN_OR_RETURN(Array array, Array::Open(store_, array_prefix));
    const ArrayMetadata& metadata = array.metadata();
    const std::string where =
        "array " + (options_.url_base.empty() ? store_->Describe(array_prefix)
                                              : options_.url_base + array_prefix);
    const zarr::ShardingCodec* sharding = array.sharding();
    nlohmann::json codecs =
        sharding != nullptr ? sharding->inner_codecs().ToJson() : nlohmann::json(metadata.codecs);
    checksum_bytes_ = DropTrailingCrc32c(codecs);
    CHUNKWISE_ASSIGN_OR_RETURN(
        const ArrayMetadata view,
        V2View(metadata, sharding != nullptr ? sharding->chunk_shape() : metadata.chunk_shape,
               std::move(codecs), where));
    CHUNKWISE_ASSIGN_OR_RETURN(const std::string zarray, zarr::FormatV2Zarray(view));
    out_.Set(out_prefix + ".zarray", InlineText(zarray));
    out_.Set(out_prefix + ".zattrs", InlineText(zarr::FormatV2Zattrs(view)));
    CHUNKWISE_ASSIGN_OR_RETURN(const core::RegularChunkGrid view_grid,
                               core::RegularChunkGrid::Create(view.shape, view.chunk_shape));
    // The stored objects a listing finds, or every grid key from a store
    // that cannot list them all.
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::vector<core::Index>> listed,
                               array.ListStoredObjects());
    const core::RegularChunkGrid& grid = array.grid();
    const auto visit = [&](core::Index i) -> Status {
      if (options_.cancellation != nullptr) {
        CHUNKWISE_RETURN_IF_ERROR(options_.cancellation->Check("building references to " +
                                                               store_->Describe(array_prefix)));
      }
      if (!options_.part.Owns(next_unit_++)) return Status::Ok();
      const core::Coord coord = core::Unravel(i, grid.grid_shape());
      const std::string key = array.ChunkKey(coord);
      if (sharding == nullptr) {
        CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::uint64_t> size, store_->Size(key));
        if (!size) return Status::Ok();
        const std::string view_key = out_prefix + view.chunk_key_encoding.Key(coord);
        if (checksum_bytes_ == 0) {
          out_.Add(view_key, Reference::WholeFile(options_.url_base + key));
        } else {
          CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t length, WithoutChecksum(*size, key));
          out_.Add(view_key, Reference::Range(options_.url_base + key, 0, length));
        }
      } else {
        // The shard's reader finds whether it is there: no size request first.
        CHUNKWISE_RETURN_IF_ERROR(
            AddShard(array, *sharding, coord, key, view, view_grid, out_prefix));
      }
      if (options_.progress != nullptr) options_.progress->Add(1);
      return Status::Ok();
    };
    if (listed) {
      for (const core::Index i : *listed) CHUNKWISE_RETURN_IF_ERROR(visit(i));
      return Status::Ok();
    }
    for (core::Index i = 0; i < grid.num_chunks(); ++i) CHUNKWISE_RETURN_IF_ERROR(visit(i));
    return Status::Ok();
  }

 private:
  Status AddShard(const Array& array, const zarr::ShardingCodec& sharding, const core::Coord& shard,
                  const std::string& key, const ArrayMetadata& view,
                  const core::RegularChunkGrid& view_grid, const std::string& out_prefix) {
    const core::RegularChunkGrid inner = sharding.InnerGrid(array.metadata().chunk_shape);
    const auto n = static_cast<std::size_t>(inner.num_chunks());
    // The index through the shard's own view: the one path to shard bytes.
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<zarr::ShardIndex> stored,
                               array.Shard(shard).ReadIndex());
    if (!stored) return Status::Ok();  // Not there: removed since it was listed, or a grid walk.
    const zarr::ShardIndex& index = *stored;
    const core::Shape& per_shard = inner.grid_shape();
    core::Coord global(per_shard.size());
    for (std::size_t k = 0; k < n; ++k) {
      const zarr::ChunkLocation& location = index.at(k);
      if (location.empty()) continue;
      const core::Coord local = core::Unravel(static_cast<core::Index>(k), per_shard);
      for (std::size_t d = 0; d < global.size(); ++d)
        global[d] = shard[d] * per_shard[d] + local[d];
      // Inner chunks of an edge shard that lie wholly outside the array hold nothing readable.
      if (!view_grid.ContainsChunk(global)) continue;
      CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t length, WithoutChecksum(location.nbytes, key));
      out_.Add(out_prefix + view.chunk_key_encoding.Key(global),
               Reference::Range(options_.url_base + key, location.offset, length));
    }
    return Status::Ok();
  }

  // A chunk's length short of its crc32c checksum; Corruption naming the
  // object for one too short to hold it.
  Result<std::uint64_t> WithoutChecksum(std::uint64_t nbytes, const std::string& key) const {
    if (nbytes < checksum_bytes_) {
      return Status::Corruption(store_->Describe(key) + ": a chunk of " + std::to_string(nbytes) +
                                " bytes is too short to end with its crc32c checksum");
    }
    return nbytes - checksum_bytes_;
  }

  std::shared_ptr<store::Store> store_;
  const ZarrReferenceOptions& options_;
  ReferenceSet& out_;
  std::uint64_t next_unit_ = 0;       // Chunks of every array, numbered in the order built.
  std::uint64_t checksum_bytes_ = 0;  // The array's, cut from each reference (4 or 0).
};

// Adds `.zgroup` (and `.zattrs`) for the group whose metadata is at `key`.
Status AddGroup(store::Store& store, const std::string& key, std::string_view name,
                const std::string& out_prefix, ReferenceSet& out) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> text, store.Get(key));
  if (!text) return Status::NotFound(store.Describe(key) + " disappeared while read");
  CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::json document,
                             zarr::ParseJsonDocument(AsChars(*text), store.Describe(key)));
  out.Set(out_prefix + ".zgroup", InlineText(zarr::FormatV2Group()));
  nlohmann::json attributes = nlohmann::json::object();
  if (name == zarr::kZarrJsonKey && document.is_object() && document.contains("attributes")) {
    attributes = document["attributes"];
  }
  if (!attributes.empty()) out.Set(out_prefix + ".zattrs", InlineText(attributes.dump(4)));
  return Status::Ok();
}

bool IsV3Group(store::Store& store, const std::string& key) {
  Result<std::optional<Bytes>> text = store.Get(key);
  if (!text.ok() || !text->has_value()) return false;
  Result<nlohmann::json> document = zarr::ParseJsonDocument(AsChars(**text), key);
  return document.ok() && document->is_object() && document->value("node_type", "") == "group";
}

}  // namespace

Result<ReferenceSet> BuildZarrReferences(std::shared_ptr<store::Store> store,
                                         const std::string& prefix,
                                         const ZarrReferenceOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store->List(prefix));
  ReferenceSet out;
  ArrayReferenceBuilder arrays(store, options, out);
  bool found = false;
  for (const std::string& key : keys) {
    const std::size_t slash = key.rfind('/');
    const std::string_view name =
        std::string_view(key).substr(slash == std::string::npos ? 0 : slash + 1);
    const std::string node_prefix = key.substr(0, key.size() - name.size());
    const std::string out_prefix = node_prefix.substr(prefix.size());
    if (name == zarr::kZgroupKey) {
      CHUNKWISE_RETURN_IF_ERROR(AddGroup(*store, key, name, out_prefix, out));
    } else if (name == zarr::kZarrJsonKey && IsV3Group(*store, key)) {
      CHUNKWISE_RETURN_IF_ERROR(AddGroup(*store, key, name, out_prefix, out));
    } else if (name == zarr::kZarrJsonKey || name == zarr::kZarrayKey) {
      // A v2 array's .zarray and a v3 array's zarr.json never share a prefix in
      // a valid hierarchy; if they do, the array opens as v3 and is built once.
      if (name == zarr::kZarrayKey && out.Find(out_prefix + ".zarray")->has_value()) continue;
      CHUNKWISE_RETURN_IF_ERROR(arrays.Build(node_prefix, out_prefix));
    } else {
      continue;
    }
    found = true;
  }
  if (!found) {
    return Status::NotFound(store->Describe(prefix.empty() ? "." : prefix) +
                            " holds no zarr array or group");
  }
  return out;
}

}  // namespace chunkwise::formats::refs
