#include "formats/refs/reference_parts.h"

#include <algorithm>
#include <queue>

#include "formats/refs/json_reader.h"
#include "formats/refs/json_writer.h"

namespace chunkwise::formats::refs {
namespace {

bool SameReference(const ReferenceView& a, const ReferenceView& b) {
  return a.kind == b.kind && a.url == b.url && a.offset == b.offset && a.length == b.length &&
         std::ranges::equal(a.data, b.data);
}

std::string Target(const ReferenceView& reference) {
  if (reference.kind == store::Reference::Kind::kInline) return "an inline value";
  if (reference.kind == store::Reference::Kind::kWholeFile) return std::string(reference.url);
  return std::string(reference.url) + " [" + std::to_string(reference.offset) + ", +" +
         std::to_string(reference.length) + ")";
}

}  // namespace

Result<std::string> EncodeReferencePart(const ReferenceSet& part) {
  return FormatReferenceJson(part, {.version = JsonVersion::kV1, .templates = false});
}

Result<ReferenceSet> MergeReferenceParts(const std::vector<std::string>& parts) {
  std::vector<ReferenceSet> sets;
  sets.reserve(parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        ReferenceSet set,
        ParseReferenceJson(parts[i], "reference part " + std::to_string(i), {.threads = 1}));
    sets.push_back(std::move(set));
  }
  // The head of each part, smallest key first (lowest part on equal keys).
  std::vector<ReferenceSet::Iterator> at;
  std::vector<ReferenceSet::Iterator> end;
  for (const ReferenceSet& set : sets) {
    at.push_back(set.entries().begin());
    end.push_back(set.entries().end());
  }
  using Head = std::pair<std::string_view, std::size_t>;
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    if (at[i] != end[i]) heads.emplace((*at[i]).key, i);
  }
  ReferenceSetBuilder merged;
  std::string last_key;
  ReferenceSet::Entry last;
  bool any = false;
  while (!heads.empty()) {
    const std::size_t i = heads.top().second;
    heads.pop();
    const ReferenceSet::Entry entry = *at[i];
    if (any && entry.key == last_key) {
      if (!SameReference(entry.reference, last.reference)) {
        return Status::InvalidArgument("key " + last_key + " is both " + Target(last.reference) +
                                       " and " + Target(entry.reference));
      }
    } else {
      merged.Add(entry.key, entry.reference);
      last_key = entry.key;
      last = entry;
      any = true;
    }
    if (++at[i] != end[i]) heads.emplace((*at[i]).key, i);
  }
  return merged.Build();
}

}  // namespace chunkwise::formats::refs
