#include "cli/zarr_options.h"

#include "chunkwise/codec/codec_shorthand.h"
#include "chunkwise/core/index.h"

namespace chunkwise::cli {

namespace zarr = formats::zarr;

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

Result<zarr::IndexLocation> ParseIndexLocation(const std::string& text) {
  if (text == "end") return zarr::IndexLocation::kEnd;
  if (text == "start") return zarr::IndexLocation::kStart;
  return Status::InvalidArgument("--index-location must be \"end\" or \"start\", got \"" + text +
                                 "\"");
}

Result<std::string> CodecWithChecksum(const std::string& codec, const std::string& default_codec,
                                      const std::string& checksum) {
  Result<codec::Checksum> choice = codec::ParseChecksum(checksum);
  if (!choice.ok()) return choice.status().WithContext("--checksum");
  if (*choice == codec::Checksum::kNone) return codec.empty() ? default_codec : codec;
  Result<std::string> text = codec::WithChecksum(codec.empty() ? default_codec : codec, *choice);
  if (!text.ok()) return text.status().WithContext("--checksum");
  return text;
}

}  // namespace chunkwise::cli
