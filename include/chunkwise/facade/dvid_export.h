// DVID labelmaps and export-shards by URL (pipelines/export_shards.h).
#ifndef CHUNKWISE_FACADE_DVID_EXPORT_H_
#define CHUNKWISE_FACADE_DVID_EXPORT_H_

#include <memory>
#include <string_view>

#include "chunkwise/facade/context.h"
#include "chunkwise/formats/dvid/ingest.h"
#include "chunkwise/formats/dvid/labelmap.h"
#include "chunkwise/pipelines/export_shards.h"
#include "chunkwise/pipelines/export_spec.h"

namespace chunkwise {

using Labelmap = formats::dvid::Labelmap;
using ExportSpec = pipelines::ExportSpec;
using ExportShardsOptions = pipelines::ExportShardsOptions;
using ExportSummary = pipelines::ExportSummary;

// The labelmap in the RocksDB database at `path` ("rocksdb://" optional);
// with `create`, a new empty one (the database created if missing). With
// `read_only` the database is opened without its write lock, beside a writer.
Result<std::unique_ptr<Labelmap>> OpenLabelmap(std::string_view path, bool create,
                                               bool read_only = false);

// The export spec (a neuroglancer info with sharded scales) at `url`.
Result<ExportSpec> ReadExportSpec(const Context& context, std::string_view url);

// Exports `labelmap` to `dest_url` as export_shards.h says; options.progress
// is the context's, options.workers 0 takes the context's threads. A local
// destination directory is created only by a successful export.
Result<ExportSummary> ExportShards(const Context& context, const Labelmap& labelmap,
                                   const ExportSpec& spec, std::string_view dest_url,
                                   ExportShardsOptions options = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_DVID_EXPORT_H_
