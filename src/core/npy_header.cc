// Reading the .npy header: a strict parser for the Python literals numpy
// writes (numpy's own reader uses ast.literal_eval, which chunkwise cannot),
// the header dict, and the framing around it. Writing is in npy.cc.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <utility>

#include "chunkwise/core/npy.h"

namespace chunkwise::core {
namespace {

// Deep enough for any realistic nesting of structured dtypes (two levels per
// record), shallow enough that recursion cannot exhaust the stack.
constexpr int kMaxDepth = 64;

struct PyValue {
  enum class Type { kNone, kBool, kInt, kString, kTuple, kList, kDict };
  Type type = Type::kNone;
  bool boolean = false;
  std::int64_t integer = 0;
  std::string text;            // UTF-8.
  std::vector<PyValue> items;  // For a dict, keys and values alternate.
  std::size_t offset = 0;      // Where the literal starts, for messages.
};

// Parses one literal: strings (' or ", u prefix, escapes), ints, True, False,
// None, tuples, lists and dicts. Byte offsets in errors are from the start of
// the text. `latin1` text is decoded byte by byte (NPY 1.0 and 2.0); other
// text must be valid UTF-8 (NPY 3.0).
class LiteralParser {
 public:
  LiteralParser(std::string_view text, bool latin1) : text_(text), latin1_(latin1) {}

  Result<PyValue> ParseAll() {
    CHUNKWISE_ASSIGN_OR_RETURN(PyValue value, ParseValue(0));
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the literal");
    return value;
  }

 private:
  Status Error(std::string_view what) const { return ErrorAt(what, pos_); }
  Status ErrorAt(std::string_view what, std::size_t at) const {
    return Status::Corruption(std::string(what) + " at offset " + std::to_string(at));
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }

  void SkipSpace() {
    while (!AtEnd() && std::strchr(" \t\n\r\f", text_[pos_]) != nullptr) ++pos_;
  }

  Result<PyValue> ParseValue(int depth) {
    if (depth > kMaxDepth) return Error("literal nested too deeply");
    SkipSpace();
    const char c = Peek();
    if (c == '{') return ParseDict(depth);
    if (c == '[') return ParseSequence(']', PyValue::Type::kList, depth);
    if (c == '(') return ParseSequence(')', PyValue::Type::kTuple, depth);
    if (c == '\'' || c == '"' || c == 'u' || c == 'U') return ParseString();
    if (c == '-' || c == '+' || (c >= '0' && c <= '9')) return ParseInteger();
    if (c >= 'A' && c <= 'Z') return ParseName();
    if (AtEnd()) return Error("unexpected end of header");
    return Error(std::string("unexpected character '") + c + "'");
  }

  // Lists and tuples; "(x)" is x itself, as in Python.
  Result<PyValue> ParseSequence(char close, PyValue::Type type, int depth) {
    PyValue value;
    value.type = type;
    value.offset = pos_++;
    bool saw_comma = false;
    for (SkipSpace(); Peek() != close; SkipSpace()) {
      CHUNKWISE_ASSIGN_OR_RETURN(PyValue item, ParseValue(depth + 1));
      value.items.push_back(std::move(item));
      SkipSpace();
      if (Peek() != ',') break;
      ++pos_;
      saw_comma = true;
    }
    if (Peek() != close) return Error(std::string("expected ',' or '") + close + "'");
    ++pos_;
    if (type == PyValue::Type::kTuple && value.items.size() == 1 && !saw_comma) {
      return std::move(value.items[0]);
    }
    return value;
  }

  Result<PyValue> ParseDict(int depth) {
    PyValue value;
    value.type = PyValue::Type::kDict;
    value.offset = pos_++;
    for (SkipSpace(); Peek() != '}'; SkipSpace()) {
      CHUNKWISE_ASSIGN_OR_RETURN(PyValue key, ParseValue(depth + 1));
      SkipSpace();
      if (Peek() != ':') return Error("expected ':' after a dict key");
      ++pos_;
      CHUNKWISE_ASSIGN_OR_RETURN(PyValue item, ParseValue(depth + 1));
      value.items.push_back(std::move(key));
      value.items.push_back(std::move(item));
      SkipSpace();
      if (Peek() != ',') break;
      ++pos_;
    }
    if (Peek() != '}') return Error("expected ',' or '}'");
    ++pos_;
    return value;
  }

  Result<PyValue> ParseName() {
    const std::size_t start = pos_;
    while (!AtEnd() && std::isalnum(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    const std::string_view word = text_.substr(start, pos_ - start);
    PyValue value;
    value.offset = start;
    if (word == "True" || word == "False") {
      value.type = PyValue::Type::kBool;
      value.boolean = word == "True";
    } else if (word != "None") {
      return ErrorAt("unknown name '" + std::string(word) + "'", start);
    }
    return value;
  }

  Result<PyValue> ParseInteger() {
    PyValue value;
    value.type = PyValue::Type::kInt;
    value.offset = pos_;
    const bool negative = Peek() == '-';
    if (Peek() == '-' || Peek() == '+') ++pos_;
    SkipSpace();
    const std::size_t start = pos_;
    std::uint64_t magnitude = 0;
    while (!AtEnd() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      // Checked before multiplying, so the product cannot wrap.
      if (magnitude > (std::uint64_t{1} << 63) / 10) return ErrorAt("integer too large", start);
      magnitude = magnitude * 10 + static_cast<std::uint64_t>(text_[pos_++] - '0');
    }
    if (pos_ == start) return Error("expected digits");
    if (text_[start] == '0' && pos_ - start > 1 && magnitude != 0) {
      return ErrorAt("integer with a leading zero", start);
    }
    // Python 2 wrote longs as "3L"; numpy still reads them in 1.0 and 2.0 headers.
    if (latin1_ && (Peek() == 'L' || Peek() == 'l')) ++pos_;
    if (magnitude > static_cast<std::uint64_t>(INT64_MAX) + (negative ? 1 : 0)) {
      return ErrorAt("integer too large", start);
    }
    value.integer =
        negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
    return value;
  }

  Result<PyValue> ParseString() {
    PyValue value;
    value.type = PyValue::Type::kString;
    value.offset = pos_;
    if (Peek() == 'u' || Peek() == 'U') ++pos_;
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a string");
    ++pos_;
    while (true) {
      if (AtEnd() || text_[pos_] == '\n' || text_[pos_] == '\r') {
        return ErrorAt("unterminated string", value.offset);
      }
      const char c = text_[pos_];
      if (c == quote) break;
      if (c == '\\') {
        CHUNKWISE_RETURN_IF_ERROR(ParseEscape(value.text));
      } else {
        CHUNKWISE_RETURN_IF_ERROR(CopyCharacter(value.text));
      }
    }
    ++pos_;
    return value;
  }

  Status CopyCharacter(std::string& out) {
    if (latin1_) {
      detail::AppendUtf8(static_cast<std::uint8_t>(text_[pos_++]), out);
      return Status::Ok();
    }
    const std::size_t start = pos_;
    const std::int32_t c = detail::DecodeUtf8(text_, &pos_);
    if (c < 0) return Error("invalid UTF-8 in a 3.0 header");
    out.append(text_.substr(start, pos_ - start));
    return Status::Ok();
  }

  // Reads `digits` hex (or, with base 8, up to `digits` octal) digits.
  Result<std::uint32_t> ParseCodeDigits(int base, int digits) {
    std::uint32_t code = 0;
    int count = 0;
    for (; count < digits && !AtEnd(); ++count, ++pos_) {
      const char c = text_[pos_];
      int digit = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : 99;
      if (digit >= base) break;
      code = code * static_cast<std::uint32_t>(base) + static_cast<std::uint32_t>(digit);
    }
    if (count == 0 || (base == 16 && count != digits)) return Error("truncated escape");
    return code;
  }

  Status ParseEscape(std::string& out) {
    const std::size_t start = pos_++;
    if (AtEnd()) return ErrorAt("unterminated string", start);
    const char c = text_[pos_++];
    static constexpr std::string_view kSimple = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
    for (std::size_t i = 0; i < kSimple.size(); i += 2) {
      if (kSimple[i] == c) {
        out += kSimple[i + 1];
        return Status::Ok();
      }
    }
    if (c == '\n') return Status::Ok();  // A backslash-newline continues the line.
    Result<std::uint32_t> code = Status::Corruption("");
    if (c >= '0' && c <= '7') {
      --pos_;
      code = ParseCodeDigits(8, 3);
    } else if (c == 'x' || c == 'u' || c == 'U') {
      code = ParseCodeDigits(16, c == 'x' ? 2 : c == 'u' ? 4 : 8);
    } else {
      return ErrorAt(std::string("unsupported escape '\\") + c + "'", start);
    }
    if (!code.ok()) return code.status();
    if (*code > 0x10FFFF || (*code >= 0xD800 && *code <= 0xDFFF)) {
      return ErrorAt("escape is not a Unicode scalar value", start);
    }
    detail::AppendUtf8(*code, out);
    return Status::Ok();
  }

  std::string_view text_;
  bool latin1_;
  std::size_t pos_ = 0;
};

Status NotADtype(const PyValue& value, std::string_view what) {
  return Status::InvalidArgument(std::string(what) + " at offset " + std::to_string(value.offset));
}

Result<NpyDtype> DtypeFromValue(const PyValue& value);

Result<std::vector<std::int64_t>> IntTuple(const PyValue& value, std::string_view what) {
  std::vector<std::int64_t> ints;
  if (value.type == PyValue::Type::kInt) {  // numpy accepts ('a', '<f8', 3) for (3,).
    ints.push_back(value.integer);
  } else if (value.type == PyValue::Type::kTuple) {
    for (const PyValue& item : value.items) {
      if (item.type != PyValue::Type::kInt)
        return NotADtype(item, std::string(what) + " is not an int");
      ints.push_back(item.integer);
    }
  } else {
    return NotADtype(value, std::string(what) + " is not a tuple of ints");
  }
  for (std::int64_t dim : ints) {
    if (dim < 0) return NotADtype(value, std::string(what) + " has a negative dimension");
  }
  return ints;
}

Result<NpyField> FieldFromValue(const PyValue& value) {
  if (value.type != PyValue::Type::kTuple || value.items.size() < 2 || value.items.size() > 3) {
    return NotADtype(value, "a structured field is not a (name, type[, shape]) tuple");
  }
  NpyField field;
  const PyValue& name = value.items[0];
  if (name.type == PyValue::Type::kString) {
    field.name = name.text;
  } else if (name.type == PyValue::Type::kTuple && name.items.size() == 2 &&
             name.items[0].type == PyValue::Type::kString &&
             name.items[1].type == PyValue::Type::kString) {
    field.title = name.items[0].text;
    field.name = name.items[1].text;
  } else {
    return NotADtype(name, "a field name is not a string or a (title, name) pair");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(field.dtype, DtypeFromValue(value.items[1]));
  if (value.items.size() == 3) {
    CHUNKWISE_ASSIGN_OR_RETURN(field.shape, IntTuple(value.items[2], "a field shape"));
  }
  return field;
}

Result<NpyDtype> DtypeFromValue(const PyValue& value) {
  if (value.type == PyValue::Type::kString) {
    Result<NpyDtype> dtype = NpyDtype::FromTypestr(value.text);
    if (!dtype.ok()) return dtype.status().WithContext("at offset " + std::to_string(value.offset));
    return dtype;
  }
  if (value.type != PyValue::Type::kList) {
    return NotADtype(value, "descr is not a typestr or a list of fields");
  }
  std::vector<NpyField> fields;
  for (const PyValue& item : value.items) {
    CHUNKWISE_ASSIGN_OR_RETURN(NpyField field, FieldFromValue(item));
    fields.push_back(std::move(field));
  }
  return NpyDtype::Structured(std::move(fields));
}

// The header dict: exactly the keys descr, fortran_order and shape, as numpy requires.
Status HeaderFromDict(const PyValue& dict, NpyHeader& header) {
  if (dict.type != PyValue::Type::kDict) return Status::Corruption("the header is not a dict");
  const PyValue* found[3] = {nullptr, nullptr, nullptr};
  static constexpr std::string_view kKeys[3] = {"descr", "fortran_order", "shape"};
  for (std::size_t i = 0; i < dict.items.size(); i += 2) {
    const PyValue& key = dict.items[i];
    const auto* at = std::find(std::begin(kKeys), std::end(kKeys), key.text);
    if (key.type != PyValue::Type::kString || at == std::end(kKeys)) {
      const std::string shown =
          key.type == PyValue::Type::kString ? detail::PythonRepr(key.text) + " " : "";
      return Status::Corruption("unexpected header key " + shown + "at offset " +
                                std::to_string(key.offset));
    }
    const PyValue*& slot = found[at - std::begin(kKeys)];
    if (slot != nullptr) return Status::Corruption("duplicate header key '" + key.text + "'");
    slot = &dict.items[i + 1];
  }
  for (int i = 0; i < 3; ++i) {
    if (found[i] == nullptr)
      return Status::Corruption("header has no '" + std::string(kKeys[i]) + "'");
  }
  Result<NpyDtype> dtype = DtypeFromValue(*found[0]);
  if (!dtype.ok()) {
    const Status status = dtype.status().WithContext("bad descr");
    return status.code() == StatusCode::kInvalidArgument
               ? Status::Corruption(std::string(status.message()))
               : status;
  }
  header.dtype = std::move(dtype).value();
  if (found[1]->type != PyValue::Type::kBool)
    return Status::Corruption("fortran_order is not a bool");
  header.fortran_order = found[1]->boolean;
  if (found[2]->type != PyValue::Type::kTuple) return Status::Corruption("shape is not a tuple");
  Result<std::vector<std::int64_t>> shape = IntTuple(*found[2], "shape");
  if (!shape.ok()) return Status::Corruption(std::string(shape.status().message()));
  header.shape = std::move(shape).value();
  return Status::Ok();
}

}  // namespace

namespace detail {
Result<std::uint64_t> NpyByteCount(std::span<const std::int64_t> shape, std::uint64_t itemsize) {
  // As numpy's PyArray_NewFromDescr: nonzero dims must not overflow even when
  // another dim is 0 and the array is empty.
  std::uint64_t size = itemsize;
  bool empty = false;
  for (std::int64_t dim : shape) {
    if (dim < 0) {
      return Status::InvalidArgument("shape " + PythonTupleRepr(shape) +
                                     " has a negative dimension");
    }
    const auto udim = static_cast<std::uint64_t>(dim);
    if (udim == 0) {
      empty = true;
    } else if (size > std::numeric_limits<std::uint64_t>::max() / udim) {
      return Status::InvalidArgument("shape " + PythonTupleRepr(shape) +
                                     " overflows a 64-bit byte count");
    } else {
      size *= udim;
    }
  }
  return empty ? 0 : size;
}
}  // namespace detail

Result<NpyDtype> NpyDtype::FromDescr(std::string_view descr_literal) {
  CHUNKWISE_ASSIGN_OR_RETURN(PyValue value, LiteralParser(descr_literal, false).ParseAll());
  return DtypeFromValue(value);
}

Result<std::uint64_t> ParseNpyHeaderSize(ByteView preamble, std::string_view name_for_errors) {
  const std::string context = "npy '" + std::string(name_for_errors) + "'";
  const std::size_t magic_seen = std::min(preamble.size(), kNpyMagic.size());
  if (AsChars(preamble.first(magic_seen)) != kNpyMagic.substr(0, magic_seen)) {
    return Status::Corruption(context + ": bad magic, not a .npy file");
  }
  if (preamble.size() < 8) {
    return Status::Corruption(context + ": truncated after " + std::to_string(preamble.size()) +
                              " bytes, before the end of the magic and version");
  }
  const int major = preamble[6];
  const int minor = preamble[7];
  if (major < 1 || major > 3 || minor != 0) {
    return Status::Unsupported(context + ": format version " + std::to_string(major) + "." +
                               std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  const std::size_t field = major == 1 ? 2 : 4;
  if (preamble.size() < 8 + field) {
    return Status::Corruption(context + ": truncated inside the header length field");
  }
  const std::uint64_t length = major == 1 ? LoadLittleEndian<std::uint16_t>(&preamble[8])
                                          : LoadLittleEndian<std::uint32_t>(&preamble[8]);
  if (length > kMaxNpyHeaderLength) {
    return Status::Unsupported(context + ": header length " + std::to_string(length) +
                               " exceeds the limit of " + std::to_string(kMaxNpyHeaderLength));
  }
  return 8 + field + length;
}

Result<NpyHeader> ParseNpyHeader(ByteView bytes, std::string_view name_for_errors) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t end, ParseNpyHeaderSize(bytes, name_for_errors));
  const std::string context = "npy '" + std::string(name_for_errors) + "'";
  if (end > bytes.size()) {
    return Status::Corruption(context + ": header ends at byte " + std::to_string(end) +
                              ", past the end of the file (" + std::to_string(bytes.size()) +
                              " bytes)");
  }
  NpyHeader header;
  header.major_version = bytes[6];
  header.data_offset = end;
  const std::size_t start = header.major_version == 1 ? 10 : 12;
  const std::string_view text = AsChars(bytes.subspan(start, end - start));
  Result<PyValue> dict = LiteralParser(text, header.major_version < 3).ParseAll();
  Status status = dict.ok() ? HeaderFromDict(*dict, header) : dict.status();
  if (!status.ok()) return status.WithContext(context + ": header");
  Result<std::uint64_t> data_size = detail::NpyByteCount(header.shape, header.dtype.itemsize());
  if (!data_size.ok()) {
    return Status::Corruption(context + ": header: " + std::string(data_size.status().message()));
  }
  header.data_size = *data_size;
  return header;
}

}  // namespace chunkwise::core
