// export_interop_tool: what the export interop test needs that the CLI rightly
// does not offer.
//
//   export_interop_tool corrupt-value DB SCALE X Y Z
//       stores a value at block (X, Y, Z) of SCALE (version 1) whose envelope
//       says gzip but whose gzip stream is corrupt, bypassing the checks that
//       Labelmap::PutEncodedBlock makes, as a damaged database would hold it.
// Exits 1 with the error on stderr.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "formats/dvid/block_key.h"
#include "formats/dvid/labelmap.h"
#include "store/rocksdb_store.h"

namespace chunkwise {
namespace {

Status CorruptValue(const std::string& path, int scale, formats::dvid::BlockCoord coord) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::RocksDbStore> db,
                             store::RocksDbStore::Open(path, {.create_if_missing = false}));
  CHUNKWISE_ASSIGN_OR_RETURN(auto labelmap, formats::dvid::Labelmap::Open(db, false));
  const std::string key = formats::dvid::EncodeBlockKey({.instance = labelmap->instance(),
                                                         .scale = static_cast<std::uint8_t>(scale),
                                                         .coord = coord});
  // 0x40 (gzip), a gzip header, then bytes that are no deflate stream.
  const std::vector<std::uint8_t> value{0x40, 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0x07};
  return db->SetBinary(key, value);
}

}  // namespace
}  // namespace chunkwise

int main(int argc, char** argv) {
  if (argc != 7 || std::string(argv[1]) != "corrupt-value") {
    std::fprintf(stderr, "usage: export_interop_tool corrupt-value DB SCALE X Y Z\n");
    return 2;
  }
  const chunkwise::Status status = chunkwise::CorruptValue(
      argv[2], std::atoi(argv[3]), {std::atoi(argv[4]), std::atoi(argv[5]), std::atoi(argv[6])});
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
