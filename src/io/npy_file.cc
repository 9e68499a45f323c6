#include "chunkwise/io/npy_file.h"

#include <algorithm>

#include "chunkwise/io/file.h"
#include "core/file_io.h"
#include "core/posix_file.h"

namespace chunkwise::io {
namespace {

namespace posix = core::posix;

// Reads the header of an open file and checks that exactly data_size bytes
// follow it, at data_offset.
Result<core::NpyHeader> ReadHeader(const posix::OpenedFile& file,
                                   const std::filesystem::path& path) {
  const std::uint64_t file_size = file.size;
  Bytes bytes(std::min<std::uint64_t>(file_size, core::kNpyPreambleSize));
  CHUNKWISE_RETURN_IF_ERROR(posix::ReadAt(file.fd.get(), 0, bytes, path));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t header_size,
                             core::ParseNpyHeaderSize(bytes, path.string()));
  // With a header past the end, ParseNpyHeader reports it against the file size.
  if (header_size <= file_size) {
    const std::size_t have = bytes.size();
    bytes.resize(header_size);
    if (header_size > have) {
      CHUNKWISE_RETURN_IF_ERROR(
          posix::ReadAt(file.fd.get(), have, MutableByteView(bytes).subspan(have), path));
    }
  }
  CHUNKWISE_ASSIGN_OR_RETURN(core::NpyHeader header, core::ParseNpyHeader(bytes, path.string()));
  CHUNKWISE_RETURN_IF_ERROR(core::CheckNpyDataSize(header, file_size, path.string()));
  return header;
}

}  // namespace

Result<core::NpyArray> ReadNpy(const std::filesystem::path& path) {
  CHUNKWISE_ASSIGN_OR_RETURN(const posix::OpenedFile file, posix::OpenRegularFile(path));
  CHUNKWISE_ASSIGN_OR_RETURN(core::NpyHeader header, ReadHeader(file, path));
  core::NpyArray array;
  array.data.resize(header.data_size);
  CHUNKWISE_RETURN_IF_ERROR(posix::ReadAt(file.fd.get(), header.data_offset, array.data, path));
  array.dtype = std::move(header.dtype);
  array.shape = std::move(header.shape);
  array.fortran_order = header.fortran_order;
  return array;
}

Result<core::NpyHeader> ReadNpyHeader(const std::filesystem::path& path) {
  CHUNKWISE_ASSIGN_OR_RETURN(const posix::OpenedFile file, posix::OpenRegularFile(path));
  return ReadHeader(file, path);
}

Status WriteNpy(const std::filesystem::path& path, const core::NpyArray& array) {
  CHUNKWISE_RETURN_IF_ERROR(core::ValidateNpyArray(array));
  CHUNKWISE_ASSIGN_OR_RETURN(
      Bytes header, core::SerializeNpyHeader(array.dtype, array.shape, array.fortran_order));
  const ByteView parts[] = {header, array.data};
  return WriteFile(path, parts);
}

}  // namespace chunkwise::io
