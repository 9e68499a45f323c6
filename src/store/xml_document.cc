#include "store/xml_document.h"

#include <cstdint>
#include <string>

namespace chunkwise::store {
namespace {

// Deeper than any S3 reply; a limit keeps a hostile reply from exhausting the stack.
constexpr int kMaxDepth = 32;
// Larger than any page of a listing (1,000 keys of 1 KiB each).
constexpr std::size_t kMaxDocumentBytes = std::size_t{64} << 20;

struct NamedEntity {
  std::string_view name;
  char character;
};
constexpr NamedEntity kNamedEntities[] = {
    {"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};

void AppendUtf8(std::uint32_t code, std::string* out) {
  if (code < 0x80) {
    out->push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code >> 6)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

class Reader {
 public:
  Reader(std::string_view text, std::string_view what) : text_(text), what_(what) {}

  Result<XmlElement> Document() {
    CHUNKWISE_RETURN_IF_ERROR(SkipMisc());
    if (!Peek('<')) return Fault("no root element");
    XmlElement root;
    CHUNKWISE_RETURN_IF_ERROR(Element(&root, 0));
    CHUNKWISE_RETURN_IF_ERROR(SkipMisc());
    if (at_ != text_.size()) return Fault("content after the root element");
    return root;
  }

 private:
  bool Peek(char c) const { return at_ < text_.size() && text_[at_] == c; }
  bool StartsWith(std::string_view prefix) const { return text_.substr(at_).starts_with(prefix); }
  static bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
  void SkipSpace() {
    while (at_ < text_.size() && IsSpace(text_[at_])) ++at_;
  }

  Status Fault(std::string_view what) const {
    return Status::Corruption(std::string(what_) + ": malformed XML at byte " +
                              std::to_string(at_) + ": " + std::string(what));
  }

  // Skips past `terminator`; Corruption if it never comes.
  Status SkipPast(std::string_view terminator, std::string_view construct) {
    const std::size_t end = text_.find(terminator, at_);
    if (end == std::string_view::npos) return Fault(std::string(construct) + " is not closed");
    at_ = end + terminator.size();
    return Status::Ok();
  }

  // Whitespace, comments and processing instructions outside the root.
  Status SkipMisc() {
    for (;;) {
      SkipSpace();
      if (StartsWith("<?")) {
        CHUNKWISE_RETURN_IF_ERROR(SkipPast("?>", "a processing instruction"));
      } else if (StartsWith("<!--")) {
        CHUNKWISE_RETURN_IF_ERROR(SkipPast("-->", "a comment"));
      } else if (StartsWith("<!")) {
        return Fault("DOCTYPE and other declarations are not accepted");
      } else {
        return Status::Ok();
      }
    }
  }

  Result<std::string> Name() {
    const std::size_t start = at_;
    while (at_ < text_.size() && !IsSpace(text_[at_]) && text_[at_] != '>' && text_[at_] != '/' &&
           text_[at_] != '=' && text_[at_] != '<') {
      ++at_;
    }
    if (at_ == start) return Fault("expected a name");
    return std::string(text_.substr(start, at_ - start));
  }

  static std::string LocalName(const std::string& name) {
    const std::size_t colon = name.rfind(':');
    return colon == std::string::npos ? name : name.substr(colon + 1);
  }

  // Attributes are skipped: S3 replies carry only namespaces in them.
  Status SkipAttributes(bool* empty_element) {
    for (;;) {
      SkipSpace();
      if (at_ >= text_.size()) return Fault("an element's start tag is not closed");
      if (StartsWith("/>")) {
        at_ += 2;
        *empty_element = true;
        return Status::Ok();
      }
      if (Peek('>')) {
        ++at_;
        *empty_element = false;
        return Status::Ok();
      }
      CHUNKWISE_RETURN_IF_ERROR(Name().status());
      SkipSpace();
      if (!Peek('=')) return Fault("an attribute has no value");
      ++at_;
      SkipSpace();
      if (!Peek('"') && !Peek('\'')) return Fault("an attribute value is not quoted");
      const char quote = text_[at_++];
      const std::size_t end = text_.find(quote, at_);
      if (end == std::string_view::npos) return Fault("an attribute value is not closed");
      at_ = end + 1;
    }
  }

  Status Reference(std::string* out) {
    const std::size_t end = text_.find(';', at_);
    if (end == std::string_view::npos || end - at_ > 12) return Fault("a bad entity reference");
    const std::string_view entity = text_.substr(at_ + 1, end - at_ - 1);
    at_ = end + 1;
    for (const auto& [named, character] : kNamedEntities) {
      if (entity == named) {
        out->push_back(character);
        return Status::Ok();
      }
    }
    if (entity.size() < 2 || entity[0] != '#') return Fault("an unknown entity");
    const bool hex = entity[1] == 'x' || entity[1] == 'X';
    std::uint32_t code = 0;
    const std::string_view digits = entity.substr(hex ? 2 : 1);
    if (digits.empty()) return Fault("a character reference has no digits");
    for (char c : digits) {
      int digit;
      if (c >= '0' && c <= '9') {
        digit = c - '0';
      } else if (hex && c >= 'a' && c <= 'f') {
        digit = c - 'a' + 10;
      } else if (hex && c >= 'A' && c <= 'F') {
        digit = c - 'A' + 10;
      } else {
        return Fault("a character reference has a bad digit");
      }
      code = code * (hex ? 16 : 10) + static_cast<std::uint32_t>(digit);
      if (code > 0x10FFFF) return Fault("a character reference is out of range");
    }
    if (code == 0 || (code >= 0xD800 && code <= 0xDFFF)) {
      return Fault("a character reference names no character");
    }
    AppendUtf8(code, out);
    return Status::Ok();
  }

  Status Element(XmlElement* element, int depth) {
    if (depth >= kMaxDepth) return Fault("elements nest too deeply");
    ++at_;  // '<'
    CHUNKWISE_ASSIGN_OR_RETURN(const std::string name, Name());
    element->name = LocalName(name);
    bool empty_element = false;
    CHUNKWISE_RETURN_IF_ERROR(SkipAttributes(&empty_element));
    if (empty_element) return Status::Ok();
    for (;;) {
      if (at_ >= text_.size()) return Fault("element <" + name + "> is not closed");
      const char c = text_[at_];
      if (c == '&') {
        CHUNKWISE_RETURN_IF_ERROR(Reference(&element->text));
      } else if (c != '<') {
        element->text.push_back(c);
        ++at_;
      } else if (StartsWith("</")) {
        at_ += 2;
        CHUNKWISE_ASSIGN_OR_RETURN(const std::string closing, Name());
        if (closing != name) {
          std::string what = "<";
          what += name;
          what += "> is closed by </";
          what += closing;
          what += ">";
          return Fault(what);
        }
        SkipSpace();
        if (!Peek('>')) return Fault("an end tag is not closed");
        ++at_;
        return Status::Ok();
      } else if (StartsWith("<![CDATA[")) {
        const std::size_t start = at_ + 9;
        CHUNKWISE_RETURN_IF_ERROR(SkipPast("]]>", "a CDATA section"));
        element->text.append(text_.substr(start, at_ - 3 - start));
      } else if (StartsWith("<!--")) {
        CHUNKWISE_RETURN_IF_ERROR(SkipPast("-->", "a comment"));
      } else if (StartsWith("<?")) {
        CHUNKWISE_RETURN_IF_ERROR(SkipPast("?>", "a processing instruction"));
      } else if (StartsWith("<!")) {
        return Fault("declarations are not accepted inside elements");
      } else {
        element->children.emplace_back();
        CHUNKWISE_RETURN_IF_ERROR(Element(&element->children.back(), depth + 1));
      }
    }
  }

  std::string_view text_;
  std::string_view what_;
  std::size_t at_ = 0;
};

}  // namespace

const XmlElement* XmlElement::Child(std::string_view child) const {
  for (const XmlElement& element : children) {
    if (element.name == child) return &element;
  }
  return nullptr;
}

std::string XmlElement::ChildText(std::string_view child) const {
  const XmlElement* element = Child(child);
  return element == nullptr ? std::string() : element->text;
}

Result<XmlElement> ParseXml(std::string_view text, std::string_view what) {
  if (text.size() > kMaxDocumentBytes) {
    return Status::Corruption(std::string(what) + ": an XML reply of " +
                              std::to_string(text.size()) + " bytes is too large");
  }
  return Reader(text, what).Document();
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

}  // namespace chunkwise::store
