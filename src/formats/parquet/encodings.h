// Parquet value and level encodings: PLAIN, the RLE/bit-packed hybrid
// (definition levels and dictionary indices) and its bit widths.
//
// Spec: docs/formats/parquet.md, "Pages and encodings" (from parquet-format's
// Encodings.md). Decoders never read past their input and fail with
// Corruption naming `what` (file, column, page) when the input ends early.
#ifndef CHUNKWISE_FORMATS_PARQUET_ENCODINGS_H_
#define CHUNKWISE_FORMATS_PARQUET_ENCODINGS_H_

#include <cstdint>
#include <span>
#include <string>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "formats/parquet/column.h"

namespace chunkwise::formats::parquet {

// The bits needed for values up to `max_value` (0 for 0).
int BitWidthFor(std::uint32_t max_value);

// Appends `values` as the hybrid encoding with `bit_width` (0–32): runs of 8
// or more equal values as RLE runs, the rest bit-packed in groups of 8
// (the last group padded with zeros).
void AppendHybrid(std::span<const std::uint32_t> values, int bit_width, Bytes& out);

// Decodes `out.size()` values of the hybrid encoding with `bit_width` from
// `data`; runs past out.size() are padding and ignored. Corruption if the
// data ends first or a value does not fit.
Status DecodeHybrid(ByteView data, int bit_width, std::span<std::uint32_t> out,
                    const std::string& what);

// PLAIN: appends INT32 (4 B LE) or INT64 (8 B LE) values.
void AppendPlainIntegers(std::span<const std::int64_t> values, PhysicalType type, Bytes& out);
// PLAIN: decodes `count` integers of `type` into `out`; returns the bytes used.
Result<std::size_t> DecodePlainIntegers(ByteView data, PhysicalType type, std::size_t count,
                                        std::vector<std::int64_t>& out, const std::string& what);
// PLAIN BYTE_ARRAY: u32 LE length then the bytes.
void AppendPlainByteArray(ByteView value, Bytes& out);
// Decodes `count` BYTE_ARRAY values, appending each to `out`; returns the bytes used.
Result<std::size_t> DecodePlainByteArrays(ByteView data, std::size_t count, ByteArrays& out,
                                          const std::string& what);

}  // namespace chunkwise::formats::parquet

#endif  // CHUNKWISE_FORMATS_PARQUET_ENCODINGS_H_
