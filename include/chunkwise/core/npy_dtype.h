// NpyDtype: the element type of a NumPy .npy file, as written in its `descr`.
//
// Spec: numpy/lib/format.py ("NPY format", versions 1.0 to 3.0) and the array
// interface typestr protocol. A descr is either a typestr string such as '<u2',
// '|S10', '<U5', '|V8' or '<M8[ns]', or a structured list such as
// [('a', '<i4'), ('', '|V4'), ('b', '>f8', (3, 2)), (('title', 'c'), [...])].
// NpyDtype holds either form losslessly, padding fields included, so that
// ToDescr() writes back exactly what numpy writes. Object dtypes ('|O') hold
// Python pointers and are never accepted. core::DataType is the numeric subset
// every codec handles; AsDataType() and FromDataType() convert between them.
#ifndef CHUNKWISE_CORE_NPY_DTYPE_H_
#define CHUNKWISE_CORE_NPY_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/data_type.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

struct NpyField;

// A value type; copying copies the whole field tree. Thread-compatible.
class NpyDtype {
 public:
  // The first character of a typestr: '<', '>' or '|' (one-byte and byte-string types).
  enum class ByteOrder { kLittle, kBig, kNotApplicable };

  // Largest itemsize accepted; numpy stores itemsize in a C int.
  static constexpr std::size_t kMaxItemsize = 0x7fffffff;

  // '|u1'.
  NpyDtype() = default;

  // Parses a typestr: optional byte order ('<', '>', '|', '='; '=' and '|' on a
  // multi-byte type mean native), kind (b i u f c S U V M m) and size, plus a
  // unit in brackets for M and m ('<M8[ns]', '<m8[10s]', '<M8'). InvalidArgument
  // names the typestr on anything else; '|O' is rejected as unsupported.
  static Result<NpyDtype> FromTypestr(std::string_view typestr);
  // Parses the Python-literal text of a header's descr value, e.g. "'<u2'" or
  // "[('a', '<i4'), ('b', '<f8', (2,))]". Corruption with the offset on a syntax
  // error, InvalidArgument on a well-formed literal that is not a dtype.
  static Result<NpyDtype> FromDescr(std::string_view descr_literal);
  // Builds a structured dtype from `fields` in order, computing their offsets;
  // names may repeat only as "" (padding). InvalidArgument when a field shape is
  // negative, a non-padding name repeats or the itemsize passes kMaxItemsize.
  static Result<NpyDtype> Structured(std::vector<NpyField> fields);
  // The numeric type in the given byte order ('|' for one-byte types).
  static NpyDtype FromDataType(DataType type, Endian endian);

  bool is_structured() const { return structured_; }
  // 'b', 'i', 'u', 'f', 'c', 'S', 'U', 'V', 'M' or 'm'; 'V' when structured.
  char kind() const { return kind_; }
  // kNotApplicable when structured.
  ByteOrder byte_order() const { return byte_order_; }
  // The bracketed datetime unit without brackets ("ns", "10s"), "" if none.
  const std::string& datetime_unit() const { return unit_; }
  // Bytes per element, padding included.
  std::size_t itemsize() const { return itemsize_; }
  // Empty unless structured.
  const std::vector<NpyField>& fields() const { return fields_; }

  // The typestr numpy writes, e.g. '<u2'. REQUIRES: !is_structured().
  std::string typestr() const;
  // The descr as numpy's repr() writes it into a header: "'<u2'" or
  // "[('a', '<i4'), ('b', '>f8', (3, 2))]". Names are UTF-8.
  std::string ToDescr() const;

  // The DataType for kinds b, i, u, f, c, M and m (with a unit), S and U,
  // with its byte order in `*endian` (may be null); nullopt for any other dtype.
  std::optional<DataType> AsDataType(Endian* endian) const;
  // This dtype with every multi-byte scalar, fields included, in `endian` order.
  NpyDtype WithByteOrder(Endian endian) const;

  bool operator==(const NpyDtype&) const;

 private:
  bool structured_ = false;
  char kind_ = 'u';
  ByteOrder byte_order_ = ByteOrder::kNotApplicable;
  std::size_t itemsize_ = 1;
  std::string unit_;
  std::vector<NpyField> fields_;
};

// One entry of a structured descr. Padding is a field named "" of kind 'V'.
struct NpyField {
  std::string name;                  // UTF-8; "" for padding.
  std::optional<std::string> title;  // From (('title', 'name'), ...).
  NpyDtype dtype;
  std::vector<std::int64_t> shape;  // Sub-array shape; empty for a scalar field.
  std::size_t offset = 0;           // Set by NpyDtype::Structured.

  // Bytes the field takes: dtype.itemsize() times the product of shape.
  std::size_t size() const;
  bool operator==(const NpyField&) const = default;
};

inline bool NpyDtype::operator==(const NpyDtype& other) const {
  return structured_ == other.structured_ && kind_ == other.kind_ &&
         byte_order_ == other.byte_order_ && itemsize_ == other.itemsize_ && unit_ == other.unit_ &&
         fields_ == other.fields_;
}

// Rewrites the elements of `data`, stored as `from`, into the byte order of
// from.WithByteOrder(to). Byte strings and void bytes are left alone.
// REQUIRES: data.size() is a multiple of from.itemsize() (any size if it is 0).
void ConvertByteOrder(const NpyDtype& from, Endian to, MutableByteView data);

namespace detail {
// Decodes the UTF-8 code point at text[*pos] and advances *pos past it; returns
// -1 (leaving *pos) on a malformed, overlong or surrogate sequence.
std::int32_t DecodeUtf8(std::string_view text, std::size_t* pos);
// Appends `code_point` (at most 0x10FFFF) to `out` as UTF-8.
void AppendUtf8(std::uint32_t code_point, std::string& out);
// `text` as a Python 3 repr() string literal, quotes included.
std::string PythonRepr(std::string_view text);
// A tuple of ints as Python's repr() writes it: "()", "(3,)", "(2, 3)".
std::string PythonTupleRepr(std::span<const std::int64_t> values);
}  // namespace detail

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_NPY_DTYPE_H_
