// libFuzzer target: the INI dialect of the AWS credentials and config files
// (store/aws_ini.h). Any bytes must parse or fail with an error; a parse must
// give only trimmed, lowercase setting names.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "chunkwise/core/check.h"
#include "store/aws_ini.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto ini = chunkwise::store::ParseIni(text, "fuzz.ini");
  if (!ini.ok()) return 0;
  for (const auto& [name, section] : ini->sections) {
    CHUNKWISE_CHECK(!name.empty());
    for (const auto& [key, value] : section.values) {
      CHUNKWISE_CHECK(!key.empty() && key.front() != ' ' && key.back() != ' ');
      // As unsigned char on both sides: a byte above 0x7f is negative as char.
      for (const unsigned char c : key) CHUNKWISE_CHECK(std::tolower(c) == c);
    }
  }
  return 0;
}
