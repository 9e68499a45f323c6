// libFuzzer target: the geometry importers (SWC, PLY ascii/binary, OBJ) on
// arbitrary bytes. Nothing may crash, read past the input or allocate beyond
// what the input can describe; whatever parses must pass Geometry::Validate.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "chunkwise/formats/vectors/obj.h"
#include "chunkwise/formats/vectors/ply.h"
#include "chunkwise/formats/vectors/swc.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace vectors = chunkwise::formats::vectors;
  const chunkwise::ByteView bytes(data, size);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto& parsed : {vectors::ParseSwc(text, "fuzz"), vectors::ParsePly(bytes, "fuzz"),
                             vectors::ParseObj(text, "fuzz")}) {
    if (parsed.ok() && !parsed->Validate().ok()) std::abort();
  }
  return 0;
}
