// libFuzzer target: a zarr string array (vlen-utf8) reading arbitrary bytes
// as a chunk or a shard of strings, as StringArray does with what a store
// returns, then writing part of it back (the write path's merge).
//
// The first byte picks a fixed array: unsharded with raw, zstd, gzip,
// numcodecs.lz4 or blosc chunks, or sharded with the index at the end or the
// start, or of variable-length bytes (vlen-bytes: no UTF-8 check) with raw
// chunks; the rest is the object stored under the key of its first chunk (or
// shard). Read must give the array's element count or an error (Corruption
// for bad bytes) and never read out of bounds; a write over part of it must
// fail cleanly or read back.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "chunkwise/core/check.h"
#include "formats/zarr/string_array.h"
#include "store/memory_store.h"

namespace {

using chunkwise::Result;
using chunkwise::formats::zarr::StringArray;

// (zarr.json, first chunk's key) per configuration: a (4, 3) array in (2, 3)
// chunks, or one (4, 3) shard of (2, 3) inner chunks.
struct Configuration {
  std::string metadata;
  std::string key;
};

std::string Metadata(const std::string& chunk_shape, const std::string& codecs,
                     const std::string& data_type = "string") {
  return R"({"zarr_format": 3, "node_type": "array", "shape": [4, 3], "data_type": ")" + data_type +
         R"(",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": )" +
         chunk_shape + R"(}}, "chunk_key_encoding": {"name": "default"}, "fill_value": ")" +
         (data_type == "string" ? "f" : "Zg==") + R"(",
    "codecs": )" +
         codecs + "}";
}

std::string Sharded(const char* location) {
  return R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 3],
    "codecs": [{"name": "vlen-utf8", "configuration": {}}], "index_codecs": [{"name": "bytes",
    "configuration": {"endian": "little"}}, {"name": "crc32c"}], "index_location": ")" +
         std::string(location) + R"("}}])";
}

// Unsharded (2, 3) chunks of strings through one compressor: each states
// the size it decodes to, which the read must hold it to.
std::string Compressed(const std::string& compressor) {
  return Metadata("[2, 3]", R"([{"name": "vlen-utf8", "configuration": {}}, )" + compressor + "]");
}

const std::vector<Configuration>& Configurations() {
  static const std::vector<Configuration> configurations = {
      {Metadata("[2, 3]", R"([{"name": "vlen-utf8", "configuration": {}}])"), "c/0/0"},
      {Metadata(
           "[2, 3]",
           R"([{"name": "vlen-utf8", "configuration": {}}, {"name": "zstd", "configuration": {"level": 0, "checksum": false}}])"),
       "c/0/0"},
      {Metadata("[4, 3]", Sharded("end")), "c/0/0"},
      {Metadata("[4, 3]", Sharded("start")), "c/0/0"},
      {Metadata("[2, 3]", R"([{"name": "vlen-bytes", "configuration": {}}])",
                "variable_length_bytes"),
       "c/0/0"},
      {Compressed(R"({"name": "gzip", "configuration": {"level": 1}})"), "c/0/0"},
      {Compressed(R"({"name": "numcodecs.lz4"})"), "c/0/0"},
      {Compressed(
           R"({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "noshuffle"}})"),
       "c/0/0"},
  };
  return configurations;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Configuration& configuration = Configurations()[data[0] % Configurations().size()];
  auto store = chunkwise::store::MemoryStore::Create();
  CHUNKWISE_CHECK(store->Set("zarr.json", chunkwise::AsBytes(configuration.metadata)).ok());
  CHUNKWISE_CHECK(store->Set(configuration.key, chunkwise::ByteView(data + 1, size - 1)).ok());
  Result<StringArray> array = StringArray::OpenForWrite(store, "");
  CHUNKWISE_CHECK(array.ok());
  const chunkwise::core::Region all({0, 0}, {4, 3});
  const Result<std::vector<std::string>> read = array->Read(all);
  if (read.ok()) CHUNKWISE_CHECK(read->size() == 12);
  const chunkwise::core::Region part({1, 1}, {2, 3});  // Cuts the first chunk.
  if (array->Write(part, {"x", "\xc3\xa9"}).ok()) {
    const Result<std::vector<std::string>> again = array->Read(part);
    CHUNKWISE_CHECK(again.ok() && (*again)[0] == "x" && (*again)[1] == "\xc3\xa9");
  }
  return 0;
}
