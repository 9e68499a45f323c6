// libFuzzer target: the XML reader for S3 replies (store/xml_document.h) and
// the listing's key decoding. Any bytes must parse or fail with Corruption
// naming the reply; nothing may recurse without bound or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "chunkwise/core/check.h"
#include "store/percent_encoding.h"
#include "store/xml_document.h"

namespace {

void Walk(const chunkwise::store::XmlElement& element, int depth) {
  CHUNKWISE_CHECK(depth < 64);
  for (const auto& child : element.children) Walk(child, depth + 1);
  (void)chunkwise::store::PercentDecode(element.text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto root = chunkwise::store::ParseXml(text, "fuzz reply");
  if (!root.ok()) {
    CHUNKWISE_CHECK(root.status().code() == chunkwise::StatusCode::kCorruption);
    return 0;
  }
  Walk(*root, 0);
  return 0;
}
