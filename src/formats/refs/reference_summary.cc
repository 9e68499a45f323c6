#include "formats/refs/reference_summary.h"

namespace chunkwise::formats::refs {

Result<ReferenceSummary> SummarizeReferences(const store::ReferenceIndex& index,
                                             const store::Store* sizes) {
  using Kind = store::Reference::Kind;
  ReferenceSummary summary;
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, index.Keys(""));
  for (const std::string& key : keys) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<store::Reference> reference, index.Find(key));
    if (!reference) continue;
    if (key == ".zarray" || key.ends_with("/.zarray")) {
      summary.arrays.push_back(key.substr(0, key.size() - 7));
    }
    switch (reference->kind) {
      case Kind::kInline:
        ++summary.inline_count;
        summary.inline_bytes += reference->data.size();
        continue;
      case Kind::kRange:
        ++summary.range_count;
        summary.range_bytes += reference->length;
        break;
      case Kind::kWholeFile: {
        ++summary.whole_file_count;
        Result<std::optional<std::uint64_t>> size =
            sizes != nullptr ? sizes->Size(key)
                             : Result<std::optional<std::uint64_t>>(std::nullopt);
        if (size.ok() && size->has_value()) {
          summary.whole_file_bytes += **size;
        } else {
          ++summary.unsized_whole_files;
        }
        break;
      }
    }
    ++summary.targets[reference->url];
  }
  return summary;
}

}  // namespace chunkwise::formats::refs
