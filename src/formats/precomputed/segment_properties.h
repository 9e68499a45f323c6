// neuroglancer precomputed segment properties: the `info` of a folder of
// type "neuroglancer_segment_properties" with inline ids and values
// (docs/formats/precomputed-meshes.md, "Segment properties"), and the CSV
// of segment names and tags chunkwise takes them from.
#ifndef CHUNKWISE_FORMATS_PRECOMPUTED_SEGMENT_PROPERTIES_H_
#define CHUNKWISE_FORMATS_PRECOMPUTED_SEGMENT_PROPERTIES_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::formats::precomputed {

inline constexpr std::string_view kSegmentPropertiesType = "neuroglancer_segment_properties";

struct SegmentName {
  std::string name;
  std::vector<std::string> tags;
};

// The info text: ids as decimal strings, in ascending order; a number
// property "voxels" (uint32 where every count fits, else float32, the widest
// neuroglancer shows); a label property "name" and a tags property "tags"
// where `names` gives any. `voxel_counts` gives the ids; names of other ids
// are left out.
std::string SegmentPropertiesInfoText(const std::map<std::uint64_t, std::uint64_t>& voxel_counts,
                                      const std::map<std::uint64_t, SegmentName>& names);

// Rows "id,name[,tags]" (tags separated by spaces or ';'; a field in double
// quotes may hold commas, "" a quote); a first row whose id is not a
// number is a header; blank lines are skipped. InvalidArgument naming
// `where` and the line: an id that is not a uint64, a row with more than
// three fields, an id given twice.
Result<std::map<std::uint64_t, SegmentName>> ParseSegmentNamesCsv(std::string_view text,
                                                                  std::string_view where);

}  // namespace chunkwise::formats::precomputed

#endif  // CHUNKWISE_FORMATS_PRECOMPUTED_SEGMENT_PROPERTIES_H_
