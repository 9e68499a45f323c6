// The template language of JSON v1 reference sets: the subset of jinja2 that
// `templates` and `gen` use.
//
// Spec: docs/formats/refs.md, "JSON: what we read" (version 1). A template is
// literal text with `{{ expression }}` holes. An expression is integer
// arithmetic (+ - * / // %, parentheses, unary minus) over integer literals,
// quoted strings and variables; `+` also joins two strings and `~` joins
// anything as text, as in jinja2. Variables are the set's `templates` (strings)
// and, inside `gen`, the dimension values (integers, or any JSON scalar of an
// explicit list). `/` must divide exactly: jinja2 would render a float, which
// fsspec's int() then rejects. Everything else jinja2 offers (filters,
// statements) is refused with Unsupported rather than rendered wrongly.
#ifndef CHUNKWISE_FORMATS_REFS_REFERENCE_TEMPLATE_H_
#define CHUNKWISE_FORMATS_REFS_REFERENCE_TEMPLATE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>

#include "chunkwise/core/result.h"

namespace chunkwise::formats::refs {

using TemplateValue = std::variant<std::int64_t, std::string>;
using TemplateVariables = std::map<std::string, TemplateValue, std::less<>>;

// `text` with every `{{ expression }}` replaced by its value. InvalidArgument
// for an unknown variable, a type error, division by zero or overflow, and an
// unterminated hole; Unsupported for jinja2 syntax outside the subset.
Result<std::string> RenderTemplate(std::string_view text, const TemplateVariables& variables);

// Whether `text` has a `{{` hole at all (most URLs do not).
inline bool HasTemplateHole(std::string_view text) {
  return text.find("{{") != std::string_view::npos;
}

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_REFERENCE_TEMPLATE_H_
