// libFuzzer target: the parsers of DVID database values and mapping files —
// the value envelope (gzip, snappy, lz4, CRC32), block and mapping keys,
// binary pairs and CSV. Each must return a value or an error and never
// crash; DecodeValue never returns more than its limit.
#include <cstdlib>

#include "chunkwise/core/bytes.h"
#include "chunkwise/io/mapping_file.h"
#include "formats/dvid/block_key.h"
#include "formats/dvid/value_envelope.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace dvid = chunkwise::formats::dvid;
  namespace io = chunkwise::io;
  const chunkwise::ByteView bytes(data, size);
  constexpr std::size_t kLimit = 1 << 20;
  const auto value = dvid::DecodeValue(bytes, kLimit, "fuzz");
  if (value.ok() && value->size() > kLimit) std::abort();
  const std::string_view text = chunkwise::AsChars(bytes);
  const auto block_key = dvid::DecodeBlockKey(text);
  if (block_key.ok() && dvid::EncodeBlockKey(*block_key) != text) std::abort();
  (void)dvid::DecodeMappingKey(text);
  (void)io::ParseMappingPairs(bytes, "fuzz");
  (void)io::ParseMappingCsv(text, "fuzz");
  return 0;
}
