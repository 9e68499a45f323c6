#include "formats/dvid/export_chunk_index.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

namespace chunkwise::formats::dvid {
namespace {

constexpr std::string_view kRecordHeader = "x,y,z,rec";
constexpr std::string_view kOffsetsHeader = "x,y,z,offset,size,batch_idx";
constexpr std::string_view kSchemaSizeKey = "schema_size=";

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (std::size_t comma; (comma = line.find(',', start)) != std::string_view::npos;
       start = comma + 1) {
    fields.push_back(Trim(line.substr(start, comma - start)));
  }
  fields.push_back(Trim(line.substr(start)));
  return fields;
}

// One decimal integer filling the whole field, within T.
template <typename T>
bool ParseInteger(std::string_view text, T& out) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

class Parser {
 public:
  explicit Parser(std::string_view file_name) : file_name_(file_name) {}

  Status Fault(std::size_t line, const std::string& what) const {
    return Status::Corruption(std::string(file_name_) + ":" + std::to_string(line) + ": " + what);
  }

  Status ParseComment(std::string_view line, std::size_t number, ChunkIndex& index) const {
    const std::string_view body = Trim(line.substr(1));
    if (!body.starts_with(kSchemaSizeKey)) return Status::Ok();  // Other comments are notes.
    std::uint64_t size = 0;
    if (!ParseInteger(body.substr(kSchemaSizeKey.size()), size)) {
      return Fault(number, "schema_size '" + std::string(body.substr(kSchemaSizeKey.size())) +
                               "' is not a non-negative integer");
    }
    index.schema_size = size;
    return Status::Ok();
  }

  Status ParseHeader(std::string_view line, std::size_t number, ChunkIndex& index) const {
    if (line == kRecordHeader) {
      index.form = ChunkIndexForm::kRecord;
    } else if (line == kOffsetsHeader) {
      index.form = ChunkIndexForm::kOffsets;
    } else {
      return Fault(number, "header '" + std::string(line) + "' is neither '" +
                               std::string(kRecordHeader) + "' nor '" +
                               std::string(kOffsetsHeader) + "'");
    }
    if (index.form == ChunkIndexForm::kRecord && index.schema_size.has_value()) {
      return Fault(number, "schema_size comment before a 'x,y,z,rec' header");
    }
    return Status::Ok();
  }

  Result<ChunkIndexRow> ParseRow(std::string_view line, std::size_t number,
                                 ChunkIndexForm form) const {
    const std::vector<std::string_view> fields = SplitFields(line);
    const std::size_t expected = form == ChunkIndexForm::kRecord ? 4 : 6;
    if (fields.size() != expected) {
      return Fault(number, "row has " + std::to_string(fields.size()) + " fields, expected " +
                               std::to_string(expected));
    }
    ChunkIndexRow row;
    static constexpr const char* kAxes[] = {"x", "y", "z"};
    for (int d = 0; d < 3; ++d) {
      if (!ParseInteger(fields[d], row.chunk[d])) {
        return Fault(number,
                     std::string(kAxes[d]) + " '" + std::string(fields[d]) + "' is not an int32");
      }
    }
    if (form == ChunkIndexForm::kRecord) {
      if (!ParseInteger(fields[3], row.rec) || row.rec < 0) {
        return Fault(number, "rec '" + std::string(fields[3]) + "' is not a non-negative integer");
      }
      return row;
    }
    if (!ParseInteger(fields[3], row.offset) || !ParseInteger(fields[4], row.size) ||
        !ParseInteger(fields[5], row.batch_idx) || row.batch_idx < 0) {
      return Fault(number, "offset, size and batch_idx must be non-negative integers, got '" +
                               std::string(line) + "'");
    }
    return row;
  }

 private:
  std::string_view file_name_;
};

Status CheckRowLimits(const ChunkIndex& index, const ChunkIndexRow& row, std::size_t line,
                      const Parser& parser, const ChunkIndexLimits& limits) {
  if (index.form == ChunkIndexForm::kRecord) {
    if (limits.record_count.has_value() && row.rec >= *limits.record_count) {
      return parser.Fault(line, "rec " + std::to_string(row.rec) + " points past the " +
                                    std::to_string(*limits.record_count) + " records of the shard");
    }
    return Status::Ok();
  }
  if (limits.data_size.has_value() &&
      (row.offset > *limits.data_size || row.size > *limits.data_size - row.offset)) {
    return parser.Fault(line, "byte range [" + std::to_string(row.offset) + ", +" +
                                  std::to_string(row.size) + ") runs past the " +
                                  std::to_string(*limits.data_size) + "-byte shard");
  }
  if (row.size < 8) {
    return parser.Fault(line, "message size " + std::to_string(row.size) + " is below 8 bytes");
  }
  return Status::Ok();
}

}  // namespace

std::string FormatChunkIndex(const ChunkIndex& index) {
  std::string out;
  if (index.form == ChunkIndexForm::kOffsets && index.schema_size.has_value()) {
    out += "# schema_size=" + std::to_string(*index.schema_size) + "\n";
  }
  out += index.form == ChunkIndexForm::kRecord ? kRecordHeader : kOffsetsHeader;
  out += '\n';
  for (const ChunkIndexRow& row : index.rows) {
    out += std::to_string(row.chunk[0]) + ',' + std::to_string(row.chunk[1]) + ',' +
           std::to_string(row.chunk[2]) + ',';
    if (index.form == ChunkIndexForm::kRecord) {
      out += std::to_string(row.rec);
    } else {
      out += std::to_string(row.offset) + ',' + std::to_string(row.size) + ',' +
             std::to_string(row.batch_idx);
    }
    out += '\n';
  }
  return out;
}

void SortChunkIndexRows(ChunkIndex& index) {
  std::stable_sort(index.rows.begin(), index.rows.end(),
                   [](const ChunkIndexRow& a, const ChunkIndexRow& b) {
                     return std::tie(a.chunk[2], a.chunk[1], a.chunk[0]) <
                            std::tie(b.chunk[2], b.chunk[1], b.chunk[0]);
                   });
}

Result<ChunkIndex> ParseChunkIndex(std::string_view text, std::string_view file_name,
                                   const ChunkIndexLimits& limits) {
  const Parser parser(file_name);
  ChunkIndex index;
  bool have_header = false;
  std::map<std::array<std::int32_t, 3>, std::size_t> seen;  // chunk → line
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view raw = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++number;
    const std::string_view line = Trim(raw);
    if (line.empty()) continue;
    if (!have_header && line.front() == '#') {
      CHUNKWISE_RETURN_IF_ERROR(parser.ParseComment(line, number, index));
      continue;
    }
    if (!have_header) {
      CHUNKWISE_RETURN_IF_ERROR(parser.ParseHeader(line, number, index));
      have_header = true;
      continue;
    }
    CHUNKWISE_ASSIGN_OR_RETURN(ChunkIndexRow row, parser.ParseRow(line, number, index.form));
    CHUNKWISE_RETURN_IF_ERROR(CheckRowLimits(index, row, number, parser, limits));
    if (const auto [it, inserted] = seen.emplace(row.chunk, number); !inserted) {
      return parser.Fault(number, "chunk (" + std::to_string(row.chunk[0]) + ", " +
                                      std::to_string(row.chunk[1]) + ", " +
                                      std::to_string(row.chunk[2]) + ") already listed on line " +
                                      std::to_string(it->second));
    }
    index.rows.push_back(row);
  }
  if (!have_header) return parser.Fault(number, "no header line (empty chunk index)");
  return index;
}

}  // namespace chunkwise::formats::dvid
