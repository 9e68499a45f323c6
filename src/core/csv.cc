#include "chunkwise/core/csv.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace chunkwise::core {
namespace {

using Record = std::vector<std::string>;

// Splits the text into records of fields. InvalidArgument on an open quote.
Result<std::vector<Record>> SplitRecords(std::string_view text, std::string_view name) {
  std::vector<Record> records;
  Record record;
  std::string field;
  bool quoted = false, any = false;
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = any = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
      if (any || !field.empty()) {
        record.push_back(std::move(field));
        records.push_back(std::move(record));
      }
      record.clear();
      field.clear();
      any = false;
    } else {
      field += c;
      any = true;
    }
  }
  if (quoted) {
    return Status::InvalidArgument(std::string(name) + ": unterminated quote at line " +
                                   std::to_string(line));
  }
  if (any || !field.empty()) {
    record.push_back(std::move(field));
    records.push_back(std::move(record));
  }
  return records;
}

bool ParseInt(const std::string& text, std::int64_t* value) {
  const char* end = text.data() + text.size();
  const char* begin = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
  auto [ptr, error] = std::from_chars(begin, end, *value);
  return !text.empty() && error == std::errc() && ptr == end;
}

bool ParseDouble(const std::string& text, double* value) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  *value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

int BoolValue(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text == "true" ? 1 : text == "false" ? 0 : -1;
}

// The dtype of one column's fields, as the header comment describes.
NpyDtype InferColumn(const std::vector<Record>& records, std::size_t column) {
  bool all_int = true, all_number = true, all_bool = true;
  std::size_t longest = 1;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const std::string& field = records[r][column];
    std::int64_t integer;
    double number;
    all_int = all_int && ParseInt(field, &integer);
    all_number = all_number && ParseDouble(field, &number);
    all_bool = all_bool && BoolValue(field) >= 0;
    longest = std::max(longest, field.size());
  }
  const char* typestr = records.size() == 1 ? "<f8"
                        : all_int           ? "<i8"
                        : all_number        ? "<f8"
                        : all_bool          ? "|b1"
                                            : nullptr;
  if (typestr != nullptr) return *NpyDtype::FromTypestr(typestr);
  return *NpyDtype::FromTypestr("|S" + std::to_string(longest));
}

void StoreField(const std::string& field, const NpyDtype& dtype, std::uint8_t* out) {
  if (dtype.kind() == 'S') {
    std::memset(out, 0, dtype.itemsize());
    std::memcpy(out, field.data(), std::min(field.size(), dtype.itemsize()));
  } else if (dtype.kind() == 'b') {
    out[0] = static_cast<std::uint8_t>(BoolValue(field));
  } else if (dtype.kind() == 'i') {
    std::int64_t value = 0;
    ParseInt(field, &value);
    StoreLittleEndian(static_cast<std::uint64_t>(value), out);
  } else {
    double value = 0;
    ParseDouble(field, &value);
    std::memcpy(out, &value, 8);
  }
}

template <typename T>
T Load(const std::uint8_t* p, bool big) {
  std::uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, p, sizeof(T));
  if (big) std::reverse(bytes, bytes + sizeof(T));
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

std::string Quote(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    quoted += c;
    if (c == '"') quoted += '"';
  }
  quoted += '"';
  return quoted;
}

// One scalar as CSV text; floats with enough digits to read back exactly.
Result<std::string> FormatValue(const NpyDtype& dtype, const std::uint8_t* p) {
  const bool big = dtype.byte_order() == NpyDtype::ByteOrder::kBig;
  const std::size_t size = dtype.itemsize();
  char buffer[64];
  switch (dtype.kind()) {
    case 'b':
      return std::string(p[0] != 0 ? "True" : "False");
    case 'i':
      return std::to_string(size == 1   ? static_cast<std::int8_t>(p[0])
                            : size == 2 ? Load<std::int16_t>(p, big)
                            : size == 4 ? Load<std::int32_t>(p, big)
                                        : Load<std::int64_t>(p, big));
    case 'u':
      return std::to_string(size == 1   ? p[0]
                            : size == 2 ? Load<std::uint16_t>(p, big)
                            : size == 4 ? Load<std::uint32_t>(p, big)
                                        : Load<std::uint64_t>(p, big));
    case 'f':
      if (size == 4) {
        std::snprintf(buffer, sizeof(buffer), "%.9g", Load<float>(p, big));
        return std::string(buffer);
      }
      if (size == 8) {
        std::snprintf(buffer, sizeof(buffer), "%.17g", Load<double>(p, big));
        return std::string(buffer);
      }
      break;
    case 'S': {
      std::string text(reinterpret_cast<const char*>(p), size);
      return Quote(text.substr(0, text.find('\0')));
    }
    case 'U': {
      std::string text;
      for (std::size_t i = 0; i < size / 4; ++i) {
        const std::uint32_t code = Load<std::uint32_t>(p + 4 * i, big);
        if (code == 0 || code > 0x10FFFF) break;
        detail::AppendUtf8(code, text);
      }
      return Quote(text);
    }
  }
  return Status::Unsupported("CSV output cannot hold dtype " + dtype.ToDescr());
}

}  // namespace

Result<NpyArray> ParseCsv(std::string_view text, std::string_view name_for_errors) {
  const std::string name(name_for_errors);
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<Record> records, SplitRecords(text, name));
  if (records.empty()) return Status::InvalidArgument(name + ": no header line");
  const Record& header = records[0];
  std::set<std::string> seen;
  for (const std::string& column : header) {
    if (column.empty() || !seen.insert(column).second) {
      return Status::InvalidArgument(name + ": column name \"" + column +
                                     "\" is empty or repeated");
    }
  }
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != header.size()) {
      return Status::InvalidArgument(name + ": record " + std::to_string(r + 1) + " has " +
                                     std::to_string(records[r].size()) + " fields, the header " +
                                     std::to_string(header.size()));
    }
  }
  std::vector<NpyField> fields;
  for (std::size_t c = 0; c < header.size(); ++c) {
    fields.push_back({header[c], std::nullopt, InferColumn(records, c), {}, 0});
  }
  NpyArray array;
  CHUNKWISE_ASSIGN_OR_RETURN(array.dtype, NpyDtype::Structured(std::move(fields)));
  const std::size_t rows = records.size() - 1, itemsize = array.dtype.itemsize();
  array.shape = {static_cast<std::int64_t>(rows)};
  array.data.assign(rows * itemsize, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < header.size(); ++c) {
      const NpyField& field = array.dtype.fields()[c];
      StoreField(records[r + 1][c], field.dtype, array.data.data() + r * itemsize + field.offset);
    }
  }
  return array;
}

Result<std::string> FormatCsv(const NpyArray& array) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateNpyArray(array));
  std::vector<NpyField> fields = array.dtype.fields();
  if (!array.dtype.is_structured()) fields = {{"f0", std::nullopt, array.dtype, {}, 0}};
  if (array.shape.size() != 1) return Status::Unsupported("CSV output needs a 1-d array");
  std::string text;
  for (std::size_t c = 0; c < fields.size(); ++c) {
    if (!fields[c].shape.empty() || fields[c].dtype.is_structured()) {
      return Status::Unsupported("CSV output cannot hold the field \"" + fields[c].name + "\"");
    }
    if (c > 0) text += ",";
    text += Quote(fields[c].name);
  }
  text += "\n";
  const std::size_t itemsize = array.dtype.itemsize();
  for (std::int64_t r = 0; r < array.shape[0]; ++r) {
    for (std::size_t c = 0; c < fields.size(); ++c) {
      CHUNKWISE_ASSIGN_OR_RETURN(
          std::string value,
          FormatValue(fields[c].dtype, array.data.data() + r * itemsize + fields[c].offset));
      if (c > 0) text += ",";
      text += value;
    }
    text += "\n";
  }
  return text;
}

}  // namespace chunkwise::core
