// The zarr `fill_value`: its JSON forms and the element bytes they stand for.
//
// Spec: docs/formats/zarr.md, "Data types and fill values" (v3: numbers,
// true/false, "NaN", "Infinity", "-Infinity", "0x…" raw IEEE bits, [re, im] for
// complex) and "Zarr v2 metadata" (the same special strings, and null for
// "undefined"); datetime64/timedelta64 as their int64 count or "NaT", 'S'
// byte strings as base64, 'U' strings as the string itself (zarr-python 3's
// forms, v2 and v3 alike). A fill value is held as one element's bytes in host byte order,
// the form ChunkSpec carries and chunks are compared against.
#ifndef CHUNKWISE_FORMATS_ZARR_FILL_VALUE_H_
#define CHUNKWISE_FORMATS_ZARR_FILL_VALUE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/data_type.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::zarr {

using FillValue = std::vector<std::uint8_t>;

// The element `json` spells for `dtype`. InvalidArgument, quoting the value,
// when it has the wrong JSON type, is out of the type's range, or is a
// fraction for an integer type. JSON null is not accepted here (v2 callers
// handle it).
Result<FillValue> ParseFillValue(const nlohmann::json& json, core::DataType dtype);

// The command line's --fill text: a number, true/false, nan, inf, -inf or 0x…;
// NaT or a count for a datetime; the text itself for 'S' (its bytes) and 'U'.
Result<FillValue> ParseFillValueText(std::string_view text, core::DataType dtype);

// The JSON zarr writes for `element`: numbers, true/false, "NaN", "Infinity",
// "-Infinity"; a NaN other than the canonical quiet NaN as "0x…" bits.
// REQUIRES: element.size() == dtype.size().
nlohmann::json FillValueToJson(std::span<const std::uint8_t> element, core::DataType dtype);

// True when every element of `data` equals `element` bytewise (an empty
// `element` stands for zero bytes). REQUIRES: data.size() is a multiple of the
// element size.
bool IsFilledWith(ByteView data, std::span<const std::uint8_t> element);

// float16 conversions (round to nearest, ties to even), for fill values and tests.
double HalfToDouble(std::uint16_t bits);
std::uint16_t DoubleToHalf(double value);

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_FILL_VALUE_H_
