#include "pipelines/skeletons/skeleton_scratch.h"

#include <bit>
#include <cstring>
#include <string_view>
#include <utility>

#include "formats/precomputed/skeleton_file.h"

namespace chunkwise::pipelines::skeletons {
namespace {

constexpr std::string_view kTableMagic = "CWSKTAB1";
constexpr std::string_view kPartMagic = "CWSKPRT2";

class Writer {
 public:
  explicit Writer(std::string_view magic) {
    bytes_.insert(bytes_.end(), magic.begin(), magic.end());
  }
  void U32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void U64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void I64(std::int64_t v) { U64(static_cast<std::uint64_t>(v)); }
  void F64(double v) { U64(std::bit_cast<std::uint64_t>(v)); }
  void Append(ByteView bytes) { bytes_.insert(bytes_.end(), bytes.begin(), bytes.end()); }
  Bytes Take() { return std::move(bytes_); }

 private:
  Bytes bytes_;
};

// Reads fields in order; the first short read or bad value is the object's error.
class Reader {
 public:
  Reader(ByteView bytes, const std::string& name) : bytes_(bytes), name_(name) {}
  Status Corrupt(const std::string& what) const {
    return Status::Corruption(name_ + ": not a skeleton job scratch object this job wrote (" +
                              what + ")");
  }
  Status Magic(std::string_view magic) {
    if (bytes_.size() < magic.size() ||
        std::memcmp(bytes_.data(), magic.data(), magic.size()) != 0) {
      return Corrupt("no " + std::string(magic) + " magic");
    }
    at_ = magic.size();
    return Status();
  }
  Status Stamp(const SkeletonScratchStamp& stamp) {
    std::uint32_t parts = 0, part = 0;
    CHUNKWISE_RETURN_IF_ERROR(U32(parts));
    CHUNKWISE_RETURN_IF_ERROR(U32(part));
    if (parts != stamp.parts || part != stamp.part) {
      return Corrupt("written by part " + std::to_string(part) + " of " + std::to_string(parts) +
                     ", not part " + std::to_string(stamp.part) + " of " +
                     std::to_string(stamp.parts));
    }
    return Status();
  }
  Status U32(std::uint32_t& v) {
    if (bytes_.size() - at_ < 4) return Corrupt("cut short");
    v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{bytes_[at_ + i]} << (8 * i);
    at_ += 4;
    return Status();
  }
  Status U64(std::uint64_t& v) {
    if (bytes_.size() - at_ < 8) return Corrupt("cut short");
    v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t{bytes_[at_ + i]} << (8 * i);
    at_ += 8;
    return Status();
  }
  Status I64(std::int64_t& v) {
    std::uint64_t u = 0;
    CHUNKWISE_RETURN_IF_ERROR(U64(u));
    v = static_cast<std::int64_t>(u);
    return Status();
  }
  Status F64(double& v) {
    std::uint64_t u = 0;
    CHUNKWISE_RETURN_IF_ERROR(U64(u));
    v = std::bit_cast<double>(u);
    return Status();
  }
  // The next `n` bytes, which the rest must hold.
  Status Span(std::uint64_t n, ByteView& out) {
    if (bytes_.size() - at_ < n) return Corrupt("cut short");
    out = bytes_.subspan(at_, static_cast<std::size_t>(n));
    at_ += static_cast<std::size_t>(n);
    return Status();
  }
  // A count of records of `record` bytes each that the rest can hold.
  Status Count(std::uint64_t& n, std::uint64_t record) {
    CHUNKWISE_RETURN_IF_ERROR(U64(n));
    if (n != (bytes_.size() - at_) / record || (bytes_.size() - at_) % record != 0) {
      return Corrupt(std::to_string(n) + " records of " + std::to_string(record) + " bytes, in " +
                     std::to_string(bytes_.size() - at_) + " bytes");
    }
    return Status();
  }

 private:
  ByteView bytes_;
  std::size_t at_ = 0;
  const std::string& name_;
};

}  // namespace

Bytes EncodeLabelTable(const SkeletonScratchStamp& stamp, const LabelTable& table) {
  Writer out(kTableMagic);
  out.U32(stamp.parts);
  out.U32(stamp.part);
  out.U64(table.size());
  for (const auto& [label, extent] : table) {
    out.U64(label);
    for (std::int64_t v : extent.box.start) out.I64(v);
    for (std::int64_t v : extent.box.stop) out.I64(v);
    out.U64(extent.voxels);
  }
  return out.Take();
}

Result<LabelTable> DecodeLabelTable(ByteView bytes, const SkeletonScratchStamp& stamp,
                                    const std::array<std::int64_t, 3>& shape,
                                    const std::string& name) {
  Reader in(bytes, name);
  CHUNKWISE_RETURN_IF_ERROR(in.Magic(kTableMagic));
  CHUNKWISE_RETURN_IF_ERROR(in.Stamp(stamp));
  std::uint64_t n = 0;
  CHUNKWISE_RETURN_IF_ERROR(in.Count(n, 64));
  LabelTable table;
  std::uint64_t previous = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t label = 0;
    LabelExtent extent;
    CHUNKWISE_RETURN_IF_ERROR(in.U64(label));
    for (std::int64_t& v : extent.box.start) CHUNKWISE_RETURN_IF_ERROR(in.I64(v));
    for (std::int64_t& v : extent.box.stop) CHUNKWISE_RETURN_IF_ERROR(in.I64(v));
    CHUNKWISE_RETURN_IF_ERROR(in.U64(extent.voxels));
    if (label <= previous) {
      return in.Corrupt("label " + std::to_string(label) + " after " + std::to_string(previous));
    }
    previous = label;
    std::uint64_t box_voxels = 1;
    for (int a = 0; a < 3; ++a) {
      if (extent.box.start[a] < 0 || extent.box.start[a] >= extent.box.stop[a] ||
          extent.box.stop[a] > shape[a]) {
        return in.Corrupt("label " + std::to_string(label) + "'s box lies outside the volume");
      }
      box_voxels *= static_cast<std::uint64_t>(extent.box.stop[a] - extent.box.start[a]);
    }
    if (extent.voxels == 0 || extent.voxels > box_voxels) {
      return in.Corrupt("label " + std::to_string(label) + " has " + std::to_string(extent.voxels) +
                        " voxels in a box of " + std::to_string(box_voxels));
    }
    table.emplace_hint(table.end(), label, extent);
  }
  return table;
}

Bytes EncodeSkeletonizedPart(const SkeletonScratchStamp& stamp, const SkeletonizedPart& part) {
  Writer out(kPartMagic);
  out.U32(stamp.parts);
  out.U32(stamp.part);
  out.U64(part.files);
  out.U64(part.bytes);
  out.U64(part.skeletons.size());
  for (const Skeleton& skeleton : part.skeletons) {
    const Bytes file = formats::precomputed::EncodeSkeleton(skeleton);
    out.U64(skeleton.label);
    out.U64(file.size());
    out.Append(file);
  }
  out.U64(part.labels.size());
  for (const auto& [label, figures] : part.labels) {
    out.U64(label);
    out.U64(figures.voxels);
    out.U64(figures.vertices);
    out.U64(figures.edges);
    out.F64(figures.cable_length);
  }
  return out.Take();
}

Result<SkeletonizedPart> DecodeSkeletonizedPart(ByteView bytes, const SkeletonScratchStamp& stamp,
                                                const std::string& name) {
  Reader in(bytes, name);
  CHUNKWISE_RETURN_IF_ERROR(in.Magic(kPartMagic));
  CHUNKWISE_RETURN_IF_ERROR(in.Stamp(stamp));
  SkeletonizedPart part;
  CHUNKWISE_RETURN_IF_ERROR(in.U64(part.files));
  CHUNKWISE_RETURN_IF_ERROR(in.U64(part.bytes));
  std::uint64_t skeletons = 0;
  CHUNKWISE_RETURN_IF_ERROR(in.U64(skeletons));
  for (std::uint64_t i = 0; i < skeletons; ++i) {
    std::uint64_t label = 0, size = 0;
    ByteView file;
    CHUNKWISE_RETURN_IF_ERROR(in.U64(label));
    CHUNKWISE_RETURN_IF_ERROR(in.U64(size));
    CHUNKWISE_RETURN_IF_ERROR(in.Span(size, file));
    if (label == 0 || (!part.skeletons.empty() && label <= part.skeletons.back().label)) {
      return in.Corrupt("skeleton of label " + std::to_string(label) + " out of order or 0");
    }
    Result<Skeleton> skeleton =
        formats::precomputed::DecodeSkeleton(file, "label " + std::to_string(label));
    if (!skeleton.ok()) return in.Corrupt(std::string(skeleton.status().message()));
    skeleton->label = label;
    part.skeletons.push_back(std::move(*skeleton));
  }
  std::uint64_t n = 0;
  CHUNKWISE_RETURN_IF_ERROR(in.Count(n, 40));
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t label = 0;
    LabelFigures figures;
    CHUNKWISE_RETURN_IF_ERROR(in.U64(label));
    CHUNKWISE_RETURN_IF_ERROR(in.U64(figures.voxels));
    CHUNKWISE_RETURN_IF_ERROR(in.U64(figures.vertices));
    CHUNKWISE_RETURN_IF_ERROR(in.U64(figures.edges));
    CHUNKWISE_RETURN_IF_ERROR(in.F64(figures.cable_length));
    if (label == 0 || !part.labels.emplace(label, figures).second) {
      return in.Corrupt("label " + std::to_string(label) + " twice or 0");
    }
  }
  for (const Skeleton& skeleton : part.skeletons) {
    if (!part.labels.contains(skeleton.label)) {
      return in.Corrupt("skeleton of label " + std::to_string(skeleton.label) +
                        " without its figures");
    }
  }
  return part;
}

}  // namespace chunkwise::pipelines::skeletons
