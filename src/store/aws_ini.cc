#include "store/aws_ini.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace chunkwise::store {
namespace {

// Files larger than this are not credentials files; refusing them keeps a
// wrong path (a disk image, say) from being read whole.
constexpr std::size_t kMaxIniBytes = std::size_t{1} << 20;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsBlank(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
  return text;
}

std::string Lower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

// Splits "name = value" (or "name: value") at the first delimiter.
bool SplitSetting(std::string_view line, std::string* name, std::string* value) {
  const std::size_t at = line.find_first_of("=:");
  if (at == std::string_view::npos) return false;
  const std::string_view key = Trim(line.substr(0, at));
  if (key.empty()) return false;
  *name = Lower(key);
  *value = std::string(Trim(line.substr(at + 1)));
  return true;
}

class Parser {
 public:
  explicit Parser(std::string_view name) : name_(name) {}

  Status Line(std::string_view raw, std::size_t number) {
    const std::string_view line = Trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') return Status::Ok();
    const bool indented = IsBlank(raw.front());
    if (line.front() == '[') return Header(line, number);
    if (section_ == nullptr) return Fault(number, "a setting comes before any [section]");
    std::string key, value;
    if (indented && !nesting_.empty()) {
      if (!SplitSetting(line, &key, &value)) return Fault(number, "expected \"name = value\"");
      section_->nested[nesting_][key] = value;
      return Status::Ok();
    }
    if (!SplitSetting(line, &key, &value)) return Fault(number, "expected \"name = value\"");
    nesting_.clear();
    if (value.empty()) {
      nesting_ = key;  // Indented lines that follow belong to it.
      section_->nested[key];
    }
    section_->values[key] = value;
    return Status::Ok();
  }

  IniFile Finish() { return std::move(file_); }

 private:
  Status Header(std::string_view line, std::size_t number) {
    if (line.back() != ']') return Fault(number, "a section header lacks its closing \"]\"");
    const std::string section(Trim(line.substr(1, line.size() - 2)));
    if (section.empty()) return Fault(number, "a section header names no section");
    section_ = &file_.sections[section];
    nesting_.clear();
    return Status::Ok();
  }

  Status Fault(std::size_t number, std::string_view what) const {
    return Status::InvalidArgument(std::string(name_) + ":" + std::to_string(number) + ": " +
                                   std::string(what));
  }

  std::string_view name_;
  IniFile file_;
  IniSection* section_ = nullptr;
  std::string nesting_;  // The setting indented lines nest under, if any.
};

}  // namespace

Result<IniFile> ParseIni(std::string_view text, std::string_view name) {
  if (text.size() > kMaxIniBytes) {
    return Status::InvalidArgument(std::string(name) + ": " + std::to_string(text.size()) +
                                   " bytes is too large for an AWS settings file");
  }
  Parser parser(name);
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    CHUNKWISE_RETURN_IF_ERROR(parser.Line(text.substr(0, end), ++number));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return parser.Finish();
}

}  // namespace chunkwise::store
