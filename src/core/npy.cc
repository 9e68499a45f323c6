#include "chunkwise/core/npy.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

namespace chunkwise::core {
namespace {

Status DataSizeMismatch(std::string_view name, const NpyHeader& header, std::uint64_t actual) {
  std::string what;
  if (header.dtype.is_structured()) {
    what = "a structured dtype of itemsize ";
    what += std::to_string(header.dtype.itemsize());
  } else {
    what = header.dtype.typestr();
  }
  std::string message = "npy '";
  message += name;
  message += "': data is ";
  message += std::to_string(actual);
  message += " bytes, but shape ";
  message += detail::PythonTupleRepr(header.shape);
  message += " of ";
  message += what;
  message += " needs ";
  message += std::to_string(header.data_size);
  return Status::Corruption(std::move(message));
}

// Copies the elements of `source` (dims `shape`) into `dest` reordered between
// C and Fortran order. `from_fortran` tells which order `source` is in.
void Reorder(ByteView source, MutableByteView dest, const std::vector<std::int64_t>& shape,
             std::size_t itemsize, bool from_fortran) {
  const std::size_t rank = shape.size();
  // Visit the source linearly: dims in storage order, fastest first.
  std::vector<std::size_t> dims(rank), dest_strides(rank), index(rank, 0);
  std::size_t stride = itemsize;
  for (std::size_t k = 0; k < rank; ++k) {  // Destination strides, fastest dim first.
    const std::size_t dim = from_fortran ? rank - 1 - k : k;
    dest_strides[dim] = stride;
    stride *= static_cast<std::size_t>(shape[dim]);
  }
  for (std::size_t k = 0; k < rank; ++k) dims[k] = from_fortran ? k : rank - 1 - k;
  const std::size_t count = source.size() / itemsize;
  std::size_t dest_offset = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::memcpy(&dest[dest_offset], &source[i * itemsize], itemsize);
    for (std::size_t k = 0; k < rank; ++k) {  // Odometer step, carrying into slower dims.
      const std::size_t dim = dims[k];
      dest_offset += dest_strides[dim];
      if (++index[dim] < static_cast<std::size_t>(shape[dim])) break;
      dest_offset -= dest_strides[dim] * index[dim];
      index[dim] = 0;
    }
  }
}

Status ChangeOrder(NpyArray& array, bool to_fortran) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateNpyArray(array));
  if (array.fortran_order == to_fortran) return Status::Ok();
  const std::size_t itemsize = array.dtype.itemsize();
  if (array.shape.size() > 1 && itemsize != 0 && !array.data.empty()) {
    Bytes reordered(array.data.size());
    Reorder(array.data, reordered, array.shape, itemsize, array.fortran_order);
    array.data = std::move(reordered);
  }
  array.fortran_order = to_fortran;
  return Status::Ok();
}

// Encodes UTF-8 `text` as latin-1; false when a code point is above U+00FF.
bool EncodeLatin1(std::string_view text, std::string& out) {
  for (std::size_t pos = 0; pos < text.size();) {
    const std::int32_t c = detail::DecodeUtf8(text, &pos);
    if (c < 0 || c > 0xFF) return false;
    out += static_cast<char>(c);
  }
  return true;
}

// The header dict as numpy's _write_array_header writes it, before padding.
std::string HeaderText(const NpyDtype& dtype, std::span<const std::int64_t> shape,
                       bool fortran_order) {
  std::string text = "{'descr': ";
  text += dtype.ToDescr();
  text += ", 'fortran_order': ";
  text += fortran_order ? "True" : "False";
  text += ", 'shape': ";
  text += detail::PythonTupleRepr(shape);
  text += ", }";
  // numpy leaves room for the growth axis to reach 21 digits in place.
  if (!shape.empty()) {
    const std::int64_t growth = fortran_order ? shape.back() : shape.front();
    text.append(21 - std::to_string(growth).size(), ' ');
  }
  return text;
}

}  // namespace

Status ValidateNpyArray(const NpyArray& array) {
  Result<std::uint64_t> size = detail::NpyByteCount(array.shape, array.dtype.itemsize());
  if (!size.ok()) return size.status().WithContext("npy array");
  if (array.data.size() != *size) {
    NpyHeader header;
    header.dtype = array.dtype;
    header.shape = array.shape;
    header.data_size = *size;
    return Status::InvalidArgument(
        std::string(DataSizeMismatch("array", header, array.data.size()).message()));
  }
  return Status::Ok();
}

Result<NpyArray> ParseNpy(ByteView bytes, std::string_view name_for_errors) {
  CHUNKWISE_ASSIGN_OR_RETURN(NpyHeader header, ParseNpyHeader(bytes, name_for_errors));
  const std::uint64_t actual = bytes.size() - header.data_offset;
  if (actual != header.data_size) return DataSizeMismatch(name_for_errors, header, actual);
  NpyArray array;
  const ByteView data = bytes.subspan(header.data_offset);
  array.data.assign(data.begin(), data.end());
  array.dtype = std::move(header.dtype);
  array.shape = std::move(header.shape);
  array.fortran_order = header.fortran_order;
  return array;
}

Status CheckNpyDataSize(const NpyHeader& header, std::uint64_t total_size,
                        std::string_view name_for_errors) {
  if (total_size >= header.data_offset && total_size - header.data_offset == header.data_size) {
    return Status::Ok();
  }
  return DataSizeMismatch(name_for_errors, header,
                          total_size >= header.data_offset ? total_size - header.data_offset : 0);
}

Result<Bytes> SerializeNpyHeader(const NpyDtype& dtype, std::span<const std::int64_t> shape,
                                 bool fortran_order, int major_version) {
  CHUNKWISE_RETURN_IF_ERROR(detail::NpyByteCount(shape, 0));  // Rejects negative dims.
  const std::string text = HeaderText(dtype, shape, fortran_order);
  std::string latin1;
  const bool is_latin1 = EncodeLatin1(text, latin1);
  // As numpy: the data starts at a multiple of 64, and a header already
  // aligned still gets 64 spaces.
  auto total = [&](int version) {
    const std::size_t size = (version == 3 ? text : latin1).size() + 1;
    return size + 64 - (8 + (version == 1 ? 2 : 4) + size) % 64;
  };
  int version = major_version;
  if (version == 0) version = !is_latin1 ? 3 : total(1) <= 0xFFFF ? 1 : 2;
  if (version < 1 || version > 3) return Status::InvalidArgument("npy version must be 1, 2 or 3");
  if (version < 3 && !is_latin1) {
    return Status::InvalidArgument("npy header has non-latin-1 text; it needs format 3.0");
  }
  if (version == 1 && total(1) > 0xFFFF) {
    std::string message = "npy header of ";
    message += std::to_string(total(1));
    message += " bytes is too long for format 1.0";
    return Status::InvalidArgument(std::move(message));
  }
  const std::string& encoded = version == 3 ? text : latin1;
  const std::size_t length = total(version);
  Bytes out(AsBytes(kNpyMagic).begin(), AsBytes(kNpyMagic).end());
  out.push_back(static_cast<std::uint8_t>(version));
  out.push_back(0);
  if (version == 1)
    AppendLittleEndian(static_cast<std::uint16_t>(length), out);
  else
    AppendLittleEndian(static_cast<std::uint32_t>(length), out);
  out.insert(out.end(), encoded.begin(), encoded.end());
  out.resize(out.size() + length - encoded.size() - 1, ' ');
  out.push_back('\n');
  return out;
}

Bytes SerializeNpy(const NpyArray& array) {
  CHUNKWISE_CHECK(ValidateNpyArray(array).ok());
  Result<Bytes> bytes = SerializeNpyHeader(array.dtype, array.shape, array.fortran_order);
  CHUNKWISE_CHECK(bytes.ok());  // Automatic version choice always fits a valid array.
  bytes->insert(bytes->end(), array.data.begin(), array.data.end());
  return std::move(bytes).value();
}

Status ToCOrder(NpyArray& array) { return ChangeOrder(array, false); }
Status ToFortranOrder(NpyArray& array) { return ChangeOrder(array, true); }

}  // namespace chunkwise::core
