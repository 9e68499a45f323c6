// The zarr v3 `transpose` array→array codec: permutes the axes of a chunk.
//
// Spec: docs/formats/zarr.md, "Codec pipeline". Configuration {"order": [perm]},
// a permutation of 0..rank-1; the encoded array is transpose(decoded, order), so
// encoded dim i is decoded dim order[i]. A zarr v2 `order: "F"` array maps to a
// transpose with the reversed order (docs/formats/zarr.md, "Zarr v2 metadata").
#ifndef CHUNKWISE_CODEC_TRANSPOSE_CODEC_H_
#define CHUNKWISE_CODEC_TRANSPOSE_CODEC_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "codec/codec.h"

namespace chunkwise::codec {

// Writes into `destination` the C-order array whose dim i is dim perm[i] of the
// C-order `source` array of shape `source_shape`. Both buffers hold
// prod(source_shape) elements of `element_size` bytes and must not overlap.
// REQUIRES: perm is a permutation of 0..source_shape.size()-1; element_size > 0.
void PermuteAxes(std::span<const std::int64_t> source_shape, std::span<const std::int64_t> perm,
                 std::size_t element_size, const std::uint8_t* source, std::uint8_t* destination);

class TransposeCodec final : public ArrayToArrayCodec {
 public:
  // InvalidArgument unless `order` is a permutation of 0..order.size()-1.
  static Result<std::shared_ptr<const TransposeCodec>> Create(std::vector<std::int64_t> order);
  // InvalidArgument if "order" is missing, not an integer array, or not a permutation.
  static Result<std::shared_ptr<const TransposeCodec>> FromJson(
      const nlohmann::json& configuration);

  const std::vector<std::int64_t>& order() const { return order_; }

  std::string_view name() const override { return "transpose"; }
  nlohmann::json ToJson() const override;
  // InvalidArgument if the rank of `decoded` differs from order().size().
  Result<ChunkSpec> EncodedSpec(const ChunkSpec& decoded) const override;
  // InvalidArgument on a rank mismatch or if data.size() != decoded.num_bytes().
  Result<Bytes> Encode(const ChunkSpec& decoded, ByteView data) const override;
  // InvalidArgument on a rank mismatch; Corruption if encoded has the wrong size.
  Result<Bytes> Decode(const ChunkSpec& decoded, ByteView encoded) const override;

 private:
  TransposeCodec(std::vector<std::int64_t> order, std::vector<std::int64_t> inverse)
      : order_(std::move(order)), inverse_(std::move(inverse)) {}

  std::vector<std::int64_t> order_;
  std::vector<std::int64_t> inverse_;  // inverse_[order_[i]] == i.
};

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_TRANSPOSE_CODEC_H_
