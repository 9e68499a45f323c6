#include "formats/refs/json_entries.h"

#include <algorithm>
#include <limits>
#include <thread>

#include "chunkwise/core/thread_pool.h"
#include "core/base64.h"
#include "formats/refs/reference_template.h"

namespace chunkwise::formats::refs::internal {
namespace {

using store::Reference;

constexpr std::string_view kBase64Prefix = "base64:";

Status KeyError(std::string_view name, std::string_view key, const std::string& what) {
  return Status::InvalidArgument(std::string(name) + ": key \"" + std::string(key) + "\": " + what);
}

struct Part {
  std::size_t begin = 0;  // An entry start (the '"' of a key).
  std::size_t stop = 0;   // The next part's begin; unused for the last part.
  bool last = false;
  bool ok = false;
  std::size_t end = 0;  // Last part: just past the '}'.
  ReferenceSetBuilder set;
  std::vector<std::string> pending;
};

void ReadPart(std::string_view text, std::string_view name, const ObjectReadOptions& options,
              Part& part) {
  JsonCursor cursor(text, name);
  cursor.Rewind(part.begin);
  EntryReader reader(name);
  reader.set_templates(options.templates);
  if (!part.last) reader.set_end(part.stop);
  std::string key_scratch;
  std::string_view key;
  while (true) {
    if (!cursor.ReadStringView(key, key_scratch).ok()) return;
    if (options.top_level && IsSectionName(key)) return;
    if (!cursor.Expect(':', "after a key").ok()) return;
    if (!reader.ReadReference(cursor, key, part.set, options.v1).ok()) return;
    if (cursor.Consume(',')) {
      cursor.Peek();  // Skips spaces, so the position is the next key's.
      if (!part.last && cursor.position() >= part.stop) {
        part.ok = cursor.position() == part.stop;
        break;
      }
      continue;
    }
    if (part.last && cursor.Consume('}')) {
      part.ok = true;
      part.end = cursor.position();
    }
    break;
  }
  part.pending = std::move(reader.pending());
}

// Cuts [first, text.size()) into about `n` parts at line starts.
std::vector<Part> CutParts(std::string_view text, std::size_t first, unsigned n) {
  std::vector<Part> parts(1);
  parts[0].begin = first;
  const std::size_t span = text.size() - first;
  for (unsigned k = 1; k < n; ++k) {
    std::size_t at = text.find('\n', first + span / n * k);
    if (at == std::string_view::npos) break;
    while (at < text.size() &&
           (text[at] == '\n' || text[at] == '\r' || text[at] == ' ' || text[at] == '\t'))
      ++at;
    if (at >= text.size() || text[at] != '"' || at <= parts.back().begin) continue;
    parts.back().stop = at;
    parts.emplace_back().begin = at;
  }
  parts.back().last = true;
  return parts;
}

}  // namespace

bool IsSectionName(std::string_view key) {
  return key == "version" || key == "templates" || key == "gen" || key == "refs";
}

void EntryReader::ReserveAhead(const JsonCursor& cursor, ReferenceSetBuilder& into) {
  const std::size_t position = cursor.position();
  const std::size_t consumed = position - sample_position_;
  const std::size_t remaining =
      std::min(cursor.remaining(), end_ > position ? end_ - position : std::size_t{0});
  if (consumed == 0) return;
  // A little over the rate seen: growing by doubling at the end would cost more.
  const double scale = static_cast<double>(remaining) / static_cast<double>(consumed) * 1.05;
  const double text = static_cast<double>(into.text_bytes() - sample_text_);
  // Capped (slots at twice the text's bytes, keys and values at the text) in
  // case the sample was unlike the rest, say tiny entries before one huge value.
  const double slots =
      std::min(static_cast<double>(read_) * scale + 16, static_cast<double>(remaining) * 2 / 40);
  into.Reserve(static_cast<std::size_t>(slots),
               static_cast<std::size_t>(std::min(text * scale, static_cast<double>(remaining))));
}

Status EntryReader::ReadReference(JsonCursor& cursor, std::string_view key,
                                  ReferenceSetBuilder& into, bool v1) {
  if (key.size() > std::numeric_limits<std::uint32_t>::max()) {
    return cursor.Error("a key longer than 4 GiB");
  }
  if (read_ == 0) {
    sample_position_ = cursor.position();
    sample_text_ = into.text_bytes();
  }
  if (++read_ == kSample) ReserveAhead(cursor, into);
  const char first = cursor.Peek();
  if (first == '"') {
    std::string_view value;
    CHUNKWISE_RETURN_IF_ERROR(cursor.ReadStringView(value, scratch_));
    ReferenceView inline_value;
    if (value.starts_with(kBase64Prefix)) {
      Result<Bytes> decoded = core::DecodeBase64(value.substr(kBase64Prefix.size()));
      if (!decoded.ok()) return KeyError(name_, key, std::string(decoded.status().message()));
      decoded_ = std::move(*decoded);
      inline_value.data = decoded_;
    } else {
      inline_value.data = AsBytes(value);
    }
    into.Add(key, inline_value);
    return Status::Ok();
  }
  if (first == '{') {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::string_view object, cursor.SkipValue());
    ReferenceView inline_value;
    inline_value.data = AsBytes(object);
    into.Add(key, inline_value);
    return Status::Ok();
  }
  if (first != '[') {
    return KeyError(name_, key,
                    "a reference must be a string, [url], [url, offset, length] or an object");
  }
  cursor.Consume('[');
  ReferenceView reference;
  reference.kind = Reference::Kind::kWholeFile;
  if (!cursor.ConsumeNull())
    CHUNKWISE_RETURN_IF_ERROR(cursor.ReadStringView(reference.url, scratch_));
  if (v1 && HasTemplateHole(reference.url)) {
    if (templates_ == nullptr) {
      pending_.emplace_back(key);
    } else {
      Result<std::string> rendered = RenderTemplate(reference.url, *templates_);
      if (!rendered.ok()) return KeyError(name_, key, std::string(rendered.status().message()));
      scratch_ = std::move(*rendered);
      reference.url = scratch_;
    }
  }
  if (cursor.Consume(']')) {
    into.Add(key, reference);
    return Status::Ok();
  }
  CHUNKWISE_RETURN_IF_ERROR(cursor.Expect(',', "after the url of [url, offset, length]"));
  CHUNKWISE_ASSIGN_OR_RETURN(reference.offset, cursor.ReadUnsigned("the offset"));
  CHUNKWISE_RETURN_IF_ERROR(cursor.Expect(',', "after the offset of [url, offset, length]"));
  CHUNKWISE_ASSIGN_OR_RETURN(reference.length, cursor.ReadUnsigned("the length"));
  CHUNKWISE_RETURN_IF_ERROR(cursor.Expect(']', "to close [url, offset, length]"));
  if (reference.offset + reference.length < reference.offset) {
    return KeyError(name_, key, "offset + length overflows 64 bits");
  }
  reference.kind = Reference::Kind::kRange;
  into.Add(key, reference);
  return Status::Ok();
}

bool ReadObjectInParallel(std::string_view text, std::string_view name, JsonCursor& cursor,
                          ReferenceSetBuilder& into, std::vector<std::string>& pending,
                          const ObjectReadOptions& options) {
  const std::size_t start = cursor.position();
  const std::size_t size = text.size() - start;
  const std::size_t min_part = std::max<std::size_t>(1, options.min_part_bytes);
  if (options.threads < 2 || size < 2 * min_part) return false;
  if (!cursor.Consume('{') || cursor.Peek() != '"') {
    cursor.Rewind(start);
    return false;
  }
  std::vector<Part> parts =
      CutParts(text, cursor.position(),
               static_cast<unsigned>(std::min<std::size_t>(options.threads, size / min_part)));
  cursor.Rewind(start);
  if (parts.size() < 2) return false;
  std::vector<std::thread> workers;
  std::size_t inline_from = parts.size();  // Parts no thread could be started for.
  for (std::size_t k = 1; k < parts.size(); ++k) {
    Result<std::thread> worker =
        core::StartThread([&, k] { ReadPart(text, name, options, parts[k]); }, name);
    if (!worker.ok()) {
      inline_from = k;
      break;
    }
    workers.push_back(std::move(worker).value());
  }
  ReadPart(text, name, options, parts[0]);
  for (std::size_t k = inline_from; k < parts.size(); ++k) ReadPart(text, name, options, parts[k]);
  for (std::thread& worker : workers) worker.join();
  for (const Part& part : parts) {
    if (!part.ok) return false;
  }
  ReferenceSet whole = parts[0].set.Build();
  for (std::size_t k = 1; k < parts.size(); ++k) whole.Absorb(parts[k].set.Build());
  into = ReferenceSetBuilder(std::move(whole));
  for (Part& part : parts) {
    pending.insert(pending.end(), std::make_move_iterator(part.pending.begin()),
                   std::make_move_iterator(part.pending.end()));
  }
  cursor.Rewind(parts.back().end);
  return true;
}

}  // namespace chunkwise::formats::refs::internal
