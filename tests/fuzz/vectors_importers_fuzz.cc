// libFuzzer target: the geometry importers (SWC, PLY ascii/binary, OBJ) on
// arbitrary bytes. Nothing may crash, read past the input or allocate beyond
// what the input can describe; whatever parses must pass Geometry::Validate.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "chunkwise/io/obj.h"
#include "chunkwise/io/ply.h"
#include "chunkwise/io/swc.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace io = chunkwise::io;
  const chunkwise::ByteView bytes(data, size);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto& parsed :
       {io::ParseSwc(text, "fuzz"), io::ParsePly(bytes, "fuzz"), io::ParseObj(text, "fuzz")}) {
    if (parsed.ok() && !parsed->Validate().ok()) std::abort();
  }
  return 0;
}
