// Shared by the Arrow IPC reader fuzz targets: turns a fuzz input into IPC bytes and
// reads every value of a decoded batch, so that the sanitizers see each access.
//
// An input starting with 'P' is a patch on a small valid sample (written once by
// chunkwise's writer in the target's format): after the 'P', each 3-byte group
// (offset u16 LE, value) overwrites one byte. That reaches the metadata and body
// checks at once, where raw bytes would rarely get past the magic and the
// verifier. Any other input is used as it is.
#ifndef CHUNKWISE_TESTS_FUZZ_ARROW_FUZZ_INPUT_H_
#define CHUNKWISE_TESTS_FUZZ_ARROW_FUZZ_INPUT_H_

#include <cstdlib>
#include <vector>

#include "formats/arrow/ipc_writer.h"
#include "formats/arrow/record_batch.h"

namespace chunkwise::formats::arrow::fuzz {

inline Schema SampleSchema() {
  Schema schema;
  schema.fields = {Field::Primitive("n", TypeId::kInt32, true, {{"k", "v"}}),
                   Field::Primitive("b", TypeId::kBinary, false),
                   Field::List("l", Field::Primitive("item", TypeId::kUInt64), false),
                   Field::Primitive("s", TypeId::kUtf8, true)};
  return schema;
}

inline Bytes SampleBytes(IpcFormat format) {
  const std::vector<std::int32_t> n = {1, -2, 3};
  const std::vector<std::uint8_t> validity = {0b101};
  const std::vector<std::int32_t> offsets = {0, 2, 2, 5};
  const std::vector<std::uint64_t> items = {7, 8, 9, 10, 11};
  const std::string text = "abcde";
  RecordBatch batch;
  batch.num_rows = 3;
  batch.columns = {
      WithValidity(IntegerArray<std::int32_t>(n), validity, 1), BinaryArray(offsets, AsBytes(text)),
      ListArray(offsets, IntegerArray<std::uint64_t>(items)), BinaryArray(offsets, AsBytes(text))};
  auto sink = std::make_unique<MemorySink>();
  MemorySink* memory = sink.get();
  auto writer = IpcWriter::Create(std::move(sink), SampleSchema(), {format, 8});
  if (!writer.ok() || !(*writer)->WriteRecordBatch(batch).ok() ||
      !(*writer)->WriteRecordBatch(batch).ok() || !(*writer)->Finish().ok()) {
    std::abort();
  }
  return memory->Take();
}

inline Bytes FuzzBytes(const std::uint8_t* data, std::size_t size, IpcFormat format) {
  if (size == 0 || data[0] != 'P') return Bytes(data, data + size);
  static const Bytes sample = SampleBytes(format);
  Bytes bytes = sample;
  for (std::size_t i = 1; i + 3 <= size; i += 3) {
    const std::size_t at = (data[i] | (data[i + 1] << 8)) % bytes.size();
    bytes[at] = data[i + 2];
  }
  return bytes;
}

// Reads every value; a value outside its buffer would trip ASan.
inline void TouchArray(const Field& field, const ArrayData& array) {
  volatile std::uint64_t sink = 0;
  for (std::int64_t i = 0; i < array.length; ++i) {
    sink = sink + (IsValid(array, i) ? 1 : 0);
    if (IsInteger(field.type)) {
      sink = sink + static_cast<std::uint64_t>(ByteWidth(field.type) == 8
                                                   ? IntegerAt<std::uint64_t>(array, i)
                                                   : IntegerAt<std::uint8_t>(array, i));
    } else if (field.type == TypeId::kList) {
      sink = sink + static_cast<std::uint64_t>(OffsetAt(array, i + 1) - OffsetAt(array, i));
    } else {
      const ByteView value = BinaryAt(array, i);
      for (std::uint8_t byte : value) sink = sink + byte;
    }
  }
  if (field.type == TypeId::kList) TouchArray(field.children[0], array.children[0]);
}

inline void TouchBatch(const Schema& schema, const RecordBatch& batch) {
  for (std::size_t c = 0; c < schema.fields.size(); ++c)
    TouchArray(schema.fields[c], batch.columns[c]);
}

}  // namespace chunkwise::formats::arrow::fuzz

#endif  // CHUNKWISE_TESTS_FUZZ_ARROW_FUZZ_INPUT_H_
