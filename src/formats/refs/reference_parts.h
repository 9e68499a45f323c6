// The parts of one reference set built by several ranks (or tasks), each
// over the chunks it owns (core::JobPart), and their merge into the set one
// builder would make.
//
// A part travels as JSON version 1 text without templates: the format the
// writer and reader already share (and that the reader's fuzz target covers),
// so no second wire format exists. The merge is a k-way merge of the sorted
// parts, so keys arrive in order and nothing is sorted again.
#ifndef CHUNKWISE_FORMATS_REFS_REFERENCE_PARTS_H_
#define CHUNKWISE_FORMATS_REFS_REFERENCE_PARTS_H_

#include <string>
#include <vector>

#include "chunkwise/core/result.h"
#include "formats/refs/reference_set.h"

namespace chunkwise::formats::refs {

// `part` as text for MergeReferenceParts. InvalidArgument naming the key for a
// URL holding "{{" (which the JSON writers refuse anyway).
Result<std::string> EncodeReferencePart(const ReferenceSet& part);

// The union of the encoded parts. A key in several parts must have the same
// reference in each (metadata that every part carries); a key whose
// references differ (a block held by two shards) is InvalidArgument naming
// the key and both targets. The parser's errors, naming the part, for text
// that does not parse.
Result<ReferenceSet> MergeReferenceParts(const std::vector<std::string>& parts);

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_REFERENCE_PARTS_H_
