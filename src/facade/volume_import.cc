#include "chunkwise/facade/volume_import.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "chunkwise/facade/store_registry.h"
#include "chunkwise/facade/zarr_import.h"
#include "chunkwise/io/npy_file.h"
#include "core/memory_limit.h"
#include "facade/new_output_directory.h"
#include "facade/zarr_array_access.h"
#include "facade/zarr_array_options.h"
#include "formats/n5/n5_dataset.h"
#include "formats/ome/multiscales.h"
#include "io/hdf5_dataset.h"
#include "io/tiff_stack.h"

namespace chunkwise {

namespace zarr = formats::zarr;

namespace {

bool IsFile(const std::filesystem::path& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

// The HDF5 file and dataset `source` names ("FILE.h5:/path", or an HDF5
// file alone, its dataset then `dataset`); nullopt for another kind of source.
Result<std::optional<io::Hdf5Source>> Hdf5SourceOf(std::string_view source,
                                                   const std::string& dataset) {
  std::optional<io::Hdf5Source> split;
  if (!IsFile(std::filesystem::path(source))) split = io::SplitHdf5Source(source);
  if (!dataset.empty()) {
    if (split && split->dataset != dataset) {
      return Status::InvalidArgument(std::string(source) + " names the dataset " + split->dataset +
                                     ", and the dataset " + dataset + " was asked for too")
          .WithField("dataset");
    }
    return std::optional(io::Hdf5Source{split ? split->file : std::string(source), dataset});
  }
  if (split) return split;
  if (io::HasHdf5Extension(std::filesystem::path(source))) {
    return std::optional(io::Hdf5Source{std::string(source), ""});
  }
  return std::optional<io::Hdf5Source>();
}

// True for "scheme://...": a URL, looked at through its store (ParseStoreUrl
// read a scheme off its front).
bool IsUrl(std::string_view source) {
  const Result<StoreUrl> parsed = ParseStoreUrl(source);
  return parsed.ok() && parsed->location.size() < source.size();
}

// A dataset inside an N5 container or a zarr group (a folder or a URL):
// the dataset's own folder or URL, `dataset` joined to `source`; nullopt
// when no dataset is named or `source` is an (HDF5) file.
std::optional<std::string> DatasetInContainer(std::string_view source, std::string_view dataset) {
  if (dataset.empty()) return std::nullopt;
  std::error_code error;
  if (!IsUrl(source) && !std::filesystem::is_directory(std::filesystem::path(source), error)) {
    return std::nullopt;
  }
  while (dataset.starts_with('/')) dataset.remove_prefix(1);
  std::string joined(source);
  if (!joined.ends_with('/')) joined += '/';
  return joined + std::string(dataset);
}

}  // namespace

Result<VolumeSourceKind> DetectVolumeSource(std::string_view path_text) {
  if (IsUrl(path_text)) {
    return Status::InvalidArgument(std::string(path_text) +
                                   ": a URL; its store says what it holds (an N5 dataset or a "
                                   "zarr array), not its name");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<io::Hdf5Source> hdf5, Hdf5SourceOf(path_text, ""));
  const std::filesystem::path path(hdf5 ? hdf5->file : path_text);
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) {
    return Status::NotFound(path.string() + ": no such file or folder");
  }
  if (hdf5) return VolumeSourceKind::kHdf5;
  if (std::filesystem::is_directory(status)) {
    if (IsFile(path / "attributes.json")) return VolumeSourceKind::kN5;
    if (IsFile(path / "zarr.json") || IsFile(path / ".zarray")) return VolumeSourceKind::kZarr;
    return VolumeSourceKind::kTiff;
  }
  if (io::HasTiffExtension(path)) return VolumeSourceKind::kTiff;
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".npy") return VolumeSourceKind::kNpy;
  return Status::InvalidArgument(std::string(path_text) +
                                 ": not a volume this can import (a .npy file, a .tif/.tiff "
                                 "file, a folder of .tif/.tiff planes, a dataset of an HDF5 "
                                 "file as FILE.h5:/path, an N5 dataset or a zarr array)");
}

namespace {

// The multiscales attributes of a one-level OME-Zarr image whose level "0"
// has dimensions `names` and voxels of `sizes`.
Result<nlohmann::json> OmeAttributes(const std::vector<std::string>& names,
                                     const io::PhysicalSizes& sizes) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<formats::ome::Axis> axes,
                             formats::ome::AxesFromNames(names, 3, ""));
  for (std::size_t d = 0; d < axes.size(); ++d) {
    if (axes[d].type == "space" && formats::ome::IsKnownUnit("space", sizes.units[d])) {
      axes[d].unit = sizes.units[d];
    }
  }
  formats::ome::Multiscale image;
  image.axes = std::move(axes);
  image.datasets.push_back({"0", sizes.scale});
  return formats::ome::MultiscalesAttributes(image);
}

// The names of the array's dimensions: the spec's when it names all three,
// else z, y, x (what OME-Zarr's axes are called too).
std::vector<std::string> DimensionNames(const ZarrArraySpec& spec) {
  std::vector<std::string> names;
  for (const std::optional<std::string>& name : spec.dimension_names) {
    if (name) names.push_back(*name);
  }
  if (names.size() != 3) names = {"z", "y", "x"};
  return names;
}

// A source read in runs of rows along its first dimension: its shape, the
// bytes of one row, and the call that reads `count` rows from `first` into
// a buffer of count × row_bytes. A 0-d source is one row.
struct RowSource {
  core::Shape shape;
  std::uint64_t row_bytes = 0;
  std::function<Status(core::Index first, core::Index count, std::span<std::uint8_t> out)> read;
  // Rows the source stores together (an N5 block's depth), or 0: a slab
  // then spans a whole multiple of the array's rows at least this deep, so
  // that no stored block is decoded for two slabs when it is deeper.
  core::Index stored_rows = 0;
};

// The rows of each slab, in order: one slab of grid chunks (shards) deep,
// or a whole multiple of that reaching the source's stored rows.
std::vector<std::pair<core::Index, core::Index>> SlabRows(const RowSource& source,
                                                          const zarr::Array& array) {
  const core::Shape& shape = source.shape;
  const core::Index total = shape.empty() ? 1 : shape[0];
  core::Index depth = shape.empty() ? 1 : array.grid().chunk_shape()[0];
  if (source.stored_rows > depth) depth *= (source.stored_rows + depth - 1) / depth;
  std::vector<std::pair<core::Index, core::Index>> slabs;
  for (core::Index z = 0; z < total;) {
    const core::Index rows = std::min(depth - z % depth, total - z);
    slabs.emplace_back(z, rows);
    z += rows;
  }
  return slabs;
}

Result<Bytes> ReadSlab(const RowSource& source, core::Index first, core::Index rows) {
  const std::uint64_t slab_bytes =
      core::SaturatingProduct(static_cast<std::uint64_t>(rows), source.row_bytes);
  CHUNKWISE_RETURN_IF_ERROR(core::CheckAllocation(slab_bytes, "one slab of shards"));
  Bytes slab(static_cast<std::size_t>(slab_bytes));
  CHUNKWISE_RETURN_IF_ERROR(source.read(first, rows, slab));
  return slab;
}

// The next slab, read on a thread of its own while the current one is
// compressed and written on the pool: a source's decoding (libhdf5's
// inflate, libtiff) runs on one thread and would otherwise be wall time of
// its own. Reads stay one at a time and in order, so libhdf5 (not thread
// safe) is never entered twice at once. Read inline where no thread starts.
class SlabPrefetch {
 public:
  SlabPrefetch(const RowSource& source, core::Index first, core::Index rows) {
    try {
      thread_ =
          std::thread([this, &source, first, rows] { slab_ = ReadSlab(source, first, rows); });
    } catch (const std::system_error&) {
      slab_ = ReadSlab(source, first, rows);
    }
  }
  SlabPrefetch(const SlabPrefetch&) = delete;
  SlabPrefetch& operator=(const SlabPrefetch&) = delete;
  ~SlabPrefetch() { Wait(); }

  Result<Bytes> Take() {
    Wait();
    return std::move(slab_);
  }

 private:
  void Wait() {
    if (thread_.joinable()) thread_.join();
  }

  Result<Bytes> slab_ = Status::Internal("slab not read");
  std::thread thread_;
};

// Copies `source` into `array` a slab at a time (SlabRows), so that each
// write covers whole shards and memory stays at two slabs (one where two
// would take more than a quarter of the process's memory: then there is
// no read ahead).
Status CopySlabs(const Context& context, const RowSource& source, zarr::Array& array,
                 const CallOptions& call, core::ProgressReporter* progress) {
  const std::vector<std::pair<core::Index, core::Index>> slabs = SlabRows(source, array);
  core::Index deepest = 0;
  for (const auto& [first, rows] : slabs) deepest = std::max(deepest, rows);
  const bool read_ahead =
      slabs.size() > 1 &&
      core::SaturatingProduct(2 * static_cast<std::uint64_t>(deepest), source.row_bytes) <=
          core::ProcessMemoryLimit() / 4;
  std::unique_ptr<SlabPrefetch> next;
  for (std::size_t i = 0; i < slabs.size(); ++i) {
    const auto [z, rows] = slabs[i];
    CHUNKWISE_RETURN_IF_ERROR(
        context.CheckCancelled(call, "importing, before row " + std::to_string(z)));
    Result<Bytes> slab = next ? next->Take() : ReadSlab(source, z, rows);
    next.reset();
    CHUNKWISE_RETURN_IF_ERROR(slab.status());
    if (read_ahead && i + 1 < slabs.size()) {
      next = std::make_unique<SlabPrefetch>(source, slabs[i + 1].first, slabs[i + 1].second);
    }
    const core::Shape& shape = source.shape;
    core::Coord origin(shape.size(), 0);
    core::Shape extent = shape;
    if (!shape.empty()) {
      origin[0] = z;
      extent[0] = rows;
    }
    const core::Region region = core::Region::FromOriginAndShape(origin, extent);
    CHUNKWISE_RETURN_IF_ERROR(array.Write(
        region, *slab, {.progress = progress, .cancellation = &context.cancellation(call)}));
  }
  return Status::Ok();
}

// Erases every key under the destination: what a failed import wrote (it
// began only on an empty destination or one it was asked to replace).
void EraseOutput(store::Store& store) {
  Result<std::vector<std::string>> keys = store.List("");
  if (!keys.ok()) return;
  for (const std::string& key : *keys) (void)store.Erase(key);
}

// Writes `source` as a new array with `metadata` at `url`, or at "0" in a
// new OME-Zarr image group with `ome_attributes` when given: published
// whole at the end, or erased on failure.
Result<VolumeImport> WriteNewVolume(const Context& context, std::string_view url,
                                    zarr::ArrayMetadata metadata, std::string_view codec,
                                    const std::optional<nlohmann::json>& ome_attributes,
                                    const RowSource& source, VolumeSourceKind kind,
                                    const VolumeImportOptions& options, const CallOptions& call) {
  const bool ome = ome_attributes.has_value();
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  CHUNKWISE_ASSIGN_OR_RETURN(
      zarr::ArrayOptions array_options,
      internal::ArrayOptionsOf(context, *store, codec, options.encoders, call));
  const std::string prefix = ome ? "0" : "";
  if (ome) {
    CHUNKWISE_RETURN_IF_ERROR(zarr::CreateUnpublishedGroup(*store, "", options.overwrite));
  }
  Result<zarr::Array> array = zarr::Array::CreateUnpublished(
      store, prefix, std::move(metadata), options.overwrite || ome, std::move(array_options));
  if (!array.ok()) {
    if (ome) EraseOutput(*store);
    return array.status();
  }
  const std::uint64_t rows = source.shape.empty() ? 1 : static_cast<std::uint64_t>(source.shape[0]);
  std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "import", core::SaturatingProduct(rows, source.row_bytes), "B");
  Status written = CopySlabs(context, source, *array, call, progress.get());
  if (written.ok()) written = array->Publish();
  if (written.ok() && ome) written = zarr::PublishGroup(*store, "", 3, *ome_attributes);
  if (!written.ok()) {
    EraseOutput(*store);
    return written;
  }
  progress->Finish();
  std::string array_url(url);
  if (ome) array_url += (array_url.ends_with('/') ? "0" : "/0");
  return VolumeImport{ZarrArrayAccess::Wrap(*std::move(array)), std::move(array_url), kind, ome};
}

// WriteNewVolume, and the destination's directory removed when the import
// made it and failed (its keys are erased already).
Result<VolumeImport> WriteVolume(const Context& context, std::string_view url,
                                 zarr::ArrayMetadata metadata, std::string_view codec,
                                 const std::optional<nlohmann::json>& ome_attributes,
                                 const RowSource& source, VolumeSourceKind kind,
                                 const VolumeImportOptions& options, const CallOptions& call) {
  const NewOutputDirectory new_directory(url);
  Result<VolumeImport> written = WriteNewVolume(context, url, std::move(metadata), codec,
                                                ome_attributes, source, kind, options, call);
  if (!written.ok()) new_directory.RemoveIfEmpty();
  return written;
}

Result<VolumeImport> ImportTiff(const Context& context, const std::filesystem::path& source,
                                std::string_view url, const ZarrArraySpec& spec,
                                const VolumeImportOptions& options, const CallOptions& call) {
  if (spec.chunks.empty()) {
    return Status::InvalidArgument(source.string() +
                                   ": a TIFF stack's import needs a chunk shape (only an HDF5 "
                                   "or N5 dataset or a zarr array brings chunks of its own)")
        .WithField("chunk_shape");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<io::TiffStack> stack, io::TiffStack::Open(source));
  const bool ome = stack->physical_sizes().has_value();
  if (ome && spec.zarr_format != 3) {
    return Status::InvalidArgument(source.string() +
                                   ": an OME-TIFF's physical sizes are written as OME-Zarr 0.5, "
                                   "which is zarr v3; zarr v" +
                                   std::to_string(spec.zarr_format) + " was asked for")
        .WithField("zarr_format");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayLayout layout, internal::LayoutOf(spec));
  layout.shape = stack->shape();
  layout.data_type = stack->data_type();
  std::vector<std::string> names = DimensionNames(spec);
  if (ome) layout.dimension_names.assign(names.begin(), names.end());
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayMetadata metadata, internal::MetadataOf(layout, spec));
  std::optional<nlohmann::json> group_attributes;
  if (ome) {
    CHUNKWISE_ASSIGN_OR_RETURN(group_attributes, OmeAttributes(names, *stack->physical_sizes()));
  }
  const std::size_t plane_bytes = stack->plane_bytes();
  RowSource planes{
      stack->shape(), plane_bytes,
      [&stack, plane_bytes](core::Index first, core::Index count,
                            std::span<std::uint8_t> out) -> Status {
        for (core::Index r = 0; r < count; ++r) {
          CHUNKWISE_RETURN_IF_ERROR(stack->ReadPlane(
              first + r, out.subspan(static_cast<std::size_t>(r) * plane_bytes, plane_bytes)));
        }
        return Status::Ok();
      }};
  return WriteVolume(context, url, std::move(metadata), layout.codec, group_attributes, planes,
                     VolumeSourceKind::kTiff, options, call);
}

// The chunk an HDF5 import writes when the spec names none: the dataset's
// own (its writer chose them for how it is read), else about 1 MiB cut from
// the whole shape by halving its longest dimension.
core::Shape DefaultChunks(const io::Hdf5Dataset& dataset) {
  if (dataset.chunks()) return *dataset.chunks();
  constexpr std::uint64_t kTargetBytes = 1 << 20;
  core::Shape chunk;
  for (const core::Index extent : dataset.shape())
    chunk.push_back(std::max<core::Index>(1, extent));
  const auto bytes = [&chunk, &dataset] {
    std::uint64_t product = dataset.data_type().size();
    for (const core::Index extent : chunk) {
      product = core::SaturatingProduct(product, static_cast<std::uint64_t>(extent));
    }
    return product;
  };
  while (bytes() > kTargetBytes) {
    core::Index& longest = *std::max_element(chunk.begin(), chunk.end());
    longest = (longest + 1) / 2;
  }
  return chunk;
}

// The source's attributes with the spec's over them (the caller's words win).
nlohmann::json MergedAttributes(const nlohmann::json& source, const ZarrArraySpec& spec) {
  if (!spec.attributes.is_object()) return spec.attributes;  // Refused by the metadata, naming it.
  nlohmann::json merged = source;
  for (const auto& [name, value] : spec.attributes.items()) merged[name] = value;
  return merged;
}

Result<VolumeImport> ImportHdf5(const Context& context, const io::Hdf5Source& source,
                                std::string_view url, const ZarrArraySpec& spec,
                                const VolumeImportOptions& options, const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<io::Hdf5Dataset> dataset,
                             io::Hdf5Dataset::Open(source.file, source.dataset));
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayLayout layout, internal::LayoutOf(spec));
  layout.shape = dataset->shape();
  layout.data_type = dataset->data_type();
  if (layout.chunk_shape.empty()) layout.chunk_shape = DefaultChunks(*dataset);
  layout.attributes = MergedAttributes(dataset->attributes(), spec);
  Result<zarr::ArrayMetadata> metadata = internal::MetadataOf(layout, spec);
  if (!metadata.ok()) return metadata.status().WithContext(dataset->name());
  io::Hdf5Dataset& rows = *dataset;
  RowSource source_rows{rows.shape(), rows.row_bytes(),
                        [&rows](core::Index first, core::Index count, std::span<std::uint8_t> out) {
                          return rows.ReadRows(first, count, out);
                        }};
  return WriteVolume(context, url, *std::move(metadata), layout.codec, std::nullopt, source_rows,
                     VolumeSourceKind::kHdf5, options, call);
}

Result<VolumeImport> ImportN5(const Context& context, std::string_view source, std::string_view url,
                              const ZarrArraySpec& spec, const VolumeImportOptions& options,
                              const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, source, context.store_options(false)));
  const std::shared_ptr<store::Store> source_store = store;
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<formats::n5::N5Dataset> dataset,
                             formats::n5::N5Dataset::Open(std::move(store)));
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayLayout layout, internal::LayoutOf(spec));
  layout.shape = dataset->shape();
  layout.data_type = dataset->data_type();
  if (layout.chunk_shape.empty()) layout.chunk_shape = dataset->chunks();
  layout.attributes = MergedAttributes(dataset->attributes().other, spec);
  Result<zarr::ArrayMetadata> metadata = internal::MetadataOf(layout, spec);
  if (!metadata.ok()) return metadata.status().WithContext(dataset->name());
  CHUNKWISE_ASSIGN_OR_RETURN(const std::shared_ptr<core::ThreadPool> pool,
                             context.pool_for(*source_store, call));
  const formats::n5::N5Dataset& blocks = *dataset;
  core::ThreadPool* const decoders = pool.get();
  RowSource rows{
      blocks.shape(), blocks.row_bytes(),
      [&blocks, decoders](core::Index first, core::Index count, std::span<std::uint8_t> out) {
        return blocks.ReadRows(first, count, out, decoders);
      },
      blocks.chunks().empty() ? 0 : blocks.chunks()[0]};
  return WriteVolume(context, url, *std::move(metadata), layout.codec, std::nullopt, rows,
                     VolumeSourceKind::kN5, options, call);
}

// InvalidArgument naming the field the spec sets that a zarr array's copy
// keeps from its source (ConvertZarrArray takes a layout, not metadata).
Status CheckZarrSpec(std::string_view source, const ZarrArraySpec& spec) {
  const auto kept = [&](std::string_view what, std::string_view field) {
    return Status::InvalidArgument(std::string(source) + ": a zarr array's import keeps its own " +
                                   std::string(what) + "; the copy cannot set them")
        .WithField(field);
  };
  if (spec.fill_value) return kept("fill value", "fill_value");
  if (!spec.dimension_names.empty()) return kept("dimension names", "dimension_names");
  if (!spec.attributes.is_object() || !spec.attributes.empty()) {
    return kept("attributes", "attributes");
  }
  if (!spec.codec_documents.is_null()) {
    return Status::InvalidArgument(std::string(source) +
                                   ": a zarr array's import takes codecs as a shorthand "
                                   "(\"zstd:3\"), not as codec documents")
        .WithField("codecs");
  }
  return Status::Ok();
}

// A zarr array in: ConvertZarrArray's copy with the spec's layout. What a
// failed copy wrote is erased when the URL held nothing before (an array
// that was there is the copy's to replace or keep, not ours to erase).
Result<VolumeImport> ImportZarr(const Context& context, std::string_view source,
                                std::string_view url, const ZarrArraySpec& spec,
                                const VolumeImportOptions& options, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(CheckZarrSpec(source, spec));
  ZarrConversionLayout layout;
  if (!spec.chunks.empty()) layout.chunks = spec.chunks;
  layout.shards = spec.shards;
  layout.codecs = spec.codecs.ToShorthand();
  layout.index_location = spec.index_location;
  layout.zarr_format = spec.zarr_format;
  const NewOutputDirectory new_directory(url);
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> destination,
                             OpenStore(context, url, context.store_options(true)));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> before, destination->List(""));
  Result<ZarrArray> copied = ConvertZarrArray(context, source, url, layout,
                                              {.checksum = spec.checksum,
                                               .overwrite = options.overwrite,
                                               .encoders = options.encoders,
                                               .before_object = {}},
                                              call);
  if (!copied.ok()) {
    if (before.empty()) EraseOutput(*destination);
    new_directory.RemoveIfEmpty();
    return copied.status();
  }
  return VolumeImport{*std::move(copied), std::string(url), VolumeSourceKind::kZarr, false};
}

// What the store at `url` holds: an N5 dataset (attributes.json) or a zarr
// array (zarr.json, .zarray); InvalidArgument naming the URL otherwise.
Result<VolumeSourceKind> DetectStoreVolume(const Context& context, std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  const auto holds = [&store](std::string_view key) -> Result<bool> {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::uint64_t> size, store->Size(key));
    return size.has_value();
  };
  CHUNKWISE_ASSIGN_OR_RETURN(const bool n5, holds("attributes.json"));
  if (n5) return VolumeSourceKind::kN5;
  CHUNKWISE_ASSIGN_OR_RETURN(const bool v3, holds("zarr.json"));
  CHUNKWISE_ASSIGN_OR_RETURN(const bool v2, holds(".zarray"));
  if (v3 || v2) return VolumeSourceKind::kZarr;
  return Status::InvalidArgument(std::string(url) +
                                 ": neither an N5 dataset (attributes.json) nor a zarr array "
                                 "(zarr.json, .zarray); a URL imports only those");
}

// InvalidArgument (field chunk_shape) for a .npy of one or more dimensions
// with no chunk shape: only an HDF5 or N5 dataset or a zarr array brings
// chunks of its own.
Status CheckNpyChunks(std::string_view path, const ZarrArraySpec& spec) {
  if (!spec.chunks.empty()) return Status::Ok();
  CHUNKWISE_ASSIGN_OR_RETURN(const core::NpyHeader header, io::ReadNpyHeader(path));
  if (header.shape.empty()) return Status::Ok();  // 0-d: the empty chunk is its chunk.
  return Status::InvalidArgument(std::string(path) +
                                 ": a .npy file's import needs a chunk shape (only an HDF5 "
                                 "or N5 dataset or a zarr array brings chunks of its own)")
      .WithField("chunk_shape");
}

ZarrImportOptions NpyOptions(const VolumeImportOptions& options) {
  ZarrImportOptions npy;
  npy.overwrite = options.overwrite;
  npy.encoders = options.encoders;
  return npy;
}

}  // namespace

Result<VolumeImport> ImportVolumeAsZarrArray(const Context& context, std::string_view source_path,
                                             std::string_view url, const ZarrArraySpec& spec,
                                             const VolumeImportOptions& options,
                                             const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "importing " + std::string(source_path)));
  if (const std::optional<std::string> inside = DatasetInContainer(source_path, options.dataset)) {
    VolumeImportOptions named = options;
    named.dataset.clear();
    return ImportVolumeAsZarrArray(context, *inside, url, spec, named, call);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<io::Hdf5Source> hdf5,
                             Hdf5SourceOf(source_path, options.dataset));
  if (hdf5) return ImportHdf5(context, *hdf5, url, spec, options, call);
  CHUNKWISE_ASSIGN_OR_RETURN(const VolumeSourceKind kind,
                             IsUrl(source_path) ? DetectStoreVolume(context, source_path)
                                                : DetectVolumeSource(source_path));
  if (kind == VolumeSourceKind::kN5) {
    return ImportN5(context, source_path, url, spec, options, call);
  }
  if (kind == VolumeSourceKind::kZarr) {
    return ImportZarr(context, source_path, url, spec, options, call);
  }
  if (kind == VolumeSourceKind::kNpy) {
    CHUNKWISE_RETURN_IF_ERROR(CheckNpyChunks(source_path, spec));
    CHUNKWISE_ASSIGN_OR_RETURN(
        ZarrArray array,
        ImportNpyAsZarrArray(context, source_path, url, spec, NpyOptions(options), call));
    return VolumeImport{std::move(array), std::string(url), kind, false};
  }
  return ImportTiff(context, std::filesystem::path(source_path), url, spec, options, call);
}

}  // namespace chunkwise
