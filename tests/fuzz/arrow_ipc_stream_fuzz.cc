// libFuzzer target: the Arrow IPC stream reader (message framing, legacy prefixes,
// record batches, the header scan) on arbitrary bytes or on patches of a valid
// stream (see arrow_fuzz_input.h). Nothing may crash or read out of bounds.
#include "arrow_fuzz_input.h"
#include "formats/arrow/ipc_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise::formats::arrow;
  auto source = MemorySource(fuzz::FuzzBytes(data, size, IpcFormat::kStream), "fuzz.arrows");
  auto reader = IpcStreamReader::Open(source);
  if (!reader.ok()) return 0;
  for (int i = 0; i < 64; ++i) {
    auto batch = reader->Next();
    if (!batch.ok() || !batch->has_value()) break;
    fuzz::TouchBatch(reader->schema(), **batch);
  }
  auto scanner = IpcStreamReader::Open(source);
  if (scanner.ok()) (void)scanner->ScanRecordBatchBlocks();
  return 0;
}
