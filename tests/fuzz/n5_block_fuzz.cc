// Fuzz target for the N5 reader (formats/n5/n5_dataset.h): arbitrary bytes
// as a block header, as attributes.json, and as a dataset of one block in a
// memory store (the input split at its first 0 byte: attributes.json, then
// the block "0/0/..."). None may crash, hang or read or write out of
// bounds; a header that parses must lie inside the bytes, and rows read must
// fill exactly the buffer they are given.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "chunkwise/core/check.h"
#include "formats/n5/n5_dataset.h"
#include "store/memory_store.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise;
  const ByteView bytes(data, size);
  Result<formats::n5::BlockHeader> header = formats::n5::ParseBlockHeader(bytes, "fuzz");
  if (header.ok()) {
    CHUNKWISE_CHECK(header->header_bytes <= size);
    CHUNKWISE_CHECK(header->header_bytes ==
                    4 + 4 * header->size.size() + (header->element_count ? 4 : 0));
  }
  (void)formats::n5::ParseAttributes(bytes, "fuzz");

  const std::uint8_t* split = std::find(data, data + size, std::uint8_t{0});
  if (split == data + size) return 0;
  auto store = store::MemoryStore::Create("fuzz");
  CHUNKWISE_CHECK(store->Set("attributes.json", ByteView(data, split)).ok());
  Result<std::unique_ptr<formats::n5::N5Dataset>> dataset = formats::n5::N5Dataset::Open(store);
  if (!dataset.ok()) return 0;
  const formats::n5::N5Dataset& n5 = **dataset;
  std::string key = "0";
  for (std::size_t d = 1; d < n5.shape().size(); ++d) key += "/0";
  CHUNKWISE_CHECK(store->Set(key, ByteView(split + 1, data + size)).ok());
  // Only small volumes: the first rows of the first block, at most 1 MiB.
  const std::uint64_t row_bytes = n5.row_bytes();
  if (n5.shape().empty() || n5.shape()[0] == 0 || row_bytes == 0 || row_bytes > (1 << 20)) {
    return 0;
  }
  const core::Index rows = std::min<core::Index>(
      {n5.shape()[0], n5.chunks()[0], static_cast<core::Index>((1 << 20) / row_bytes)});
  std::vector<std::uint8_t> out(static_cast<std::size_t>(rows * row_bytes));
  (void)n5.ReadRows(0, rows, out);
  return 0;
}
