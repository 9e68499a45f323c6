// CSV tables as structured arrays: the text form of the CLI's table inputs
// and outputs (bcolz ctables).
//
// Format: RFC 4180. The first record is the header of column names; every
// other record is one row with as many fields. Fields may be quoted with '"'
// (a quote inside is doubled) and may then hold commas and newlines. Lines
// end in "\n" or "\r\n". Reading infers one dtype per column: '<i8' when
// every field is a decimal integer that fits, '<f8' when every field is a
// number (with "nan", "inf"), '|b1' when every field is True/False (any
// case), else '|S<n>' of the longest field. Files: io/csv_file.h.
// Thread-compatible.
#ifndef CHUNKWISE_CORE_CSV_H_
#define CHUNKWISE_CORE_CSV_H_

#include <string_view>

#include "chunkwise/core/npy.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

// Parses CSV text into a 1-d structured array, one field per column, named
// by the header. InvalidArgument naming `name_for_errors` and the line on an
// empty input, a repeated or empty column name, a row with the wrong number
// of fields or an unterminated quote.
Result<NpyArray> ParseCsv(std::string_view text, std::string_view name_for_errors);

// The CSV text of a 1-d structured array whose fields are scalars of kinds
// b, i, u, f (written so they read back exactly), S or U; or of a 1-d
// numeric array (one column named "f0"). Unsupported for other dtypes
// (sub-arrays, complex, datetimes, nested records).
Result<std::string> FormatCsv(const NpyArray& array);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_CSV_H_
