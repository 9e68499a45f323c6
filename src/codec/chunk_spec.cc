#include <cstring>

#include "chunkwise/core/check.h"
#include "codec/codec.h"

namespace chunkwise::codec {

std::size_t ChunkSpec::num_elements() const {
  std::size_t count = 1;  // A 0-d chunk holds one element.
  for (std::int64_t extent : shape) {
    CHUNKWISE_CHECK(extent >= 0);
    count *= static_cast<std::size_t>(extent);
  }
  return count;
}

Result<std::size_t> BytesToBytesCodec::EncodeInto(ByteView decoded, MutableByteView out) const {
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes encoded, Encode(decoded));
  if (encoded.size() > out.size()) {
    return Status::OutOfRange(std::string(name()) + ": " + std::to_string(encoded.size()) +
                              " encoded bytes do not fit in " + std::to_string(out.size()));
  }
  std::memcpy(out.data(), encoded.data(), encoded.size());
  return encoded.size();
}

Result<std::size_t> BytesToBytesCodec::DecodeInto(ByteView encoded, MutableByteView out) const {
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes decoded, Decode(encoded, out.size()));
  std::memcpy(out.data(), decoded.data(), decoded.size());
  return decoded.size();
}

Result<bool> BytesToBytesCodec::DecodeIntoRegion(ByteView /*encoded*/, const ChunkSpec& /*spec*/,
                                                 const core::Region& /*box*/,
                                                 const core::StridedDestination& /*target*/) const {
  return false;
}

}  // namespace chunkwise::codec
