#include "chunkwise/io/csv_file.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "chunkwise/io/file.h"
#include "core/file_io.h"

namespace chunkwise::io {

bool HasCsvExtension(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".csv";
}

Result<core::NpyArray> ReadCsv(const std::filesystem::path& path) {
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes text, core::ReadFile(path));
  return core::ParseCsv(AsChars(text), path.string());
}

Status WriteCsv(const std::filesystem::path& path, const core::NpyArray& array) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::string text, core::FormatCsv(array));
  return WriteFile(path, AsBytes(text));
}

}  // namespace chunkwise::io
