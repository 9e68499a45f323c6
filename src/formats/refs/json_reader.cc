#include "formats/refs/json_reader.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "core/base64.h"
#include "core/json.h"
#include "core/memory_limit.h"
#include "formats/refs/json_cursor.h"
#include "formats/refs/json_entries.h"
#include "formats/refs/reference_template.h"

namespace chunkwise::formats::refs {
namespace {

using internal::JsonCursor;
using store::Reference;

Status KeyError(std::string_view name, std::string_view key, const std::string& what) {
  return Status::InvalidArgument(std::string(name) + ": key \"" + std::string(key) + "\": " + what);
}

// One pass over the document. v0 entries and v1's `refs` are read straight into
// sets; the four v1 section names are also remembered as text so that a v0 set
// that happens to use them as keys is still read right.
class DocumentReader {
 public:
  DocumentReader(std::string_view text, std::string_view name, const JsonReadOptions& options)
      : text_(text), name_(name), options_(options), cursor_(text, name) {}

  Result<ReferenceSet> Read();

 private:
  Status ReadTopLevel();
  internal::ObjectReadOptions Parallel(bool v1, bool top_level) const {
    unsigned threads = options_.threads;
    if (threads == 0) {
      const unsigned cores = std::thread::hardware_concurrency();
      threads = cores >= 4 ? std::min(cores / 2, 8u) : 1;
    }
    return {v1, top_level, threads, options_.min_part_bytes,
            templates_loaded_ ? &templates_values_ : nullptr};
  }
  Status ReadRefsObject(JsonCursor& cursor);
  Result<ReferenceSet> FinishV0();
  Result<ReferenceSet> FinishV1();
  Status ReadTemplates(std::string_view text);
  Status ApplyPendingTemplates(ReferenceSet& refs);
  Status ExpandGen(std::string_view text, ReferenceSetBuilder& out);
  Status ExpandGenItem(const nlohmann::ordered_json& item, std::size_t index,
                       ReferenceSetBuilder& out);

  std::string_view text_;
  std::string_view name_;
  const JsonReadOptions& options_;
  JsonCursor cursor_;
  std::string key_;  // Scratch for keys with escapes.
  internal::EntryReader entries_{name_};
  ReferenceSetBuilder top_;   // Entries as v0 sees them.
  ReferenceSetBuilder refs_;  // v1's `refs`, read in place when it is an object.
  std::optional<std::string_view> version_, templates_, gen_, refs_text_;
  TemplateVariables templates_values_;
  bool templates_loaded_ = false;
  std::vector<std::string>& pending_ = entries_.pending();  // v1 keys with a template hole.
  Status refs_error_;  // Why `refs` did not read as v1 refs, if it did not.
};

Status DocumentReader::ReadTopLevel() {
  // A v0 set is one big object: read it in parallel unless it has section names.
  if (internal::ReadObjectInParallel(text_, name_, cursor_, top_, pending_,
                                     Parallel(false, true))) {
    return cursor_.ExpectEnd();
  }
  CHUNKWISE_RETURN_IF_ERROR(cursor_.Expect('{', "at the start of a reference set"));
  if (cursor_.Consume('}')) return cursor_.ExpectEnd();
  do {
    std::string_view key;
    CHUNKWISE_RETURN_IF_ERROR(cursor_.ReadStringView(key, key_));
    CHUNKWISE_RETURN_IF_ERROR(cursor_.Expect(':', "after a key"));
    std::optional<std::string_view>* section = key == "version"     ? &version_
                                               : key == "templates" ? &templates_
                                               : key == "gen"       ? &gen_
                                               : key == "refs"      ? &refs_text_
                                                                    : nullptr;
    if (section == nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(entries_.ReadReference(cursor_, key, top_, false));
      continue;
    }
    if (section == &refs_text_ && cursor_.Peek() == '{') {
      // v1's bulk, read in place; kept only if the set turns out to be v1.
      const std::size_t start = cursor_.position();
      refs_error_ = ReadRefsObject(cursor_);
      if (!refs_error_.ok()) {
        // Not a refs object; fine if the set turns out to be v0 ("refs" is then a key).
        cursor_.Rewind(start);
        CHUNKWISE_ASSIGN_OR_RETURN(refs_text_, cursor_.SkipValue());
        continue;
      }
      refs_text_ = text_.substr(start, cursor_.position() - start);
      continue;
    }
    CHUNKWISE_ASSIGN_OR_RETURN(*section, cursor_.SkipValue());
    if (section == &templates_ && templates_->starts_with('{') && ReadTemplates(*templates_).ok()) {
      // Known before "refs" (as kerchunk and chunkwise write them): fill URLs in while reading.
      templates_loaded_ = true;
      entries_.set_templates(&templates_values_);
    }
  } while (cursor_.Consume(','));
  CHUNKWISE_RETURN_IF_ERROR(cursor_.Expect('}', "to close the reference set"));
  return cursor_.ExpectEnd();
}

Status DocumentReader::ReadRefsObject(JsonCursor& cursor) {
  refs_ = ReferenceSetBuilder();
  pending_.clear();
  if (internal::ReadObjectInParallel(text_, name_, cursor, refs_, pending_,
                                     Parallel(true, false))) {
    return Status::Ok();
  }
  CHUNKWISE_RETURN_IF_ERROR(cursor.Expect('{', "to open \"refs\""));
  if (cursor.Consume('}')) return Status::Ok();
  std::string key_scratch;
  std::string_view key;
  do {
    CHUNKWISE_RETURN_IF_ERROR(cursor.ReadStringView(key, key_scratch));
    CHUNKWISE_RETURN_IF_ERROR(cursor.Expect(':', "after a key"));
    CHUNKWISE_RETURN_IF_ERROR(entries_.ReadReference(cursor, key, refs_, true));
  } while (cursor.Consume(','));
  return cursor.Expect('}', "to close \"refs\"");
}

Result<ReferenceSet> DocumentReader::FinishV0() {
  // The section names were ordinary keys after all.
  const std::pair<std::string_view, std::optional<std::string_view>*> sections[] = {
      {"templates", &templates_}, {"gen", &gen_}, {"refs", &refs_text_}};
  for (const auto& [key, text] : sections) {
    if (!text->has_value()) continue;
    JsonCursor cursor(**text, name_);
    CHUNKWISE_RETURN_IF_ERROR(entries_.ReadReference(cursor, key, top_, false));
  }
  return top_.Build();
}

Status DocumentReader::ReadTemplates(std::string_view text) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      const nlohmann::json templates,
      core::ParseJson(text, std::string(name_) + ": \"templates\"", StatusCode::kCorruption));
  if (!templates.is_object()) {
    return Status::InvalidArgument(std::string(name_) + ": \"templates\" must be an object");
  }
  for (const auto& [name, value] : templates.items()) {
    if (!value.is_string()) {
      return Status::InvalidArgument(std::string(name_) + ": template \"" + name +
                                     "\" must be a string");
    }
    if (HasTemplateHole(value.get<std::string>())) {
      return Status::Unsupported(std::string(name_) + ": template \"" + name +
                                 "\" is itself a template (a jinja2 function of gen variables)");
    }
    templates_values_[name] = value.get<std::string>();
  }
  return Status::Ok();
}

Status DocumentReader::ApplyPendingTemplates(ReferenceSet& refs) {
  for (const std::string& key : pending_) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Reference> reference, refs.Find(key));
    Result<std::string> url = RenderTemplate(reference->url, templates_values_);
    if (!url.ok()) return KeyError(name_, key, std::string(url.status().message()));
    reference->url = std::move(*url);
    refs.Set(key, *reference);
  }
  pending_.clear();
  return Status::Ok();
}

// How many values start, start + step, ... before stop. REQUIRES: step != 0.
std::uint64_t RangeLength(std::int64_t start, std::int64_t stop, std::int64_t step) {
  if (step > 0 ? start >= stop : start <= stop) return 0;
  const auto span = step > 0 ? static_cast<std::uint64_t>(stop) - static_cast<std::uint64_t>(start)
                             : static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(stop);
  const std::uint64_t stride =
      step > 0 ? static_cast<std::uint64_t>(step) : 0 - static_cast<std::uint64_t>(step);
  return (span - 1) / stride + 1;
}

// A gen dimension: a range, or an explicit list of values.
Result<std::vector<TemplateValue>> DimensionValues(const nlohmann::ordered_json& spec,
                                                   std::uint64_t limit) {
  std::vector<TemplateValue> values;
  if (spec.is_array()) {
    if (spec.size() > limit) return Status::InvalidArgument("too many values");
    for (const auto& value : spec) {
      if (value.is_number_integer()) {
        values.emplace_back(value.get<std::int64_t>());
      } else if (value.is_string()) {
        values.emplace_back(value.get<std::string>());
      } else {
        values.emplace_back(value.dump());
      }
    }
    return values;
  }
  if (!spec.is_object() || !spec.contains("stop")) {
    return Status::InvalidArgument("a dimension must be a list or {start, stop, step}");
  }
  const std::int64_t start = spec.value("start", std::int64_t{0});
  const std::int64_t stop = spec.at("stop").get<std::int64_t>();
  const std::int64_t step = spec.value("step", std::int64_t{1});
  if (step == 0) return Status::InvalidArgument("a dimension's step must not be 0");
  // Counted before any value is made, so that the limit and the memory check
  // come before the allocation.
  const std::uint64_t count = RangeLength(start, stop, step);
  if (count > limit) {
    return Status::InvalidArgument(std::to_string(count) + " values, more than " +
                                   std::to_string(limit));
  }
  CHUNKWISE_RETURN_IF_ERROR(
      core::CheckAllocation(core::SaturatingProduct(count, sizeof(TemplateValue)), "its values"));
  values.reserve(count);
  for (std::int64_t v = start; step > 0 ? v < stop : v > stop;) {
    if (values.size() >= limit) return Status::InvalidArgument("too many values");
    values.emplace_back(v);
    if (__builtin_add_overflow(v, step, &v)) break;
  }
  return values;
}

Result<std::uint64_t> RenderInteger(const std::string& text, const TemplateVariables& variables) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string rendered, RenderTemplate(text, variables));
  std::string_view digits = rendered;
  while (!digits.empty() && digits.front() == ' ') digits.remove_prefix(1);
  while (!digits.empty() && digits.back() == ' ') digits.remove_suffix(1);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    return Status::InvalidArgument("\"" + rendered + "\" is not a non-negative integer");
  }
  return value;
}

std::string TemplateText(const nlohmann::ordered_json& item, const char* field) {
  const nlohmann::ordered_json& value = item.at(field);
  return value.is_string() ? value.get<std::string>() : value.dump();
}

Status DocumentReader::ExpandGenItem(const nlohmann::ordered_json& item, std::size_t index,
                                     ReferenceSetBuilder& out) {
  const std::string where = std::string(name_) + ": gen[" + std::to_string(index) + "]";
  if (!item.is_object() || !item.contains("key") || !item.contains("url")) {
    return Status::InvalidArgument(where + " must be an object with \"key\" and \"url\"");
  }
  const bool has_offset = item.contains("offset");
  if (has_offset != item.contains("length")) {
    return Status::InvalidArgument(where + " needs both \"offset\" and \"length\" or neither");
  }
  std::vector<std::string> names;
  std::vector<std::vector<TemplateValue>> dimensions;
  std::uint64_t total = 1;
  const nlohmann::ordered_json specs = item.value("dimensions", nlohmann::ordered_json::object());
  for (const auto& [name, spec] : specs.items()) {
    Result<std::vector<TemplateValue>> values =
        DimensionValues(spec, options_.max_generated_references);
    if (!values.ok()) return values.status().WithContext(where + ": dimension \"" + name + "\"");
    if (!values->empty() && total > options_.max_generated_references / values->size()) {
      return Status::InvalidArgument(where + " generates more than " +
                                     std::to_string(options_.max_generated_references) +
                                     " references");
    }
    total *= values->size();
    names.push_back(name);
    dimensions.push_back(std::move(*values));
  }
  if (total == 0) return Status::Ok();
  const std::string key_text = TemplateText(item, "key"), url_text = TemplateText(item, "url");
  // Each generated reference holds a key and a URL at least as long as
  // their templates' fixed text.
  const std::uint64_t per_reference = sizeof(Reference) + key_text.size() + url_text.size();
  CHUNKWISE_RETURN_IF_ERROR(
      core::CheckAllocation(core::SaturatingProduct(total, per_reference),
                            where + ": its " + std::to_string(total) + " references"));
  TemplateVariables variables = templates_values_;
  std::vector<std::size_t> at(dimensions.size(), 0);
  for (std::uint64_t n = 0; n < total; ++n) {
    for (std::size_t d = 0; d < dimensions.size(); ++d) variables[names[d]] = dimensions[d][at[d]];
    Result<std::string> key = RenderTemplate(key_text, variables);
    if (!key.ok()) return key.status().WithContext(where + ": key");
    Result<std::string> url = RenderTemplate(url_text, variables);
    if (!url.ok()) return url.status().WithContext(where + ": url");
    if (has_offset) {
      Result<std::uint64_t> offset = RenderInteger(TemplateText(item, "offset"), variables);
      if (!offset.ok()) return offset.status().WithContext(where + ": offset");
      Result<std::uint64_t> length = RenderInteger(TemplateText(item, "length"), variables);
      if (!length.ok()) return length.status().WithContext(where + ": length");
      out.Add(*key, Reference::Range(std::move(*url), *offset, *length));
    } else {
      out.Add(*key, Reference::WholeFile(std::move(*url)));
    }
    // Odometer over the dimensions, the last one fastest (itertools.product's order).
    for (std::size_t d = dimensions.size(); d-- > 0;) {
      if (++at[d] < dimensions[d].size()) break;
      at[d] = 0;
    }
  }
  return Status::Ok();
}

Status DocumentReader::ExpandGen(std::string_view text, ReferenceSetBuilder& out) {
  CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::ordered_json gen,
                             core::ParseOrderedJson(text, std::string(name_) + ": \"gen\""));
  try {
    if (!gen.is_array()) {
      return Status::InvalidArgument(std::string(name_) + ": \"gen\" must be a list");
    }
    for (std::size_t i = 0; i < gen.size(); ++i)
      CHUNKWISE_RETURN_IF_ERROR(ExpandGenItem(gen[i], i, out));
  } catch (const nlohmann::json::exception& error) {
    return Status::InvalidArgument(std::string(name_) + ": \"gen\": " + error.what());
  }
  return Status::Ok();
}

Result<ReferenceSet> DocumentReader::FinishV1() {
  if (templates_ && !templates_loaded_) CHUNKWISE_RETURN_IF_ERROR(ReadTemplates(*templates_));
  if (refs_text_ && !refs_text_->starts_with('{')) {
    return Status::InvalidArgument(std::string(name_) + ": \"refs\" must be an object");
  }
  CHUNKWISE_RETURN_IF_ERROR(refs_error_);
  ReferenceSet refs = refs_.Build();
  CHUNKWISE_RETURN_IF_ERROR(ApplyPendingTemplates(refs));
  if (!gen_) return refs;
  // Generated keys come in odometer order, not sorted: appended, then sorted once.
  ReferenceSetBuilder out(std::move(refs));
  CHUNKWISE_RETURN_IF_ERROR(ExpandGen(*gen_, out));
  return out.Build();
}

Result<ReferenceSet> DocumentReader::Read() {
  CHUNKWISE_RETURN_IF_ERROR(ReadTopLevel());
  if (!version_ || *version_ == "null") return FinishV0();
  if (*version_ != "1" && *version_ != "1.0" && *version_ != "true") {
    return Status::InvalidArgument(std::string(name_) + ": unknown reference set version " +
                                   std::string(*version_) + " (versions 0 and 1 are defined)");
  }
  return FinishV1();
}

}  // namespace

Result<ReferenceSet> ParseReferenceJson(std::string_view text, std::string_view name,
                                        const JsonReadOptions& options) {
  DocumentReader reader(text, name, options);
  return reader.Read();
}

Result<ReferenceSet> ReadReferenceJson(const store::Store& store, std::string_view key,
                                       const JsonReadOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> text, store.Get(key));
  const std::string name = store.Describe(key);
  if (!text.has_value()) return Status::NotFound(name + " does not exist");
  return ParseReferenceJson(AsChars(*text), name, options);
}

}  // namespace chunkwise::formats::refs
