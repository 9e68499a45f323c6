// Page compression for Parquet: codecs take page bytes as-is, with no framing
// (SNAPPY raw block, GZIP RFC 1952 members, ZSTD frames).
#ifndef CHUNKWISE_SRC_FORMATS_PARQUET_PAGE_COMPRESSION_H_
#define CHUNKWISE_SRC_FORMATS_PARQUET_PAGE_COMPRESSION_H_

#include <string>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "formats/parquet/file_metadata.h"

namespace chunkwise::formats::parquet {

// Compresses one page body. Unsupported for codecs other than the four named;
// Internal if the library fails.
Result<Bytes> CompressPage(ByteView page, Compression codec, int zstd_level);

// Decompresses one page body to exactly `uncompressed_size` bytes; Corruption
// naming `what` if the data is malformed or decodes to any other size (it is
// never decoded past that size). Unsupported for other codecs.
Result<Bytes> DecompressPage(ByteView page, std::int32_t codec, std::size_t uncompressed_size,
                             const std::string& what);

}  // namespace chunkwise::formats::parquet

#endif  // CHUNKWISE_SRC_FORMATS_PARQUET_PAGE_COMPRESSION_H_
