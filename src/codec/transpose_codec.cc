#include "codec/transpose_codec.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "config_json.h"

namespace chunkwise::codec {
namespace {

// The destination's axes after simplification: extents and source strides (in
// elements), outermost first. Always at least two axes.
struct Axes {
  std::vector<std::size_t> extent;
  std::vector<std::size_t> stride;
};

// Drops unit axes and merges destination-adjacent axes that are also adjacent
// in the source, so e.g. a permutation that moves nothing becomes one memcpy.
Axes SimplifyAxes(std::span<const std::int64_t> source_shape, std::span<const std::int64_t> perm) {
  std::vector<std::size_t> source_stride(source_shape.size());
  std::size_t stride = 1;
  for (std::size_t d = source_shape.size(); d-- > 0;) {
    source_stride[d] = stride;
    stride *= static_cast<std::size_t>(source_shape[d]);
  }
  Axes axes;
  for (std::int64_t axis : perm) {
    const auto extent = static_cast<std::size_t>(source_shape[axis]);
    if (extent == 1) continue;
    if (!axes.extent.empty() && axes.stride.back() == source_stride[axis] * extent) {
      axes.extent.back() *= extent;
      axes.stride.back() = source_stride[axis];
      continue;
    }
    axes.extent.push_back(extent);
    axes.stride.push_back(source_stride[axis]);
  }
  while (axes.extent.size() < 2) {
    axes.extent.insert(axes.extent.begin(), 1);
    axes.stride.insert(axes.stride.begin(), 0);
  }
  return axes;
}

// Copies a rows×cols destination block whose source elements lie at
// row·row_stride + col·col_stride. Square tiles keep both sides in cache when the
// source is walked across its rows (the classic 2-d transpose).
template <std::size_t kSize>
void CopyPlane(const std::uint8_t* source, std::uint8_t* destination, std::size_t rows,
               std::size_t cols, std::size_t row_stride, std::size_t col_stride) {
  if (col_stride == 1) {
    for (std::size_t r = 0; r < rows; ++r) {
      std::memcpy(destination + r * cols * kSize, source + r * row_stride * kSize, cols * kSize);
    }
    return;
  }
  constexpr std::size_t kTile = 16;
  for (std::size_t row_begin = 0; row_begin < rows; row_begin += kTile) {
    const std::size_t row_end = std::min(rows, row_begin + kTile);
    for (std::size_t col_begin = 0; col_begin < cols; col_begin += kTile) {
      const std::size_t col_end = std::min(cols, col_begin + kTile);
      for (std::size_t r = row_begin; r < row_end; ++r) {
        std::uint8_t* out = destination + r * cols * kSize;
        const std::uint8_t* in = source + r * row_stride * kSize;
        for (std::size_t c = col_begin; c < col_end; ++c) {
          std::memcpy(out + c * kSize, in + c * col_stride * kSize, kSize);
        }
      }
    }
  }
}

// Walks the outer axes with an odometer (no division per element) and copies
// the two innermost axes as a plane.
template <std::size_t kSize>
void PermuteSimplified(const Axes& axes, const std::uint8_t* source, std::uint8_t* destination) {
  const std::size_t rank = axes.extent.size();
  const std::size_t rows = axes.extent[rank - 2], cols = axes.extent[rank - 1];
  std::size_t planes = 1;
  for (std::size_t d = 0; d + 2 < rank; ++d) planes *= axes.extent[d];
  std::vector<std::size_t> index(rank, 0);
  std::size_t offset = 0;  // Source element offset of the current plane.
  for (std::size_t plane = 0; plane < planes; ++plane) {
    CopyPlane<kSize>(source + offset * kSize, destination + plane * rows * cols * kSize, rows, cols,
                     axes.stride[rank - 2], axes.stride[rank - 1]);
    for (std::size_t d = rank - 2; d-- > 0;) {
      offset += axes.stride[d];
      if (++index[d] < axes.extent[d]) break;
      offset -= axes.extent[d] * axes.stride[d];
      index[d] = 0;
    }
  }
}

Status CheckRank(std::size_t rank, const ChunkSpec& spec) {
  if (spec.shape.size() == rank) return Status::Ok();
  return Status::InvalidArgument("transpose: order has " + std::to_string(rank) +
                                 " entries but the chunk has rank " +
                                 std::to_string(spec.shape.size()));
}

}  // namespace

void PermuteAxes(std::span<const std::int64_t> source_shape, std::span<const std::int64_t> perm,
                 std::size_t element_size, const std::uint8_t* source, std::uint8_t* destination) {
  CHUNKWISE_CHECK(perm.size() == source_shape.size() && element_size > 0);
  std::size_t count = 1;
  for (std::int64_t extent : source_shape) count *= static_cast<std::size_t>(extent);
  if (count == 0) return;
  const Axes axes = SimplifyAxes(source_shape, perm);
  switch (element_size) {
    case 1:
      return PermuteSimplified<1>(axes, source, destination);
    case 2:
      return PermuteSimplified<2>(axes, source, destination);
    case 4:
      return PermuteSimplified<4>(axes, source, destination);
    case 8:
      return PermuteSimplified<8>(axes, source, destination);
    case 16:
      return PermuteSimplified<16>(axes, source, destination);
  }
  // Any other size: permute the bytes as an extra innermost axis.
  std::vector<std::int64_t> shape(source_shape.begin(), source_shape.end());
  std::vector<std::int64_t> byte_perm(perm.begin(), perm.end());
  shape.push_back(static_cast<std::int64_t>(element_size));
  byte_perm.push_back(static_cast<std::int64_t>(perm.size()));
  PermuteSimplified<1>(SimplifyAxes(shape, byte_perm), source, destination);
}

Result<std::shared_ptr<const TransposeCodec>> TransposeCodec::Create(
    std::vector<std::int64_t> order) {
  std::vector<std::int64_t> inverse(order.size(), -1);
  const auto rank = static_cast<std::int64_t>(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i] < 0 || order[i] >= rank || inverse[order[i]] != -1) {
      return internal::BadField("transpose", "order",
                                "must be a permutation of 0.." + std::to_string(rank - 1) +
                                    " (entry " + std::to_string(i) + " is " +
                                    std::to_string(order[i]) + ")");
    }
    inverse[order[i]] = static_cast<std::int64_t>(i);
  }
  return std::shared_ptr<const TransposeCodec>(
      new TransposeCodec(std::move(order), std::move(inverse)));
}

Result<std::shared_ptr<const TransposeCodec>> TransposeCodec::FromJson(
    const nlohmann::json& configuration) {
  CHUNKWISE_RETURN_IF_ERROR(internal::CheckConfigKeys("transpose", configuration, {"order"}));
  if (!configuration.is_object() || !configuration.contains("order")) {
    return internal::BadField("transpose", "order", "is required");
  }
  const nlohmann::json& order_json = configuration["order"];
  if (!order_json.is_array()) {
    return internal::BadField(
        "transpose", "order",
        "must be an array of integers, got " + internal::ShowJson(order_json));
  }
  std::vector<std::int64_t> order;
  for (const nlohmann::json& entry : order_json) {
    // Create checks the range; this only keeps get<> from throwing or wrapping.
    const bool fits = entry.is_number_integer() &&
                      (!entry.is_number_unsigned() || entry.get<std::uint64_t>() <= INT32_MAX);
    if (!fits) {
      return internal::BadField(
          "transpose", "order",
          "must be an array of integers, got " + internal::ShowJson(order_json));
    }
    order.push_back(entry.get<std::int64_t>());
  }
  return Create(std::move(order));
}

nlohmann::json TransposeCodec::ToJson() const {
  return {{"name", "transpose"}, {"configuration", {{"order", order_}}}};
}

Result<ChunkSpec> TransposeCodec::EncodedSpec(const ChunkSpec& decoded) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckRank(order_.size(), decoded));
  ChunkSpec encoded{decoded.dtype, std::vector<std::int64_t>(order_.size()), decoded.fill_value};
  for (std::size_t i = 0; i < order_.size(); ++i) encoded.shape[i] = decoded.shape[order_[i]];
  return encoded;
}

Result<Bytes> TransposeCodec::Encode(const ChunkSpec& decoded, ByteView data) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckRank(order_.size(), decoded));
  if (data.size() != decoded.num_bytes()) {
    return Status::InvalidArgument("transpose: chunk data is " + std::to_string(data.size()) +
                                   " bytes, its spec needs " + std::to_string(decoded.num_bytes()));
  }
  Bytes encoded(data.size());
  PermuteAxes(decoded.shape, order_, decoded.dtype.size(), data.data(), encoded.data());
  return encoded;
}

Result<Bytes> TransposeCodec::Decode(const ChunkSpec& decoded, ByteView encoded) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const ChunkSpec encoded_spec, EncodedSpec(decoded));
  if (encoded.size() != decoded.num_bytes()) {
    return Status::Corruption("transpose: encoded chunk is " + std::to_string(encoded.size()) +
                              " bytes, expected " + std::to_string(decoded.num_bytes()));
  }
  Bytes result(encoded.size());
  PermuteAxes(encoded_spec.shape, inverse_, decoded.dtype.size(), encoded.data(), result.data());
  return result;
}

}  // namespace chunkwise::codec
