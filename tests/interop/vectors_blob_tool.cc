// vectors_blob_tool: decodes zarr-vectors blobs with the library's decoders,
// for the interop test with zarr-vectors 0.9.2, whose stores we cannot open
// (a 0.9 store is another tree) but whose per-cell payloads keep the 0.8 blob
// encodings. Prints JSON on stdout; on a decode error prints it and exits 1.
//
//   vectors_blob_tool fragments FILE       [{"range": true, "start": s, "count": n}
//                                           | {"range": false, "indices": [...]}, ...]
//   vectors_blob_tool ragged FILE          [[int64, ...] per group, ...] (a ragged blob of int64
//   rows) vectors_blob_tool lehmer CODE LENGTH   [sorted_idx_0, ...]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/file_io.h"
#include "formats/vectors/fragment_index.h"
#include "formats/vectors/lehmer_permutation.h"
#include "formats/vectors/ragged_blob.h"

namespace {

namespace vectors = chunkwise::formats::vectors;
using chunkwise::Result;
using nlohmann::json;

Result<json> Fragments(const char* path) {
  CHUNKWISE_ASSIGN_OR_RETURN(const chunkwise::Bytes blob, chunkwise::core::ReadFile(path));
  CHUNKWISE_ASSIGN_OR_RETURN(const auto fragments, vectors::DecodeFragmentIndex(blob, path));
  json out = json::array();
  for (const vectors::Fragment& fragment : fragments) {
    out.push_back(fragment.is_range
                      ? json{{"range", true}, {"start", fragment.start}, {"count", fragment.count}}
                      : json{{"range", false}, {"indices", fragment.indices}});
  }
  return out;
}

Result<json> Ragged(const char* path) {
  CHUNKWISE_ASSIGN_OR_RETURN(const chunkwise::Bytes blob, chunkwise::core::ReadFile(path));
  CHUNKWISE_ASSIGN_OR_RETURN(const auto groups, vectors::DecodeRaggedBlob(blob, path));
  json out = json::array();
  for (const chunkwise::ByteView group : groups) {
    if (group.size() % 8 != 0) {
      return chunkwise::Status::Corruption(std::string(path) + ": a group of " +
                                           std::to_string(group.size()) +
                                           " bytes is not int64 rows");
    }
    json values = json::array();
    for (std::size_t at = 0; at < group.size(); at += 8) {
      std::int64_t value = 0;
      std::memcpy(&value, group.data() + at, 8);  // Little-endian, as the machines running this.
      values.push_back(value);
    }
    out.push_back(std::move(values));
  }
  return out;
}

Result<json> Lehmer(const char* code, const char* length) {
  CHUNKWISE_ASSIGN_OR_RETURN(const auto order,
                             vectors::DecodeLehmer(std::atoll(code), std::atoi(length)));
  return json(order);
}

Result<json> Run(int argc, char** argv) {
  const std::string_view command = argv[1];
  if (command == "fragments" && argc == 3) return Fragments(argv[2]);
  if (command == "ragged" && argc == 3) return Ragged(argv[2]);
  if (command == "lehmer" && argc == 4) return Lehmer(argv[2], argv[3]);
  return chunkwise::Status::InvalidArgument(
      "usage: vectors_blob_tool fragments FILE | ragged FILE"
      " | lehmer CODE LENGTH");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: vectors_blob_tool fragments|ragged|lehmer ...\n");
    return 2;
  }
  const Result<json> result = Run(argc, argv);
  if (!result.ok()) {
    std::fprintf(stderr, "vectors_blob_tool: %s\n", result.status().ToString().c_str());
    return 1;
  }
  std::printf("%s\n", result->dump().c_str());
  return 0;
}
