// libFuzzer target: the Arrow IPC file reader (footer, blocks, record batches) on
// arbitrary bytes or on patches of a valid file (see arrow_fuzz_input.h). Open and
// ReadRecordBatch must return a value or an error and never read out of bounds.
#include "arrow_fuzz_input.h"
#include "formats/arrow/ipc_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise::formats::arrow;
  auto source = MemorySource(fuzz::FuzzBytes(data, size, IpcFormat::kFile), "fuzz.arrow");
  auto reader = IpcFileReader::Open(source);
  if (!reader.ok()) return 0;
  for (std::size_t i = 0; i < reader->num_record_batches() && i < 64; ++i) {
    auto batch = reader->ReadRecordBatch(i);
    if (batch.ok()) fuzz::TouchBatch(reader->schema(), *batch);
  }
  return 0;
}
