#include "chunkwise/core/array_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "chunkwise/core/file_io.h"

namespace chunkwise::core {
namespace {

Status ErrnoStatus(std::string_view what, const std::filesystem::path& path, int error) {
  std::string message = std::string(what) + " '" + path.string() + "': " + std::strerror(error);
  return error == ENOENT ? Status::NotFound(std::move(message))
                         : Status::IOError(std::move(message));
}

// The shape of a raw file of `file_size` bytes, filling in an inferred dim 0.
Result<std::vector<std::int64_t>> RawShape(const std::filesystem::path& path,
                                           const ArrayFileHint& hint, std::size_t itemsize,
                                           std::uint64_t file_size) {
  std::vector<std::int64_t> shape = hint.shape.value_or(std::vector<std::int64_t>{0});
  const std::string where =
      "raw array file '" + path.string() + "' of " + std::to_string(file_size) + " bytes";
  if (shape.empty() || shape[0] != 0) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t needed, detail::NpyByteCount(shape, itemsize));
    if (needed != file_size) {
      return Status::InvalidArgument(where + " does not match shape " +
                                     detail::PythonTupleRepr(shape) + ", which needs " +
                                     std::to_string(needed));
    }
    return shape;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t row_size,
                             detail::NpyByteCount(std::span(shape).subspan(1), itemsize));
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
    return Status::InvalidArgument("'" + path.string() +
                                   "' is not a .npy file, and no dtype was given for raw data");
  }
  NpyHeader header;
  header.dtype = hint.dtype->WithByteOrder(Endian::kLittle);
  CHUNKWISE_ASSIGN_OR_RETURN(header.shape,
                             RawShape(path, hint, header.dtype.itemsize(), file_size));
  header.data_size = file_size;
  return header;
}

// Reads the header (or builds it from the hint) and positions `file` at the data.
Result<NpyHeader> OpenHeader(std::FILE* file, const std::filesystem::path& path,
                             const ArrayFileHint& hint) {
  struct stat info;
  if (::fstat(::fileno(file), &info) != 0) return ErrnoStatus("cannot stat", path, errno);
  if (!S_ISREG(info.st_mode))
    return Status::IOError("'" + path.string() + "' is not a regular file");
  char magic[6] = {};
  const std::size_t got = std::fread(magic, 1, sizeof(magic), file);
  if (got == sizeof(magic) && std::string_view(magic, sizeof(magic)) == kNpyMagic) {
    CHUNKWISE_ASSIGN_OR_RETURN(NpyHeader header, ReadNpyHeader(path));
    if (std::fseek(file, static_cast<long>(header.data_offset), SEEK_SET) != 0) {
      return ErrnoStatus("cannot seek in", path, errno);
    }
    return header;
  }
  if (std::fseek(file, 0, SEEK_SET) != 0) return ErrnoStatus("cannot seek in", path, errno);
  return RawHeader(path, hint, static_cast<std::uint64_t>(info.st_size));
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
  if (got != array.data.size()) {
    return Status::IOError("'" + path.string() + "' shrank while being read");
  }
  array.dtype = reader->dtype();
  array.shape = reader->shape();
  array.fortran_order = reader->fortran_order();
  return array;
}

Status WriteArrayFile(const std::filesystem::path& path, const NpyArray& array, bool raw) {
  if (!raw) return WriteNpy(path, array);
  CHUNKWISE_RETURN_IF_ERROR(ValidateNpyArray(array));
  NpyArray c_order = array;
  CHUNKWISE_RETURN_IF_ERROR(ToCOrder(c_order));
  ConvertByteOrder(c_order.dtype, Endian::kLittle, c_order.data);
  return WriteFileAtomically(path, c_order.data);
}

Result<std::unique_ptr<ArrayStreamReader>> ArrayStreamReader::Open(
    const std::filesystem::path& path, const ArrayFileHint& hint) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return ErrnoStatus("cannot open", path, errno);
  Result<NpyHeader> header = OpenHeader(file, path, hint);
  if (!header.ok()) {
    std::fclose(file);
    return header.status();
  }
  return std::unique_ptr<ArrayStreamReader>(
      new ArrayStreamReader(file, path, std::move(header).value()));
}

ArrayStreamReader::ArrayStreamReader(std::FILE* file, std::filesystem::path path, NpyHeader header)
    : file_(file), path_(std::move(path)), header_(std::move(header)) {}

ArrayStreamReader::~ArrayStreamReader() { std::fclose(file_); }

Result<std::size_t> ArrayStreamReader::Read(MutableByteView out) {
  const std::size_t want =
      static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), remaining()));
  if (want == 0) return std::size_t{0};
  if (std::fread(out.data(), 1, want, file_) != want) {
    if (std::ferror(file_)) return ErrnoStatus("cannot read", path_, errno);
    return Status::IOError("'" + path_.string() + "' shrank while being read");
  }
  position_ += want;
  return want;
}

}  // namespace chunkwise::core
