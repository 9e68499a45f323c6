// The INI dialect of the AWS shared credentials and config files.
//
// What the AWS tools accept (docs/stores.md, "Credentials"): "[section]"
// headers; "name = value" (or "name: value") settings whose names are
// case-insensitive; whole-line comments starting with "#" or ";"; and a
// setting with an empty value followed by indented "name = value" lines,
// which nests those settings under it ("s3 =" then "  addressing_style = path").
// Anything else is an error naming the file and the line.
#ifndef CHUNKWISE_SRC_STORE_AWS_INI_H_
#define CHUNKWISE_SRC_STORE_AWS_INI_H_

#include <map>
#include <string>
#include <string_view>

#include "chunkwise/core/result.h"

namespace chunkwise::store {

struct IniSection {
  std::map<std::string, std::string> values;  // Names lowercased.
  // Nested settings: "s3" -> {"addressing_style" -> "path"}.
  std::map<std::string, std::map<std::string, std::string>> nested;
};

struct IniFile {
  std::map<std::string, IniSection> sections;  // By the name inside the brackets, trimmed.
};

// Parses `text`; InvalidArgument naming `name` and the line for a malformed
// line. A section that appears twice is merged, later settings winning.
Result<IniFile> ParseIni(std::string_view text, std::string_view name);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_AWS_INI_H_
