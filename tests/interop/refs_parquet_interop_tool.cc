// Writes a synthetic reference set as Parquet references for the interop
// test, plus the same set as JSON so that the test can compute the expected
// rows on its own.
//
// usage: refs_parquet_interop_tool write DIR REFS_JSON RECORD_SIZE
// REFS_JSON: {key: "<metadata text>" | {"inline_hex": h} | [url] | [url, offset, length]}
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "chunkwise/formats/refs/parquet_references.h"

namespace {

using chunkwise::formats::refs::ReferenceSet;
using chunkwise::store::Reference;

std::string Hex(const chunkwise::Bytes& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const std::uint8_t byte : bytes) {
    out += kDigits[byte >> 4];
    out += kDigits[byte & 15];
  }
  return out;
}

Reference Text(const std::string& text) {
  return Reference::Inline(chunkwise::CopyToBytes(chunkwise::AsBytes(text)));
}

// Two arrays (3-d with an edge chunk, and nested 0-d), every reference kind,
// several URLs, holes (missing chunks).
ReferenceSet SampleSet() {
  ReferenceSet set;
  set.Set(".zgroup", Text(R"({"zarr_format":2})"));
  set.Set(".zattrs", Text(R"({"title":"interop"})"));
  set.Set("data/.zarray",
          Text(R"({"chunks":[4,5,6],"compressor":null,"dtype":"<i2","fill_value":0,)"
               R"("filters":null,"order":"C","shape":[10,10,13],"zarr_format":2})"));
  set.Set("data/.zattrs", Text(R"({"_ARRAY_DIMENSIONS":["z","y","x"]})"));
  std::uint64_t n = 0;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 3; ++k, ++n) {
        const std::string key =
            "data/" + std::to_string(i) + "." + std::to_string(j) + "." + std::to_string(k);
        if (n % 5 == 4) continue;  // a hole
        if (n % 7 == 3) {
          set.Set(key, Reference::Inline(chunkwise::Bytes{static_cast<std::uint8_t>(n), 0, 0xFF}));
        } else if (n % 6 == 1) {
          set.Set(key, Reference::WholeFile("https://host/whole" + std::to_string(n) + ".bin"));
        } else {
          set.Set(key, Reference::Range("s3://bucket/file" + std::to_string(n % 3) + ".nc",
                                        n * 4096 + 1, 240 * 4 * 5 * 6));
        }
      }
    }
  }
  set.Set("grp/scalar/.zarray",
          Text(R"({"chunks":[],"compressor":null,"dtype":"<f8","fill_value":0,)"
               R"("filters":null,"order":"C","shape":[],"zarr_format":2})"));
  set.Set("grp/scalar/0", Reference::Range("s3://bucket/scalar.nc", 8, 8));
  return set;
}

nlohmann::json ToJson(const ReferenceSet& set) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, reference] : set.entries()) {
    switch (reference.kind) {
      case Reference::Kind::kInline:
        out[key] = key.find("/.z") != std::string::npos || key.starts_with(".z")
                       ? nlohmann::json(std::string(chunkwise::AsChars(reference.data)))
                       : nlohmann::json{{"inline_hex", Hex(reference.data)}};
        break;
      case Reference::Kind::kWholeFile:
        out[key] = {reference.url};
        break;
      case Reference::Kind::kRange:
        out[key] = {reference.url, reference.offset, reference.length};
        break;
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 || std::string(argv[1]) != "write") {
    std::fprintf(stderr, "usage: %s write DIR REFS_JSON RECORD_SIZE\n", argv[0]);
    return 2;
  }
  const ReferenceSet set = SampleSet();
  chunkwise::formats::refs::ParquetReferenceOptions options;
  options.record_size = std::stoull(argv[4]);
  options.overwrite = true;
  const chunkwise::Status status =
      chunkwise::formats::refs::WriteParquetReferences(set, argv[2], options);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  std::ofstream(argv[3]) << ToJson(set).dump(1);
  return 0;
}
