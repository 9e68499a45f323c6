// Reading the entries of a reference-set object (key → reference), on one
// thread or split across several. Internal to the JSON reader.
//
// A large set is one object of millions of entries. Raw newlines never occur
// inside JSON strings, so a line start is a likely entry start; the object is
// cut at line starts and each part read on its own thread. A cut is used only
// if the part before it, read from a known entry start, ends exactly there:
// then the part after it starts at an entry start too, and by induction every
// part reads as a sequential reader would. Anything else (a single-line file,
// a cut inside a multi-line value, a malformed part) makes the caller read the
// object sequentially, which also produces the right error message.
#ifndef CHUNKWISE_SRC_FORMATS_REFS_JSON_ENTRIES_H_
#define CHUNKWISE_SRC_FORMATS_REFS_JSON_ENTRIES_H_

#include <string>
#include <string_view>
#include <vector>

#include "formats/refs/json_cursor.h"
#include "formats/refs/reference_set.h"
#include "formats/refs/reference_template.h"

namespace chunkwise::formats::refs::internal {

// Reads reference values; keeps its buffers between calls. One per thread.
class EntryReader {
 public:
  explicit EntryReader(std::string_view name) : name_(name) {}

  // Reads the value at `cursor` as the reference of `key` into `into`. In a
  // v1 set, keys whose URL has a template hole are added to pending().
  Status ReadReference(JsonCursor& cursor, std::string_view key, ReferenceSetBuilder& into,
                       bool v1);
  std::vector<std::string>& pending() { return pending_; }
  // Where this reader's text ends (a part's cut), for sizing reservations.
  void set_end(std::size_t end) { end_ = end; }
  // Templates known before the refs are read: URLs are filled in at once
  // instead of going to pending(). Not owned; may be null.
  void set_templates(const TemplateVariables* templates) { templates_ = templates; }

 private:
  // After the first kSample references, reserves room in `into` for the
  // rest of the text at the rate seen so far: the arrays then grow once
  // instead of doubling, and each doubling faults in fresh memory.
  void ReserveAhead(const JsonCursor& cursor, ReferenceSetBuilder& into);
  static constexpr std::size_t kSample = 8192;

  std::string_view name_;
  std::size_t end_ = ~std::size_t{0};
  std::size_t read_ = 0;             // References read.
  std::size_t sample_position_ = 0;  // Where the first one started.
  std::size_t sample_text_ = 0;      // into.text_bytes() then.
  const TemplateVariables* templates_ = nullptr;
  std::string scratch_;
  Bytes decoded_;
  std::vector<std::string> pending_;
};

// The v1 section names, which a top-level parallel read leaves to the sequential reader.
bool IsSectionName(std::string_view key);

struct ObjectReadOptions {
  bool v1 = false;         // Values follow v1 rules (template holes are recorded).
  bool top_level = false;  // Fail on a section name (the top level of a document).
  unsigned threads = 1;    // At most this many parts.
  std::size_t min_part_bytes = std::size_t{4} << 20;  // Smaller parts are not worth a thread.
  const TemplateVariables* templates = nullptr;       // As EntryReader::set_templates.
};

// Reads the object whose '{' comes next at `cursor` (over `text`) into
// `into` (which must be empty) on several threads, appending template-hole
// keys to `pending`. Returns false, with `cursor`, `into` and `pending`
// unchanged, when the object is too small to split or a cut did not validate:
// the caller then reads it sequentially. On true, `cursor` is past the '}'.
bool ReadObjectInParallel(std::string_view text, std::string_view name, JsonCursor& cursor,
                          ReferenceSetBuilder& into, std::vector<std::string>& pending,
                          const ObjectReadOptions& options);

}  // namespace chunkwise::formats::refs::internal

#endif  // CHUNKWISE_SRC_FORMATS_REFS_JSON_ENTRIES_H_
