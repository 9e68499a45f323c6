// Object storage: a sharded zarr volume and an export's shards written to and
// read from an S3 server on loopback (moto), ours next to the tools our users
// would use instead and to raw PUT/GET of the same bytes, in one run.
//
// Zarr: the volume of zarr_bench (uint16, smooth and noisy, default 1 GiB,
// 512×1024×1024) as zarr v3 with shards of 256³ holding 64³ chunks, zstd 1
// (--inner and --shard set the two; --shard 0 writes plain chunks, one
// object each, with no sharding):
//   ours          Array::Write into an S3Store, then Array::ReadInto back, the
//                 array on a pool of --io-threads (16): shards wait on the
//                 network, so more are in flight than there are cores;
//   zarr+s3fs     zarr-python 3 on s3fs;  zarr+obstore  zarr-python 3 on obstore;
//   zarr+zarrs    zarr+obstore with zarrs-python's codec pipeline;
//   tensorstore   TensorStore's zarr3 on its s3 kvstore (endpoint override);
//   ours, store   S3Store Set/Get of the very objects ours wrote, 16 at once;
//   boto3 raw     boto3 PUT/GET of the same objects, 16 threads: the ceiling;
//   obstore raw   obstore put/get of the same objects, all at once;
//   curl raw      one curl process, --parallel 16 at once: the server alone.
// Export: an export-shards output of a synthetic segmentation (2,048 blocks
// by default), made on disk once; its files are what the table moves:
//   ours          S3Store Set of the files, then every block read through
//                 ArrowShardReader over the S3Store;
//   pyarrow+s3fs  the files put through s3fs, every shard read whole by pyarrow
//                 through s3fs with its CSV;  boto3 raw / obstore raw as above.
// Then export-shards itself timed straight into the bucket and into a local
// directory, with the requests it made per file (one upload per shard).
// Stream: the stream writer (stream_bench's frames, layout and blosc lz4:1)
// with the bucket as its sink, each shard uploaded as it completes; next to
// the same stream into a local directory, raw PUTs of the very shard
// objects (16 at once: the ceiling) and acquire-zarr's S3 output
// (bench/acquire_zarr_stream_peer.py with S3Settings), --stream-mib MiB.
// --peers LIST (comma-separated: ours-store, zarr-s3fs, zarr-obstore,
// zarr-zarrs, tensorstore, boto3-raw, obstore-raw, curl-raw) runs only those
// rows of the zarr table beside ours.
// Figures: medians over --runs, seconds and GB/s (of the logical volume in the
// zarr table, of the files in the export's), "x/ours" as the row's time over
// ours (above 1: ours is faster), and the requests each made per GiB of the
// volume (of the files), as the server counted them, and a read's CPU seconds:
// the reader's process and the server's. The machine's two cores run the server too:
// see docs/stores.md.
//
// usage: s3_bench [--size-mib N] [--runs N] [--threads N] [--io-threads N] [--state FILE]
// [--no-python] [--inner N] [--shard N] [--in-flight N] [--wire N] [--peers LIST]
//                 [--python PATH] [--scripts DIR] [--export-shape z,y,x] [--no-export]
//                 [--stream-mib N] [--no-stream] [--no-zarr]
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "bench_common.h"
#include "chunkwise/core/npy.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/io/npy_file.h"
#include "chunkwise/store/file_store.h"
#include "core/file_io.h"
#include "core/synthetic_volume.h"
#include "formats/dvid/arrow_shard_reader.h"
#include "formats/dvid/ingest.h"
#include "formats/zarr/array.h"
#include "pipelines/export_shards.h"
#include "store/rocksdb_store.h"
#include "store/s3_store.h"
#include "stream_bench_common.h"

namespace chunkwise {
namespace {

namespace fs = std::filesystem;
using bench::Median;
using bench::Seconds;
using nlohmann::json;

constexpr const char* kUsage =
    "s3_bench [--size-mib N] [--runs N] [--threads N] [--io-threads N] [--state FILE] "
    "[--no-python] [--inner N] [--shard N] [--in-flight N] [--wire N] [--peers LIST] "
    "[--python PATH] [--scripts DIR] [--export-shape z,y,x] [--no-export] [--stream-mib N] "
    "[--no-stream] [--no-zarr]";
constexpr const char* kBucket = "chunkwise-test";
constexpr std::size_t kInFlight = 16;  // Requests at once for raw transfers, ours and boto3's.
// Every S3Store of ours: its max_requests_in_flight (--in-flight), the threads of
// its fan-outs that do not go through the event loop (deletes, a writer's
// parts); kInFlight by default. Reads and PutMany go through the loop (--wire).
std::size_t g_in_flight = kInFlight;
std::size_t g_wire = 0;  // --wire: HttpTransportOptions::max_in_flight; 0: the store's default.
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

struct Options {
  long long size_mib = 1024;
  int runs = 3;
  std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
  // The array's pool for ours: shards wait on the network, so more of them
  // are read and written at once than there are cores to decode them.
  std::size_t io_threads = 16;
  std::string state;
  bool python = true;
  std::string python_path = std::string(CHUNKWISE_SOURCE_DIR) + "/.venv/bin/python";
  fs::path scripts = fs::path(CHUNKWISE_SOURCE_DIR) / "bench";
  std::array<std::int64_t, 3> export_shape = {512, 1024, 1024};
  bool run_export = true;
  long long stream_mib = 512;  // Of frames the stream writer's table streams.
  bool run_stream = true;
  bool run_zarr = true;
  // The zarr volume's inner chunks and shards (edges of cubes); shard 0: no sharding.
  long long inner = 64;
  long long shard = 256;
  // The zarr table's rows besides ours that run (--peers, comma-separated:
  // ours-store and the Python peers' modes, e.g. tensorstore); empty: all.
  std::vector<std::string> peers;

  bool Runs(const std::string& peer) const {
    return peers.empty() || std::find(peers.begin(), peers.end(), peer) != peers.end();
  }
};

void Check(const Status& status, const char* what) {
  if (!status.ok()) {
    std::fprintf(stderr, "s3_bench: %s: %s\n", what, status.ToString().c_str());
    std::exit(1);
  }
}

// One row: medians and the server's request counts of one run.
struct Row {
  std::string name;
  std::vector<double> write_seconds, read_seconds;
  // CPU seconds of each read: the reader's process (user and system, every
  // thread) and the server's, so that a read bound by the server shows it.
  std::vector<double> read_cpu, server_cpu;
  std::uint64_t write_requests = 0, read_requests = 0;
  bool ran = false;
};

// CPU seconds (user and system) this process has used, all threads.
double ProcessCpu() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

struct Server {
  std::string endpoint;
  long pid = 0;  // moto's process, whose CPU the rows report; 0: unknown.

  // CPU seconds moto has used (its /proc stat: user and system, all threads).
  double Cpu() const {
    if (pid <= 0) return 0;
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t close = text.rfind(')');  // The name may hold spaces.
    if (close == std::string::npos) return 0;
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; fields >> field; ++i) {
      if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
      if (i == 15) break;
    }
    return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }
  std::unique_ptr<store::HttpTransport> transport = std::make_unique<store::HttpTransport>();

  std::uint64_t Requests() const {
    store::HttpRequest request;
    request.url = endpoint + "/__counts__";
    Result<store::HttpResponse> reply =
        transport->Send(request, store::BodyTarget::Collect(1 << 16), "server counts");
    Check(reply.status(), "server counts");
    const json counts = json::parse(reply->body.begin(), reply->body.end(), nullptr, false);
    std::uint64_t total = 0;
    for (const auto& [method, n] : counts.items()) total += n.get<std::uint64_t>();
    return total;
  }
  // Seconds of `work`, and the requests the server served meanwhile.
  double Measure(const std::function<void()>& work, std::uint64_t* requests) const {
    const std::uint64_t before = Requests();
    const double seconds = Seconds(work);
    *requests = Requests() - before - 1;  // Less the count request itself.
    return seconds;
  }
  // Measure, with the CPU seconds of this process and the server's added to `row`.
  double MeasureRead(const std::function<void()>& work, std::uint64_t* requests, Row* row) const {
    const double cpu = ProcessCpu(), server = Cpu();
    const double seconds = Measure(work, requests);
    row->read_cpu.push_back(ProcessCpu() - cpu);
    row->server_cpu.push_back(Cpu() - server);
    return seconds;
  }
};

std::string StartServers(const Options& options, std::string* stop_command, long* pid) {
  std::string state = options.state;
  if (state.empty() || !fs::exists(state)) {
    if (state.empty()) {
      state = (fs::temp_directory_path() /
               ("chunkwise_s3_bench." + std::to_string(::getpid()) + ".json"))
                  .string();
    }
    const std::string script =
        std::string(CHUNKWISE_SOURCE_DIR) + "/tests/support/s3_test_server.py";
    const std::string start =
        options.python_path + " " + script + " start --state " + state + " > /dev/null";
    if (std::system(start.c_str()) != 0) {  // NOLINT(cert-env33-c): a benchmark's setup
      std::fprintf(stderr, "s3_bench: the S3 server did not start (%s)\n", start.c_str());
      std::exit(1);
    }
    *stop_command = options.python_path + " " + script + " stop --state " + state;
  }
  std::ifstream in(state);
  const json parsed = json::parse(in, nullptr, false);
  if (parsed.is_discarded()) {
    std::fprintf(stderr, "s3_bench: %s is not the servers' state\n", state.c_str());
    std::exit(1);
  }
  *pid = parsed.value("pid", 0L);
  return parsed.at("endpoint").get<std::string>();
}

std::shared_ptr<store::S3Store> OpenStore(const Server& server, const std::string& prefix) {
  store::S3StoreOptions options;
  options.location.bucket = kBucket;
  options.location.prefix = prefix;
  options.endpoint = server.endpoint;
  options.region = "us-east-1";
  options.addressing = store::S3AddressingStyle::kPath;
  options.credentials.access_key_id = "testing";
  options.credentials.secret_access_key = "testing";
  options.transfer.max_requests_in_flight = static_cast<int>(g_in_flight);
  // --wire N: the transport's limit on requests on the wire (the event loop's
  // transfers, which every GetMany and PutMany shares); the store's default if 0.
  if (g_wire > 0) options.http.max_in_flight = g_wire;
  Result<std::shared_ptr<store::S3Store>> store = store::S3Store::Open(options);
  Check(store.status(), "open the S3 store");
  return *store;
}

formats::zarr::ArrayMetadata VolumeMetadata(const core::Shape& shape, const Options& options) {
  const json bytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
  const json inner_codecs = {
      bytes, {{"name", "zstd"}, {"configuration", {{"level", 1}, {"checksum", false}}}}};
  const json sharded = {
      {{"name", "sharding_indexed"},
       {"configuration",
        {{"chunk_shape", json::array({options.inner, options.inner, options.inner})},
         {"codecs", inner_codecs},
         {"index_codecs", {bytes, {{"name", "crc32c"}}}},
         {"index_location", "end"}}}}};
  const long long grid = options.shard > 0 ? options.shard : options.inner;
  const json metadata = {
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", shape},
      {"data_type", "uint16"},
      {"chunk_grid",
       {{"name", "regular"},
        {"configuration", {{"chunk_shape", json::array({grid, grid, grid})}}}}},
      {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
      {"fill_value", 0},
      {"codecs", options.shard > 0 ? sharded : inner_codecs}};
  Result<formats::zarr::ArrayMetadata> parsed =
      formats::zarr::ParseV3ArrayMetadata(metadata.dump(), "zarr.json");
  Check(parsed.status(), "volume metadata");
  return *parsed;
}

// Every object under `store`'s prefix, fetched (untimed) for the raw rows.
std::vector<std::pair<std::string, Bytes>> Objects(store::S3Store& store) {
  Result<std::vector<std::string>> keys = store.List("");
  Check(keys.status(), "list");
  std::vector<std::pair<std::string, Bytes>> objects;
  for (const std::string& key : *keys) {
    Result<std::optional<Bytes>> value = store.Get(key);
    Check(value.status(), "get");
    objects.emplace_back(key, std::move(**value));
  }
  return objects;
}

void RawRound(const Server& server, const std::vector<std::pair<std::string, Bytes>>& objects,
              const std::string& prefix, Row* row) {
  std::shared_ptr<store::S3Store> store = OpenStore(server, prefix);
  core::ThreadPool pool(kInFlight);
  row->write_seconds.push_back(server.Measure(
      [&] {
        Check(pool.ParallelFor(
                  objects.size(),
                  [&](std::size_t i) { return store->Set(objects[i].first, objects[i].second); }),
              "raw set");
      },
      &row->write_requests));
  row->read_seconds.push_back(server.MeasureRead(
      [&] {
        Check(pool.ParallelFor(objects.size(),
                               [&](std::size_t i) -> Status {
                                 CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> value,
                                                            store->Get(objects[i].first));
                                 if (!value || value->size() != objects[i].second.size()) {
                                   return Status::Corruption("raw get of " + objects[i].first);
                                 }
                                 return Status::Ok();
                               }),
              "raw get");
      },
      &row->read_requests, row));
  Check(store->ErasePrefix(""), "erase");
  row->ran = true;
}

// One round of a Python peer, its figures added to `row`.
void Peer(const Options& options, const Server& server, const std::string& mode,
          const std::string& argument, Row* row, const std::string& layout = "") {
  if (!options.python) return;
  const std::string command =
      "S3_BENCH_SERVER_PID=" + std::to_string(server.pid) + " " + options.python_path + " " +
      (options.scripts / "s3_python_peer.py").string() + " " + mode + " " + server.endpoint + " " +
      kBucket + " bench-" + std::to_string(::getpid()) + "/ 1 " + std::to_string(options.threads) +
      " " + argument + layout;
  const std::optional<json> result = bench::RunJsonPeer(command, "s3_bench");
  if (!result) return;
  for (double seconds : (*result)["write_seconds"]) row->write_seconds.push_back(seconds);
  for (double seconds : (*result)["read_seconds"]) row->read_seconds.push_back(seconds);
  for (double seconds : result->value("read_cpu", json::array())) row->read_cpu.push_back(seconds);
  for (double seconds : result->value("server_cpu", json::array())) {
    row->server_cpu.push_back(seconds);
  }
  row->write_requests = (*result)["write_requests"].get<std::uint64_t>();
  row->read_requests = (*result)["read_requests"].get<std::uint64_t>();
  row->ran = true;
}

void PrintRows(const char* title, const std::vector<Row>& rows, double bytes, double gib,
               std::size_t ours_index) {
  std::printf("\n%s\n", title);
  std::printf("  %-18s %9s %9s %9s %9s %9s %9s %11s %11s %9s %9s\n", "", "write s", "GB/s",
              "read s", "GB/s", "w x/ours", "r x/ours", "write req/GiB", "read req/GiB", "rd cpu s",
              "srv cpu s");
  const Row& ours = rows[ours_index];
  for (const Row& row : rows) {
    if (!row.ran) {
      std::printf("  %-18s did not run\n", row.name.c_str());
      continue;
    }
    const double w = Median(row.write_seconds), r = Median(row.read_seconds);
    const double ow = Median(ours.write_seconds), orr = Median(ours.read_seconds);
    std::printf("  %-18s %9.2f %9.3f %9.2f %9.3f %9.2f %9.2f %11.0f %11.0f", row.name.c_str(), w,
                bytes / w / 1e9, r, bytes / r / 1e9, w / ow, r / orr,
                static_cast<double>(row.write_requests) / gib,
                static_cast<double>(row.read_requests) / gib);
    // The read's CPU seconds, the reader's and the server's (medians), where measured.
    for (const std::vector<double>* cpu : {&row.read_cpu, &row.server_cpu}) {
      if (cpu->empty()) {
        std::printf(" %9s", "-");
      } else {
        std::printf(" %9.2f", Median(*cpu));
      }
    }
    std::printf("\n");
  }
}

void ZarrBench(const Options& options, const Server& server, const fs::path& work) {
  const core::Shape shape = {options.size_mib / 2, 1024, 1024};
  const Bytes volume = bench::MicroscopyVolume(shape);
  const double gib = static_cast<double>(volume.size()) / kGiB;
  const fs::path npy = work / "volume.npy";
  core::NpyArray array{core::NpyDtype::FromDataType(core::DataType(core::DataTypeId::kUInt16),
                                                    core::Endian::kLittle),
                       shape, false, volume};
  Check(io::WriteNpy(npy, array), "volume.npy");
  std::vector<Row> rows(9);
  const char* names[] = {"ours",        "zarr+s3fs", "zarr+obstore", "zarr+zarrs", "tensorstore",
                         "ours, store", "boto3 raw", "obstore raw",  "curl raw"};
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].name = names[i];
  auto pool = std::make_shared<core::ThreadPool>(options.io_threads);
  Bytes back(volume.size());
  const std::string pid = std::to_string(::getpid());
  const std::string objects_prefix = "bench-" + pid + "-objects/";
  const fs::path keys_file = work / "objects.json";
  std::vector<std::pair<std::string, Bytes>> objects;
  const std::string layout =
      " " + std::to_string(options.inner) + " " + std::to_string(options.shard);
  // Rounds interleave ours and every peer, so that the machine's other load
  // falls on all of them alike.
  for (int run = 0; run < options.runs; ++run) {
    const std::string prefix = run == 0 ? objects_prefix : "bench-" + pid + "-ours/";
    std::shared_ptr<store::S3Store> store = OpenStore(server, prefix);
    const core::Region all = core::Region::Full(shape);
    rows[0].write_seconds.push_back(server.Measure(
        [&] {
          Result<formats::zarr::Array> created = formats::zarr::Array::Create(
              store, "", VolumeMetadata(shape, options), true, {.pool = pool});
          Check(created.status(), "create");
          Check(created->Write(all, volume), "write");
        },
        &rows[0].write_requests));
    rows[0].read_seconds.push_back(server.MeasureRead(
        [&] {
          Result<formats::zarr::Array> opened =
              formats::zarr::Array::Open(store, "", {.pool = pool});
          Check(opened.status(), "open");
          Check(opened->ReadInto(all, back.data()), "read");
        },
        &rows[0].read_requests, &rows[0]));
    if (back != volume) Check(Status::Corruption("ours read back other values"), "check");
    rows[0].ran = true;
    if (run == 0) {
      // The objects ours wrote are what the raw rows move.
      objects = Objects(*store);
      json keys = json::array();
      double stored = 0;
      for (const auto& object : objects) {
        keys.push_back(objects_prefix + object.first);
        stored += static_cast<double>(object.second.size());
      }
      std::ofstream(keys_file) << keys.dump();
      std::printf("zarr volume: %lld MiB, %zu objects, %.1f MiB stored\n", options.size_mib,
                  objects.size(), stored / 1048576.0);
    } else {
      Check(store->ErasePrefix(""), "erase");
    }
    if (options.Runs("ours-store")) RawRound(server, objects, "bench-" + pid + "-raw/", &rows[5]);
    for (const auto& [mode, row, argument] :
         {std::tuple{"zarr-s3fs", 1, &npy}, std::tuple{"zarr-obstore", 2, &npy},
          std::tuple{"zarr-zarrs", 3, &npy}, std::tuple{"tensorstore", 4, &npy},
          std::tuple{"boto3-raw", 6, &keys_file}, std::tuple{"obstore-raw", 7, &keys_file},
          std::tuple{"curl-raw", 8, &keys_file}}) {
      if (!options.Runs(mode)) continue;
      Peer(options, server, mode, argument->string(), &rows[row], row < 6 ? layout : "");
    }
  }
  Check(OpenStore(server, objects_prefix)->ErasePrefix(""), "erase");
  const std::string title = options.shard > 0 ? "zarr v3, shards " + std::to_string(options.shard) +
                                                    "³ of " + std::to_string(options.inner) +
                                                    "³ chunks, zstd 1 (GB/s of the volume)"
                                              : "zarr v3, plain " + std::to_string(options.inner) +
                                                    "³ chunks, zstd 1 (GB/s of the volume)";
  PrintRows(title.c_str(), rows, static_cast<double>(volume.size()), gib, 0);
}

// A labelmap of a synthetic segmentation and the export spec of the bench.
struct ExportSource {
  std::shared_ptr<store::RocksDbStore> db;
  std::unique_ptr<formats::dvid::Labelmap> labelmap;
  pipelines::ExportSpec spec;
};

ExportSource MakeExportSource(const Options& options, const fs::path& work) {
  const auto shape = options.export_shape;
  Result<std::vector<std::uint64_t>> labels =
      core::GenerateNeuronLabels({.shape = shape, .neuron_count = 300, .seed = 3});
  Check(labels.status(), "generate");
  ExportSource source;
  auto db = store::RocksDbStore::Open(work / "db", {.create_if_missing = true});
  Check(db.status(), "db");
  source.db = *db;
  auto labelmap = formats::dvid::Labelmap::Open(source.db, true);
  Check(labelmap.status(), "labelmap");
  source.labelmap = *std::move(labelmap);
  core::ThreadPool pool(options.threads);
  Check(formats::dvid::IngestVolume(*source.labelmap, *labels, shape, {.pool = &pool}).status(),
        "ingest");
  const std::string text =
      R"({"@type":"neuroglancer_multiscale_volume","data_type":"uint64","scales":[{"key":"s0","size":[)" +
      std::to_string(shape[2]) + "," + std::to_string(shape[1]) + "," + std::to_string(shape[0]) +
      R"(],"chunk_sizes":[[64,64,64]],"sharding":{"@type":"neuroglancer_uint64_sharded_v1",)"
      R"("preshift_bits":3,"hash":"identity","minishard_bits":3,"shard_bits":12}}]})";
  Result<pipelines::ExportSpec> spec = pipelines::ParseExportSpec(text, "bench spec");
  Check(spec.status(), "spec");
  source.spec = *spec;
  return source;
}

// The export written to local disk: the files whose moving the table times.
fs::path MakeExport(const ExportSource& source, const fs::path& work) {
  const fs::path dest = work / "export";
  auto files = store::FileStore::Open(dest);
  Check(files.status(), "export directory");
  Check(pipelines::ExportShards(*source.labelmap, source.spec, *files, "", {}).status(), "export");
  return dest;
}

// export-shards itself, straight into the bucket and into a local directory:
// the same work, so the difference is what the bucket costs. Each shard must
// be one upload, never rewritten (the requests per file say so).
void ExportStraightToBucket(const Options& options, const Server& server,
                            const ExportSource& source, const fs::path& work, std::size_t files) {
  std::vector<double> bucket_seconds, disk_seconds;
  std::uint64_t requests = 0;
  const std::string pid = std::to_string(::getpid());
  for (int run = 0; run < options.runs; ++run) {
    std::shared_ptr<store::S3Store> store = OpenStore(server, "bench-" + pid + "-direct/");
    bucket_seconds.push_back(server.Measure(
        [&] {
          Check(pipelines::ExportShards(*source.labelmap, source.spec, store, "", {}).status(),
                "export to the bucket");
        },
        &requests));
    Check(store->ErasePrefix(""), "erase");
    const fs::path dest = work / ("direct-" + std::to_string(run));
    disk_seconds.push_back(Seconds([&] {
      auto directory = store::FileStore::Open(dest);
      Check(directory.status(), "export directory");
      Check(pipelines::ExportShards(*source.labelmap, source.spec, *directory, "", {}).status(),
            "export to disk");
    }));
    fs::remove_all(dest);
  }
  const double bucket = Median(bucket_seconds), disk = Median(disk_seconds);
  std::printf("\nexport-shards itself (%zu files), medians of %d\n", files, options.runs);
  std::printf("  %-26s %9.2f s  %6.2f x disk  %llu requests (%.2f per file)\n",
              "straight to the bucket", bucket, bucket / disk,
              static_cast<unsigned long long>(requests),
              static_cast<double>(requests) / static_cast<double>(files));
  std::printf("  %-26s %9.2f s  %6.2f x disk\n", "to local disk", disk, 1.0);
}

void ExportBench(const Options& options, const Server& server, const fs::path& work) {
  const ExportSource labelmap = MakeExportSource(options, work);
  const fs::path dest = MakeExport(labelmap, work);
  std::vector<std::pair<std::string, Bytes>> files;
  double stored = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dest)) {
    if (!entry.is_regular_file()) continue;
    Result<Bytes> bytes = core::ReadFile(entry.path());
    Check(bytes.status(), "read export");
    stored += static_cast<double>(bytes->size());
    files.emplace_back(fs::relative(entry.path(), dest).string(), std::move(*bytes));
  }
  std::vector<Row> rows(4);
  const char* names[] = {"ours", "pyarrow+s3fs", "boto3 raw", "obstore raw"};
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].name = names[i];
  core::ThreadPool pool(kInFlight);
  std::size_t blocks = 0;
  const std::string pid = std::to_string(::getpid());
  // The peers take the files from here, untimed.
  const std::string source_prefix = "bench-" + pid + "-export-source/";
  std::shared_ptr<store::S3Store> source = OpenStore(server, source_prefix);
  json keys = json::array();
  for (const auto& file : files) {
    Check(source->Set("export/" + file.first, file.second), "stage");
    keys.push_back(source_prefix + "export/" + file.first);
  }
  const fs::path keys_file = work / "export.json";
  std::ofstream(keys_file) << keys.dump();
  for (int run = 0; run < options.runs; ++run) {
    std::shared_ptr<store::S3Store> store = OpenStore(server, "bench-" + pid + "-export/");
    rows[0].write_seconds.push_back(server.Measure(
        [&] {
          Check(pool.ParallelFor(
                    files.size(),
                    [&](std::size_t i) { return store->Set(files[i].first, files[i].second); }),
                "upload");
        },
        &rows[0].write_requests));
    std::atomic<std::size_t> read{0};
    rows[0].read_seconds.push_back(server.Measure(
        [&] {
          // Every shard opened (one GET of the whole shard, as pyarrow reads
          // it), then every block read, all 16 at once: the reader answers
          // concurrent Gets.
          std::vector<std::optional<formats::dvid::ArrowShardReader>> readers(files.size());
          Check(pool.ParallelFor(files.size(),
                                 [&](std::size_t i) -> Status {
                                   if (!files[i].first.ends_with(".arrow")) return Status::Ok();
                                   CHUNKWISE_ASSIGN_OR_RETURN(
                                       readers[i],
                                       formats::dvid::ArrowShardReader::Open(store, files[i].first,
                                                                             {.read_whole = true}));
                                   return Status::Ok();
                                 }),
                "open shards");
          std::vector<std::pair<std::size_t, std::array<std::int32_t, 3>>> all;
          for (std::size_t i = 0; i < readers.size(); ++i) {
            if (!readers[i]) continue;
            for (const auto& chunk : readers[i]->ListChunks()) all.emplace_back(i, chunk);
          }
          Check(pool.ParallelFor(all.size(),
                                 [&](std::size_t i) -> Status {
                                   const auto& [shard, xyz] = all[i];
                                   CHUNKWISE_ASSIGN_OR_RETURN(
                                       auto block, readers[shard]->Get(xyz[0], xyz[1], xyz[2]));
                                   if (!block) return Status::Corruption("missing block");
                                   ++read;
                                   return Status::Ok();
                                 }),
                "read blocks");
        },
        &rows[0].read_requests));
    blocks = read.load();
    rows[0].ran = true;
    Check(store->ErasePrefix(""), "erase");
    Peer(options, server, "export-pyarrow", keys_file.string(), &rows[1]);
    Peer(options, server, "boto3-raw", keys_file.string(), &rows[2]);
    Peer(options, server, "obstore-raw", keys_file.string(), &rows[3]);
  }
  Check(source->ErasePrefix(""), "erase");
  std::printf("\nexport: %zu blocks in %zu files, %.1f MiB\n", blocks, files.size(),
              stored / 1048576.0);
  PrintRows("export shards: upload, then every block read (GB/s of the files)", rows, stored,
            stored / kGiB, 0);
  ExportStraightToBucket(options, server, labelmap, work, files.size());
}

// The stream writer with the bucket as its sink, as an acquisition run
// writing to object storage would: frames in, each shard uploaded once as it
// completes (multipart where the shard is large). Beside it, the same stream
// into a local directory (what the bucket costs), raw PUTs of the very shard
// objects it wrote (the server's ceiling) and acquire-zarr's S3 output.
void StreamBench(const Options& options, const Server& server, const fs::path& work) {
  const Bytes distinct =
      bench::MicroscopyVolume({bench::kDistinctFrames, bench::kFrameSide, bench::kFrameSide});
  const auto frame_bytes = static_cast<std::size_t>(bench::kFrameSide * bench::kFrameSide * 2);
  const auto frames = std::max<core::Index>(
      bench::kDistinctFrames,
      static_cast<core::Index>((options.stream_mib << 20) / static_cast<long long>(frame_bytes)));
  const double bytes = static_cast<double>(frames) * static_cast<double>(frame_bytes);
  const std::string codec = "blosc:lz4:1:shuffle";
  const pipelines::stream::StreamConfig config =
      bench::MicroscopyStreamConfig(codec, options.threads);
  const fs::path frames_npy = work / "frames.npy";
  Check(io::WriteNpy(frames_npy,
                     {core::NpyDtype::FromDataType(core::DataType(core::DataTypeId::kUInt16),
                                                   core::Endian::kLittle),
                      {bench::kDistinctFrames, bench::kFrameSide, bench::kFrameSide},
                      false,
                      distinct}),
        "frames.npy");
  std::vector<Row> rows(4);
  const char* names[] = {"ours -> s3", "ours -> files", "ours, store raw", "acquire-zarr -> s3"};
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].name = names[i];
  const std::string pid = std::to_string(::getpid());
  std::vector<std::pair<std::string, Bytes>> objects;
  for (int run = 0; run < options.runs; ++run) {
    std::shared_ptr<store::S3Store> store = OpenStore(server, "bench-" + pid + "-stream/");
    rows[0].write_seconds.push_back(server.Measure(
        [&] { bench::StreamOnce(config, distinct, frames, store, {}); }, &rows[0].write_requests));
    rows[0].ran = true;
    if (run == 0) objects = Objects(*store);
    Check(store->ErasePrefix(""), "erase");
    const fs::path directory = work / "stream-files";
    rows[1].write_seconds.push_back(Seconds([&] {
      Result<std::shared_ptr<store::FileStore>> files = store::FileStore::Open(directory);
      Check(files.status(), "stream directory");
      bench::StreamOnce(config, distinct, frames, *files, {});
    }));
    rows[1].ran = true;
    fs::remove_all(directory);
    RawRound(server, objects, "bench-" + pid + "-stream-raw/", &rows[2]);
    if (options.python) {
      // acquire-zarr reads its credentials from the environment when loaded.
      const std::string command =
          "AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing " + options.python_path + " " +
          (options.scripts / "acquire_zarr_stream_peer.py").string() + " " + frames_npy.string() +
          " " + std::to_string(bytes / kGiB) + " " + codec + " bench-" + pid + "-acquire 1 " +
          std::to_string(options.threads) + " " + server.endpoint + " " + kBucket + " 2>&1";
      std::uint64_t requests = 0;
      std::optional<json> result;
      (void)server.Measure([&] { result = bench::RunJsonPeer(command, "s3_bench"); }, &requests);
      if (result) {
        for (double s : (*result)["seconds"]) rows[3].write_seconds.push_back(s);
        // The peer streams a quarter of the frames untimed first (as the
        // stream benches warm every path): its requests are scaled to the
        // timed stream's.
        const double warm = static_cast<double>(std::max(bench::kDistinctFrames, frames / 4));
        const double streamed = static_cast<double>(frames);
        rows[3].write_requests = static_cast<std::uint64_t>(static_cast<double>(requests) *
                                                            streamed / (streamed + warm));
        rows[3].ran = true;
      }
    }
  }
  std::printf(
      "\nstream: %lld frames of %lldx%lld uint16 (%.0f MiB), %s, tiles 32x128x128, "
      "4x4x4 tiles per shard, %zu threads; %zu shard objects\n",
      static_cast<long long>(frames), static_cast<long long>(bench::kFrameSide),
      static_cast<long long>(bench::kFrameSide), bytes / 1048576.0, codec.c_str(), options.threads,
      objects.size());
  std::printf("  %-20s %9s %9s %9s %13s\n", "", "write s", "GB/s", "x/ours", "requests/GiB");
  const double ours = Median(rows[0].write_seconds);
  for (const Row& row : rows) {
    if (!row.ran) {
      std::printf("  %-20s did not run (its error is above)\n", row.name.c_str());
      continue;
    }
    const double seconds = Median(row.write_seconds);
    std::printf("  %-20s %9.2f %9.3f %9.2f %13.0f\n", row.name.c_str(), seconds,
                bytes / seconds / 1e9, seconds / ours,
                static_cast<double>(row.write_requests) / (bytes / kGiB));
  }
}

Options Parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--no-python") {
      options.python = false;
      continue;
    }
    if (flag == "--no-export") {
      options.run_export = false;
      continue;
    }
    if (flag == "--no-stream") {
      options.run_stream = false;
      continue;
    }
    if (flag == "--no-zarr") {
      options.run_zarr = false;
      continue;
    }
    if (i + 1 >= argc) bench::ExitWithUsage(kUsage);
    const char* value = argv[++i];
    if (flag == "--size-mib") {
      options.size_mib = bench::IntegerArg("--size-mib", value, 2, 1 << 16) / 2 * 2;
    } else if (flag == "--stream-mib") {
      options.stream_mib = bench::IntegerArg("--stream-mib", value, 8, 1 << 16);
    } else if (flag == "--runs") {
      options.runs = static_cast<int>(bench::IntegerArg("--runs", value, 1, 100));
    } else if (flag == "--io-threads") {
      options.io_threads =
          static_cast<std::size_t>(bench::IntegerArg("--io-threads", value, 1, 256));
    } else if (flag == "--inner") {
      options.inner = bench::IntegerArg("--inner", value, 8, 1024);
    } else if (flag == "--in-flight") {
      g_in_flight = static_cast<std::size_t>(bench::IntegerArg("--in-flight", value, 1, 1024));
    } else if (flag == "--wire") {
      g_wire = static_cast<std::size_t>(bench::IntegerArg("--wire", value, 1, 1024));
    } else if (flag == "--peers") {
      std::stringstream list(value);
      for (std::string peer; std::getline(list, peer, ',');) options.peers.push_back(peer);
    } else if (flag == "--shard") {
      options.shard = bench::IntegerArg("--shard", value, 0, 2048);
    } else if (flag == "--threads") {
      options.threads = static_cast<std::size_t>(bench::IntegerArg("--threads", value, 1, 256));
    } else if (flag == "--state") {
      options.state = value;
    } else if (flag == "--python") {
      options.python_path = value;
    } else if (flag == "--scripts") {
      options.scripts = value;
    } else if (flag == "--export-shape") {
      int z = 0, y = 0, x = 0;
      if (std::sscanf(value, "%d,%d,%d", &z, &y, &x) != 3 || z <= 0 || y <= 0 || x <= 0) {
        bench::ExitWithUsage(kUsage);
      }
      options.export_shape = {z, y, x};
    } else {
      bench::ExitWithUsage(kUsage);
    }
  }
  if (options.shard > 0 && options.shard % options.inner != 0) {
    std::fprintf(stderr, "s3_bench: --shard %lld is not a multiple of --inner %lld\n",
                 options.shard, options.inner);
    std::exit(2);
  }
  return options;
}

}  // namespace
}  // namespace chunkwise

int main(int argc, char** argv) {
  using namespace chunkwise;
  const Options options = Parse(argc, argv);
  std::string stop_command;
  Server server;
  server.endpoint = StartServers(options, &stop_command, &server.pid);
  const fs::path work =
      fs::temp_directory_path() / ("chunkwise_s3_bench." + std::to_string(::getpid()));
  fs::create_directories(work);
  std::printf("s3_bench: moto at %s, %zu threads, %d runs (medians)\n", server.endpoint.c_str(),
              options.threads, options.runs);
  if (options.run_zarr) ZarrBench(options, server, work);
  if (options.run_export) ExportBench(options, server, work);
  if (options.run_stream) StreamBench(options, server, work);
  fs::remove_all(work);
  if (!stop_command.empty()) (void)std::system(stop_command.c_str());  // NOLINT(cert-env33-c)
  return 0;
}
