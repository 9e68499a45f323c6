// libFuzzer target: the Parquet table reader and the reference record decoder
// on arbitrary bytes (meant to be a .parq file).
//
// Reading must return a table or an error, never crash, read out of bounds or
// decompress past a page's stated size. A table that reads is written back
// and read again, which must give the same rows.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "formats/parquet/table.h"
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

// The smoke run starts from an empty corpus, where random bytes rarely reach
// past the footer. Odd first bytes therefore build a valid file from the
// input (rows, writer options, values) and then corrupt it at input-chosen
// positions, so that page decoding is exercised from the first run.
chunkwise::Bytes StructuredFile(const std::uint8_t* data, std::size_t size) {
  using chunkwise::formats::parquet::Column;
  using chunkwise::formats::parquet::PhysicalType;
  if (size < 4) return {};
  const std::size_t rows = data[1] % 70;
  chunkwise::formats::parquet::WriteOptions options;
  options.compression = static_cast<chunkwise::formats::parquet::Compression>(
      std::array<int, 4>{0, 1, 2, 6}[data[2] & 3]);
  options.data_page_v2 = data[2] & 4;
  options.legacy_plain_dictionary = data[2] & 8;
  options.rows_per_page = 1 + data[3] % 32;
  options.max_dictionary_bytes = (data[2] & 16) ? 24 : 1 << 20;
  Column text = Column::Named("path", PhysicalType::kByteArray, true);
  text.dictionary = true;
  Column number = Column::Named("offset", PhysicalType::kInt64);
  number.dictionary = data[2] & 32;
  for (std::size_t row = 0; row < rows; ++row) {
    const std::uint8_t byte = data[(4 + row) % size];
    text.present.push_back(byte & 1);
    const std::string value(byte % 5, static_cast<char>('a' + byte % 3));
    (byte & 1) ? text.byte_arrays.Append(chunkwise::AsBytes(value))
               : text.byte_arrays.AppendEmpty();
    number.present.push_back(1);
    number.integers.push_back(byte * 1000003LL);
  }
  const Column columns[] = {std::move(text), std::move(number)};
  auto file = chunkwise::formats::parquet::WriteTable(columns, options);
  if (!file.ok()) std::abort();  // The writer accepts every table built above.
  for (std::size_t i = 4 + rows; i + 2 < size; i += 3) {
    const std::size_t at = (data[i] | (data[i + 1] << 8)) % file->size();
    (*file)[at] ^= data[i + 2];
  }
  return std::move(*file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  chunkwise::Bytes structured;
  if (size > 0 && (data[0] & 1)) {
    structured = StructuredFile(data, size);
    data = structured.data();
    size = structured.size();
  }
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
