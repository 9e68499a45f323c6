#include "chunkwise/io/mapping_file.h"

#include <cctype>
#include <charconv>
#include <string>

#include "core/file_io.h"

namespace chunkwise::io {

namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// Splits a data line into its fields at commas and blanks.
std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t at = 0;
  while (at < line.size()) {
    const std::size_t end = line.find_first_of(", \t", at);
    const std::string_view field = Trim(line.substr(at, end - at));
    if (!field.empty()) fields.push_back(field);
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return fields;
}

bool ParseU64(std::string_view text, std::uint64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

Result<std::vector<LabelPair>> ParseMappingPairs(ByteView bytes, std::string_view name) {
  if (bytes.size() % 16 != 0) {
    return Status::Corruption(std::string(name) + ": binary mapping of " +
                              std::to_string(bytes.size()) +
                              " bytes is not a whole number of 16-byte (supervoxel, label) pairs");
  }
  std::vector<LabelPair> pairs(bytes.size() / 16);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    pairs[i] = {LoadLittleEndian<std::uint64_t>(bytes.data() + 16 * i),
                LoadLittleEndian<std::uint64_t>(bytes.data() + 16 * i + 8)};
  }
  return pairs;
}

Result<std::vector<LabelPair>> ParseMappingCsv(std::string_view text, std::string_view name) {
  std::vector<LabelPair> pairs;
  std::size_t line_number = 0;
  bool data_seen = false;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = Trim(text.substr(0, newline));
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    const std::vector<std::string_view> fields = Fields(line);
    LabelPair pair;
    if (fields.size() == 2 && ParseU64(fields[0], pair.supervoxel) &&
        ParseU64(fields[1], pair.label)) {
      pairs.push_back(pair);
      data_seen = true;
      continue;
    }
    // A header line of words is allowed once, before any data.
    const bool header = !data_seen && !std::isdigit(static_cast<unsigned char>(line.front()));
    if (header && pairs.empty() && line_number == 1) continue;
    return Status::Corruption(std::string(name) + ": line " + std::to_string(line_number) +
                              " is not \"supervoxel,label\" with unsigned 64-bit integers: \"" +
                              std::string(line.substr(0, 80)) + "\"");
  }
  return pairs;
}

Result<std::vector<LabelPair>> ReadMappingFile(const std::filesystem::path& path,
                                               MappingFileFormat format) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes, core::ReadFile(path));
  if (format == MappingFileFormat::kAuto) {
    const std::string extension = path.extension().string();
    format = extension == ".csv" || extension == ".txt" ? MappingFileFormat::kCsv
                                                        : MappingFileFormat::kBinary;
  }
  if (format == MappingFileFormat::kCsv) return ParseMappingCsv(AsChars(bytes), path.string());
  // A .npy file has a size that often passes as pairs; refuse it by its magic.
  if (AsChars(bytes).starts_with("\x93NUMPY")) {
    return Status::InvalidArgument(path.string() +
                                   ": is a .npy file, not binary (supervoxel, label) pairs");
  }
  return ParseMappingPairs(bytes, path.string());
}

Bytes SerializeMappingPairs(std::span<const LabelPair> pairs) {
  Bytes out;
  out.reserve(pairs.size() * 16);
  for (const LabelPair& pair : pairs) {
    AppendLittleEndian(pair.supervoxel, out);
    AppendLittleEndian(pair.label, out);
  }
  return out;
}

}  // namespace chunkwise::io
