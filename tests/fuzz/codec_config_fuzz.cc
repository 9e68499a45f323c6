// libFuzzer target: codec configurations as they arrive from zarr.json and
// the command line — arbitrary JSON through CodecRegistry::Create, and
// arbitrary text through ParseCodecShorthand.
//
// Neither may throw or crash. A codec that is created must write JSON that
// creates an equal codec again (what a zarr.json round trip relies on).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "chunkwise/core/check.h"
#include "codec/codec_registry.h"
#include "codec/codec_shorthand.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const chunkwise::codec::CodecRegistry registry =
      chunkwise::codec::CodecRegistry::WithBuiltins();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const chunkwise::Result<nlohmann::json> shorthand =
      chunkwise::codec::ParseCodecShorthand(text, 4);
  if (shorthand.ok()) {
    for (const nlohmann::json& codec_json : *shorthand)
      CHUNKWISE_CHECK(registry.Create(codec_json).ok());
  }
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return 0;
  const auto codec = registry.Create(parsed);
  if (!codec.ok()) return 0;
  const nlohmann::json written = (*codec)->ToJson();
  const auto again = registry.Create(written);
  CHUNKWISE_CHECK(again.ok() && (*again)->ToJson() == written);
  return 0;
}
