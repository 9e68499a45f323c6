#include "pipelines/meshing/mesh_scratch.h"

#include <bit>
#include <string_view>

namespace chunkwise::pipelines {
namespace {

constexpr std::uint32_t kVersion = 1;
constexpr std::string_view kPiecesMagic = "CWMP";
constexpr std::string_view kLabelsMagic = "CWML";
constexpr std::string_view kMergedMagic = "CWMM";

class Writer {
 public:
  void Magic(std::string_view magic) { out_.insert(out_.end(), magic.begin(), magic.end()); }
  void U32(std::uint32_t value) { Put(value, 4); }
  void U64(std::uint64_t value) { Put(value, 8); }
  void F32(float value) { U32(std::bit_cast<std::uint32_t>(value)); }
  void Stamp(std::string_view magic, const ScratchStamp& stamp) {
    Magic(magic);
    U32(kVersion);
    U32(stamp.parts);
    U32(stamp.part);
    U64(stamp.group);
  }
  Bytes Take() { return std::move(out_); }

 private:
  void Put(std::uint64_t value, int size) {
    for (int i = 0; i < size; ++i) out_.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  }
  Bytes out_;
};

// Reads fields in order; any read past the end, or a count larger than the
// bytes left could hold, is Corruption naming the object.
class Reader {
 public:
  Reader(ByteView bytes, const std::string& name) : bytes_(bytes), name_(name) {}

  Status Error(const std::string& what) const {
    return Status::Corruption(name_ + ": not a chunkwise mesh scratch object this job wrote (" +
                              what + " at byte " + std::to_string(at_) + ")");
  }
  Result<std::uint64_t> Get(int size) {
    if (bytes_.size() - at_ < static_cast<std::size_t>(size)) return Error("cut short");
    std::uint64_t value = 0;
    for (int i = 0; i < size; ++i) value |= static_cast<std::uint64_t>(bytes_[at_ + i]) << (8 * i);
    at_ += static_cast<std::size_t>(size);
    return value;
  }
  Result<std::uint64_t> U64() { return Get(8); }
  Result<std::uint32_t> U32() {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t value, Get(4));
    return static_cast<std::uint32_t>(value);
  }
  Result<float> F32() {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint32_t value, U32());
    return std::bit_cast<float>(value);
  }
  // A count of items of `item_bytes` each, refused where the rest cannot hold them.
  Result<std::uint64_t> Count(std::uint64_t item_bytes) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t count, U64());
    if (item_bytes != 0 && count > (bytes_.size() - at_) / item_bytes) {
      return Error("a count of " + std::to_string(count) + " past the end");
    }
    return count;
  }
  Status Stamp(std::string_view magic, const ScratchStamp& expected) {
    if (bytes_.size() < magic.size() ||
        std::string_view(reinterpret_cast<const char*>(bytes_.data()), magic.size()) != magic) {
      return Error("no " + std::string(magic) + " magic");
    }
    at_ = magic.size();
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint32_t version, U32());
    if (version != kVersion) return Error("version " + std::to_string(version));
    ScratchStamp stamp;
    CHUNKWISE_ASSIGN_OR_RETURN(stamp.parts, U32());
    CHUNKWISE_ASSIGN_OR_RETURN(stamp.part, U32());
    CHUNKWISE_ASSIGN_OR_RETURN(stamp.group, U64());
    if (stamp.parts != expected.parts || stamp.part != expected.part ||
        stamp.group != expected.group) {
      return Error("written by part " + std::to_string(stamp.part) + " of " +
                   std::to_string(stamp.parts) + " for group " + std::to_string(stamp.group) +
                   ", read as part " + std::to_string(expected.part) + " of " +
                   std::to_string(expected.parts) + ", group " + std::to_string(expected.group));
    }
    return Status::Ok();
  }
  Status End() const {
    return at_ == bytes_.size() ? Status::Ok()
                                : Error(std::to_string(bytes_.size() - at_) + " bytes left over");
  }

 private:
  ByteView bytes_;
  const std::string& name_;
  std::size_t at_ = 0;
};

Status DecodePiece(Reader& reader, MeshPiece& piece) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t vertices, reader.Count(8 + 12));
  piece.keys.resize(vertices);
  piece.doubled.resize(vertices);
  for (std::uint64_t& key : piece.keys) {
    CHUNKWISE_ASSIGN_OR_RETURN(key, reader.U64());
  }
  for (std::array<float, 3>& position : piece.doubled) {
    for (float& c : position) {
      CHUNKWISE_ASSIGN_OR_RETURN(c, reader.F32());
    }
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t indices, reader.Count(4));
  if (indices % 3 != 0) return reader.Error(std::to_string(indices) + " triangle indices");
  piece.triangles.resize(indices);
  for (std::uint32_t& index : piece.triangles) {
    CHUNKWISE_ASSIGN_OR_RETURN(index, reader.U32());
    if (index >= vertices) return reader.Error("vertex " + std::to_string(index) + " not there");
  }
  return Status::Ok();
}

}  // namespace

Bytes EncodePieces(const ScratchStamp& stamp, std::uint64_t chunks,
                   const std::map<std::uint64_t, LabelPieces>& labels) {
  Writer out;
  out.Stamp(kPiecesMagic, stamp);
  out.U64(chunks);
  out.U64(labels.size());
  for (const auto& [label, entry] : labels) {
    out.U64(label);
    out.U64(entry.voxels);
    out.U64(entry.pieces.size());
    for (const auto& [chunk, piece] : entry.pieces) {
      out.U64(chunk);
      out.U64(piece.keys.size());
      for (const std::uint64_t key : piece.keys) out.U64(key);
      for (const auto& position : piece.doubled) {
        for (const float c : position) out.F32(c);
      }
      out.U64(piece.triangles.size());
      for (const std::uint32_t index : piece.triangles) out.U32(index);
    }
  }
  return out.Take();
}

Status DecodePieces(ByteView bytes, const ScratchStamp& stamp, std::uint64_t chunks,
                    const std::string& name, std::map<std::uint64_t, LabelPieces>& labels) {
  Reader reader(bytes, name);
  CHUNKWISE_RETURN_IF_ERROR(reader.Stamp(kPiecesMagic, stamp));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t written_chunks, reader.U64());
  if (written_chunks != chunks) {
    return reader.Error("a grid of " + std::to_string(written_chunks) + " chunks, not " +
                        std::to_string(chunks));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t count, reader.Count(24));
  for (std::uint64_t i = 0; i < count; ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t label, reader.U64());
    if (label == 0) return reader.Error("label 0");
    LabelPieces& entry = labels[label];
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t voxels, reader.U64());
    entry.voxels += voxels;
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t pieces, reader.Count(24));
    for (std::uint64_t k = 0; k < pieces; ++k) {
      CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t chunk, reader.U64());
      if (chunk >= chunks) return reader.Error("chunk " + std::to_string(chunk));
      entry.pieces.emplace_back(chunk, MeshPiece{});
      CHUNKWISE_RETURN_IF_ERROR(DecodePiece(reader, entry.pieces.back().second));
    }
  }
  return reader.End();
}

Bytes EncodeLabelList(const ScratchStamp& stamp, const std::vector<std::uint64_t>& labels) {
  Writer out;
  out.Stamp(kLabelsMagic, stamp);
  out.U64(labels.size());
  for (const std::uint64_t label : labels) out.U64(label);
  return out.Take();
}

Result<std::vector<std::uint64_t>> DecodeLabelList(ByteView bytes, const ScratchStamp& stamp,
                                                   const std::string& name) {
  Reader reader(bytes, name);
  CHUNKWISE_RETURN_IF_ERROR(reader.Stamp(kLabelsMagic, stamp));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t count, reader.Count(8));
  std::vector<std::uint64_t> labels(count);
  for (std::uint64_t& label : labels) {
    CHUNKWISE_ASSIGN_OR_RETURN(label, reader.U64());
    if (&label != labels.data() && label <= (&label)[-1]) return reader.Error("labels unsorted");
  }
  CHUNKWISE_RETURN_IF_ERROR(reader.End());
  return labels;
}

Bytes EncodeMergedPart(const ScratchStamp& stamp, const MergedPart& merged) {
  Writer out;
  out.Stamp(kMergedMagic, stamp);
  out.U64(merged.summary.segments);
  out.U64(merged.summary.vertices);
  out.U64(merged.summary.triangles);
  out.U64(merged.summary.bytes);
  out.U64(merged.voxel_counts.size());
  for (const auto& [label, voxels] : merged.voxel_counts) {
    out.U64(label);
    out.U64(voxels);
  }
  out.U64(merged.levels.size());
  for (const auto& [label, meshes] : merged.levels) {
    out.U64(label);
    out.U64(meshes.size());
    for (const LabelMesh& mesh : meshes) {
      out.U64(mesh.vertices.size());
      for (const float c : mesh.vertices) out.F32(c);
      out.U64(mesh.triangles.size());
      for (const std::uint32_t index : mesh.triangles) out.U32(index);
    }
  }
  return out.Take();
}

Result<MergedPart> DecodeMergedPart(ByteView bytes, const ScratchStamp& stamp,
                                    const std::string& name) {
  Reader reader(bytes, name);
  CHUNKWISE_RETURN_IF_ERROR(reader.Stamp(kMergedMagic, stamp));
  MergedPart merged;
  CHUNKWISE_ASSIGN_OR_RETURN(merged.summary.segments, reader.U64());
  CHUNKWISE_ASSIGN_OR_RETURN(merged.summary.vertices, reader.U64());
  CHUNKWISE_ASSIGN_OR_RETURN(merged.summary.triangles, reader.U64());
  CHUNKWISE_ASSIGN_OR_RETURN(merged.summary.bytes, reader.U64());
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t count, reader.Count(16));
  for (std::uint64_t i = 0; i < count; ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t label, reader.U64());
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t voxels, reader.U64());
    if (!merged.voxel_counts.empty() && label <= merged.voxel_counts.rbegin()->first) {
      return reader.Error("labels unsorted");
    }
    merged.voxel_counts[label] = voxels;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t leveled, reader.Count(16));
  for (std::uint64_t i = 0; i < leveled; ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t label, reader.U64());
    if (label == 0 || (!merged.levels.empty() && label <= merged.levels.rbegin()->first)) {
      return reader.Error("label " + std::to_string(label) + " unsorted or 0");
    }
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t levels, reader.Count(16));
    std::vector<LabelMesh>& meshes = merged.levels[label];
    meshes.resize(levels);
    for (LabelMesh& mesh : meshes) {
      CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t coordinates, reader.Count(4));
      if (coordinates % 3 != 0) return reader.Error(std::to_string(coordinates) + " coordinates");
      mesh.vertices.resize(coordinates);
      for (float& c : mesh.vertices) {
        CHUNKWISE_ASSIGN_OR_RETURN(c, reader.F32());
      }
      CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t indices, reader.Count(4));
      if (indices % 3 != 0) return reader.Error(std::to_string(indices) + " triangle indices");
      mesh.triangles.resize(indices);
      for (std::uint32_t& index : mesh.triangles) {
        CHUNKWISE_ASSIGN_OR_RETURN(index, reader.U32());
        if (index >= coordinates / 3) {
          return reader.Error("vertex " + std::to_string(index) + " not there");
        }
      }
    }
  }
  CHUNKWISE_RETURN_IF_ERROR(reader.End());
  return merged;
}

}  // namespace chunkwise::pipelines
