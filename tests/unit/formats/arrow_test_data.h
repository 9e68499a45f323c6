// A sample schema and batches covering every type the Arrow layer models, for the IPC tests.
#ifndef CHUNKWISE_TESTS_UNIT_FORMATS_ARROW_TEST_DATA_H_
#define CHUNKWISE_TESTS_UNIT_FORMATS_ARROW_TEST_DATA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "formats/arrow/record_batch.h"
#include "formats/arrow/schema.h"

namespace chunkwise::formats::arrow::testing {

inline Schema SampleSchema() {
  Schema schema;
  schema.fields = {
      Field::Primitive("i8", TypeId::kInt8, false),
      Field::Primitive("u16", TypeId::kUInt16, false),
      Field::Primitive("i32", TypeId::kInt32, true, {{"unit", "nm"}, {"note", ""}}),
      Field::Primitive("u64", TypeId::kUInt64, false),
      Field::Primitive("name", TypeId::kUtf8, true),
      Field::Primitive("blob", TypeId::kBinary, false, {{"codec", "zstd"}}),
      Field::List("ids", Field::Primitive("item", TypeId::kInt64, true), false),
  };
  schema.metadata = {{"producer", "chunkwise test"}, {"version", "1"}};
  return schema;
}

// Owns the column buffers of one sample batch of `rows` rows, values derived from `seed`.
struct SampleBatch {
  std::vector<std::int8_t> i8;
  std::vector<std::uint16_t> u16;
  std::vector<std::int32_t> i32;
  std::vector<std::uint8_t> i32_validity;
  std::int64_t i32_nulls = 0;
  std::vector<std::uint64_t> u64;
  std::vector<std::int32_t> name_offsets{0};
  std::string names;
  std::vector<std::int32_t> blob_offsets{0};
  Bytes blobs;
  std::vector<std::int32_t> ids_offsets{0};
  std::vector<std::int64_t> ids;

  SampleBatch(std::int64_t rows, int seed) {
    i32_validity.assign(static_cast<std::size_t>((rows + 7) / 8), 0);
    for (std::int64_t r = 0; r < rows; ++r) {
      i8.push_back(static_cast<std::int8_t>(seed - 3 * r));
      u16.push_back(static_cast<std::uint16_t>(65535 - r * seed));
      i32.push_back(static_cast<std::int32_t>(-100000 * r + seed));
      const bool valid = (r + seed) % 3 != 0;
      if (valid) i32_validity[static_cast<std::size_t>(r / 8)] |= std::uint8_t(1u << (r % 8));
      i32_nulls += valid ? 0 : 1;
      u64.push_back(0xFFFFFFFFFFFFFFF0ull - static_cast<std::uint64_t>(r * seed));
      names += "row-" + std::to_string(r) + (r % 2 ? "-\xc3\xa9" : "");
      name_offsets.push_back(static_cast<std::int32_t>(names.size()));
      for (std::int64_t k = 0; k < (r * 7 + seed) % 40; ++k) {
        blobs.push_back(static_cast<std::uint8_t>(k * 31 + r));
      }
      blob_offsets.push_back(static_cast<std::int32_t>(blobs.size()));
      for (std::int64_t k = 0; k < r % 4; ++k) ids.push_back(-(r << 40) + k);
      ids_offsets.push_back(static_cast<std::int32_t>(ids.size()));
    }
  }

  RecordBatch View() const {
    RecordBatch batch;
    batch.num_rows = static_cast<std::int64_t>(i8.size());
    batch.columns.push_back(IntegerArray<std::int8_t>(i8));
    batch.columns.push_back(IntegerArray<std::uint16_t>(u16));
    batch.columns.push_back(WithValidity(IntegerArray<std::int32_t>(i32), i32_validity, i32_nulls));
    batch.columns.push_back(IntegerArray<std::uint64_t>(u64));
    batch.columns.push_back(BinaryArray(name_offsets, AsBytes(names)));
    batch.columns.push_back(BinaryArray(blob_offsets, blobs));
    batch.columns.push_back(ListArray(ids_offsets, IntegerArray<std::int64_t>(ids)));
    return batch;
  }
};

}  // namespace chunkwise::formats::arrow::testing

#endif  // CHUNKWISE_TESTS_UNIT_FORMATS_ARROW_TEST_DATA_H_
