// What a reference set holds, for `chunkwise refs info`: references by kind,
// the zarr arrays it describes, the files it points into, and the bytes.
#ifndef CHUNKWISE_FORMATS_REFS_REFERENCE_SUMMARY_H_
#define CHUNKWISE_FORMATS_REFS_REFERENCE_SUMMARY_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "chunkwise/core/result.h"
#include "chunkwise/store/reference.h"
#include "chunkwise/store/store.h"

namespace chunkwise::formats::refs {

struct ReferenceSummary {
  std::uint64_t inline_count = 0;
  std::uint64_t whole_file_count = 0;
  std::uint64_t range_count = 0;
  std::uint64_t inline_bytes = 0;
  std::uint64_t range_bytes = 0;
  std::uint64_t whole_file_bytes = 0;            // Of the whole files whose size was found.
  std::uint64_t unsized_whole_files = 0;         // Whole files whose size could not be found.
  std::vector<std::string> arrays;               // Prefixes holding a .zarray ("" for the root).
  std::map<std::string, std::uint64_t> targets;  // URL → references into it.

  std::uint64_t total_references() const { return inline_count + whole_file_count + range_count; }
  std::uint64_t total_bytes() const { return inline_bytes + range_bytes + whole_file_bytes; }
};

// Summarizes every key of `index`. Whole-file sizes come from `sizes->Size`
// (a ReferenceStore over the same index) when `sizes` is not null; a size that
// cannot be found is counted in unsized_whole_files, not reported as an error.
Result<ReferenceSummary> SummarizeReferences(const store::ReferenceIndex& index,
                                             const store::Store* sizes);

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_REFERENCE_SUMMARY_H_
