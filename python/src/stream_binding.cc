// chunkwise._core.StreamWriter: frames in, a sharded zarr v3 array out,
// through the facade's FrameStreamWriter (facade/frame_stream.h).
// chunkwise/_stream.py gives it its keyword arguments and context manager.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "open_store.h"
#include "operation.h"
#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

using InBytes = nb::ndarray<nb::ro, nb::device::cpu, nb::c_contig>;

// The module is built without the CUDA backend (the CLI has it).
constexpr const char* kNoGpu = "the Python module is built without the CUDA backend";

// What chunkwise.StreamWriter passes down: StreamConfig's fields.
struct StreamRequest {
  std::vector<core::Index> shape;  // shape[0] == 0: unbounded along dimension 0.
  std::string dtype;               // A zarr v3 data_type name.
  std::vector<core::Index> chunks;
  std::optional<std::vector<core::Index>> tiles_per_shard;
  std::string codec = "zstd:1";
  std::string checksum = "default";  // ParseChunkChecksum's words: the stream's default is none.
  std::optional<std::string> fill_value;
  std::vector<std::string> dimension_names;
  std::string index_location = "end";
  std::string backend = "cpu";
  std::size_t threads = 0;
  std::uint64_t max_memory = 0;
  // A multiscale stream (the CLI's --levels, --downsample, ...).
  std::size_t levels = 0;
  std::string downsample = "mean";
  std::vector<core::Index> downsample_factors;
  std::vector<double> voxel_size;
  std::string unit;

  Result<StreamConfig> ToConfig() const {
    const std::size_t rank = shape.size();
    const std::vector<core::Index> tiles = tiles_per_shard.value_or(core::Shape(rank, 1));
    if (chunks.size() != rank || tiles.size() != rank ||
        (!dimension_names.empty() && dimension_names.size() != rank)) {
      return Status::InvalidArgument(
          "shape, chunks, tiles_per_shard and dimension_names must have one entry per dimension");
    }
    StreamConfig config;
    for (std::size_t d = 0; d < rank; ++d) {
      config.dimensions.push_back(
          {shape[d], chunks[d], tiles[d], dimension_names.empty() ? "" : dimension_names[d]});
    }
    CHUNKWISE_ASSIGN_OR_RETURN(config.data_type, core::DataType::FromZarrName(dtype));
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<ChunkChecksum> chosen,
                               ParseChunkChecksum(checksum));
    CHUNKWISE_ASSIGN_OR_RETURN(config.codec, StreamCodecsWithChecksum(codec, chosen));
    config.fill_value = fill_value;
    if (index_location == "start") {
      config.index_location = ZarrIndexLocation::kStart;
    } else if (index_location != "end") {
      return Status::InvalidArgument("index_location must be \"start\" or \"end\", not \"" +
                                     index_location + "\"");
    }
    config.threads = threads;
    config.max_memory = max_memory;
    CHUNKWISE_ASSIGN_OR_RETURN(
        config.multiscale,
        MakeStreamMultiscale({levels, downsample, downsample_factors, voxel_size, unit}));
    CHUNKWISE_ASSIGN_OR_RETURN(const StreamBackendRequest request, ParseStreamBackend(backend));
    return ChooseBackendWithoutGpu(std::move(config), request, kNoGpu, nullptr);
  }
};

nb::dict MemoryDict(const StreamMemoryEstimate& memory) {
  nb::dict result;
  result["staging"] = memory.staging;
  result["compressed"] = memory.compressed;
  result["aggregated"] = memory.aggregated;
  result["shard_indexes"] = memory.shard_indexes;
  result["pinned"] = memory.pinned;
  result["device"] = memory.device;
  result["level_slabs"] = memory.level_slabs;
  result["levels"] = memory.levels;
  result["total"] = memory.total();
  return result;
}

class PyStreamWriter {
 public:
  PyStreamWriter(const std::string& url, const StreamRequest& request, bool overwrite,
                 nb::object progress, std::shared_ptr<CancelToken> cancel)
      : url_(url), operation_(std::make_unique<Operation>(std::move(progress), std::move(cancel))) {
    StreamConfig config = ValueOrThrow(request.ToConfig());
    FrameStreamOptions options;
    options.overwrite = overwrite;
    options.backend = ValueOrThrow(ParseStreamBackend(request.backend));
    nb::gil_scoped_release release;
    std::shared_ptr<store::Store> store = ValueOrThrow(OpenStoreForUrl(url, true));
    writer_ =
        ValueOrThrow(FrameStreamWriter::Create(operation_->context(), std::move(store), url,
                                               std::move(config), options, operation_->call()));
  }

  void Append(InBytes data) {
    FrameStreamWriter& writer = Open();
    const ByteView bytes(static_cast<const std::uint8_t*>(data.data()), data.nbytes());
    operation_->Run([&] { return writer.Append(bytes); }, bytes.size());
  }

  void Flush() {
    FrameStreamWriter& writer = Open();
    operation_->Run([&] { return writer.Flush(); }, 0);
  }

  nb::dict Close() {
    FrameStreamWriter& writer = Open();
    struct Closing {  // Drops the writer however Run leaves: closed, failed or interrupted.
      PyStreamWriter& self;
      ~Closing() {
        self.stats_ = self.writer_->stats();
        nb::gil_scoped_release release;
        self.writer_.reset();
      }
    } closing{*this};
    operation_->Run([&] { return writer.Close(); }, 0);
    return Stats();
  }

  // Stops the pipeline without finishing: open shards are discarded.
  void Abort() {
    nb::gil_scoped_release release;
    writer_.reset();
  }

  bool closed() const { return writer_ == nullptr; }
  std::size_t frame_bytes() const { return Open().frame_bytes(); }
  std::string describe() const { return Open().DescribePlan(); }
  nb::dict memory() const { return MemoryDict(Open().memory()); }

  nb::dict Stats() const {
    const StreamStats stats = writer_ ? writer_->stats() : stats_;
    nb::dict result;
    result["bytes_in"] = stats.bytes_in;
    result["frames"] = stats.frames;
    result["bytes_out"] = stats.bytes_out;
    result["shards"] = stats.shards;
    result["seconds"] = stats.seconds;
    result["backend"] = stats.backend;
    return result;
  }

 private:
  FrameStreamWriter& Open() const {
    if (writer_ == nullptr) {
      throw StatusError(Status::InvalidArgument(url_ + ": the stream writer is closed"));
    }
    return *writer_;
  }

  std::string url_;
  std::unique_ptr<Operation> operation_;  // Its CallOptions outlive writer_.
  std::unique_ptr<FrameStreamWriter> writer_;
  StreamStats stats_;  // Kept at close.
};

}  // namespace

void BindStream(nb::module_& module) {
  nb::class_<StreamRequest>(module, "StreamRequest")
      .def(nb::init<>())
      .def_rw("shape", &StreamRequest::shape)
      .def_rw("dtype", &StreamRequest::dtype)
      .def_rw("chunks", &StreamRequest::chunks)
      .def_rw("tiles_per_shard", &StreamRequest::tiles_per_shard)
      .def_rw("codec", &StreamRequest::codec)
      .def_rw("checksum", &StreamRequest::checksum)
      .def_rw("fill_value", &StreamRequest::fill_value)
      .def_rw("dimension_names", &StreamRequest::dimension_names)
      .def_rw("index_location", &StreamRequest::index_location)
      .def_rw("backend", &StreamRequest::backend)
      .def_rw("threads", &StreamRequest::threads)
      .def_rw("max_memory", &StreamRequest::max_memory)
      .def_rw("levels", &StreamRequest::levels)
      .def_rw("downsample", &StreamRequest::downsample)
      .def_rw("downsample_factors", &StreamRequest::downsample_factors)
      .def_rw("voxel_size", &StreamRequest::voxel_size)
      .def_rw("unit", &StreamRequest::unit);

  module.def(
      "stream_memory_estimate",
      [](const StreamRequest& request) {
        const StreamConfig config = ValueOrThrow(request.ToConfig());
        return MemoryDict(ValueOrThrow(EstimateFrameStreamMemory(config)));
      },
      nb::arg("request"));

  nb::class_<PyStreamWriter>(module, "StreamWriter")
      .def(nb::init<const std::string&, const StreamRequest&, bool, nb::object,
                    std::shared_ptr<CancelToken>>(),
           nb::arg("url"), nb::arg("request"), nb::arg("overwrite"),
           nb::arg("progress") = nb::none(), nb::arg("cancel").none() = nb::none())
      .def("append", &PyStreamWriter::Append, nb::arg("data").noconvert())
      .def("flush", &PyStreamWriter::Flush)
      .def("close", &PyStreamWriter::Close)
      .def("abort", &PyStreamWriter::Abort)
      .def("stats", &PyStreamWriter::Stats)
      .def_prop_ro("closed", &PyStreamWriter::closed)
      .def_prop_ro("frame_bytes", &PyStreamWriter::frame_bytes)
      .def_prop_ro("memory", &PyStreamWriter::memory)
      .def("describe", &PyStreamWriter::describe);
}

}  // namespace chunkwise::python
