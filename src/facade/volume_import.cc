#include "chunkwise/facade/volume_import.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <utility>

#include "chunkwise/facade/store_registry.h"
#include "chunkwise/facade/zarr_import.h"
#include "core/memory_limit.h"
#include "facade/zarr_array_options.h"
#include "formats/ome/multiscales.h"
#include "io/tiff_stack.h"

namespace chunkwise {

namespace zarr = formats::zarr;

Result<VolumeSourceKind> DetectVolumeSource(std::string_view path_text) {
  const std::filesystem::path path(path_text);
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) {
    return Status::NotFound(std::string(path_text) + ": no such file or folder");
  }
  if (std::filesystem::is_directory(status)) return VolumeSourceKind::kTiff;
  if (io::HasTiffExtension(path)) return VolumeSourceKind::kTiff;
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".npy") return VolumeSourceKind::kNpy;
  return Status::InvalidArgument(std::string(path_text) +
                                 ": not a volume this can import (a .npy file, a .tif/.tiff "
                                 "file, or a folder of .tif/.tiff planes)");
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

// Copies the planes of `stack` into `array` one slab of grid chunks
// (shards) deep at a time, so that each write covers whole shards.
Status CopyPlanes(const Context& context, io::TiffStack& stack, zarr::Array& array,
                  const CallOptions& call, core::ProgressReporter* progress) {
  const core::Shape& shape = stack.shape();
  const core::Index depth = array.grid().chunk_shape()[0];
  const std::size_t plane_bytes = stack.plane_bytes();
  for (core::Index z = 0; z < shape[0];) {
    const core::Index rows = std::min(depth - z % depth, shape[0] - z);
    CHUNKWISE_RETURN_IF_ERROR(
        context.CheckCancelled(call, "importing, before plane " + std::to_string(z)));
    const std::uint64_t slab_bytes =
        core::SaturatingProduct(static_cast<std::uint64_t>(rows), plane_bytes);
    CHUNKWISE_RETURN_IF_ERROR(core::CheckAllocation(slab_bytes, "one slab of shards"));
    Bytes slab(static_cast<std::size_t>(slab_bytes));
    for (core::Index r = 0; r < rows; ++r) {
      CHUNKWISE_RETURN_IF_ERROR(stack.ReadPlane(
          z + r, std::span(slab).subspan(static_cast<std::size_t>(r) * plane_bytes, plane_bytes)));
    }
    const core::Coord origin{z, 0, 0};
    const core::Shape extent{rows, shape[1], shape[2]};
    const core::Region region = core::Region::FromOriginAndShape(origin, extent);
    CHUNKWISE_RETURN_IF_ERROR(array.Write(
        region, slab, {.progress = progress, .cancellation = &context.cancellation(call)}));
    z += rows;
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

Result<VolumeImport> ImportTiff(const Context& context, const std::filesystem::path& source,
                                std::string_view url, const ZarrArraySpec& spec,
                                const VolumeImportOptions& options, const CallOptions& call) {
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
  nlohmann::json group_attributes;
  if (ome) {
    CHUNKWISE_ASSIGN_OR_RETURN(group_attributes, OmeAttributes(names, *stack->physical_sizes()));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  CHUNKWISE_ASSIGN_OR_RETURN(
      zarr::ArrayOptions array_options,
      internal::ArrayOptionsOf(context, *store, layout.codec, options.encoders, call));
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
  const std::uint64_t total =
      core::SaturatingProduct(static_cast<std::uint64_t>(stack->shape()[0]), stack->plane_bytes());
  std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "import", total, "B");
  Status written = CopyPlanes(context, *stack, *array, call, progress.get());
  if (written.ok()) written = array->Publish();
  if (written.ok() && ome) written = zarr::PublishGroup(*store, "", 3, group_attributes);
  if (!written.ok()) {
    EraseOutput(*store);
    return written;
  }
  progress->Finish();
  std::string array_url(url);
  if (ome) array_url += (array_url.ends_with('/') ? "0" : "/0");
  return VolumeImport{*std::move(array), std::move(array_url), VolumeSourceKind::kTiff, ome};
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
  CHUNKWISE_ASSIGN_OR_RETURN(const VolumeSourceKind kind, DetectVolumeSource(source_path));
  if (kind == VolumeSourceKind::kNpy) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        ZarrArray array,
        ImportNpyAsZarrArray(context, source_path, url, spec, NpyOptions(options), call));
    return VolumeImport{std::move(array), std::string(url), kind, false};
  }
  return ImportTiff(context, std::filesystem::path(source_path), url, spec, options, call);
}

}  // namespace chunkwise
