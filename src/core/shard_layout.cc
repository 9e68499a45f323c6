#include "core/shard_layout.h"

#include <string>
#include <utility>

#include "chunkwise/core/check.h"
#include "core/ravel.h"

namespace chunkwise::core {
namespace {

std::string DimensionName(std::size_t d) { return "dimension " + std::to_string(d); }

Status ValidateDims(const std::vector<DimensionSpec>& dims) {
  if (dims.empty()) return Status::InvalidArgument("shard layout needs at least one dimension");
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const DimensionSpec& dim = dims[d];
    if (dim.tile_size <= 0 || dim.tiles_per_shard <= 0) {
      return Status::InvalidArgument(DimensionName(d) + ": tile_size " +
                                     std::to_string(dim.tile_size) + " and tiles_per_shard " +
                                     std::to_string(dim.tiles_per_shard) + " must be positive");
    }
    if (dim.size < 0 || (dim.size == 0 && d > 0)) {
      return Status::InvalidArgument(DimensionName(d) + ": size " + std::to_string(dim.size) +
                                     " must be positive (only dimension 0 may be 0, unbounded)");
    }
    // The padded extents, tile_count·tile_size and shard_count·tps, must fit.
    const Index tile_count = CeilDiv(dim.size, dim.tile_size);
    if (!CheckedMultiply(tile_count, dim.tile_size) ||
        !CheckedMultiply(CeilDiv(tile_count, dim.tiles_per_shard), dim.tiles_per_shard)) {
      return Status::OutOfRange(DimensionName(d) + ": padded extent overflows");
    }
  }
  return Status::Ok();
}

// The product over d >= 1 of f(d), or OutOfRange.
template <typename Factor>
Result<Index> InnerProduct(std::size_t rank, const char* what, Factor factor) {
  Index product = 1;
  for (std::size_t d = 1; d < rank; ++d) {
    std::optional<Index> next = CheckedMultiply(product, factor(d));
    if (!next) return Status::OutOfRange(std::string("shard layout: ") + what + " overflows");
    product = *next;
  }
  return product;
}

}  // namespace

Result<ShardLayout> ShardLayout::Create(std::vector<DimensionSpec> dims) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateDims(dims));
  ShardLayout layout;
  layout.dims_ = std::move(dims);
  CHUNKWISE_RETURN_IF_ERROR(layout.DeriveCounts());
  layout.DeriveStrides();
  return layout;
}

Status ShardLayout::DeriveCounts() {
  const std::size_t rank = dims_.size();
  for (const DimensionSpec& dim : dims_) {
    tile_shape_.push_back(dim.tile_size);
    tiles_per_shard_.push_back(dim.tiles_per_shard);
    tile_count_.push_back(CeilDiv(dim.size, dim.tile_size));
    shard_count_.push_back(CeilDiv(tile_count_.back(), dim.tiles_per_shard));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(tile_elements_, NumElements(tile_shape_));
  CHUNKWISE_ASSIGN_OR_RETURN(tiles_per_shard_total_, NumElements(tiles_per_shard_));
  auto tile_count = [&](std::size_t d) { return tile_count_[d]; };
  auto shard_count = [&](std::size_t d) { return shard_count_[d]; };
  auto tps = [&](std::size_t d) { return tiles_per_shard_[d]; };
  auto padded = [&](std::size_t d) { return shard_count_[d] * tiles_per_shard_[d]; };
  CHUNKWISE_ASSIGN_OR_RETURN(epoch_tile_count_, InnerProduct(rank, "M", tile_count));
  CHUNKWISE_ASSIGN_OR_RETURN(padded_epoch_tile_count_, InnerProduct(rank, "M'", padded));
  CHUNKWISE_ASSIGN_OR_RETURN(active_shard_count_, InnerProduct(rank, "S_inner", shard_count));
  CHUNKWISE_ASSIGN_OR_RETURN(tiles_per_shard_inner_, InnerProduct(rank, "tpsi", tps));
  // Pool offsets reach M·tile_elements; every scatter offset must fit.
  if (!CheckedMultiply(epoch_tile_count_, tile_elements_)) {
    return Status::OutOfRange("shard layout: epoch pool element count overflows");
  }
  return Status::Ok();
}

void ShardLayout::DeriveStrides() {
  const std::size_t rank = dims_.size();
  pool_strides_.assign(rank, 0);
  position_shard_strides_.assign(rank, 0);
  position_within_strides_.assign(rank, 0);
  Index pool_stride = 1;
  Index within_stride = 1;
  Index shard_stride = tiles_per_shard_inner_;
  for (std::size_t d = rank; d-- > 1;) {
    pool_strides_[d] = pool_stride;
    position_within_strides_[d] = within_stride;
    position_shard_strides_[d] = shard_stride;
    pool_stride *= tile_count_[d];
    within_stride *= tiles_per_shard_[d];
    shard_stride *= shard_count_[d];
  }
  const Shape element_strides = CStrides(tile_shape_);
  for (std::size_t d = 0; d < rank; ++d) {
    const Index tile_stride = d == 0 ? 0 : pool_strides_[d] * tile_elements_;
    scatter_strides_.push_back({tile_shape_[d], tile_stride, element_strides[d]});
  }
}

Index ShardLayout::ShardMajorPosition(Index tile) const {
  CHUNKWISE_CHECK(tile >= 0 && tile < epoch_tile_count_);
  // Unravel against tile_count[1..] and dot with the shard-major strides.
  Index position = 0;
  for (std::size_t d = dims_.size(); d-- > 1;) {
    const Index t = tile % tile_count_[d];
    tile /= tile_count_[d];
    position += (t / tiles_per_shard_[d]) * position_shard_strides_[d] +
                (t % tiles_per_shard_[d]) * position_within_strides_[d];
  }
  return position;
}

std::vector<Index> ShardLayout::ShardMajorPermutation() const {
  std::vector<Index> table(static_cast<std::size_t>(epoch_tile_count_));
  for (Index i = 0; i < epoch_tile_count_; ++i) table[i] = ShardMajorPosition(i);
  return table;
}

std::optional<Index> ShardLayout::TileAtPosition(Index position) const {
  CHUNKWISE_CHECK(position >= 0 && position < padded_epoch_tile_count_);
  const Index shard = position / tiles_per_shard_inner_;
  Index within = position % tiles_per_shard_inner_;
  Index remaining_shard = shard;
  Index tile = 0;
  for (std::size_t d = dims_.size(); d-- > 1;) {
    const Index s = remaining_shard % shard_count_[d];
    const Index w = within % tiles_per_shard_[d];
    remaining_shard /= shard_count_[d];
    within /= tiles_per_shard_[d];
    const Index t = s * tiles_per_shard_[d] + w;
    if (t >= tile_count_[d]) return std::nullopt;  // Past the array edge: a hole.
    tile += t * pool_strides_[d];
  }
  return tile;
}

void ShardLayout::CheckEpoch(Index epoch) const {
  CHUNKWISE_CHECK(epoch >= 0 && (unbounded() || epoch < tile_count_[0]));
}

Index ShardLayout::IndexSlot(Index epoch, Index position) const {
  CheckEpoch(epoch);
  CHUNKWISE_CHECK(position >= 0 && position < padded_epoch_tile_count_);
  return (epoch % tiles_per_shard_[0]) * tiles_per_shard_inner_ + position % tiles_per_shard_inner_;
}

Coord ShardLayout::ShardCoord(Index epoch, Index shard_index) const {
  CheckEpoch(epoch);
  CHUNKWISE_CHECK(shard_index >= 0 && shard_index < active_shard_count_);
  Coord shard(dims_.size());
  shard[0] = epoch / tiles_per_shard_[0];
  for (std::size_t d = dims_.size(); d-- > 1;) {
    shard[d] = shard_index % shard_count_[d];
    shard_index /= shard_count_[d];
  }
  return shard;
}

TileLocation ShardLayout::LocateElement(std::span<const Index> coord) const {
  CHUNKWISE_CHECK(coord.size() == dims_.size());
  TileLocation location{0, 0, 0};
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    CHUNKWISE_CHECK(coord[d] >= 0 && (coord[d] < dims_[d].size || (d == 0 && unbounded())));
    const LiftedStride& stride = scatter_strides_[d];
    const Index t = coord[d] / stride.tile_size;
    if (d == 0) location.epoch = t;
    location.tile += t * pool_strides_[d];
    location.offset += (coord[d] % stride.tile_size) * stride.element_stride;
  }
  return location;
}

Index ShardLayout::EpochPoolOffset(std::span<const Index> coord) const {
  CHUNKWISE_CHECK(coord.size() == dims_.size());
  Index offset = 0;
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    CHUNKWISE_CHECK(coord[d] >= 0 && (coord[d] < dims_[d].size || (d == 0 && unbounded())));
    const LiftedStride& stride = scatter_strides_[d];
    offset += (coord[d] / stride.tile_size) * stride.tile_stride +
              (coord[d] % stride.tile_size) * stride.element_stride;
  }
  return offset;
}

ShardLocation ShardLayout::LocateInShard(std::span<const Index> coord) const {
  const TileLocation tile = LocateElement(coord);
  const Index position = ShardMajorPosition(tile.tile);
  return ShardLocation{ShardCoord(tile.epoch, ShardOfPosition(position)),
                       IndexSlot(tile.epoch, position), tile.offset};
}

}  // namespace chunkwise::core
