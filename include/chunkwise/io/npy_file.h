// .npy files on disk: the file side of core/npy.h, which holds the format.
#ifndef CHUNKWISE_IO_NPY_FILE_H_
#define CHUNKWISE_IO_NPY_FILE_H_

#include <filesystem>

#include "chunkwise/core/npy.h"
#include "chunkwise/core/result.h"

namespace chunkwise::io {

// Reads the whole file at `path`. NotFound / IOError when it cannot be read;
// the errors of core::ParseNpy, naming the file, when it is not a well-formed .npy.
Result<core::NpyArray> ReadNpy(const std::filesystem::path& path);
// Reads only the header of the file at `path`, for streaming the data from
// data_offset. Checks that the file holds exactly data_size bytes of data.
Result<core::NpyHeader> ReadNpyHeader(const std::filesystem::path& path);

// Writes `array` to `path` atomically (io/file.h), so readers never see a
// partial file. InvalidArgument when the data size does not match the shape;
// IOError when writing fails. Writes the header and the data without
// copying the data.
Status WriteNpy(const std::filesystem::path& path, const core::NpyArray& array);

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_NPY_FILE_H_
