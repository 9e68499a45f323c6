// refs_array_tool: reads a zarr array through a reference set with the
// library (refs reader, ReferenceStore, zarr::Array), for the interop tests
// of sets that other tools build (kerchunk, fsspec).
//
//   refs_array_tool REFS PREFIX OUT.npy [ALLOWED_ROOT...]
//
// REFS is a JSON set (v0 or v1) or a Parquet set directory; PREFIX is the
// array's path in the set ("" for an array at the root, else "name/"). Writes
// the whole array to OUT.npy. Local targets may lie under REFS's directory
// and under each ALLOWED_ROOT. On failure prints the status and exits 1.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "chunkwise/core/region.h"
#include "chunkwise/io/file.h"
#include "chunkwise/store/reference_store.h"
#include "formats/refs/reference_file.h"
#include "formats/zarr/array.h"
#include "io/zarr_array_files.h"

namespace {

namespace fs = std::filesystem;
using chunkwise::Result;
using chunkwise::Status;

Status ReadThroughReferences(int argc, char** argv) {
  const fs::path refs_path = argv[1];
  CHUNKWISE_ASSIGN_OR_RETURN(const chunkwise::io::FileKey file,
                             chunkwise::io::LocateFile(refs_path));
  CHUNKWISE_ASSIGN_OR_RETURN(auto index,
                             chunkwise::formats::refs::OpenReferences(file.store, file.key));
  chunkwise::store::ReferenceStoreOptions options;
  options.base_directory = fs::absolute(refs_path).parent_path();
  options.allowed_roots.push_back(options.base_directory);
  for (int i = 4; i < argc; ++i) options.allowed_roots.emplace_back(argv[i]);
  options.name = refs_path.string();
  CHUNKWISE_ASSIGN_OR_RETURN(auto store,
                             chunkwise::store::ReferenceStore::Open(std::move(index), options));
  CHUNKWISE_ASSIGN_OR_RETURN(chunkwise::formats::zarr::Array array,
                             chunkwise::formats::zarr::Array::Open(std::move(store), argv[2]));
  const auto region = chunkwise::core::Region::Full(array.metadata().shape);
  return chunkwise::io::ExportRegion(array, region, argv[3], false);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: refs_array_tool REFS PREFIX OUT.npy [ALLOWED_ROOT...]\n");
    return 2;
  }
  const Status status = ReadThroughReferences(argc, argv);
  if (!status.ok()) {
    std::fprintf(stderr, "refs_array_tool: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
