// chunkwise._core's DVID part: the labelmap and export-shards
// (facade/dvid_export.h), one export shard read by chunk and an export read
// by box (facade/dvid_export.h). chunkwise/dvid.py gives them their
// Python shape.
//
// Every array crosses as uint64 in C order (z, y, x), the library's order.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "operation.h"
#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

using Zyx = std::array<std::int64_t, 3>;
using LabelArray = nb::ndarray<nb::numpy, std::uint64_t>;
using InLabels = nb::ndarray<nb::ro, std::uint64_t, nb::device::cpu, nb::c_contig>;
using OutLabels = nb::ndarray<std::uint64_t, nb::device::cpu, nb::c_contig>;

// A numpy array of `shape` that takes over `values`, freed when the array is.
nb::object ToNumpy(std::vector<std::uint64_t> values, std::vector<std::size_t> shape) {
  auto* owned = new std::vector<std::uint64_t>(std::move(values));
  owned->reserve(1);  // An empty result still gets a buffer to point at.
  nb::capsule owner(owned, [](void* pointer) noexcept {
    delete static_cast<std::vector<std::uint64_t>*>(pointer);
  });
  return nb::cast(LabelArray(owned->data(), shape.size(), shape.data(), owner));
}

nb::object ToNumpy(std::vector<std::uint64_t> values) {
  const std::size_t size = values.size();
  return ToNumpy(std::move(values), {size});
}

std::span<const std::uint64_t> Span(const InLabels& values) {
  return {values.data(), values.size()};
}

VoxelBox Box(const Zyx& offset, const Zyx& shape) { return VoxelBox{offset, shape}; }

class PyLabelmap {
 public:
  PyLabelmap(const std::string& path, bool create, bool read_only) : path_(path) {
    nb::gil_scoped_release release;
    labelmap_ = ValueOrThrow(OpenLabelmap(path, create, read_only));
  }

  const std::string& path() const { return path_; }
  bool closed() const { return labelmap_ == nullptr; }
  void Close() {
    std::shared_ptr<Labelmap> dropped = std::move(labelmap_);
    nb::gil_scoped_release release;
    dropped.reset();  // Closes the database unless an export still holds it.
  }

  // The labelmap, shared so that a call in flight keeps it open past close().
  std::shared_ptr<Labelmap> Get() const {
    if (labelmap_ == nullptr) {
      throw StatusError(Status::InvalidArgument(path_ + ": the labelmap is closed"));
    }
    return labelmap_;
  }

  int num_scales() const { return Get()->num_scales(); }

  nb::list Versions() const {
    nb::list result;
    for (const LabelmapVersion& node : Get()->versions()) {
      nb::dict version;
      version["id"] = node.id;
      version["parent"] = node.parent == 0 ? nb::none() : nb::cast(node.parent);
      version["committed"] = node.committed;
      version["note"] = node.note;
      result.append(version);
    }
    return result;
  }
  std::uint32_t newest() const { return Get()->newest_version(); }
  std::uint32_t newest_open() const { return Get()->newest_open_version(); }

  nb::dict Ingest(const InLabels& volume, const Zyx& offset, std::uint32_t version, int scales,
                  nb::object progress, std::shared_ptr<CancelToken> cancel) {
    if (volume.ndim() != 3) {
      throw StatusError(Status::InvalidArgument(path_ +
                                                ": ingest takes a 3-d (z, y, x) volume, not " +
                                                std::to_string(volume.ndim()) + "-d"));
    }
    const Zyx shape{static_cast<std::int64_t>(volume.shape(0)),
                    static_cast<std::int64_t>(volume.shape(1)),
                    static_cast<std::int64_t>(volume.shape(2))};
    std::shared_ptr<Labelmap> labelmap = Get();
    LabelmapIngestSummary summary;
    Operation operation(std::move(progress), std::move(cancel));
    operation.Run(
        [&]() -> Status {
          const Context& context = operation.context();
          const CallOptions& call = operation.call();
          CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "ingesting into " + path_));
          Result<LabelmapIngestSummary> ingested = IngestLabels(
              context, *labelmap, Span(volume), shape,
              {.version = version, .offset = offset, .downsample_scales = scales}, call);
          if (!ingested.ok()) return ingested.status().WithContext(path_);
          summary = *std::move(ingested);
          return Status::Ok();
        },
        volume.nbytes());
    nb::dict result;
    result["version"] = summary.version;
    result["blocks_written"] = summary.blocks_written;
    result["blocks_deleted"] = summary.blocks_deleted;
    result["blocks_skipped"] = summary.blocks_skipped;
    return result;
  }

  // pairs: (n, 2) supervoxel, label.
  void SetMappings(const InLabels& pairs, std::uint32_t version) {
    if (pairs.ndim() != 2 || pairs.shape(1) != 2) {
      throw StatusError(Status::InvalidArgument(path_ + ": mapping pairs must be an (n, 2) array"));
    }
    std::vector<LabelPair> entries(pairs.shape(0));
    for (std::size_t i = 0; i < entries.size(); ++i) {
      entries[i] = {pairs.data()[2 * i], pairs.data()[2 * i + 1]};
    }
    std::shared_ptr<Labelmap> labelmap = Get();
    nb::gil_scoped_release release;
    ThrowIfError(SetLabelMappings(*labelmap, entries, Writable(*labelmap, version))
                     .status()
                     .WithContext(path_));
  }

  void Merge(std::uint64_t label, const InLabels& supervoxels, std::uint32_t version) {
    std::shared_ptr<Labelmap> labelmap = Get();
    nb::gil_scoped_release release;
    ThrowIfError(
        labelmap->Merge(Writable(*labelmap, version), label, Span(supervoxels)).WithContext(path_));
  }

  void Split(const InLabels& supervoxels, std::uint32_t version) {
    std::shared_ptr<Labelmap> labelmap = Get();
    nb::gil_scoped_release release;
    ThrowIfError(
        labelmap->Split(Writable(*labelmap, version), Span(supervoxels)).WithContext(path_));
  }

  // Supervoxels and their labels, two arrays in supervoxel order.
  std::pair<nb::object, nb::object> Mapping(std::uint32_t version) const {
    std::shared_ptr<Labelmap> labelmap = Get();
    std::vector<std::uint64_t> supervoxels;
    std::vector<std::uint64_t> labels;
    {
      nb::gil_scoped_release release;
      auto found = labelmap->MappingAt(Readable(*labelmap, version));
      if (!found.ok()) throw StatusError(found.status().WithContext(path_));
      const auto& mapping = *found;
      std::vector<std::pair<std::uint64_t, std::uint64_t>> sorted(mapping.begin(), mapping.end());
      std::sort(sorted.begin(), sorted.end());
      for (const auto& [supervoxel, label] : sorted) {
        supervoxels.push_back(supervoxel);
        labels.push_back(label);
      }
    }
    return {ToNumpy(std::move(supervoxels)), ToNumpy(std::move(labels))};
  }

  std::uint32_t Commit(std::uint32_t version, const std::string& note) {
    std::shared_ptr<Labelmap> labelmap = Get();
    nb::gil_scoped_release release;
    const std::uint32_t id = Writable(*labelmap, version);
    ThrowIfError(labelmap->Commit(id, note).WithContext(path_));
    return id;
  }

  std::uint32_t Branch(std::uint32_t parent, const std::string& note) {
    std::shared_ptr<Labelmap> labelmap = Get();
    nb::gil_scoped_release release;
    Result<std::uint32_t> id = labelmap->Branch(parent, note);
    if (!id.ok()) throw StatusError(id.status().WithContext(path_));
    return *id;
  }

  // (offset, shape) of the whole blocks stored at the version and scale, or None.
  std::optional<std::pair<Zyx, Zyx>> StoredExtent(std::uint32_t version, int scale) const {
    std::shared_ptr<Labelmap> labelmap = Get();
    nb::gil_scoped_release release;
    Result<std::optional<VoxelBox>> found =
        labelmap->StoredExtent(Readable(*labelmap, version), scale);
    if (!found.ok()) throw StatusError(found.status().WithContext(path_));
    const std::optional<VoxelBox>& extent = *found;
    if (!extent) return std::nullopt;
    return std::make_pair(extent->offset, extent->shape);
  }

  nb::object Read(const Zyx& offset, const Zyx& shape, std::uint32_t version, int scale,
                  bool mapped, nb::object progress, std::shared_ptr<CancelToken> cancel) const {
    std::shared_ptr<Labelmap> labelmap = Get();
    std::vector<std::uint64_t> labels;
    Operation operation(std::move(progress), std::move(cancel));
    operation.Run(
        [&]() -> Status {
          CHUNKWISE_ASSIGN_OR_RETURN(
              labels, ReadLabelmapRegion(operation.context(), *labelmap, Box(offset, shape),
                                         {.version = version, .scale = scale, .mapped = mapped},
                                         operation.call()));
          return Status::Ok();
        },
        static_cast<std::uint64_t>(Box(offset, shape).num_voxels()) * sizeof(std::uint64_t));
    return ToNumpy(std::move(labels),
                   {static_cast<std::size_t>(shape[0]), static_cast<std::size_t>(shape[1]),
                    static_cast<std::size_t>(shape[2])});
  }

  // Entry counts and stored bytes per scale, visible blocks per version (dvid info).
  nb::dict Stats() const {
    std::shared_ptr<Labelmap> labelmap = Get();
    LabelmapStats stats;
    {
      nb::gil_scoped_release release;
      Result<LabelmapStats> found = labelmap->Stats();
      if (!found.ok()) throw StatusError(found.status().WithContext(path_));
      stats = *std::move(found);
    }
    nb::list scales;
    for (const LabelmapScaleStats& scale : stats.scales) {
      nb::dict entry;
      entry["block_entries"] = scale.data_entries;
      entry["tombstones"] = scale.tombstones;
      entry["stored_bytes"] = scale.value_bytes;
      nb::dict visible;
      for (const auto& [version, count] : scale.visible_blocks) visible[nb::cast(version)] = count;
      entry["visible_blocks"] = visible;
      scales.append(entry);
    }
    nb::dict result;
    result["scales"] = scales;
    result["mapping_entries"] = stats.mapping_entries;
    return result;
  }

  // The DVID block bytes (or, with `stored`, the stored value: envelope byte +
  // gzip) of block `zyx` visible at the version, or None.
  nb::object GetBlockBytes(const Zyx& zyx, int scale, std::uint32_t version, bool stored) const {
    const LabelBlockCoord coord = BlockAt(zyx);
    std::shared_ptr<Labelmap> labelmap = Get();
    std::optional<Bytes> bytes;
    {
      nb::gil_scoped_release release;
      const std::uint32_t id = Readable(*labelmap, version);
      Result<std::optional<Bytes>> found = stored ? labelmap->GetStoredValue(id, scale, coord)
                                                  : labelmap->GetBlock(id, scale, coord);
      if (!found.ok()) throw StatusError(found.status().WithContext(path_));
      bytes = *std::move(found);
    }
    if (!bytes) return nb::none();
    return nb::bytes(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  }

  // Stores an encoded DVID block (raw or gzip) as block `zyx`, checked to decode.
  void PutBlockBytes(const Zyx& zyx, const nb::bytes& data, int scale, std::uint32_t version) {
    const LabelBlockCoord coord = BlockAt(zyx);
    Bytes bytes(
        static_cast<const std::uint8_t*>(static_cast<const void*>(data.c_str())),
        static_cast<const std::uint8_t*>(static_cast<const void*>(data.c_str())) + data.size());
    std::shared_ptr<Labelmap> labelmap = Get();
    nb::gil_scoped_release release;
    ThrowIfError(PutLabelBlock(*labelmap, scale, coord, std::move(bytes), path_,
                               Writable(*labelmap, version))
                     .status());
  }

 private:
  LabelBlockCoord BlockAt(const Zyx& zyx) const {
    for (const std::int64_t v : zyx) {
      if (v < INT32_MIN || v > INT32_MAX) {
        throw StatusError(
            Status::InvalidArgument(path_ + ": block coordinates must fit in 32 bits"));
      }
    }
    return {static_cast<std::int32_t>(zyx[2]), static_cast<std::int32_t>(zyx[1]),
            static_cast<std::int32_t>(zyx[0])};
  }

  // `version`, or the newest open one for 0; NotFound naming the database if none is open.
  std::uint32_t Writable(const Labelmap& labelmap, std::uint32_t version) const {
    if (version != 0) return version;
    const std::uint32_t open = labelmap.newest_open_version();
    if (open == 0) {
      throw StatusError(Status::NotFound(path_ + ": every version is committed (branch one)"));
    }
    return open;
  }
  static std::uint32_t Readable(const Labelmap& labelmap, std::uint32_t version) {
    return version != 0 ? version : labelmap.newest_version();
  }

  std::string path_;
  std::shared_ptr<Labelmap> labelmap_;
};

// The spec: parsed text, or read from a URL.
struct PyExportSpec {
  ExportSpec spec;
};

PyExportSpec ParseSpec(const std::string& text, const std::string& name) {
  return {ValueOrThrow(ExportSpec::Parse(text, name))};
}

PyExportSpec ReadSpec(const std::string& url) {
  nb::gil_scoped_release release;
  return {ValueOrThrow(ReadExportSpec(ModuleContext(), url))};
}

// The spec export_shards uses when given none, named by the database in errors.
PyExportSpec DefaultSpec(const PyLabelmap& source, std::uint32_t version,
                         const std::array<double, 3>& resolution) {
  std::shared_ptr<Labelmap> labelmap = source.Get();
  nb::gil_scoped_release release;
  Result<ExportSpec> spec =
      DefaultExportSpec(*labelmap, {.version = version, .resolution = resolution});
  if (!spec.ok()) throw StatusError(spec.status().WithContext(source.path()));
  return {std::move(*spec)};
}

nb::dict SummaryDict(const ExportSummary& summary) {
  nb::dict result;
  result["version"] = summary.version;
  result["seconds"] = summary.seconds;
  nb::list scales;
  for (const ExportScaleSummary& scale : summary.scales) {
    nb::dict entry;
    entry["blocks_read"] = scale.blocks_read;
    entry["blocks_written"] = scale.blocks_written;
    entry["blocks_skipped"] = scale.blocks_skipped;
    entry["shards"] = scale.shards;
    entry["stored_bytes"] = scale.stored_bytes;
    entry["block_bytes"] = scale.block_bytes;
    entry["zstd_bytes"] = scale.zstd_bytes;
    entry["file_bytes"] = scale.file_bytes;
    entry["seconds"] = scale.seconds;
    scales.append(entry);
  }
  result["scales"] = scales;
  result["text"] = summary.Format();
  return result;
}

nb::dict Export(const PyLabelmap& source, const PyExportSpec& spec, const std::string& dest,
                int scales, std::uint32_t version, std::size_t threads, const std::string& format,
                const std::string& index, bool overwrite, nb::object progress,
                std::shared_ptr<CancelToken> cancel) {
  ExportShardsOptions options;
  options.num_scales = scales;
  options.workers = threads;
  options.version = version;
  if (format != "file" && format != "stream") {
    throw StatusError(
        Status::InvalidArgument("format must be \"file\" or \"stream\", not \"" + format + "\""));
  }
  if (index != "rec" && index != "offsets") {
    throw StatusError(
        Status::InvalidArgument("index must be \"rec\" or \"offsets\", not \"" + index + "\""));
  }
  options.format = format == "file" ? ArrowIpcFormat::kFile : ArrowIpcFormat::kStream;
  options.index_form =
      index == "rec" ? ExportChunkIndexForm::kRecord : ExportChunkIndexForm::kOffsets;
  options.overwrite = overwrite;
  std::shared_ptr<Labelmap> labelmap = source.Get();
  ExportSummary summary;
  Operation operation(std::move(progress), std::move(cancel));
  operation.Run(
      [&]() -> Status {
        // memory://NAME is the module Context's store NAME, as chunkwise.open sees it.
        CHUNKWISE_ASSIGN_OR_RETURN(summary, ExportShards(operation.context(), *labelmap, spec.spec,
                                                         dest, options, operation.call()));
        return Status::Ok();
      },
      // Always watched: an export is long.
      UINT64_MAX);
  return SummaryDict(summary);
}

class PyShardReader {
 public:
  PyShardReader(const std::string& url, bool read_whole) : url_(url) {
    nb::gil_scoped_release release;
    reader_ = std::make_shared<ExportShardReader>(
        ValueOrThrow(OpenExportShard(ModuleContext(), url, read_whole)));
  }

  const std::string& url() const { return url_; }
  bool is_file_format() const { return reader_->is_file_format(); }
  std::size_t num_record_batches() const { return reader_->num_record_batches(); }
  std::string index_form() const {
    return reader_->index_form() == ExportChunkIndexForm::kRecord ? "rec" : "offsets";
  }
  std::vector<std::array<std::int32_t, 3>> ListChunks() const { return reader_->ListChunks(); }

  // The record as a dict of the schema's columns, or None if the index does not list it.
  nb::object GetChunk(std::int32_t x, std::int32_t y, std::int32_t z) const {
    std::optional<ExportBlock> record = Record(x, y, z);
    if (!record) return nb::none();
    nb::dict result;
    result["chunk_x"] = record->chunk_x;
    result["chunk_y"] = record->chunk_y;
    result["chunk_z"] = record->chunk_z;
    result["labels"] = ToNumpy(std::move(record->labels));
    result["supervoxels"] = ToNumpy(std::move(record->supervoxels));
    result["dvid_compressed_block"] =
        nb::bytes(reinterpret_cast<const char*>(record->dvid_compressed_block.data()),
                  record->dvid_compressed_block.size());
    result["uncompressed_size"] = record->uncompressed_size;
    return result;
  }

  // The decoded 64³ block (z, y, x): mapped labels, or the supervoxels.
  nb::object GetBlock(std::int32_t x, std::int32_t y, std::int32_t z, bool supervoxels) const {
    const std::string name = url_ + ": chunk x,y,z " + std::to_string(x) + "," + std::to_string(y) +
                             "," + std::to_string(z);
    std::vector<std::uint64_t> voxels(kBlockEdge * kBlockEdge * kBlockEdge);
    {
      nb::gil_scoped_release release;
      const std::optional<ExportBlock> record = FetchRecord(x, y, z);
      if (!record) throw StatusError(Status::NotFound(name + " is not in the index"));
      ThrowIfError(DecodeExportBlock(*record, supervoxels, voxels, name));
    }
    return ToNumpy(std::move(voxels), {64, 64, 64});
  }

 private:
  std::optional<ExportBlock> Record(std::int32_t x, std::int32_t y, std::int32_t z) const {
    nb::gil_scoped_release release;
    return FetchRecord(x, y, z);
  }
  std::optional<ExportBlock> FetchRecord(std::int32_t x, std::int32_t y, std::int32_t z) const {
    Result<std::optional<ExportBlock>> record = reader_->Get(x, y, z);
    if (!record.ok()) throw StatusError(record.status().WithContext(url_));
    return *std::move(record);
  }

  std::string url_;
  std::shared_ptr<const ExportShardReader> reader_;
};

class PyExportedVolume {
 public:
  explicit PyExportedVolume(const std::string& url) : url_(url) {
    nb::gil_scoped_release release;
    reader_ = ValueOrThrow(OpenExportedVolume(ModuleContext(), url));
  }

  const std::string& url() const { return url_; }
  int num_scales() const { return reader_->num_scales(); }

  // The scale's voxels (z, y, x).
  Zyx Shape(int scale) const {
    CheckScale(scale);
    const core::GridCoord3& size = reader_->scale_size(scale);
    return {size[2], size[1], size[0]};
  }

  std::string ScaleKey(int scale) const {
    CheckScale(scale);
    return reader_->scale_key(scale);
  }

  nb::object Read(int scale, const Zyx& offset, const Zyx& shape, bool supervoxels,
                  nb::object progress, std::shared_ptr<CancelToken> cancel) const {
    std::vector<std::uint64_t> labels =
        ReadVector(scale, offset, shape, supervoxels, std::move(progress), std::move(cancel));
    return ToNumpy(std::move(labels),
                   {static_cast<std::size_t>(shape[0]), static_cast<std::size_t>(shape[1]),
                    static_cast<std::size_t>(shape[2])});
  }

  // Fills `out` (C-contiguous uint64 of `shape`): TensorStore's chunk buffers.
  void ReadInto(int scale, const Zyx& offset, const Zyx& shape, bool supervoxels,
                const OutLabels& out) const {
    if (out.ndim() != 3 || static_cast<std::int64_t>(out.shape(0)) != shape[0] ||
        static_cast<std::int64_t>(out.shape(1)) != shape[1] ||
        static_cast<std::int64_t>(out.shape(2)) != shape[2]) {
      throw StatusError(Status::InvalidArgument(url_ + ": out does not have the box's shape"));
    }
    std::uint64_t* data = out.data();
    // TensorStore's chunks are small and come from its threads: run inline.
    const std::vector<std::uint64_t> labels =
        ReadVector(scale, offset, shape, supervoxels, nb::none(), nullptr, /*inline=*/true);
    std::memcpy(data, labels.data(), labels.size() * sizeof(std::uint64_t));
  }

 private:
  void CheckScale(int scale) const {
    if (scale < 0 || scale >= reader_->num_scales()) {
      throw StatusError(Status::InvalidArgument(url_ + ": scale " + std::to_string(scale) +
                                                " is not in the export (scales 0.." +
                                                std::to_string(reader_->num_scales() - 1) + ")"));
    }
  }

  // The box's labels, on the Operation of `progress` and `cancel` (blocks
  // read, no total); `run_inline`: never watched (no thread of its own).
  std::vector<std::uint64_t> ReadVector(int scale, const Zyx& offset, const Zyx& shape,
                                        bool supervoxels, nb::object progress,
                                        std::shared_ptr<CancelToken> cancel,
                                        bool run_inline = false) const {
    CheckScale(scale);
    std::vector<std::uint64_t> labels;
    Operation operation(std::move(progress), std::move(cancel));
    const std::uint64_t bytes = run_inline ? 0
                                           : static_cast<std::uint64_t>(shape[0]) *
                                                 static_cast<std::uint64_t>(shape[1]) *
                                                 static_cast<std::uint64_t>(shape[2]) * 8;
    operation.Run(
        [&]() -> Status {
          Result<std::vector<std::uint64_t>> read =
              ReadExportedRegion(operation.context(), *reader_, scale, Box(offset, shape),
                                 supervoxels, operation.call());
          if (!read.ok()) return read.status().WithContext(url_);
          labels = *std::move(read);
          return Status::Ok();
        },
        bytes);
    return labels;
  }

  std::string url_;
  std::shared_ptr<const ExportedVolumeReader> reader_;
};

}  // namespace

void BindDvid(nb::module_& module) {
  nb::class_<PyLabelmap>(module, "Labelmap")
      .def(nb::init<const std::string&, bool, bool>(), nb::arg("path"), nb::arg("create"),
           nb::arg("read_only"))
      .def_prop_ro("path", &PyLabelmap::path)
      .def_prop_ro("closed", &PyLabelmap::closed)
      .def("close", &PyLabelmap::Close)
      .def_prop_ro("num_scales", &PyLabelmap::num_scales)
      .def("versions", &PyLabelmap::Versions)
      .def_prop_ro("newest", &PyLabelmap::newest)
      .def_prop_ro("newest_open", &PyLabelmap::newest_open)
      .def("ingest", &PyLabelmap::Ingest, nb::arg("volume").noconvert(), nb::arg("offset"),
           nb::arg("version"), nb::arg("scales"), nb::arg("progress") = nb::none(),
           nb::arg("cancel").none() = nb::none())
      .def("set_mappings", &PyLabelmap::SetMappings, nb::arg("pairs").noconvert(),
           nb::arg("version"))
      .def("merge", &PyLabelmap::Merge, nb::arg("label"), nb::arg("supervoxels").noconvert(),
           nb::arg("version"))
      .def("split", &PyLabelmap::Split, nb::arg("supervoxels").noconvert(), nb::arg("version"))
      .def("mapping", &PyLabelmap::Mapping, nb::arg("version"))
      .def("commit", &PyLabelmap::Commit, nb::arg("version"), nb::arg("note"))
      .def("branch", &PyLabelmap::Branch, nb::arg("parent"), nb::arg("note"))
      .def("stored_extent", &PyLabelmap::StoredExtent, nb::arg("version"), nb::arg("scale"))
      .def("read", &PyLabelmap::Read, nb::arg("offset"), nb::arg("shape"), nb::arg("version"),
           nb::arg("scale"), nb::arg("mapped"), nb::arg("progress") = nb::none(),
           nb::arg("cancel").none() = nb::none())
      .def("stats", &PyLabelmap::Stats)
      .def("get_block_bytes", &PyLabelmap::GetBlockBytes, nb::arg("block"), nb::arg("scale"),
           nb::arg("version"), nb::arg("stored"))
      .def("put_block_bytes", &PyLabelmap::PutBlockBytes, nb::arg("block"), nb::arg("data"),
           nb::arg("scale"), nb::arg("version"));

  nb::class_<PyExportSpec>(module, "ExportSpec")
      .def_static("parse", &ParseSpec, nb::arg("text"), nb::arg("name"))
      .def_static("read", &ReadSpec, nb::arg("url"))
      .def_prop_ro("info_json", [](const PyExportSpec& spec) { return spec.spec.info_json(); })
      .def_prop_ro("num_scales", [](const PyExportSpec& spec) { return spec.spec.num_scales(); });
  module.def("default_export_spec", &DefaultSpec, nb::arg("labelmap"), nb::arg("version"),
             nb::arg("resolution"));

  module.def("export_shards", &Export, nb::arg("labelmap"), nb::arg("spec"), nb::arg("dest"),
             nb::arg("scales"), nb::arg("version"), nb::arg("threads"), nb::arg("format"),
             nb::arg("index"), nb::arg("overwrite"), nb::arg("progress") = nb::none(),
             nb::arg("cancel").none() = nb::none());

  nb::class_<PyShardReader>(module, "ArrowShardReader")
      .def(nb::init<const std::string&, bool>(), nb::arg("url"), nb::arg("read_whole"))
      .def_prop_ro("url", &PyShardReader::url)
      .def_prop_ro("is_file_format", &PyShardReader::is_file_format)
      .def_prop_ro("num_record_batches", &PyShardReader::num_record_batches)
      .def_prop_ro("index_form", &PyShardReader::index_form)
      .def("list_chunks", &PyShardReader::ListChunks)
      .def("get_chunk", &PyShardReader::GetChunk, nb::arg("x"), nb::arg("y"), nb::arg("z"))
      .def("get_block", &PyShardReader::GetBlock, nb::arg("x"), nb::arg("y"), nb::arg("z"),
           nb::arg("supervoxels"));

  nb::class_<PyExportedVolume>(module, "ExportedVolume")
      .def(nb::init<const std::string&>(), nb::arg("url"))
      .def_prop_ro("url", &PyExportedVolume::url)
      .def_prop_ro("num_scales", &PyExportedVolume::num_scales)
      .def("shape", &PyExportedVolume::Shape, nb::arg("scale"))
      .def("scale_key", &PyExportedVolume::ScaleKey, nb::arg("scale"))
      .def("read", &PyExportedVolume::Read, nb::arg("scale"), nb::arg("offset"), nb::arg("shape"),
           nb::arg("supervoxels"), nb::arg("progress") = nb::none(),
           nb::arg("cancel").none() = nb::none())
      .def("read_into", &PyExportedVolume::ReadInto, nb::arg("scale"), nb::arg("offset"),
           nb::arg("shape"), nb::arg("supervoxels"), nb::arg("out").noconvert());
}

}  // namespace chunkwise::python
