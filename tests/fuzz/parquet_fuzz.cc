// libFuzzer target: the Parquet table reader and the reference record decoder
// on arbitrary bytes (meant to be a .parq file).
//
// Reading must return a table or an error, never crash, read out of bounds or
// decompress past a page's stated size. A table that reads is written back
// and read again, which must give the same rows.
#include <cstdint>
#include <cstdlib>

#include "chunkwise/formats/parquet/table.h"
#include "formats/refs/record_file.h"

namespace {

using chunkwise::formats::parquet::Table;

bool SameRows(const Table& a, const Table& b) {
  if (a.columns.size() != b.columns.size()) return false;
  for (std::size_t c = 0; c < a.columns.size(); ++c) {
    const auto& x = a.columns[c];
    const auto& y = b.columns[c];
    if (x.present != y.present) return false;
    for (std::size_t row = 0; row < x.rows(); ++row) {
      if (!x.is_present(row)) continue;
      if (x.type == chunkwise::formats::parquet::PhysicalType::kByteArray) {
        if (chunkwise::AsChars(x.byte_arrays[row]) != chunkwise::AsChars(y.byte_arrays[row]))
          return false;
      } else if (x.integers[row] != y.integers[row]) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const chunkwise::ByteView input(data, size);
  // Few rows keep each run fast and its memory small.
  auto table = chunkwise::formats::parquet::ReadTable(input, "fuzz.parq", {}, 1 << 16);
  if (table.ok()) {
    chunkwise::formats::parquet::WriteOptions options;
    options.compression = chunkwise::formats::parquet::Compression::kUncompressed;
    auto written = chunkwise::formats::parquet::WriteTable(table->columns, options);
    if (written.ok()) {
      auto again = chunkwise::formats::parquet::ReadTable(*written, "rewritten.parq");
      if (!again.ok() || !SameRows(*table, *again)) std::abort();
    }
  }
  (void)chunkwise::formats::refs::RecordRows::Decode(input, "fuzz.parq");
  return 0;
}
