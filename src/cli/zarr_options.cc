#include "cli/zarr_options.h"

namespace chunkwise::cli {

std::vector<std::string> SplitNames(const std::string& text) {
  std::vector<std::string> names;
  std::string current;
  for (char c : text) {
    if (c == ',') {
      names.push_back(std::string(core::TrimSpaces(current)));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!text.empty()) names.push_back(std::string(core::TrimSpaces(current)));
  return names;
}

Result<ZarrIndexLocation> IndexLocationOption(const std::string& text) {
  Result<ZarrIndexLocation> location = ParseIndexLocation(text);
  if (!location.ok()) return location.status().WithContext("--index-location");
  return location;
}

void AddChecksumOption(CLI::App* command, std::string& checksum, const char* default_is) {
  command->add_option("--checksum", checksum,
                      std::string("End-to-end checksum on every chunk: crc32c (a crc32c codec "
                                  "after the others), zstd (zstd's frame checksum; needs a zstd "
                                  "codec) or none; default: ") +
                          default_is);
}

Result<std::optional<ChunkChecksum>> ChecksumOption(const std::string& text) {
  Result<std::optional<ChunkChecksum>> checksum = ParseChunkChecksum(text);
  if (!checksum.ok()) return checksum.status().WithContext("--checksum");
  return checksum;
}

Result<nlohmann::json> AttributesOption(const std::string& text) {
  std::string json = text;
  if (text.starts_with('@')) {
    CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes, ReadLocalFile(text.substr(1)));
    json.assign(bytes.begin(), bytes.end());
  }
  Result<nlohmann::json> attributes = ParseJsonOption(json, "--attributes");
  if (!attributes.ok()) return attributes.status().WithField("attributes");
  return attributes;
}

std::string ShapeText(const nlohmann::ordered_json& shape) {
  std::string text;
  for (const nlohmann::ordered_json& extent : shape) {
    text += (text.empty() ? "" : ",") + std::to_string(extent.get<long long>());
  }
  return text;
}

}  // namespace chunkwise::cli
