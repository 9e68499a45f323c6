#include "formats/refs/reference_combine.h"

#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/json.h"

namespace chunkwise::formats::refs {
namespace {

using store::Reference;

constexpr std::string_view kZarray = ".zarray";

// One input's view of one array.
struct ArrayPart {
  nlohmann::json zarray;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> chunks;
};

std::string InputName(std::size_t i) { return "input " + std::to_string(i + 1); }

Result<ArrayPart> ParseArray(const ReferenceSet& set, const std::string& prefix,
                             std::size_t input) {
  const std::string where = InputName(input) + ": " + prefix + std::string(kZarray);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Reference> reference,
                             set.Find(prefix + std::string(kZarray)));
  if (!reference) return Status::InvalidArgument(where + " is missing");
  if (reference->kind != Reference::Kind::kInline) {
    return Status::InvalidArgument(where + " is not inline metadata");
  }
  ArrayPart part;
  CHUNKWISE_ASSIGN_OR_RETURN(part.zarray, core::ParseJson(AsChars(reference->data), where));
  try {
    part.shape = part.zarray.at("shape").get<std::vector<std::int64_t>>();
    part.chunks = part.zarray.at("chunks").get<std::vector<std::int64_t>>();
  } catch (const nlohmann::json::exception& error) {
    return Status::InvalidArgument(where + ": " + error.what());
  }
  if (part.shape.size() != part.chunks.size()) {
    return Status::InvalidArgument(where + ": shape and chunks differ in rank");
  }
  for (std::int64_t c : part.chunks) {
    if (c <= 0) return Status::InvalidArgument(where + ": chunks must be positive");
  }
  if (part.zarray.value("dimension_separator", ".") != ".") {
    return Status::InvalidArgument(where + ": only the \".\" dimension separator can be combined");
  }
  return part;
}

// Checks `part` against the first input's and returns the fields that must agree.
Status CheckCompatible(const ArrayPart& first, const ArrayPart& part, int dim,
                       const std::string& where) {
  for (const char* field : {"dtype", "chunks", "compressor", "filters", "fill_value", "order"}) {
    if (first.zarray.value(field, nlohmann::json()) != part.zarray.value(field, nlohmann::json())) {
      return Status::InvalidArgument(where + ": \"" + field + "\" differs from input 1's (" +
                                     part.zarray.value(field, nlohmann::json()).dump() + " vs " +
                                     first.zarray.value(field, nlohmann::json()).dump() + ")");
    }
  }
  if (first.shape.size() != part.shape.size()) {
    return Status::InvalidArgument(where + ": rank differs from input 1's");
  }
  for (std::size_t d = 0; d < part.shape.size(); ++d) {
    if (static_cast<int>(d) != dim && part.shape[d] != first.shape[d]) {
      return Status::InvalidArgument(where + ": extent " + std::to_string(part.shape[d]) +
                                     " of dimension " + std::to_string(d) +
                                     " differs from input 1's " + std::to_string(first.shape[d]) +
                                     " (only the concatenation dimension may differ)");
    }
  }
  return Status::Ok();
}

// Parses "i.j.k" of rank `rank`; nullopt if `name` is not a chunk key.
std::optional<std::vector<std::int64_t>> ParseChunkKey(std::string_view name, std::size_t rank) {
  std::vector<std::int64_t> coord;
  std::size_t at = 0;
  while (at <= name.size()) {
    const std::size_t dot = std::min(name.find('.', at), name.size());
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(name.data() + at, name.data() + dot, value);
    if (error != std::errc() || end != name.data() + dot || dot == at || value < 0)
      return std::nullopt;
    coord.push_back(value);
    at = dot + 1;
  }
  if (coord.size() != std::max<std::size_t>(rank, 1)) return std::nullopt;
  return coord;
}

std::string FormatChunkKey(const std::vector<std::int64_t>& coord) {
  std::string key;
  for (std::size_t d = 0; d < coord.size(); ++d) {
    if (d > 0) key.push_back('.');
    key += std::to_string(coord[d]);
  }
  return key;
}

std::int64_t CeilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

Result<ReferenceSet> CombineReferenceSets(std::span<const ReferenceSet* const> inputs,
                                          const CombineOptions& options) {
  if (inputs.empty()) return Status::InvalidArgument("combine needs at least one reference set");
  const int dim = options.concat_dim;
  if (dim < 0) return Status::InvalidArgument("the concatenation dimension must be 0 or more");
  // Arrays concatenated: prefix → per-input parts.
  std::map<std::string, std::vector<ArrayPart>> arrays;
  for (const auto& [key, reference] : inputs[0]->entries()) {
    if (!key.ends_with(kZarray) ||
        (key.size() > kZarray.size() && key[key.size() - kZarray.size() - 1] != '/'))
      continue;
    const std::string prefix(key.substr(0, key.size() - kZarray.size()));
    CHUNKWISE_ASSIGN_OR_RETURN(ArrayPart first, ParseArray(*inputs[0], prefix, 0));
    if (static_cast<int>(first.shape.size()) <= dim) continue;  // Copied from input 1.
    arrays[prefix].push_back(std::move(first));
  }
  for (auto& [prefix, parts] : arrays) {
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      CHUNKWISE_ASSIGN_OR_RETURN(ArrayPart part, ParseArray(*inputs[i], prefix, i));
      CHUNKWISE_RETURN_IF_ERROR(
          CheckCompatible(parts[0], part, dim, InputName(i) + ": array \"" + prefix + "\""));
      parts.push_back(std::move(part));
    }
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      if (parts[i].shape[dim] % parts[i].chunks[dim] != 0) {
        return Status::InvalidArgument(
            InputName(i) + ": array \"" + prefix + "\": extent " +
            std::to_string(parts[i].shape[dim]) + " along dimension " + std::to_string(dim) +
            " is not a multiple of the chunk size " + std::to_string(parts[i].chunks[dim]) +
            ", so the next input cannot follow it");
      }
    }
  }
  // Shifted chunk keys do not arrive in key order: appended, then sorted once.
  ReferenceSetBuilder out;
  // Everything of input 1 that is not a chunk of a concatenated array.
  auto owner = [&](std::string_view key) -> std::pair<const std::string*, std::string_view> {
    const std::size_t slash = key.rfind('/');
    const std::string prefix(slash == std::string_view::npos ? "" : key.substr(0, slash + 1));
    const auto found = arrays.find(prefix);
    if (found == arrays.end()) return {nullptr, {}};
    return {&found->first, key.substr(prefix.size())};
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (const auto& [key, reference] : inputs[i]->entries()) {
      const auto [prefix, name] = owner(key);
      if (prefix == nullptr || name.starts_with(".z")) {
        if (i == 0) out.Add(key, reference);
        continue;
      }
      const std::vector<ArrayPart>& parts = arrays.at(*prefix);
      std::optional<std::vector<std::int64_t>> coord = ParseChunkKey(name, parts[i].shape.size());
      if (!coord) {
        if (i == 0) out.Add(key, reference);
        continue;
      }
      const std::int64_t grid = CeilDiv(parts[i].shape[dim], parts[i].chunks[dim]);
      if ((*coord)[dim] >= grid) {
        return Status::InvalidArgument(InputName(i) + ": chunk key \"" + std::string(key) +
                                       "\" is outside its array's grid");
      }
      std::int64_t shift = 0;
      for (std::size_t j = 0; j < i; ++j) shift += parts[j].shape[dim] / parts[j].chunks[dim];
      (*coord)[dim] += shift;
      out.Add(*prefix + FormatChunkKey(*coord), reference);
    }
  }
  for (auto& [prefix, parts] : arrays) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        nlohmann::ordered_json zarray,
        core::ParseOrderedJson(
            AsChars(inputs[0]->Find(prefix + std::string(kZarray))->value().data),
            prefix + std::string(kZarray)));
    std::int64_t total = 0;
    for (const ArrayPart& part : parts) total += part.shape[dim];
    zarray["shape"][dim] = total;
    out.Add(prefix + std::string(kZarray), Reference::Inline(CopyToBytes(AsBytes(zarray.dump(4)))));
  }
  return out.Build();
}

}  // namespace chunkwise::formats::refs
