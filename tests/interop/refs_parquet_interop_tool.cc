// Writes a synthetic reference set as Parquet references for the interop
// test, plus the same set as JSON so that the test can compute the expected
// rows on its own.
//
// usage: refs_parquet_interop_tool write DIR REFS_JSON RECORD_SIZE
//        refs_parquet_interop_tool tables DIR
// REFS_JSON: {key: "<metadata text>" | {"inline_hex": h} | [url] | [url, offset, length]}
// `tables` writes one generic table in every writer variant (codecs, data
// page v2, PLAIN_DICTIONARY, dictionary fallback, several row groups) as
// DIR/<variant>.parq and its rows as DIR/expected.json, in the shape
// parquet_dump.mjs prints (int64 as decimal strings, binary as {"hex"}).
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "chunkwise/store/file_store.h"
#include "formats/parquet/table.h"
#include "formats/refs/parquet_references.h"

namespace {

using chunkwise::formats::refs::ReferenceSet;
using chunkwise::store::Reference;

std::string Hex(chunkwise::ByteView bytes) {
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

namespace parquet = chunkwise::formats::parquet;

std::vector<parquet::Column> SampleTable(std::size_t rows) {
  using parquet::Column;
  using parquet::PhysicalType;
  Column text = Column::Named("text", PhysicalType::kByteArray, true);
  text.utf8 = true;
  text.dictionary = true;
  Column big = Column::Named("big", PhysicalType::kInt64);
  big.dictionary = true;
  Column small = Column::Named("small", PhysicalType::kInt32, true);
  Column blob = Column::Named("blob", PhysicalType::kByteArray, true);
  for (std::size_t row = 0; row < rows; ++row) {
    text.present.push_back(row % 4 != 1);
    const std::string value =
        "value-" + std::to_string(row % 9) + (row > rows / 2 ? "-late" + std::to_string(row) : "");
    row % 4 != 1 ? text.byte_arrays.Append(chunkwise::AsBytes(value))
                 : text.byte_arrays.AppendEmpty();
    big.present.push_back(1);
    big.integers.push_back(static_cast<std::int64_t>(row % 13) * 1000000007LL - 3);
    small.present.push_back(row % 3 != 0);
    small.integers.push_back(row % 3 != 0 ? static_cast<std::int64_t>(row) - 500 : 0);
    blob.present.push_back(row % 5 == 0);
    const chunkwise::Bytes bytes(row % 6, static_cast<std::uint8_t>(row * 7));
    row % 5 == 0 ? blob.byte_arrays.Append(bytes) : blob.byte_arrays.AppendEmpty();
  }
  return {text, big, small, blob};
}

nlohmann::json TableRows(const std::vector<parquet::Column>& columns) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t row = 0; row < columns[0].rows(); ++row) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& column : columns) {
      if (!column.is_present(row)) {
        object[column.name] = nullptr;
      } else if (column.type == parquet::PhysicalType::kInt64) {
        object[column.name] = std::to_string(column.integers[row]);
      } else if (column.type == parquet::PhysicalType::kInt32) {
        object[column.name] = column.integers[row];
      } else if (column.utf8) {
        object[column.name] = std::string(chunkwise::AsChars(column.byte_arrays[row]));
      } else {
        object[column.name] = {{"hex", Hex(chunkwise::CopyToBytes(column.byte_arrays[row]))}};
      }
    }
    rows.push_back(std::move(object));
  }
  return rows;
}

int WriteTables(const std::string& directory) {
  std::vector<std::pair<std::string, parquet::WriteOptions>> variants;
  const std::pair<const char*, parquet::Compression> codecs[] = {
      {"uncompressed", parquet::Compression::kUncompressed},
      {"snappy", parquet::Compression::kSnappy},
      {"gzip", parquet::Compression::kGzip},
      {"zstd", parquet::Compression::kZstd}};
  for (const auto& [name, codec] : codecs) {
    parquet::WriteOptions options;
    options.compression = codec;
    options.rows_per_page = 300;
    variants.emplace_back(name, options);
  }
  parquet::WriteOptions v2;
  v2.data_page_v2 = true;
  v2.rows_per_page = 256;
  variants.emplace_back("page_v2", v2);
  parquet::WriteOptions legacy;
  legacy.legacy_plain_dictionary = true;
  legacy.page_padding_bytes = 8;
  variants.emplace_back("plain_dictionary", legacy);
  parquet::WriteOptions fallback;
  fallback.max_dictionary_bytes = 200;
  fallback.rows_per_page = 100;
  variants.emplace_back("dictionary_fallback", fallback);
  parquet::WriteOptions groups;
  groups.rows_per_row_group = 700;
  groups.rows_per_page = 128;
  groups.version = 2;
  variants.emplace_back("row_groups", groups);
  const auto columns = SampleTable(2000);
  for (const auto& [name, options] : variants) {
    auto file = parquet::WriteTable(columns, options);
    if (!file.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), file.status().ToString().c_str());
      return 1;
    }
    std::ofstream(directory + "/" + name + ".parq", std::ios::binary)
        .write(reinterpret_cast<const char*>(file->data()),
               static_cast<std::streamsize>(file->size()));
  }
  std::ofstream(directory + "/expected.json") << TableRows(columns).dump();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "tables") return WriteTables(argv[2]);
  if (argc != 5 || std::string(argv[1]) != "write") {
    std::fprintf(stderr, "usage: %s write DIR REFS_JSON RECORD_SIZE | tables DIR\n", argv[0]);
    return 2;
  }
  const ReferenceSet set = SampleSet();
  chunkwise::formats::refs::ParquetReferenceOptions options;
  options.record_size = std::stoull(argv[4]);
  options.overwrite = true;
  auto files = chunkwise::store::FileStore::Open(argv[2]);
  const chunkwise::Status status =
      files.ok() ? chunkwise::formats::refs::WriteParquetReferences(set, **files, "", options)
                 : files.status();
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  std::ofstream(argv[3]) << ToJson(set).dump(1);
  return 0;
}
