#include "chunkwise/facade/vectors.h"

#include <algorithm>
#include <string>
#include <utility>

#include "chunkwise/formats/vectors/vector_store.h"
#include "facade/new_output_directory.h"
#include "formats/vectors/write_checks.h"

namespace chunkwise {

namespace vectors = formats::vectors;

namespace {

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

Result<VectorsWriteSummary> WriteVectors(const Context& context, std::string_view url,
                                         const VectorGeometry& geometry,
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
  write.layout = options.layout;
  CHUNKWISE_ASSIGN_OR_RETURN(write.store_options.pool, context.pool_for(*store, call));
  const std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "vectors write", geometry.positions.size(), "vertices");
  write.progress = progress.get();
  write.cancellation = &context.cancellation(call);
  Result<VectorsWriteSummary> written =
      vectors::WriteGeometry(std::move(store), "", geometry, write);
  if (!written.ok()) {
    new_directory.RemoveIfEmpty();
    return NamingUrl(written.status(), url);
  }
  progress->Finish();
  return written;
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
      std::vector<VectorsPyramidLevel> levels,
      vectors::BuildPyramid(store, {options.levels, options.storage, progress.get()}));
  progress->Finish();
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
  query.bbox = options.box;
  query.object_id = options.object_id;
  query.progress = progress.get();
  query.cancellation = &context.cancellation(call);
  Result<VectorsLevelGeometry> read = vectors::ReadGeometry(store, query);
  if (!read.ok()) return NamingUrl(read.status(), url);
  progress->Finish();
  return read;
}

Result<VectorsInfo> DescribeVectors(const Context& context, std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(vectors::VectorStore store, OpenVectorStore(context, url, {}));
  VectorsInfo info{store.metadata(), {}};
  CHUNKWISE_ASSIGN_OR_RETURN(info.levels, vectors::DescribeLevels(store));
  return info;
}

Result<std::vector<VectorsViolation>> ValidateVectors(const Context& context, std::string_view url,
                                                      int validation_level) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  return vectors::ValidateStore(std::move(store), "", validation_level);
}

}  // namespace chunkwise
