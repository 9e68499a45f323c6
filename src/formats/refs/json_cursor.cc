#include "formats/refs/json_cursor.h"

#include <string>

namespace chunkwise::formats::refs::internal {
namespace {

void AppendUtf8(std::uint32_t code_point, std::string& out) {
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

}  // namespace

Status JsonCursor::Error(std::string_view what) const {
  return Status::Corruption(std::string(name_) + ": at byte " + std::to_string(at_) + ": " +
                            std::string(what));
}

Status JsonCursor::Expect(char c, std::string_view context) {
  if (Consume(c)) return Status::Ok();
  const char found = Peek();
  std::string what = "expected '" + std::string(1, c) + "' " + std::string(context) + ", found ";
  what += found == '\0' ? std::string("the end of the text") : "'" + std::string(1, found) + "'";
  return Error(what);
}

Status JsonCursor::ExpectEnd() {
  if (Peek() == '\0' && at_ == text_.size()) return Status::Ok();
  return Error("unexpected text after the JSON value");
}

Status JsonCursor::ReadString(std::string& out) {
  out.clear();
  CHUNKWISE_RETURN_IF_ERROR(Expect('"', "(a string)"));
  const char* const data = text_.data();
  const std::size_t size = text_.size();
  while (true) {
    // The common case: a run of plain characters, copied at once.
    std::size_t run = at_;
    while (run < size) {
      const auto c = static_cast<unsigned char>(data[run]);
      if (c == '"' || c == '\\' || c < 0x20) break;
      ++run;
    }
    out.append(data + at_, run - at_);
    at_ = run;
    if (at_ >= size) return Error("unterminated string");
    const char c = data[at_];
    if (c == '"') {
      ++at_;
      return Status::Ok();
    }
    if (c != '\\') return Error("control character inside a string");
    ++at_;
    CHUNKWISE_RETURN_IF_ERROR(ReadEscape(out));
  }
}

Status JsonCursor::ReadStringView(std::string_view& out, std::string& scratch) {
  const std::size_t start = at_;
  CHUNKWISE_RETURN_IF_ERROR(Expect('"', "(a string)"));
  const std::size_t first = at_;
  const char* const data = text_.data();
  const std::size_t size = text_.size();
  std::size_t run = first;
  while (run < size) {
    const auto c = static_cast<unsigned char>(data[run]);
    if (c == '"' || c == '\\' || c < 0x20) break;
    ++run;
  }
  if (run < size && data[run] == '"') {
    out = text_.substr(first, run - first);
    at_ = run + 1;
    return Status::Ok();
  }
  at_ = start;  // Escapes (or an error): the copying reader handles them.
  CHUNKWISE_RETURN_IF_ERROR(ReadString(scratch));
  out = scratch;
  return Status::Ok();
}

Result<std::uint32_t> JsonCursor::ReadHex4() {
  if (text_.size() - at_ < 4) return Error("truncated \\u escape");
  std::uint32_t value = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = text_[at_++];
    value <<= 4;
    if (c >= '0' && c <= '9') {
      value |= static_cast<std::uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      value |= static_cast<std::uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      value |= static_cast<std::uint32_t>(c - 'A' + 10);
    } else {
      return Error("invalid hex digit in a \\u escape");
    }
  }
  return value;
}

Status JsonCursor::ReadEscape(std::string& out) {
  if (at_ >= text_.size()) return Error("unterminated escape");
  const char c = text_[at_++];
  switch (c) {
    case '"':
      out.push_back('"');
      return Status::Ok();
    case '\\':
      out.push_back('\\');
      return Status::Ok();
    case '/':
      out.push_back('/');
      return Status::Ok();
    case 'b':
      out.push_back('\b');
      return Status::Ok();
    case 'f':
      out.push_back('\f');
      return Status::Ok();
    case 'n':
      out.push_back('\n');
      return Status::Ok();
    case 'r':
      out.push_back('\r');
      return Status::Ok();
    case 't':
      out.push_back('\t');
      return Status::Ok();
    case 'u':
      break;
    default:
      return Error("invalid escape '\\" + std::string(1, c) + "'");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::uint32_t code_point, ReadHex4());
  // A high surrogate followed by a low one is one code point; a lone
  // surrogate is kept as Python's json module keeps it (encoded as is).
  if (code_point >= 0xD800 && code_point < 0xDC00 && text_.substr(at_, 2) == "\\u") {
    const std::size_t saved = at_;
    at_ += 2;
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint32_t low, ReadHex4());
    if (low >= 0xDC00 && low < 0xE000) {
      code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
    } else {
      at_ = saved;
    }
  }
  AppendUtf8(code_point, out);
  return Status::Ok();
}

Result<std::uint64_t> JsonCursor::ReadUnsigned(std::string_view context) {
  SkipSpace();
  std::size_t digits = 0;
  std::uint64_t value = 0;
  while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
    const auto digit = static_cast<std::uint64_t>(text_[at_] - '0');
    if (value > (~std::uint64_t{0} - digit) / 10)
      return Error(std::string(context) + " overflows 64 bits");
    value = value * 10 + digit;
    ++at_;
    ++digits;
  }
  if (digits == 0) return Error(std::string(context) + " must be a non-negative integer");
  if (at_ < text_.size() && (text_[at_] == '.' || text_[at_] == 'e' || text_[at_] == 'E')) {
    return Error(std::string(context) + " must be an integer");
  }
  if (digits > 1 && text_[at_ - digits] == '0') return Error("leading zero in a number");
  return value;
}

bool JsonCursor::ConsumeNull() {
  if (Peek() != 'n' || text_.substr(at_, 4) != "null") return false;
  at_ += 4;
  return true;
}

Status JsonCursor::SkipLiteral(std::string_view word) {
  if (text_.substr(at_, word.size()) != word) return Error("invalid literal");
  at_ += word.size();
  return Status::Ok();
}

Status JsonCursor::SkipNumber() {
  const std::size_t start = at_;
  if (at_ < text_.size() && text_[at_] == '-') ++at_;
  auto digits = [&] {
    const std::size_t from = at_;
    while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
    return at_ - from;
  };
  if (digits() == 0) return Error("invalid number");
  if (at_ < text_.size() && text_[at_] == '.') {
    ++at_;
    if (digits() == 0) return Error("invalid number");
  }
  if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
    ++at_;
    if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
    if (digits() == 0) return Error("invalid number");
  }
  return at_ > start ? Status::Ok() : Error("invalid number");
}

Status JsonCursor::SkipValueAt(int depth) {
  if (depth > kMaxDepth) return Error("values nest too deeply");
  std::string scratch;
  const char c = Peek();
  if (c == '"') return ReadString(scratch);
  if (c == '{' || c == '[') {
    const char close = c == '{' ? '}' : ']';
    ++at_;
    if (Consume(close)) return Status::Ok();
    do {
      if (c == '{') {
        CHUNKWISE_RETURN_IF_ERROR(ReadString(scratch));
        CHUNKWISE_RETURN_IF_ERROR(Expect(':', "after an object key"));
      }
      CHUNKWISE_RETURN_IF_ERROR(SkipValueAt(depth + 1));
    } while (Consume(','));
    return Expect(close, c == '{' ? "to close an object" : "to close an array");
  }
  if (c == 't') return SkipLiteral("true");
  if (c == 'f') return SkipLiteral("false");
  if (c == 'n') return SkipLiteral("null");
  if (c == '-' || (c >= '0' && c <= '9')) return SkipNumber();
  return c == '\0' ? Error("expected a value, found the end of the text")
                   : Error("expected a value, found '" + std::string(1, c) + "'");
}

Result<std::string_view> JsonCursor::SkipValue() {
  SkipSpace();
  const std::size_t start = at_;
  CHUNKWISE_RETURN_IF_ERROR(SkipValueAt(0));
  return text_.substr(start, at_ - start);
}

}  // namespace chunkwise::formats::refs::internal
