#include "chunkwise/facade/vectors.h"

#include <algorithm>
#include <string>
#include <utility>

#include "facade/new_output_directory.h"
#include "formats/vectors/geometry_reader.h"
#include "formats/vectors/paths.h"
#include "formats/vectors/pyramid.h"
#include "formats/vectors/store_info.h"
#include "formats/vectors/validator.h"
#include "formats/vectors/vector_store.h"
#include "formats/vectors/write_checks.h"
#include "formats/vectors/writer.h"

namespace chunkwise {

namespace vectors = formats::vectors;

namespace {

// The facade's vector types mirror the format's field by field; enums keep
// the format's order (checked below).
static_assert(static_cast<int>(VectorsCrossLevelStorage::kImplicit) ==
              static_cast<int>(vectors::CrossLevelStorage::kImplicit));
static_assert(static_cast<int>(VectorsLayout::k0_9) ==
              static_cast<int>(vectors::LayoutVersion::k0_9));
static_assert(static_cast<int>(VectorsViolationKind::kOrphanVertex) ==
              static_cast<int>(vectors::ViolationKind::kOrphanVertex));

vectors::CrossLevelStorage ToFormat(VectorsCrossLevelStorage storage) {
  return static_cast<vectors::CrossLevelStorage>(storage);
}

VectorsCrossLevelStorage FromFormat(vectors::CrossLevelStorage storage) {
  return static_cast<VectorsCrossLevelStorage>(storage);
}

vectors::LayoutVersion ToFormat(VectorsLayout layout) {
  return static_cast<vectors::LayoutVersion>(layout);
}

VectorsLayout FromFormat(vectors::LayoutVersion layout) {
  return static_cast<VectorsLayout>(layout);
}

vectors::BoundingBox ToFormat(const VectorsBox& box) {
  return {box.min, box.max, box.exclusive_max};
}

VectorsRootMetadata FromFormat(const vectors::RootMetadata& root) {
  return {root.version,
          FromFormat(root.layout),
          root.chunk_shape,
          root.bounds_min,
          root.bounds_max,
          root.geometry_type,
          FromFormat(root.cross_level_storage),
          root.base_bin_shape,
          root.num_levels,
          root.links_convention,
          root.capabilities};
}

VectorsLevelInfo FromFormat(vectors::LevelInfo level) {
  const vectors::LevelMetadata& metadata = level.metadata;
  return {{metadata.level, metadata.vertex_count, metadata.arrays_present, metadata.bin_shape,
           metadata.parent_level},
          level.chunks,
          std::move(level.link_deltas),
          std::move(level.cross_deltas)};
}

VectorsViolation FromFormat(vectors::Violation violation) {
  return {violation.level, static_cast<VectorsViolationKind>(violation.kind),
          std::move(violation.path), std::move(violation.message)};
}

// `status` naming `url`, unless its message already does.
Status NamingUrl(const Status& status, std::string_view url) {
  if (status.ok() || status.message().find(url) != std::string_view::npos) return status;
  return status.WithContext(url);
}

// The store at `url`, its per-chunk work on the call's pool; errors name the URL.
Result<vectors::VectorStore> OpenVectorStore(const Context& context, std::string_view url,
                                             const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  vectors::VectorStoreOptions options;
  CHUNKWISE_ASSIGN_OR_RETURN(options.pool, context.pool_for(*store, call));
  Result<vectors::VectorStore> opened = vectors::VectorStore::Open(std::move(store), "", options);
  if (!opened.ok()) return NamingUrl(opened.status(), url);
  return opened;
}

}  // namespace

Result<VectorsBox> ParseRegionBox(std::string_view text) {
  CHUNKWISE_ASSIGN_OR_RETURN(const vectors::BoundingBox box, vectors::ParseRegionBox(text));
  return VectorsBox{box.min, box.max, box.exclusive_max};
}

std::string_view CrossLevelStorageName(VectorsCrossLevelStorage storage) {
  return vectors::CrossLevelStorageName(ToFormat(storage));
}

Result<VectorsCrossLevelStorage> ParseCrossLevelStorage(std::string_view name) {
  CHUNKWISE_ASSIGN_OR_RETURN(const vectors::CrossLevelStorage storage,
                             vectors::ParseCrossLevelStorage(name));
  return FromFormat(storage);
}

Result<VectorsLayout> ParseLayoutVersion(std::string_view name) {
  CHUNKWISE_ASSIGN_OR_RETURN(const vectors::LayoutVersion layout,
                             vectors::ParseLayoutVersion(name));
  return FromFormat(layout);
}

std::string FormatDelta(int delta) { return vectors::FormatDelta(delta); }

std::string_view ViolationKindName(VectorsViolationKind kind) {
  return vectors::ViolationKindName(static_cast<vectors::ViolationKind>(kind));
}

Result<VectorsWriteSummary> WriteVectors(const Context& context, std::string_view url,
                                         const VectorGeometry& geometry,
                                         const VectorsWriteOptions& options,
                                         const CallOptions& call) {
  return WriteVectorLevels(context, url, std::span(&geometry, 1), options, call);
}

Result<VectorsWriteSummary> WriteVectorLevels(const Context& context, std::string_view url,
                                              std::span<const VectorGeometry> levels,
                                              const VectorsWriteOptions& options,
                                              const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "writing " + std::string(url)));
  // Before the store is opened for writing, which makes its directory.
  const Status shape = vectors::CheckChunkShape(
      {options.chunk_shape[0], options.chunk_shape[1], options.chunk_shape[2]});
  if (!shape.ok()) return NamingUrl(shape, url);
  // A write refused after the store is open (a layout that cannot hold the
  // geometry) leaves no empty directory behind.
  const NewOutputDirectory new_directory(url);
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  vectors::WriteOptions write;
  write.chunk_shape = {options.chunk_shape[0], options.chunk_shape[1], options.chunk_shape[2]};
  write.overwrite = options.overwrite;
  write.layout = ToFormat(options.layout);
  CHUNKWISE_ASSIGN_OR_RETURN(write.store_options.pool, context.pool_for(*store, call));
  std::uint64_t vertices = 0;
  for (const VectorGeometry& level : levels) vertices += level.positions.size();
  const std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "vectors write", vertices, "vertices");
  write.progress = progress.get();
  write.cancellation = &context.cancellation(call);
  Result<vectors::WriteSummary> written =
      vectors::WriteGeometryLevels(std::move(store), "", levels, write);
  if (!written.ok()) {
    new_directory.RemoveIfEmpty();
    return NamingUrl(written.status(), url);
  }
  progress->Finish();
  return VectorsWriteSummary{written->vertices,
                             written->chunks,
                             {written->links.chunk_links, written->links.cross_chunk_links}};
}

Result<std::vector<VectorsPyramidLevel>> BuildVectorsPyramid(const Context& context,
                                                             std::string_view url,
                                                             const VectorsPyramidOptions& options,
                                                             const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(vectors::VectorStore store, OpenVectorStore(context, url, call));
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, std::string(url)));
  const std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "vectors pyramid",
                            static_cast<std::uint64_t>(std::max(0, options.levels - 1)), "levels");
  CHUNKWISE_ASSIGN_OR_RETURN(
      const std::vector<vectors::PyramidLevelSummary> built,
      vectors::BuildPyramid(store, {options.levels, ToFormat(options.storage), progress.get()}));
  progress->Finish();
  std::vector<VectorsPyramidLevel> levels;
  for (const vectors::PyramidLevelSummary& level : built) {
    levels.push_back({level.level, level.vertices, level.links, level.parent_links_in_chunk,
                      level.parent_links_across});
  }
  return levels;
}

Result<VectorsLevelGeometry> ReadVectors(const Context& context, std::string_view url,
                                         const VectorsReadOptions& options,
                                         const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(vectors::VectorStore store, OpenVectorStore(context, url, call));
  // The chunks a query visits are known only inside the read: no total.
  const std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "vectors read", 0, "chunks");
  vectors::ReadQuery query;
  query.level = options.level;
  if (options.box.has_value()) query.bbox = ToFormat(*options.box);
  query.object_id = options.object_id;
  query.progress = progress.get();
  query.cancellation = &context.cancellation(call);
  Result<vectors::LevelGeometry> read = vectors::ReadGeometry(store, query);
  if (!read.ok()) return NamingUrl(read.status(), url);
  progress->Finish();
  return VectorsLevelGeometry{std::move(read->geometry)};
}

Result<VectorsInfo> DescribeVectors(const Context& context, std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(vectors::VectorStore store, OpenVectorStore(context, url, {}));
  VectorsInfo info{FromFormat(store.metadata()), {}};
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<vectors::LevelInfo> levels,
                             vectors::DescribeLevels(store));
  for (vectors::LevelInfo& level : levels) info.levels.push_back(FromFormat(std::move(level)));
  return info;
}

Result<std::vector<VectorsViolation>> ValidateVectors(const Context& context, std::string_view url,
                                                      int validation_level) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<vectors::Violation> found,
                             vectors::ValidateStore(std::move(store), "", validation_level));
  std::vector<VectorsViolation> violations;
  for (vectors::Violation& violation : found) {
    violations.push_back(FromFormat(std::move(violation)));
  }
  return violations;
}

}  // namespace chunkwise
