// libFuzzer target: the blosc codec's Decode and DecodeIntoRegion on
// arbitrary bytes (meant to be a Blosc1 chunk).
//
// Decode must return a value or an error, never crash, read out of bounds or
// produce more than its limit. As a second check the input is encoded and
// decoded back, which must reproduce it exactly. DecodeIntoRegion, which
// decodes LZ4 chunks itself rather than through c-blosc, decodes the input as
// a chunk of rows, whole and a box of it, into a larger array: it must stay
// inside the box's place, and where both it and c-blosc accept the input they
// must agree.
#include <optional>
#include <vector>

#include "bytes_codec_fuzz.h"
#include "codec/blosc_codec.h"
#include "core/ravel.h"

namespace {

using chunkwise::Bytes;
using chunkwise::ByteView;
using chunkwise::codec::BloscCodec;
using chunkwise::codec::ChunkSpec;
using chunkwise::core::DataType;
using chunkwise::core::DataTypeId;
using chunkwise::core::Region;
using chunkwise::core::Shape;

constexpr std::uint8_t kOutside = 0xEE;

DataType TypeOfSize(std::uint8_t size) {
  switch (size) {
    case 2:
      return DataType(DataTypeId::kUInt16);
    case 4:
      return DataType(DataTypeId::kUInt32);
    case 8:
      return DataType(DataTypeId::kUInt64);
    default:
      return DataType(DataTypeId::kUInt8);
  }
}

// The chunk the header describes, as rows of up to 64 elements of the
// header's typesize (1, 2, 4 or 8; else bytes); nullopt when none fits.
std::optional<ChunkSpec> SpecFromHeader(ByteView input) {
  if (input.size() < 16) return std::nullopt;
  const auto nbytes = chunkwise::LoadLittleEndian<std::uint32_t>(input.data() + 4);
  const DataType dtype = TypeOfSize(input[3]);
  if (nbytes == 0 || nbytes > chunkwise::fuzz::kDecodeLimit || nbytes % dtype.size() != 0) {
    return std::nullopt;
  }
  const std::int64_t elements = nbytes / dtype.size();
  std::int64_t row = 64;
  while (elements % row != 0) row /= 2;
  return ChunkSpec{dtype, {elements / row, row}};
}

// Decodes `box` of the chunk into its place at (1, 1) in an array one row and
// two columns larger than the chunk.
void CheckDecodeIntoRegion(const BloscCodec& codec, ByteView input, const ChunkSpec& spec,
                           const Region& box) {
  const Shape shape = {spec.shape[0] + 1, spec.shape[1] + 2}, origin = {1, 1};
  const std::size_t element = spec.dtype.size();
  Bytes array(static_cast<std::size_t>(shape[0] * shape[1]) * element, kOutside);
  const chunkwise::Result<bool> handled =
      codec.DecodeIntoRegion(input, spec, box, {array.data(), shape, origin, false});
  // Whatever happened, nothing outside the box's place was written.
  const Shape box_shape = box.shape(), zero = {0, 0};
  Bytes placed(static_cast<std::size_t>(box.num_elements()) * element);
  chunkwise::core::CopyStridedRegion({array.data(), shape, origin},
                                     {placed.data(), box_shape, zero}, box_shape, element);
  chunkwise::core::FillStridedRegion({array.data(), shape, origin}, box_shape,
                                     std::vector<std::uint8_t>(element, kOutside));
  CHUNKWISE_CHECK(array == Bytes(array.size(), kOutside));
  if (!handled.ok() || !*handled) return;
  const chunkwise::Result<Bytes> decoded = codec.Decode(input, spec.num_bytes());
  if (!decoded.ok()) return;
  Bytes expected(placed.size());
  chunkwise::core::CopyStridedRegion({decoded->data(), spec.shape, box.start()},
                                     {expected.data(), box_shape, zero}, box_shape, element);
  CHUNKWISE_CHECK(placed == expected);
}

// The whole chunk, and a box that leaves out its first third of rows and a
// quarter of each row's ends.
void CheckDecodeIntoRegion(const BloscCodec& codec, ByteView input) {
  const std::optional<ChunkSpec> spec = SpecFromHeader(input);
  if (!spec) return;
  const Shape& c = spec->shape;
  CheckDecodeIntoRegion(codec, input, *spec, Region::Full(c));
  CheckDecodeIntoRegion(codec, input, *spec, Region({c[0] / 3, c[1] / 4}, {c[0], c[1] - c[1] / 4}));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto codec =
      *BloscCodec::Create({"lz4", 5, chunkwise::codec::BloscShuffle::kShuffle, 2, 0});
  chunkwise::fuzz::CheckBytesCodec(*codec, data, size);
  CheckDecodeIntoRegion(*codec, ByteView(data, size));
  return 0;
}
