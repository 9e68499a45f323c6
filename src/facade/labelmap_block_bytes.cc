#include "chunkwise/facade/labelmap_block_bytes.h"

#include "chunkwise/formats/dvid/value_envelope.h"

namespace chunkwise {

Status PutLabelmapBlockBytes(Labelmap& labelmap, std::uint32_t version, int scale,
                             const LabelBlockCoord& coord, Bytes bytes, std::string_view name) {
  CHUNKWISE_ASSIGN_OR_RETURN(bytes, formats::dvid::GunzipIfGzip(std::move(bytes), name));
  return labelmap.PutEncodedBlock(version, scale, coord, bytes);
}

}  // namespace chunkwise
