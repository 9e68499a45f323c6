#include "chunkwise/core/npy_dtype.h"

#include <algorithm>
#include <bit>
#include <set>
#include <utility>

#include "chunkwise/core/check.h"

namespace chunkwise::core {
namespace {

constexpr NpyDtype::ByteOrder kNativeOrder = std::endian::native == std::endian::big
                                                 ? NpyDtype::ByteOrder::kBig
                                                 : NpyDtype::ByteOrder::kLittle;

Status BadTypestr(std::string_view typestr, std::string_view why) {
  return Status::InvalidArgument("unsupported NumPy typestr '" + std::string(typestr) +
                                 "': " + std::string(why));
}

// Parses a run of decimal digits without leading zeros (other than "0");
// nullopt when empty, malformed or above `limit`.
std::optional<std::size_t> ParseDecimal(std::string_view digits, std::size_t limit) {
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
  std::size_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::size_t>(c - '0');
    if (value > limit) return std::nullopt;
  }
  return value;
}

bool ValidSize(char kind, std::size_t size) {
  switch (kind) {
    case 'b':
      return size == 1;
    case 'i':
    case 'u':
      return size == 1 || size == 2 || size == 4 || size == 8;
    case 'f':
      return size == 2 || size == 4 || size == 8 || size == 12 || size == 16;
    case 'c':
      return size == 8 || size == 16 || size == 24 || size == 32;
    case 'M':
    case 'm':
      return size == 8;
    default:  // S, U, V: any length, bounded by the caller.
      return true;
  }
}

// The bracketed unit of a datetime typestr, normalized as numpy prints it:
// a multiplier of 1 is dropped ("[1s]" reads back as "[s]").
std::optional<std::string> ParseDatetimeUnit(std::string_view text) {
  if (text.empty()) return std::string();
  if (text.size() < 3 || text.front() != '[' || text.back() != ']') return std::nullopt;
  text = text.substr(1, text.size() - 2);
  const std::size_t digits_end = text.find_first_not_of("0123456789");
  if (digits_end == std::string_view::npos) return std::nullopt;
  std::string_view multiplier = text.substr(0, digits_end);
  const std::string_view unit = text.substr(digits_end);
  static constexpr std::string_view kUnits[] = {"Y",  "M",  "W",  "D",  "h",  "m", "s",
                                                "ms", "us", "ns", "ps", "fs", "as"};
  if (std::find(std::begin(kUnits), std::end(kUnits), unit) == std::end(kUnits)) {
    return std::nullopt;
  }
  if (!multiplier.empty() && !ParseDecimal(multiplier, 0x7fffffff).value_or(0)) {
    return std::nullopt;
  }
  if (multiplier == "1") multiplier = {};
  return std::string(multiplier) + std::string(unit);
}

bool IsPrintableNonAscii(std::uint32_t c) {
  // CPython escapes code points that are not "printable" (categories C*, Z*
  // other than ' '). This list covers the assigned ones that appear in
  // practice; an unassigned code point is written raw where Python escapes it.
  if (c <= 0xA0 || c == 0xAD) return false;
  if (c == 0x061C || c == 0x06DD || c == 0x070F || c == 0x180E || c == 0x1680) return false;
  if ((c >= 0x0600 && c <= 0x0605) || (c >= 0x2000 && c <= 0x200F)) return false;
  if ((c >= 0x2028 && c <= 0x202F) || (c >= 0x205F && c <= 0x206F)) return false;
  if (c == 0x3000 || c == 0xFEFF || (c >= 0xD800 && c <= 0xF8FF)) return false;
  if (c >= 0xFFF0 && c <= 0xFFFF) return false;
  if ((c >= 0xE0000 && c <= 0xE0FFF) || c >= 0xF0000) return false;
  return true;
}

void AppendHexEscape(std::uint32_t c, char letter, int digits, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '\\';
  out += letter;
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += kHex[(c >> shift) & 0xF];
}

std::size_t ElementCount(const std::vector<std::int64_t>& shape) {
  std::size_t count = 1;
  for (std::int64_t dim : shape) count *= static_cast<std::size_t>(dim);
  return count;
}

void ReverseUnits(std::size_t unit, std::uint8_t* p, std::size_t size) {
  for (std::size_t at = 0; at + unit <= size; at += unit) std::reverse(p + at, p + at + unit);
}

// Swaps one element of `dtype` at `p` if its byte order differs from `to`.
void SwapElement(const NpyDtype& dtype, NpyDtype::ByteOrder to, std::uint8_t* p) {
  if (dtype.is_structured()) {
    for (const NpyField& field : dtype.fields()) {
      const std::size_t step = field.dtype.itemsize();
      const std::size_t count = ElementCount(field.shape);
      for (std::size_t k = 0; k < count; ++k)
        SwapElement(field.dtype, to, p + field.offset + k * step);
    }
    return;
  }
  if (dtype.byte_order() == NpyDtype::ByteOrder::kNotApplicable || dtype.byte_order() == to) return;
  const std::size_t unit = dtype.kind() == 'c'   ? dtype.itemsize() / 2
                           : dtype.kind() == 'U' ? 4
                                                 : dtype.itemsize();
  ReverseUnits(unit, p, dtype.itemsize());
}

}  // namespace

Result<NpyDtype> NpyDtype::FromTypestr(std::string_view typestr) {
  std::string_view rest = typestr;
  char order = '=';
  if (!rest.empty() && std::string_view("<>|=").find(rest[0]) != std::string_view::npos) {
    order = rest[0];
    rest.remove_prefix(1);
  }
  if (rest.empty()) return BadTypestr(typestr, "no kind letter");
  const char kind = rest[0];
  rest.remove_prefix(1);
  if (kind == 'O') {
    return Status::Unsupported("object dtype '" + std::string(typestr) +
                               "' holds Python objects; only fixed-size dtypes are supported");
  }
  if (std::string_view("biufcSUVMm").find(kind) == std::string_view::npos) {
    return BadTypestr(typestr, "unknown kind letter");
  }
  const std::size_t digits_end = std::min(rest.find('['), rest.size());
  const std::size_t limit = kind == 'U' ? kMaxItemsize / 4 : kMaxItemsize;
  const std::optional<std::size_t> count = ParseDecimal(rest.substr(0, digits_end), limit);
  if (!count || !ValidSize(kind, *count)) return BadTypestr(typestr, "bad item size");
  std::optional<std::string> unit = ParseDatetimeUnit(rest.substr(digits_end));
  if (!unit || (!unit->empty() && kind != 'M' && kind != 'm')) {
    return BadTypestr(typestr, "bad datetime unit");
  }
  NpyDtype dtype;
  dtype.kind_ = kind;
  dtype.itemsize_ = kind == 'U' ? *count * 4 : *count;
  dtype.unit_ = std::move(*unit);
  const bool has_order = kind != 'S' && kind != 'V' && dtype.itemsize_ > 1;
  dtype.byte_order_ = !has_order     ? ByteOrder::kNotApplicable
                      : order == '<' ? ByteOrder::kLittle
                      : order == '>' ? ByteOrder::kBig
                                     : kNativeOrder;
  return dtype;
}

Result<NpyDtype> NpyDtype::Structured(std::vector<NpyField> fields) {
  NpyDtype dtype;
  dtype.structured_ = true;
  dtype.kind_ = 'V';
  std::size_t offset = 0;
  std::set<std::string> names;
  for (NpyField& field : fields) {
    std::size_t size = field.dtype.itemsize();
    for (std::int64_t dim : field.shape) {
      if (dim < 0)
        return Status::InvalidArgument("field '" + field.name + "' has a negative shape");
      const auto udim = static_cast<std::size_t>(dim);
      if (udim != 0 && size > kMaxItemsize / udim)
        size = kMaxItemsize + 1;
      else
        size *= udim;
    }
    if (size > kMaxItemsize - offset) {
      return Status::InvalidArgument("structured dtype itemsize exceeds " +
                                     std::to_string(kMaxItemsize) + " bytes");
    }
    if (!field.name.empty() && !names.insert(field.name).second) {
      return Status::InvalidArgument("field name '" + field.name + "' occurs more than once");
    }
    field.offset = offset;
    offset += size;
  }
  dtype.itemsize_ = offset;
  dtype.fields_ = std::move(fields);
  return dtype;
}

NpyDtype NpyDtype::FromDataType(DataType type, Endian endian) {
  Result<NpyDtype> dtype = FromTypestr(type.numpy_typestr(endian));
  CHUNKWISE_CHECK(dtype.ok());
  return std::move(dtype).value();
}

std::string NpyDtype::typestr() const {
  CHUNKWISE_CHECK(!structured_);
  std::string text;
  text += byte_order_ == ByteOrder::kLittle ? '<' : byte_order_ == ByteOrder::kBig ? '>' : '|';
  text += kind_;
  text += std::to_string(kind_ == 'U' ? itemsize_ / 4 : itemsize_);
  if (!unit_.empty()) text += "[" + unit_ + "]";
  return text;
}

std::string NpyDtype::ToDescr() const {
  if (!structured_) return detail::PythonRepr(typestr());
  std::string text = "[";
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    const NpyField& field = fields_[i];
    if (i > 0) text += ", ";
    text += '(';
    if (field.title) {
      text += '(';
      text += detail::PythonRepr(*field.title);
      text += ", ";
      text += detail::PythonRepr(field.name);
      text += ')';
    } else {
      text += detail::PythonRepr(field.name);
    }
    text += ", " + field.dtype.ToDescr();
    if (!field.shape.empty()) text += ", " + detail::PythonTupleRepr(field.shape);
    text += ')';
  }
  return text + "]";
}

std::optional<DataType> NpyDtype::AsDataType(Endian* endian) const {
  if (structured_ || std::string_view("biufcMmSU").find(kind_) == std::string_view::npos) {
    return std::nullopt;
  }
  Result<DataType> type = DataType::FromNumpyTypestr(typestr(), endian);
  if (!type.ok()) return std::nullopt;  // e.g. '<f16' (long double) has no DataType.
  return *type;
}

NpyDtype NpyDtype::WithByteOrder(Endian endian) const {
  NpyDtype copy = *this;
  if (structured_) {
    for (NpyField& field : copy.fields_) field.dtype = field.dtype.WithByteOrder(endian);
  } else if (byte_order_ != ByteOrder::kNotApplicable) {
    copy.byte_order_ = endian == Endian::kBig ? ByteOrder::kBig : ByteOrder::kLittle;
  }
  return copy;
}

std::size_t NpyField::size() const { return dtype.itemsize() * ElementCount(shape); }

void ConvertByteOrder(const NpyDtype& from, Endian to, MutableByteView data) {
  const std::size_t itemsize = from.itemsize();
  if (itemsize == 0) return;
  CHUNKWISE_CHECK(data.size() % itemsize == 0);
  const auto target = to == Endian::kBig ? NpyDtype::ByteOrder::kBig : NpyDtype::ByteOrder::kLittle;
  if (!from.is_structured()) {
    if (from.byte_order() == NpyDtype::ByteOrder::kNotApplicable || from.byte_order() == target) {
      return;
    }
    const std::size_t unit = from.kind() == 'c' ? itemsize / 2 : from.kind() == 'U' ? 4 : itemsize;
    if (unit == 2 || unit == 4 || unit == 8) return SwapByteOrder(unit, data);
    return ReverseUnits(unit, data.data(), data.size());
  }
  for (std::size_t at = 0; at < data.size(); at += itemsize) SwapElement(from, target, &data[at]);
}

namespace detail {

std::int32_t DecodeUtf8(std::string_view text, std::size_t* pos) {
  const std::size_t start = *pos;
  if (start >= text.size()) return -1;
  const auto lead = static_cast<std::uint8_t>(text[start]);
  if (lead < 0x80) {
    *pos = start + 1;
    return lead;
  }
  const int length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
  if (length == 0 || lead > 0xF4 || text.size() - start < static_cast<std::size_t>(length)) {
    return -1;
  }
  std::uint32_t c = lead & (0x7F >> length);
  for (int i = 1; i < length; ++i) {
    const auto byte = static_cast<std::uint8_t>(text[start + i]);
    if ((byte & 0xC0) != 0x80) return -1;
    c = (c << 6) | (byte & 0x3F);
  }
  static constexpr std::uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < kMinimum[length] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return -1;
  *pos = start + length;
  return static_cast<std::int32_t>(c);
}

void AppendUtf8(std::uint32_t c, std::string& out) {
  CHUNKWISE_CHECK(c <= 0x10FFFF);
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::string PythonTupleRepr(std::span<const std::int64_t> values) {
  std::string text = "(";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(values[i]);
  }
  if (values.size() == 1) text += ',';
  return text + ")";
}

std::string PythonRepr(std::string_view text) {
  // CPython's unicode_repr: single quotes unless the text has ' and no ".
  const bool has_single = text.find('\'') != std::string_view::npos;
  const char quote = has_single && text.find('"') == std::string_view::npos ? '"' : '\'';
  std::string out(1, quote);
  for (std::size_t pos = 0; pos < text.size();) {
    std::int32_t decoded = DecodeUtf8(text, &pos);
    if (decoded < 0) decoded = static_cast<std::uint8_t>(text[pos++]);  // Not UTF-8: as latin1.
    const auto c = static_cast<std::uint32_t>(decoded);
    if (c == static_cast<std::uint32_t>(quote) || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\t' || c == '\n' || c == '\r') {
      out += c == '\t' ? "\\t" : c == '\n' ? "\\n" : "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      AppendHexEscape(c, 'x', 2, out);
    } else if (c < 0x7F || IsPrintableNonAscii(c)) {
      AppendUtf8(c, out);
    } else {
      AppendHexEscape(c,
                      c <= 0xFF     ? 'x'
                      : c <= 0xFFFF ? 'u'
                                    : 'U',
                      c <= 0xFF     ? 2
                      : c <= 0xFFFF ? 4
                                    : 8,
                      out);
    }
  }
  out += quote;
  return out;
}

}  // namespace detail
}  // namespace chunkwise::core
