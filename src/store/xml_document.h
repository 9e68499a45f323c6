// A small, bounded XML reader for the replies of S3-protocol servers.
//
// S3 answers lists, multipart uploads, batch deletes and errors in short XML
// documents of plain elements. This reads exactly that: elements, attributes
// (skipped), character data with the five named entities and numeric
// references, CDATA, comments and the XML declaration. DOCTYPE is refused (no
// entity expansion), nesting is limited, and every fault is Corruption naming
// what was being read.
#ifndef CHUNKWISE_SRC_STORE_XML_DOCUMENT_H_
#define CHUNKWISE_SRC_STORE_XML_DOCUMENT_H_

#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::store {

struct XmlElement {
  std::string name;  // The local name: a namespace prefix ("s3:Key") is dropped.
  std::string text;  // The character data directly inside, decoded.
  std::vector<XmlElement> children;

  // The first child called `name`, or null.
  const XmlElement* Child(std::string_view child) const;
  // The text of the first child called `name`, or "" if there is none.
  std::string ChildText(std::string_view child) const;
};

// The document's root element. Corruption naming `what` if `text` is not one
// well-formed element (after an optional declaration and comments).
Result<XmlElement> ParseXml(std::string_view text, std::string_view what);

// `text` with &, <, >, " and ' escaped, for element content we send.
std::string XmlEscape(std::string_view text);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_XML_DOCUMENT_H_
