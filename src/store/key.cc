#include "store/key.h"

#include <cstddef>
#include <cstdio>

namespace chunkwise::store {
namespace {

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

Status Invalid(std::string_view what, std::string_view text, std::string_view rule) {
  std::string message = "invalid store ";
  message += what;
  message += ' ';
  message += QuoteKey(text);
  message += ": ";
  message += rule;
  return Status::InvalidArgument(std::move(message));
}

// Checks the characters of a key or prefix, whatever its segments look like.
Status ValidateCharacters(std::string_view what, std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0) {
      return Invalid(what, text, "contains a NUL byte");
    }
    if (c == '\\') {
      return Invalid(what, text, "contains a backslash (use \"/\" between segments)");
    }
    if (IsControl(c)) {
      return Invalid(what, text, "contains a control character");
    }
  }
  if (!text.empty() && text.front() == '/') {
    return Invalid(what, text, "starts with \"/\" (keys are relative)");
  }
  return Status::Ok();
}

Status ValidateSegment(std::string_view what, std::string_view text, std::string_view segment) {
  if (segment.empty()) {
    return Invalid(what, text, "has an empty segment (\"//\" or a trailing \"/\")");
  }
  if (segment == "." || segment == "..") {
    return Invalid(what, text, "has a \".\" or \"..\" segment");
  }
  return Status::Ok();
}

}  // namespace

std::string QuoteKey(std::string_view key) {
  std::string quoted = "\"";
  for (const char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsControl(c) || c == '\\' || c == '"') {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
      quoted += escaped;
    } else {
      quoted += ch;
    }
  }
  quoted += '"';
  return quoted;
}

Status ValidateKey(std::string_view key) {
  if (key.empty()) {
    return Status::InvalidArgument("invalid store key \"\": empty");
  }
  if (Status status = ValidateCharacters("key", key); !status.ok()) {
    return status;
  }
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = key.find('/', start);
    const std::size_t end = slash == std::string_view::npos ? key.size() : slash;
    if (Status status = ValidateSegment("key", key, key.substr(start, end - start)); !status.ok()) {
      return status;
    }
    if (slash == std::string_view::npos) {
      return Status::Ok();
    }
    start = slash + 1;
  }
}

Status ValidatePrefix(std::string_view prefix) {
  if (Status status = ValidateCharacters("prefix", prefix); !status.ok()) {
    return status;
  }
  // Only complete segments are checked: the last one may be the start of a
  // longer name ("." begins ".zattrs").
  std::size_t start = 0;
  for (std::size_t slash = prefix.find('/'); slash != std::string_view::npos;
       slash = prefix.find('/', start)) {
    const std::string_view segment = prefix.substr(start, slash - start);
    if (Status status = ValidateSegment("prefix", prefix, segment); !status.ok()) {
      return status;
    }
    start = slash + 1;
  }
  return Status::Ok();
}

}  // namespace chunkwise::store
