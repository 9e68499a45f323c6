// chunkwise._core.Array: a zarr array (the facade's ZarrArray, facade/
// zarr_arrays.h) created, opened, read and written by box through the
// facade. The Python Array (chunkwise/_array.py) turns numpy indexing into
// boxes and allocates the numpy arrays that reads fill in place.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "numpy_bytes.h"
#include "operation.h"
#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

// The output of a read of `what`: refused before any allocation when it is
// more than this process may use (the library's limit and message), and
// named when the allocator refuses it: ResourceExhausted (a MemoryError in
// Python) where nanobind would say only "std::bad_alloc".
Bytes OutputBuffer(std::uint64_t nbytes, const std::string& what) {
  const std::string reading = "reading " + what;
  if (const Status fits = CheckOutputFits(nbytes, reading); !fits.ok()) {
    throw StatusError(
        Status::ResourceExhausted(std::string(fits.message()) + "; read a smaller box"));
  }
  try {
    return Bytes(static_cast<std::size_t>(nbytes));
  } catch (const std::bad_alloc&) {
    throw StatusError(Status::ResourceExhausted(reading + " needs " + std::to_string(nbytes) +
                                                " bytes, which could not be allocated"));
  }
}

using OutArray = nb::ndarray<nb::device::cpu, nb::c_contig>;
using InArray = nb::ndarray<nb::ro, nb::device::cpu, nb::c_contig>;

// What chunkwise.create passes down: ZarrArraySpec's fields, as Python gives them.
struct CreateRequest {
  std::vector<core::Index> shape;
  std::string dtype;                  // A zarr v3 data_type name.
  std::string byte_order = "little";  // Of the chunks: "little" or "big" (numpy's ">").
  std::vector<core::Index> chunks;
  std::optional<std::vector<core::Index>> shards;
  std::optional<std::string> codec;        // A shorthand (codec/codec_shorthand.h) ...
  std::optional<std::string> codecs_json;  // ... or the bytes→bytes codecs as JSON.
  std::optional<std::string> fill_value;
  std::vector<std::optional<std::string>> dimension_names;  // None: a dimension without a name.
  std::string attributes_json = "{}";
  int zarr_format = 3;
  std::string index_location = "end";
  std::string checksum = "default";  // ParseChunkChecksum's words; None is "none".
};

// What chunkwise.convert passes down: `zarr convert`'s flags, as Python gives them.
struct ConvertRequest {
  std::optional<std::vector<core::Index>> chunks;  // None: the source's.
  std::optional<std::vector<core::Index>> shards;  // None: the source's (unless unsharded).
  bool unsharded = false;                          // shards="none".
  std::optional<std::string> codecs;               // A shorthand; None: the source's.
  std::string checksum = "default";
  std::string index_location = "end";
  int zarr_format = 3;
  bool overwrite = false;
  bool resume = false;
  std::string blosc_encoder = "c-blosc";
  std::size_t threads = 0;
  std::string dataset;  // import_volume: the dataset inside an HDF5 file.
};

// What chunkwise.import_npy passes down beside the CreateRequest (whose shape
// and dtype are the file's): `zarr import`'s other flags.
struct ImportRequest {
  bool overwrite = false;
  bool resume = false;
  std::string blosc_encoder = "c-blosc";
  std::size_t threads = 0;
  std::string dataset;  // import_volume: the dataset inside an HDF5 file.
};

class PyArray {
 public:
  static PyArray Open(const std::string& url) {
    nb::gil_scoped_release release;
    return PyArray(url, ValueOrThrow(OpenZarrArray(ModuleContext(), url)));
  }

  // The array at `url`, made with `data` in it (C-contiguous, the request's
  // dtype and shape) when given: its metadata is written only after every
  // chunk, so a failed or cancelled write leaves no array at `url`.
  // publish=false: the metadata is written only by Publish (the facade's
  // ZarrCreateOptions::publish), so the array appears whole or not at all.
  static PyArray Create(const std::string& url, const CreateRequest& request, bool overwrite,
                        bool publish, std::optional<InArray> data, nb::object progress,
                        std::shared_ptr<CancelToken> cancel) {
    const ZarrArraySpec spec = ValueOrThrow(SpecOf(request));
    std::optional<Operation> operation;
    if (data) operation.emplace(std::move(progress), std::move(cancel));
    std::shared_ptr<ZarrArray> array;
    {
      nb::gil_scoped_release release;
      array = std::make_shared<ZarrArray>(ValueOrThrow(CreateZarrArray(
          ModuleContext(), url, spec, {.overwrite = overwrite, .publish = publish && !data})));
    }
    PyArray created(url, std::move(array));
    if (data) {
      const core::Region region = created.CheckedRegion(core::Coord(request.shape.size(), 0),
                                                        request.shape, data->nbytes(), "data");
      const ByteView bytes(static_cast<const std::uint8_t*>(data->data()), data->nbytes());
      ZarrArray& target = *created.array_;
      operation->Run(
          [&] {
            CHUNKWISE_RETURN_IF_ERROR(
                WriteRegion(operation->context(), target, region, bytes, operation->call()));
            return publish ? PublishZarrArray(target) : Status::Ok();
          },
          bytes.size());
    }
    return created;
  }

  // The unpublished array another process created, by its zarr.json text and
  // the codec shorthand it was created with (if any): nothing is written.
  static PyArray JoinUnpublished(const std::string& url, const std::string& metadata_json,
                                 const std::optional<std::string>& codec) {
    nb::gil_scoped_release release;
    return PyArray(url, ValueOrThrow(JoinUnpublishedZarrArray(ModuleContext(), url, metadata_json,
                                                              codec.value_or(""))));
  }

  // The facade's ImportNpyAsZarrArray (`zarr import`): the .npy at `path`
  // streamed into a new array at `url` with the request's layout.
  static PyArray ImportNpy(const std::string& path, const std::string& url,
                           const CreateRequest& layout, const ImportRequest& request,
                           nb::object progress, std::shared_ptr<CancelToken> cancel) {
    const ZarrArraySpec spec = ValueOrThrow(SpecOf(layout));
    Operation operation(std::move(progress), std::move(cancel), request.threads);
    std::optional<ZarrArray> imported;
    operation.Run(
        [&]() -> Status {
          CHUNKWISE_ASSIGN_OR_RETURN(
              imported, ImportNpyAsZarrArray(operation.context(), path, url, spec,
                                             {.overwrite = request.overwrite,
                                              .resume = request.resume,
                                              .encoders = {.blosc_encoder = request.blosc_encoder}},
                                             operation.call()));
          return Status::Ok();
        },
        kAlwaysWatched);
    return PyArray(url, *std::move(imported));
  }

  // The facade's ImportVolumeAsZarrArray (`chunkwise import`): a .npy file,
  // TIFF stack, folder of TIFF planes or HDF5 dataset streamed into a new array at `url`
  // (at `url`/0 inside an OME-Zarr image for an OME-TIFF with voxel sizes).
  static PyArray ImportVolume(const std::string& path, const std::string& url,
                              const CreateRequest& layout, const ImportRequest& request,
                              nb::object progress, std::shared_ptr<CancelToken> cancel) {
    const ZarrArraySpec spec = ValueOrThrow(SpecOf(layout));
    Operation operation(std::move(progress), std::move(cancel), request.threads);
    std::optional<VolumeImport> imported;
    operation.Run(
        [&]() -> Status {
          CHUNKWISE_ASSIGN_OR_RETURN(
              imported,
              ImportVolumeAsZarrArray(operation.context(), path, url, spec,
                                      {.overwrite = request.overwrite,
                                       .dataset = request.dataset,
                                       .encoders = {.blosc_encoder = request.blosc_encoder}},
                                      operation.call()));
          return Status::Ok();
        },
        kAlwaysWatched);
    return PyArray(imported->array_url, std::move(imported->array));
  }

  // The facade's ConvertZarrArray (`zarr convert`): `source` copied into a
  // new array at `destination` in the request's layout.
  static PyArray Convert(const std::string& source, const std::string& destination,
                         const ConvertRequest& request, nb::object progress,
                         std::shared_ptr<CancelToken> cancel) {
    const ZarrConversionLayout layout = ValueOrThrow(LayoutOf(request));
    const std::optional<ChunkChecksum> checksum =
        ValueOrThrow(ParseChunkChecksum(request.checksum));
    Operation operation(std::move(progress), std::move(cancel), request.threads);
    std::optional<ZarrArray> converted;
    operation.Run(
        [&]() -> Status {
          CHUNKWISE_ASSIGN_OR_RETURN(
              converted, ConvertZarrArray(operation.context(), source, destination, layout,
                                          {.checksum = checksum,
                                           .overwrite = request.overwrite,
                                           .resume = request.resume,
                                           .encoders = {.blosc_encoder = request.blosc_encoder}},
                                          operation.call()));
          return Status::Ok();
        },
        kAlwaysWatched);
    return PyArray(destination, *std::move(converted));
  }

  // Writes the metadata of an array created with publish=false.
  void Publish() {
    nb::gil_scoped_release release;
    ThrowIfError(PublishZarrArray(*array_));
  }

  const std::string& url() const { return url_; }
  const ZarrArrayMetadata& metadata() const { return array_->metadata(); }
  std::vector<core::Index> shape() const { return metadata().shape; }
  // In the chunks' byte order (">u2" for a big-endian array), as numpy keeps it.
  std::string dtype() const { return metadata().data_type.numpy_typestr(ZarrByteOrder(*array_)); }
  // The (inner) chunk; the shard when the array's codec is sharding_indexed.
  std::vector<core::Index> chunks() const {
    return metadata().inner_chunk_shape.value_or(metadata().chunk_shape);
  }
  std::optional<std::vector<core::Index>> shards() const {
    if (!metadata().inner_chunk_shape) return std::nullopt;
    return metadata().chunk_shape;
  }
  std::string metadata_json() const { return ZarrMetadataJson(*array_); }
  std::string attributes_json() const { return metadata().attributes.dump(); }

  // Fills `out` (C-contiguous, the array's dtype) with the box [start, stop).
  void ReadInto(const core::Coord& start, const core::Coord& stop, OutArray out,
                nb::object progress, std::shared_ptr<CancelToken> cancel) const {
    const core::Region region = CheckedRegion(start, stop, out.nbytes(), "out");
    void* data = out.data();
    Operation operation(std::move(progress), std::move(cancel));
    const ZarrArray& array = *array_;
    operation.Run(
        [&] { return ReadRegionInto(operation.context(), array, region, data, operation.call()); },
        out.nbytes());
  }

  // The box [start, stop) in a buffer of the module's own, as a 1-d uint8
  // numpy array that owns it (the package views it as the dtype and shape).
  // Not numpy's allocation: numpy advises huge pages for large arrays, and
  // with this kernel's direct compaction the faults of a fresh output cost
  // more than the decode (docs/benchmarks.md). Uninitialized, since every
  // byte is decoded (or filled) into it; no copy after the decode.
  nb::object ReadNew(const core::Coord& start, const core::Coord& stop, nb::object progress,
                     std::shared_ptr<CancelToken> cancel) const {
    std::uint64_t nbytes = metadata().data_type.size();
    for (std::size_t d = 0; d < start.size() && start.size() == stop.size(); ++d) {
      nbytes *= static_cast<std::uint64_t>(std::max<core::Index>(stop[d] - start[d], 0));
    }
    const core::Region region = CheckedRegion(start, stop, nbytes, "out");
    Bytes buffer = OutputBuffer(nbytes, url_ + " [" + region.ToString() + "]");
    std::uint8_t* data = buffer.data();
    Operation operation(std::move(progress), std::move(cancel));
    const ZarrArray& array = *array_;
    operation.Run(
        [&] { return ReadRegionInto(operation.context(), array, region, data, operation.call()); },
        nbytes);
    return BytesToNumpy(std::move(buffer));
  }

  // The whole decoded chunk at `chunk` (grid coordinates; inner chunks when
  // sharded) as a read-only 1-d uint8 numpy array over the facade's shared
  // buffer, the cache's own when it holds the chunk: no copy. The numpy array
  // holds a reference to the buffer, so it outlives the cache's entry and
  // this array (the package views it as the dtype and chunk shape).
  nb::object ReadChunkView(const std::vector<core::Index>& chunk) const {
    std::shared_ptr<const Bytes> buffer;
    {
      nb::gil_scoped_release release;
      buffer = ValueOrThrow(ReadChunk(ModuleContext(), *array_, chunk));
    }
    return SharedBytesToNumpy(std::move(buffer));
  }

  // Writes `data` (C-contiguous, the array's dtype) over the box [start, stop).
  void Write(const core::Coord& start, const core::Coord& stop, InArray data, nb::object progress,
             std::shared_ptr<CancelToken> cancel) {
    const core::Region region = CheckedRegion(start, stop, data.nbytes(), "value");
    const ByteView bytes(static_cast<const std::uint8_t*>(data.data()), data.nbytes());
    Operation operation(std::move(progress), std::move(cancel));
    ZarrArray& array = *array_;
    operation.Run(
        [&] { return WriteRegion(operation.context(), array, region, bytes, operation.call()); },
        bytes.size());
  }

  // Replaces the attributes (JSON text of an object) and writes the metadata.
  void SetAttributes(const std::string& attributes_json) {
    const nlohmann::json attributes = ValueOrThrow(ParseJsonOption(attributes_json, "attributes"));
    nb::gil_scoped_release release;
    ThrowIfError(SetZarrAttributes(*array_, attributes));
  }

  // Gives the array `shape`, erasing the chunks wholly outside it.
  void Resize(const std::vector<core::Index>& shape) {
    nb::gil_scoped_release release;
    ThrowIfError(ResizeZarrArray(*array_, shape));
  }

  // The facade's info (facade/zarr_info.h) as JSON text: the object
  // `chunkwise zarr info --json` prints for the same array.
  std::string InfoJson() const {
    nb::gil_scoped_release release;
    return ValueOrThrow(ZarrArrayInfo(ModuleContext(), *array_, url_)).dump();
  }

  nb::dict Stats() const {
    ZarrArrayStorageStats stats;
    {
      nb::gil_scoped_release release;
      stats = ValueOrThrow(array_->Stats());
    }
    nb::dict result;
    result["stored_keys"] = stats.stored_keys;
    result["stored_bytes"] = stats.stored_bytes;
    result["grid_chunks"] = stats.grid_chunks;
    result["stored_inner_chunks"] = stats.stored_inner_chunks;
    result["grid_inner_chunks"] = stats.grid_inner_chunks;
    result["logical_bytes"] = stats.logical_bytes;
    return result;
  }

 private:
  PyArray(std::string url, ZarrArray array)
      : url_(std::move(url)), array_(std::make_shared<ZarrArray>(std::move(array))) {}
  PyArray(std::string url, std::shared_ptr<ZarrArray> array)
      : url_(std::move(url)), array_(std::move(array)) {}

  // Jobs whose size is not known here are watched (Ctrl-C, progress).
  static constexpr std::uint64_t kAlwaysWatched = UINT64_MAX;

  // The layout `zarr convert` builds from its flags (src/cli/zarr_command.cc).
  static Result<ZarrConversionLayout> LayoutOf(const ConvertRequest& request) {
    ZarrConversionLayout layout;
    layout.chunks = request.chunks;
    layout.shards = request.shards;
    layout.unsharded = request.unsharded;
    CHUNKWISE_ASSIGN_OR_RETURN(layout.index_location, ParseIndexLocation(request.index_location));
    layout.zarr_format = request.zarr_format;
    // The facade adds the checksum to the codecs given (ZarrConvertOptions::checksum).
    layout.codecs = request.codecs;
    return layout;
  }

  static Result<ZarrArraySpec> SpecOf(const CreateRequest& request) {
    ZarrArraySpec spec;
    spec.shape = request.shape;
    // An import's dtype is its file's: the request leaves it empty.
    if (!request.dtype.empty()) {
      CHUNKWISE_ASSIGN_OR_RETURN(spec.data_type, ParseDataType(request.dtype));
    }
    if (request.byte_order == "big") {
      spec.endian = core::Endian::kBig;
    } else if (request.byte_order != "little") {
      return Status::InvalidArgument("byte_order must be \"little\" or \"big\", not \"" +
                                     request.byte_order + "\"");
    }
    spec.chunks = request.chunks;
    spec.shards = request.shards;
    if (request.codecs_json) {
      CHUNKWISE_ASSIGN_OR_RETURN(spec.codec_documents,
                                 ParseJsonOption(*request.codecs_json, "codecs"));
    } else if (request.codec) {
      CHUNKWISE_ASSIGN_OR_RETURN(spec.codecs, ParseCodecs(*request.codec));
    }
    spec.fill_value = request.fill_value;
    spec.dimension_names = request.dimension_names;
    spec.zarr_format = request.zarr_format;
    if (request.index_location == "start") {
      spec.index_location = ZarrIndexLocation::kStart;
    } else if (request.index_location != "end") {
      return Status::InvalidArgument("index_location must be \"start\" or \"end\", not \"" +
                                     request.index_location + "\"");
    }
    CHUNKWISE_ASSIGN_OR_RETURN(spec.attributes,
                               ParseJsonOption(request.attributes_json, "attributes"));
    CHUNKWISE_ASSIGN_OR_RETURN(spec.checksum, ParseChunkChecksum(request.checksum));
    return spec;
  }

  // The region [start, stop), checked to hold exactly `nbytes` of elements;
  // ValueError naming `what` (the buffer) otherwise.
  core::Region CheckedRegion(const core::Coord& start, const core::Coord& stop, std::size_t nbytes,
                             const char* what) const {
    if (start.size() != stop.size() || start.size() != metadata().shape.size()) {
      throw StatusError(Status::InvalidArgument(
          url_ + ": a box of rank " + std::to_string(start.size()) + " for an array of rank " +
          std::to_string(metadata().shape.size())));
    }
    for (std::size_t d = 0; d < start.size(); ++d) {
      if (start[d] > stop[d]) {
        throw StatusError(Status::InvalidArgument(url_ + ": dimension " + std::to_string(d) +
                                                  " starts after it stops"));
      }
    }
    const core::Region region(start, stop);
    const std::uint64_t expected =
        static_cast<std::uint64_t>(region.num_elements()) * metadata().data_type.size();
    if (nbytes != expected) {
      throw StatusError(Status::InvalidArgument(
          url_ + ": " + what + " holds " + std::to_string(nbytes) + " bytes, the box [" +
          region.ToString() + "] " + std::to_string(expected)));
    }
    return region;
  }

  std::string url_;
  // Shared so that copies of the Python object's value stay cheap.
  std::shared_ptr<ZarrArray> array_;
};

}  // namespace

void BindArray(nb::module_& module) {
  nb::class_<CreateRequest>(module, "CreateRequest")
      .def(nb::init<>())
      .def_rw("shape", &CreateRequest::shape)
      .def_rw("dtype", &CreateRequest::dtype)
      .def_rw("byte_order", &CreateRequest::byte_order)
      .def_rw("chunks", &CreateRequest::chunks)
      .def_rw("shards", &CreateRequest::shards)
      .def_rw("codec", &CreateRequest::codec)
      .def_rw("codecs_json", &CreateRequest::codecs_json)
      .def_rw("fill_value", &CreateRequest::fill_value)
      .def_rw("dimension_names", &CreateRequest::dimension_names)
      .def_rw("attributes_json", &CreateRequest::attributes_json)
      .def_rw("zarr_format", &CreateRequest::zarr_format)
      .def_rw("index_location", &CreateRequest::index_location)
      .def_rw("checksum", &CreateRequest::checksum);

  nb::class_<ConvertRequest>(module, "ConvertRequest")
      .def(nb::init<>())
      .def_rw("chunks", &ConvertRequest::chunks)
      .def_rw("shards", &ConvertRequest::shards)
      .def_rw("unsharded", &ConvertRequest::unsharded)
      .def_rw("codecs", &ConvertRequest::codecs)
      .def_rw("checksum", &ConvertRequest::checksum)
      .def_rw("index_location", &ConvertRequest::index_location)
      .def_rw("zarr_format", &ConvertRequest::zarr_format)
      .def_rw("overwrite", &ConvertRequest::overwrite)
      .def_rw("resume", &ConvertRequest::resume)
      .def_rw("blosc_encoder", &ConvertRequest::blosc_encoder)
      .def_rw("threads", &ConvertRequest::threads);

  nb::class_<ImportRequest>(module, "ImportRequest")
      .def(nb::init<>())
      .def_rw("overwrite", &ImportRequest::overwrite)
      .def_rw("resume", &ImportRequest::resume)
      .def_rw("blosc_encoder", &ImportRequest::blosc_encoder)
      .def_rw("threads", &ImportRequest::threads)
      .def_rw("dataset", &ImportRequest::dataset);

  nb::class_<PyArray>(module, "Array")
      .def_static("open", &PyArray::Open, nb::arg("url"))
      .def_static("create", &PyArray::Create, nb::arg("url"), nb::arg("request"),
                  nb::arg("overwrite"), nb::arg("publish") = true,
                  nb::arg("data").noconvert() = nb::none(), nb::arg("progress") = nb::none(),
                  nb::arg("cancel").none() = nb::none())
      .def_static("import_npy", &PyArray::ImportNpy, nb::arg("path"), nb::arg("url"),
                  nb::arg("layout"), nb::arg("request"), nb::arg("progress") = nb::none(),
                  nb::arg("cancel").none() = nb::none())
      .def_static("import_volume", &PyArray::ImportVolume, nb::arg("path"), nb::arg("url"),
                  nb::arg("layout"), nb::arg("request"), nb::arg("progress") = nb::none(),
                  nb::arg("cancel").none() = nb::none())
      .def_static("convert", &PyArray::Convert, nb::arg("source"), nb::arg("destination"),
                  nb::arg("request"), nb::arg("progress") = nb::none(),
                  nb::arg("cancel").none() = nb::none())
      .def_static("join_unpublished", &PyArray::JoinUnpublished, nb::arg("url"),
                  nb::arg("metadata_json"), nb::arg("codec") = nb::none())
      .def_prop_ro("url", &PyArray::url)
      .def_prop_ro("shape", &PyArray::shape)
      .def_prop_ro("dtype", &PyArray::dtype)
      .def_prop_ro("chunks", &PyArray::chunks)
      .def_prop_ro("shards", &PyArray::shards)
      .def_prop_ro("zarr_format", [](const PyArray& array) { return array.metadata().zarr_format; })
      .def_prop_ro("metadata_json", &PyArray::metadata_json)
      .def_prop_ro("attributes_json", &PyArray::attributes_json)
      .def("read_into", &PyArray::ReadInto, nb::arg("start"), nb::arg("stop"),
           nb::arg("out").noconvert(), nb::arg("progress") = nb::none(),
           nb::arg("cancel").none() = nb::none())
      .def("read_new", &PyArray::ReadNew, nb::arg("start"), nb::arg("stop"),
           nb::arg("progress") = nb::none(), nb::arg("cancel").none() = nb::none())
      .def("read_chunk", &PyArray::ReadChunkView, nb::arg("chunk"))
      .def("write", &PyArray::Write, nb::arg("start"), nb::arg("stop"), nb::arg("data").noconvert(),
           nb::arg("progress") = nb::none(), nb::arg("cancel").none() = nb::none())
      .def("publish", &PyArray::Publish)
      .def("set_attributes", &PyArray::SetAttributes, nb::arg("attributes_json"))
      .def("resize", &PyArray::Resize, nb::arg("shape"))
      .def("info_json", &PyArray::InfoJson)
      .def("stats", &PyArray::Stats);
}

}  // namespace chunkwise::python
