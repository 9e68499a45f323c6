// s3_interop_tool: the library's object-storage side of tests/interop/python/s3_interop.py.
// Stores are opened from URLs (s3://, gs://, http(s)://) with the settings the
// AWS tools read (AWS_ENDPOINT_URL_S3, AWS_ACCESS_KEY_ID, ...).
//
//   s3_interop_tool put STORE KEY FILE        FILE's bytes as KEY
//   s3_interop_tool get STORE KEY OUT         KEY's bytes into OUT (exit 3 if absent)
//   s3_interop_tool list STORE [PREFIX]       the keys, one a line
//   s3_interop_tool write-zarr STORE          zarr v3 arrays "sharded/" and "plain/",
//                                             uint16 (96, 80, 70), value(z,y,x) =
//                                             (z*131 + y*17 + x*3) mod 65536
//   s3_interop_tool read-zarr STORE PATH OUT  the array at PATH ("a/"), C order, into OUT
//   s3_interop_tool write-export DIR STORE    a small export made in DIR, uploaded to STORE
// Exits 1 with the error on stderr.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "chunkwise/io/file.h"
#include "core/file_io.h"
#include "formats/dvid/ingest.h"
#include "formats/zarr/array.h"
#include "pipelines/export_shards.h"
#include "store/remote_store_url.h"
#include "store/rocksdb_store.h"

namespace chunkwise {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::array<core::Index, 3> kShape = {96, 80, 70};

json ArrayJson(bool sharded) {
  const json bytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
  const json zstd = {{"name", "zstd"}, {"configuration", {{"level", 1}, {"checksum", false}}}};
  json codecs = json::array({bytes, zstd});
  json chunk_shape = {32, 32, 32};
  if (sharded) {
    chunk_shape = {64, 64, 64};
    codecs = json::array({{{"name", "sharding_indexed"},
                           {"configuration",
                            {{"chunk_shape", {16, 16, 16}},
                             {"codecs", json::array({bytes, zstd})},
                             {"index_codecs", json::array({bytes, {{"name", "crc32c"}}})},
                             {"index_location", "end"}}}}});
  }
  return {{"zarr_format", 3},
          {"node_type", "array"},
          {"shape", kShape},
          {"data_type", "uint16"},
          {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", chunk_shape}}}}},
          {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
          {"fill_value", 0},
          {"codecs", codecs},
          {"attributes", {{"written_by", "chunkwise"}}}};
}

Bytes Volume() {
  Bytes data(static_cast<std::size_t>(kShape[0] * kShape[1] * kShape[2]) * 2);
  std::size_t i = 0;
  for (core::Index z = 0; z < kShape[0]; ++z) {
    for (core::Index y = 0; y < kShape[1]; ++y) {
      for (core::Index x = 0; x < kShape[2]; ++x, ++i) {
        const auto value = static_cast<std::uint16_t>(z * 131 + y * 17 + x * 3);
        std::memcpy(data.data() + 2 * i, &value, 2);
      }
    }
  }
  return data;
}

Result<std::shared_ptr<store::Store>> Open(const std::string& url) {
  return store::OpenRemoteStore(url);
}

Status WriteZarr(const std::string& url) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store, Open(url));
  const Bytes data = Volume();
  for (const bool sharded : {true, false}) {
    const std::string prefix = sharded ? "sharded/" : "plain/";
    CHUNKWISE_ASSIGN_OR_RETURN(
        formats::zarr::ArrayMetadata metadata,
        formats::zarr::ParseV3ArrayMetadata(ArrayJson(sharded).dump(), prefix + "zarr.json"));
    CHUNKWISE_ASSIGN_OR_RETURN(formats::zarr::Array array,
                               formats::zarr::Array::Create(store, prefix, metadata, true));
    CHUNKWISE_RETURN_IF_ERROR(array.Write(core::Region::Full(kShape), data));
  }
  return Status::Ok();
}

Status ReadZarr(const std::string& url, const std::string& path, const std::string& out) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store, Open(url));
  CHUNKWISE_ASSIGN_OR_RETURN(formats::zarr::Array array, formats::zarr::Array::Open(store, path));
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes data, array.Read(core::Region::Full(array.metadata().shape)));
  return io::WriteFile(out, data);
}

Status WriteExport(const fs::path& dir, const std::string& url) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::shared_ptr<store::RocksDbStore> db,
      store::RocksDbStore::Open(dir / "labelmap.db", {.create_if_missing = true}));
  CHUNKWISE_ASSIGN_OR_RETURN(auto labelmap, formats::dvid::Labelmap::Open(db, true));
  const std::array<std::int64_t, 3> shape = {128, 130, 150};  // z, y, x
  std::vector<std::uint64_t> volume(static_cast<std::size_t>(shape[0] * shape[1] * shape[2]));
  for (std::size_t i = 0; i < volume.size(); ++i) volume[i] = 1 + (i / 1009) % 70;
  CHUNKWISE_RETURN_IF_ERROR(formats::dvid::IngestVolume(*labelmap, volume, shape, {}));
  json scale = {{"key", "s0"},
                {"size", {shape[2], shape[1], shape[0]}},
                {"chunk_sizes", {{64, 64, 64}}},
                {"sharding",
                 {{"@type", "neuroglancer_uint64_sharded_v1"},
                  {"preshift_bits", 0},
                  {"hash", "identity"},
                  {"minishard_bits", 1},
                  {"shard_bits", 5}}}};
  const json info = {
      {"@type", "neuroglancer_multiscale_volume"}, {"data_type", "uint64"}, {"scales", {scale}}};
  CHUNKWISE_ASSIGN_OR_RETURN(pipelines::ExportSpec spec,
                             pipelines::ParseExportSpec(info.dump(), "info"));
  // Straight into the bucket: the export is a view over any store.
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store, Open(url));
  CHUNKWISE_RETURN_IF_ERROR(pipelines::ExportShards(*labelmap, spec, store, "", {}).status());
  return Status::Ok();
}

Status Run(const std::vector<std::string>& args, int* exit_code) {
  const std::string& command = args.at(0);
  if (command == "put" && args.size() == 4) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store, Open(args[1]));
    CHUNKWISE_ASSIGN_OR_RETURN(Bytes bytes, core::ReadFile(args[3]));
    return store->Set(args[2], bytes);
  }
  if (command == "get" && args.size() == 4) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store, Open(args[1]));
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> bytes, store->Get(args[2]));
    if (!bytes) {
      *exit_code = 3;
      return Status::Ok();
    }
    return io::WriteFile(args[3], *bytes);
  }
  if (command == "list" && (args.size() == 2 || args.size() == 3)) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store, Open(args[1]));
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> keys,
                               store->List(args.size() == 3 ? args[2] : ""));
    for (const std::string& key : keys) std::cout << key << "\n";
    return Status::Ok();
  }
  if (command == "write-zarr" && args.size() == 2) return WriteZarr(args[1]);
  if (command == "read-zarr" && args.size() == 4) return ReadZarr(args[1], args[2], args[3]);
  if (command == "write-export" && args.size() == 3) return WriteExport(args[1], args[2]);
  *exit_code = 2;
  return Status::InvalidArgument("usage: see the comment at the top of s3_interop_tool.cc");
}

}  // namespace
}  // namespace chunkwise

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: s3_interop_tool COMMAND ARGS...\n");
    return 2;
  }
  int exit_code = 0;
  const chunkwise::Status status =
      chunkwise::Run(std::vector<std::string>(argv + 1, argv + argc), &exit_code);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return exit_code != 0 ? exit_code : 1;
  }
  return exit_code;
}
