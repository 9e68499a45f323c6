// libFuzzer target: JSON reference sets (v0 and v1, templates and gen) as they
// arrive from someone else.
//
// Nothing may throw or crash, and `gen` is capped so that a tiny input cannot
// ask for billions of references. A set that parses must write back (v0, and
// v1 with templates) to text that parses to the same set, unless a URL holds
// "{{", which the writer refuses by design. The input is also read cut into
// parts of a few bytes on several threads, which must give the same set (or
// fail alike) as the sequential pass, and setting its keys in reverse order
// (the out-of-order path of ReferenceSet) must give the same set.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "chunkwise/core/check.h"
#include "formats/refs/json_reader.h"
#include "formats/refs/json_writer.h"
#include "formats/refs/reference_template.h"

namespace {

using chunkwise::formats::refs::JsonReadOptions;
using chunkwise::formats::refs::JsonVersion;
using chunkwise::formats::refs::ParseReferenceJson;
using chunkwise::formats::refs::ReferenceSet;

bool SameSet(const ReferenceSet& a, const ReferenceSet& b) {
  if (a.size() != b.size()) return false;
  auto ib = b.entries().begin();
  for (const auto& [key, reference] : a.entries()) {
    const ReferenceSet::Entry other = *ib++;
    if (key != other.key || reference.kind != other.reference.kind ||
        chunkwise::AsChars(reference.data) != chunkwise::AsChars(other.reference.data) ||
        reference.url != other.reference.url || reference.offset != other.reference.offset ||
        reference.length != other.reference.length) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)chunkwise::formats::refs::RenderTemplate(text, {{"i", std::int64_t{3}}});
  JsonReadOptions options;
  options.max_generated_references = 4096;
  options.threads = 1;
  auto set = ParseReferenceJson(text, "fuzz.json", options);
  JsonReadOptions parallel = options;
  parallel.threads = 3;
  parallel.min_part_bytes = 8;
  auto in_parts = ParseReferenceJson(text, "fuzz.json", parallel);
  CHUNKWISE_CHECK(set.ok() == in_parts.ok());
  if (!set.ok()) return 0;
  CHUNKWISE_CHECK(SameSet(*set, *in_parts));
  // Keys set in reverse order take the out-of-order path and must give the same set.
  const std::vector<ReferenceSet::Entry> entries(set->entries().begin(), set->entries().end());
  ReferenceSet reversed;
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) reversed.Set(it->key, it->reference);
  CHUNKWISE_CHECK(SameSet(*set, reversed));
  for (const JsonVersion version : {JsonVersion::kV0, JsonVersion::kV1}) {
    auto written = chunkwise::formats::refs::FormatReferenceJson(*set, {version, true});
    if (!written.ok()) continue;  // A URL holding "{{".
    auto back = ParseReferenceJson(*written, "written.json", options);
    CHUNKWISE_CHECK(back.ok());
    CHUNKWISE_CHECK(SameSet(*set, *back));
  }
  return 0;
}
