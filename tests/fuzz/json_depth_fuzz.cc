// libFuzzer target: core::ParseJson, the one entry point of every JSON
// reader, on arbitrary bytes. A document it accepts must copy, compare and
// print without exhausting the stack (the nesting limit is what keeps them
// from it), and print back to a document that parses to the same value.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto json = chunkwise::core::ParseJson(text, "fuzz.json");
  if (!json.ok()) return 0;
  const nlohmann::json copy = *json;
  auto again = chunkwise::core::ParseJson(copy.dump(), "fuzz.json");
  if (!again.ok() || !(*again == copy)) std::abort();
  return 0;
}
