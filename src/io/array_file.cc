#include "chunkwise/io/array_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "chunkwise/io/file.h"
#include "chunkwise/io/npy_file.h"
#include "core/file_io.h"
#include "core/posix_file.h"

namespace chunkwise::io {

namespace posix = core::posix;
using core::Endian;
using core::NpyArray;
using core::NpyHeader;

namespace {

// Opens the regular file at `path`. posix::OpenForRead folds "absent" and "a
// directory" into nullopt; telling them apart keeps a missing file NotFound and
// a directory an IOError, both naming the path.
// The shape of a raw file of `file_size` bytes, filling in an inferred dim 0.
Result<std::vector<std::int64_t>> RawShape(const std::filesystem::path& path,
                                           const ArrayFileHint& hint, std::size_t itemsize,
                                           std::uint64_t file_size) {
  std::vector<std::int64_t> shape = hint.shape.value_or(std::vector<std::int64_t>{0});
  std::string where = "raw array file '";
  where += path.string();
  where += "' of ";
  where += std::to_string(file_size);
  where += " bytes";
  if (shape.empty() || shape[0] != 0) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t needed,
                               core::detail::NpyByteCount(shape, itemsize));
    if (needed != file_size) {
      return Status::InvalidArgument(where + " does not match shape " +
                                     core::detail::PythonTupleRepr(shape) + ", which needs " +
                                     std::to_string(needed));
    }
    return shape;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t row_size,
                             core::detail::NpyByteCount(std::span(shape).subspan(1), itemsize));
  if (row_size == 0) {
    if (file_size == 0) return shape;
    return Status::InvalidArgument(where +
                                   ": cannot infer dim 0 when the other dims hold no bytes");
  }
  if (file_size % row_size != 0) {
    return Status::InvalidArgument(where + " is not a multiple of " + std::to_string(row_size) +
                                   " bytes (one index of dim 0)");
  }
  shape[0] = static_cast<std::int64_t>(file_size / row_size);
  return shape;
}

Result<NpyHeader> RawHeader(const std::filesystem::path& path, const ArrayFileHint& hint,
                            std::uint64_t file_size) {
  if (!hint.dtype) {
    std::string message = "'";
    message += path.string();
    message += "' is not a .npy file, and no dtype was given for raw data";
    return Status::InvalidArgument(std::move(message));
  }
  NpyHeader header;
  header.dtype = hint.dtype->WithByteOrder(Endian::kLittle);
  CHUNKWISE_ASSIGN_OR_RETURN(header.shape,
                             RawShape(path, hint, header.dtype.itemsize(), file_size));
  header.data_size = file_size;
  return header;
}

// Reads the header of the open `file`, or builds it from the hint for raw data.
Result<NpyHeader> ReadHeader(const posix::OpenedFile& file, const std::filesystem::path& path,
                             const ArrayFileHint& hint) {
  const ByteView npy_magic = AsBytes(core::kNpyMagic);
  if (file.size >= npy_magic.size()) {
    Bytes magic(npy_magic.size());
    CHUNKWISE_RETURN_IF_ERROR(posix::ReadAt(file.fd.get(), 0, magic, path));
    if (std::ranges::equal(magic, npy_magic)) return ReadNpyHeader(path);
  }
  return RawHeader(path, hint, file.size);
}

}  // namespace

bool HasNpyExtension(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".npy";
}

Result<NpyArray> ReadArrayFile(const std::filesystem::path& path, const ArrayFileHint& hint) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<ArrayStreamReader> reader,
                             ArrayStreamReader::Open(path, hint));
  NpyArray array;
  array.data.resize(reader->data_size());
  CHUNKWISE_ASSIGN_OR_RETURN(const std::size_t got, reader->Read(array.data));
  // Read fills all it is asked for up to data_size, or fails.
  CHUNKWISE_CHECK(got == array.data.size());
  array.dtype = reader->dtype();
  array.shape = reader->shape();
  array.fortran_order = reader->fortran_order();
  return array;
}

Status WriteArrayFile(const std::filesystem::path& path, const NpyArray& array, bool raw) {
  if (!raw) return WriteNpy(path, array);
  CHUNKWISE_RETURN_IF_ERROR(core::ValidateNpyArray(array));
  // Raw output is C order, little-endian; an array already so is written as it is.
  if (!array.fortran_order && array.dtype.WithByteOrder(Endian::kLittle) == array.dtype) {
    return WriteFile(path, array.data);
  }
  NpyArray c_order = array;
  CHUNKWISE_RETURN_IF_ERROR(core::ToCOrder(c_order));
  core::ConvertByteOrder(c_order.dtype, Endian::kLittle, c_order.data);
  return WriteFile(path, c_order.data);
}

Result<std::unique_ptr<ArrayStreamReader>> ArrayStreamReader::Open(
    const std::filesystem::path& path, const ArrayFileHint& hint) {
  CHUNKWISE_ASSIGN_OR_RETURN(posix::OpenedFile file, posix::OpenRegularFile(path));
  CHUNKWISE_ASSIGN_OR_RETURN(NpyHeader header, ReadHeader(file, path, hint));
  // The public header keeps the descriptor in a std::FILE*, used only to own
  // it: every read goes through posix::ReadAt at an explicit offset.
  std::FILE* owner = ::fdopen(file.fd.get(), "rb");
  if (owner == nullptr) return posix::ErrnoStatus("fdopen", path, errno);
  file.fd.Release();
  return std::unique_ptr<ArrayStreamReader>(new ArrayStreamReader(owner, path, std::move(header)));
}

ArrayStreamReader::ArrayStreamReader(std::FILE* file, std::filesystem::path path, NpyHeader header)
    : file_(file), path_(std::move(path)), header_(std::move(header)) {}

ArrayStreamReader::~ArrayStreamReader() { std::fclose(file_); }

Result<std::size_t> ArrayStreamReader::Read(MutableByteView out) {
  const std::size_t want =
      static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), remaining()));
  if (want == 0) return std::size_t{0};
  CHUNKWISE_RETURN_IF_ERROR(
      posix::ReadAt(::fileno(file_), header_.data_offset + position_, out.first(want), path_));
  position_ += want;
  return want;
}

Status ArrayStreamReader::ReadAt(std::uint64_t at, MutableByteView out) const {
  if (at > header_.data_size || out.size() > header_.data_size - at) {
    return Status::InvalidArgument(path_.string() + ": bytes " + std::to_string(at) + " to " +
                                   std::to_string(at + out.size()) + " lie past the data's " +
                                   std::to_string(header_.data_size));
  }
  if (out.empty()) return Status::Ok();
  return posix::ReadAt(::fileno(file_), header_.data_offset + at, out, path_);
}

}  // namespace chunkwise::io
