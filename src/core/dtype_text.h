// The dtype a user types: one parser for every command and binding that
// takes one, over DataType's and NpyDtype's own parsers. Both numpy
// spellings name a type: the name ("uint16", "float32", "bool", the zarr v3
// names) and the typestr ("<u2", "|b1", "u2"; no byte order means little).
#ifndef CHUNKWISE_CORE_DTYPE_TEXT_H_
#define CHUNKWISE_CORE_DTYPE_TEXT_H_

#include <string_view>

#include "chunkwise/core/data_type.h"
#include "chunkwise/core/npy_dtype.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

// A numeric type by name or typestr. A typestr's byte order goes to `*endian`
// (may be null; then a big-endian typestr is InvalidArgument, for element
// types that take none). InvalidArgument naming the text on anything else.
Result<DataType> ParseDataType(std::string_view text, Endian* endian = nullptr);

// Any typestr NpyDtype::FromTypestr takes, or a numeric name, which means
// little-endian. InvalidArgument naming the text otherwise.
Result<NpyDtype> ParseNpyDtype(std::string_view text);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_DTYPE_TEXT_H_
