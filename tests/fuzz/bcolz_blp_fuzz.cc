// libFuzzer target: a bcolz chunk file (data/__N.blp) read through Carray.
//
// The input is the .blp file of a one-chunk carray whose meta files come from
// the first input byte (dtype, chunklen and row count), so that the header
// checks, blosc_cbuffer_validate, blosc_decompress_ctx (whole-chunk reads) and
// blosc_getitem (partial reads) all see arbitrary bytes. Reads must return a
// value or an error and never crash or read out of bounds.
#include <cstdint>
#include <string>

#include "formats/bcolz/carray.h"
#include "store/memory_store.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise;
  using namespace chunkwise::formats::bcolz;
  if (size < 1) return 0;
  static const char* const kDtypes[] = {"int32", "uint8", "float64", "|S3", "int16"};
  const int itemsizes[] = {4, 1, 8, 3, 2};
  const int which = data[0] % 5;
  const int chunklen = 1 + (data[0] >> 3);        // 1..32 rows.
  const int rows = 1 + (data[0] * 7) % chunklen;  // A leftover or a full chunk.
  auto store = store::MemoryStore::Create();
  const std::string storage = std::string("{\"dtype\":\"") + kDtypes[which] +
                              "\",\"cparams\":{\"clevel\":5,\"shuffle\":1,\"cname\":\"lz4\"},"
                              "\"chunklen\":" +
                              std::to_string(chunklen) + ",\"expectedlen\":0,\"dflt\":0}\n";
  const std::string sizes = "{\"shape\":[" + std::to_string(rows) +
                            "],\"nbytes\":" + std::to_string(rows * itemsizes[which]) +
                            ",\"cbytes\":0}\n";
  if (!store->Set("meta/storage", AsBytes(storage)).ok()) return 0;
  if (!store->Set("meta/sizes", AsBytes(sizes)).ok()) return 0;
  if (!store->Set("data/__0.blp", ByteView(data + 1, size - 1)).ok()) return 0;
  auto carray = Carray::Open(store, "", Mode::kRead);
  if (!carray.ok()) return 0;
  (void)(*carray)->Read(0, rows);
  if (rows > 2) (void)(*carray)->Read(1, rows - 1);
  return 0;
}
