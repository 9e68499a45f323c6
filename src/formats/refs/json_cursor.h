// JsonCursor: a forward-only reader over JSON text, for the one shape that
// reference sets are (an object of millions of short strings and arrays).
//
// A general JSON library builds a tree of every value first; a 10-million
// reference set then costs gigabytes and seconds before a single reference is
// stored. The cursor instead hands the reader each key and value in place:
// strings are unescaped into a caller's buffer, integers are parsed directly,
// and values the reader does not interpret (an object given as a metadata
// document) are skipped and returned as their raw text. Errors name the
// document and the byte offset. Internal to the refs readers.
#ifndef CHUNKWISE_SRC_FORMATS_REFS_JSON_CURSOR_H_
#define CHUNKWISE_SRC_FORMATS_REFS_JSON_CURSOR_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "chunkwise/core/result.h"

namespace chunkwise::formats::refs::internal {

class JsonCursor {
 public:
  JsonCursor(std::string_view text, std::string_view name) : text_(text), name_(name) {}

  // The next non-space character without consuming it; '\0' at the end.
  char Peek() {
    SkipSpace();
    return at_ < text_.size() ? text_[at_] : '\0';
  }
  // Consumes `c` if it comes next (after spaces).
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++at_;
    return true;
  }
  // Corruption unless `c` comes next; `context` says what was being read.
  Status Expect(char c, std::string_view context);
  // Corruption unless only spaces remain.
  Status ExpectEnd();
  // Reads a string (the next value must be one) into `out`, unescaped.
  Status ReadString(std::string& out);
  // As ReadString, but `out` views the text itself when the string has no
  // escapes (the common case: nothing is copied), else `scratch`.
  Status ReadStringView(std::string_view& out, std::string& scratch);
  // Reads a non-negative integer that fits 64 bits.
  Result<std::uint64_t> ReadUnsigned(std::string_view context);
  // Skips any value and returns its text. Nesting is limited (kMaxDepth).
  Result<std::string_view> SkipValue();
  // Reads "null" if it comes next.
  bool ConsumeNull();

  // Corruption "<name>: at byte N: <what>".
  Status Error(std::string_view what) const;
  std::size_t position() const { return at_; }
  std::size_t remaining() const { return text_.size() - at_; }
  // Moves back to `position` (one returned by position()).
  void Rewind(std::size_t position) { at_ = position; }

  static constexpr int kMaxDepth = 256;

 private:
  void SkipSpace() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
      ++at_;
    }
  }
  Status ReadEscape(std::string& out);
  Result<std::uint32_t> ReadHex4();
  Status SkipValueAt(int depth);
  Status SkipLiteral(std::string_view word);
  Status SkipNumber();

  std::string_view text_;
  std::string_view name_;
  std::size_t at_ = 0;
};

}  // namespace chunkwise::formats::refs::internal

#endif  // CHUNKWISE_SRC_FORMATS_REFS_JSON_CURSOR_H_
