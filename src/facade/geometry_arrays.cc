#include "chunkwise/facade/geometry_arrays.h"

#include <memory>
#include <string>

namespace chunkwise {

namespace vectors = formats::vectors;

Result<GeometryWriteSummary> WriteGeometryAt(const Context& context, std::string_view url,
                                             const Geometry& geometry,
                                             const GeometryWriteOptions& options,
                                             const CallOptions& call) {
  const std::string name(url);
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "writing " + name));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  vectors::WriteOptions write;
  write.chunk_shape = options.chunk_shape;
  write.overwrite = options.overwrite;
  CHUNKWISE_ASSIGN_OR_RETURN(write.store_options.pool, context.pool_for(*store, call));
  const std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "vectors write", geometry.positions.size(), "vertices");
  write.progress = progress.get();
  write.cancellation = &context.cancellation(call);
  Result<GeometryWriteSummary> written = vectors::WriteGeometry(store, "", geometry, write);
  if (!written.ok()) return written.status().WithContext(name);
  progress->Finish();
  return written;
}

Result<Geometry> ReadGeometryAt(const Context& context, std::string_view url,
                                const GeometryReadOptions& options, const CallOptions& call) {
  const std::string name(url);
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  vectors::VectorStoreOptions store_options;
  CHUNKWISE_ASSIGN_OR_RETURN(store_options.pool, context.pool_for(*store, call));
  Result<vectors::VectorStore> opened = vectors::VectorStore::Open(store, "", store_options);
  if (!opened.ok()) return opened.status().WithContext(name);
  // The chunks a query visits are known only inside the read: no total.
  const std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "vectors read", 0, "chunks");
  vectors::ReadQuery query;
  query.level = options.level;
  query.bbox = options.region;
  query.object_id = options.object_id;
  query.progress = progress.get();
  query.cancellation = &context.cancellation(call);
  Result<vectors::LevelGeometry> read = vectors::ReadGeometry(*opened, query);
  if (!read.ok()) return read.status().WithContext(name);
  progress->Finish();
  return std::move(read->geometry);
}

}  // namespace chunkwise
