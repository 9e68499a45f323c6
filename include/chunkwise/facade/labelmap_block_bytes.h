// One DVID compressed label block put into a labelmap as bytes that may be
// gzipped (as DVID serves them, and as the Python module's put_block_bytes
// takes them). Named for that need.
#ifndef CHUNKWISE_FACADE_LABELMAP_BLOCK_BYTES_H_
#define CHUNKWISE_FACADE_LABELMAP_BLOCK_BYTES_H_

#include <cstdint>
#include <string_view>

#include "chunkwise/facade/dvid_export.h"

namespace chunkwise {

using LabelBlockCoord = formats::dvid::BlockCoord;

// Stores `bytes` (a DVID compressed label block, gunzipped first when they
// start with the gzip magic) as block `coord` of `scale` at `version`, once
// checked to decode. Corruption naming `name` (where the bytes came from)
// for bytes that are not a block; the labelmap's errors (a committed
// version: InvalidArgument) otherwise.
Status PutLabelmapBlockBytes(Labelmap& labelmap, std::uint32_t version, int scale,
                             const LabelBlockCoord& coord, Bytes bytes, std::string_view name);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_LABELMAP_BLOCK_BYTES_H_
