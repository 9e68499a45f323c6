#include "formats/refs/json_writer.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <vector>

#include "core/base64.h"
#include "core/utf8.h"
#include "formats/refs/reference_template.h"

namespace chunkwise::formats::refs {
namespace {

using store::Reference;

// Templates shorter than this save nothing once the name and braces are counted.
constexpr std::size_t kMinTemplatedPrefix = 8;

void AppendJsonString(std::string_view text, std::string& out) {
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default: {
        constexpr char kHex[] = "0123456789abcdef";
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 15]);
      }
    }
  }
  out.append(text.data() + run, text.size() - run);
  out.push_back('"');
}

void AppendUnsigned(std::uint64_t value, std::string& out) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof(digits), value).ptr;
  out.append(digits, end);
}

void AppendInline(ByteView data, std::string& out) {
  const std::string_view text = AsChars(data);
  if (core::IsUtf8(text) && !text.starts_with("base64:")) {
    AppendJsonString(text, out);
    return;
  }
  out += "\"base64:";
  core::AppendBase64(data, out);
  out.push_back('"');
}

// Directory prefixes (through the last '/') shared by two or more URLs.
using TemplateNames = std::unordered_map<std::string_view, std::string>;

std::string_view DirectoryOf(std::string_view url) {
  // fsspec's simple templates run str.format over the whole URL: braces elsewhere break it.
  if (url.find_first_of("{}") != std::string_view::npos) return std::string_view();
  const std::size_t slash = url.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : url.substr(0, slash + 1);
}

TemplateNames ChooseTemplates(const ReferenceSet& set) {
  std::unordered_map<std::string_view, std::size_t> counts;
  for (const auto& [key, reference] : set.entries()) {
    if (reference.kind == Reference::Kind::kInline) continue;
    const std::string_view directory = DirectoryOf(reference.url);
    if (directory.size() >= kMinTemplatedPrefix) ++counts[directory];
  }
  std::vector<std::string_view> shared;
  for (const auto& [directory, count] : counts) {
    if (count >= 2) shared.push_back(directory);
  }
  std::sort(shared.begin(), shared.end());  // Deterministic names.
  TemplateNames names;
  for (std::size_t i = 0; i < shared.size(); ++i) names[shared[i]] = "u" + std::to_string(i);
  return names;
}

Status AppendReference(std::string_view key, const ReferenceView& reference,
                       const TemplateNames& templates, std::string& out) {
  AppendJsonString(key, out);
  out.push_back(':');
  if (reference.kind == Reference::Kind::kInline) {
    AppendInline(reference.data, out);
    return Status::Ok();
  }
  if (HasTemplateHole(reference.url)) {
    return Status::InvalidArgument("key \"" + std::string(key) + "\": URL \"" +
                                   std::string(reference.url) +
                                   "\" contains \"{{\", which readers take for a template");
  }
  out.push_back('[');
  const std::string_view directory = DirectoryOf(reference.url);
  const auto name = templates.empty() ? templates.end() : templates.find(directory);
  if (name != templates.end()) {
    AppendJsonString(
        "{{" + name->second + "}}" + std::string(reference.url.substr(directory.size())), out);
  } else {
    AppendJsonString(reference.url, out);
  }
  if (reference.kind == Reference::Kind::kRange) {
    out.push_back(',');
    AppendUnsigned(reference.offset, out);
    out.push_back(',');
    AppendUnsigned(reference.length, out);
  }
  out.push_back(']');
  return Status::Ok();
}

}  // namespace

Result<std::string> FormatReferenceJson(const ReferenceSet& set, const JsonWriteOptions& options) {
  const bool v1 = options.version == JsonVersion::kV1;
  if (!v1 && set.Find("version")->has_value()) {
    // fsspec would take the key for the set's version field.
    return Status::InvalidArgument(
        "the set has a key named \"version\", which JSON v0 cannot hold; write version 1");
  }
  const TemplateNames templates = v1 && options.templates ? ChooseTemplates(set) : TemplateNames();
  std::string out;
  out.reserve(set.size() * 96 + 64);
  if (v1) {
    out += "{\"version\":1,";
    if (!templates.empty()) {
      std::vector<std::pair<std::string, std::string_view>> by_name;
      for (const auto& [directory, name] : templates) by_name.emplace_back(name, directory);
      std::sort(by_name.begin(), by_name.end());
      out += "\"templates\":{";
      for (std::size_t i = 0; i < by_name.size(); ++i) {
        if (i > 0) out.push_back(',');
        AppendJsonString(by_name[i].first, out);
        out.push_back(':');
        AppendJsonString(by_name[i].second, out);
      }
      out += "},\n";
    }
    out += "\"refs\":{\n";
  } else {
    out += "{\n";
  }
  bool first = true;
  for (const auto& [key, reference] : set.entries()) {
    if (!first) out += ",\n";
    first = false;
    CHUNKWISE_RETURN_IF_ERROR(AppendReference(key, reference, templates, out));
  }
  out += v1 ? "\n}}\n" : "\n}\n";
  return out;
}

Status WriteReferenceJson(store::Store& store, std::string_view key, const ReferenceSet& set,
                          const JsonWriteOptions& options, bool overwrite) {
  if (!overwrite) {
    CHUNKWISE_ASSIGN_OR_RETURN(const bool exists, store.Exists(key));
    if (exists) {
      return Status::InvalidArgument(store.Describe(key) +
                                     " already exists (overwrite not requested)")
          .WithField("overwrite");
    }
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string text, FormatReferenceJson(set, options));
  return store.Set(key, AsBytes(text));
}

}  // namespace chunkwise::formats::refs
