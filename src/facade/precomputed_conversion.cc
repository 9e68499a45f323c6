#include "chunkwise/facade/precomputed_conversion.h"

#include <optional>
#include <string>

#include "chunkwise/facade/dvid_export.h"
#include "facade/dvid_export_access.h"
#include "facade/precomputed_types.h"
#include "pipelines/export_to_precomputed.h"

namespace chunkwise {
namespace {

namespace pipe = pipelines;

pipe::ExportToPrecomputedSummary ToPipeline(const ExportToPrecomputedSummary& summary) {
  pipe::ExportToPrecomputedSummary to;
  to.seconds = summary.seconds;
  for (const ExportToPrecomputedScaleSummary& scale : summary.scales) {
    to.scales.push_back({.key = scale.key,
                         .arrow_shards = scale.arrow_shards,
                         .shards_written = scale.shards_written,
                         .shards_kept = scale.shards_kept,
                         .blocks = scale.blocks,
                         .input_bytes = scale.input_bytes,
                         .output_bytes = scale.output_bytes,
                         .seconds = scale.seconds,
                         .sources = scale.sources});
  }
  return to;
}

ExportToPrecomputedSummary FromPipeline(pipe::ExportToPrecomputedSummary summary) {
  ExportToPrecomputedSummary to;
  to.seconds = summary.seconds;
  for (pipe::ExportToPrecomputedScaleSummary& scale : summary.scales) {
    to.scales.push_back({.key = std::move(scale.key),
                         .arrow_shards = scale.arrow_shards,
                         .shards_written = scale.shards_written,
                         .shards_kept = scale.shards_kept,
                         .blocks = scale.blocks,
                         .input_bytes = scale.input_bytes,
                         .output_bytes = scale.output_bytes,
                         .seconds = scale.seconds,
                         .sources = std::move(scale.sources)});
  }
  return to;
}

Result<ExportToPrecomputedSummary> FromPipeline(Result<pipe::ExportToPrecomputedSummary> summary) {
  if (!summary.ok()) return summary.status();
  return FromPipeline(*std::move(summary));
}

// The pipeline's options; progress stays quiet unless WithContext sets it.
pipe::ExportToPrecomputedOptions ToPipeline(const ExportToPrecomputedOptions& options) {
  pipe::ExportToPrecomputedOptions to;
  to.scales = options.scales;
  to.threads = options.threads;
  to.supervoxels = options.supervoxels;
  to.data_encoding = ToFormat(options.data_encoding);
  to.gzip_level = options.gzip_level;
  to.overwrite = options.overwrite;
  to.resume = options.resume;
  to.ranks = options.ranks;
  to.before_shard = options.before_shard;
  return to;
}

// The export's store, its spec (nullopt: the export's own info) and the
// destination's store: the pipeline's arguments.
struct Conversion {
  std::shared_ptr<const store::Store> source;
  std::optional<pipelines::ExportSpec> spec;
  std::shared_ptr<store::Store> dest;
};

Result<Conversion> Open(const Context& context, const PrecomputedConversionUrls& urls,
                        const CallOptions& call = {}) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(
      call, "converting " + std::string(urls.export_url) + " to precomputed"));
  Conversion conversion;
  CHUNKWISE_ASSIGN_OR_RETURN(conversion.source,
                             OpenStore(context, urls.export_url, context.store_options(false)));
  if (!urls.spec_url.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(const ExportSpec spec, ReadExportSpec(context, urls.spec_url));
    conversion.spec = DvidExportAccess::Held(spec);
  }
  if (urls.dest_url.empty()) return conversion;  // Counting needs no destination.
  CHUNKWISE_ASSIGN_OR_RETURN(conversion.dest,
                             OpenStore(context, urls.dest_url, context.store_options(true)));
  return conversion;
}

pipe::ExportToPrecomputedOptions WithContext(const Context& context, const CallOptions& call,
                                             const ExportToPrecomputedOptions& facade) {
  pipe::ExportToPrecomputedOptions options = ToPipeline(facade);
  options.progress = call.progress_mode.value_or(context.progress_mode());
  if (call.threads != 0) options.threads = call.threads;
  if (options.threads == 0) options.threads = context.threads();
  return options;
}

}  // namespace

std::string ExportToPrecomputedSummary::Format() const { return ToPipeline(*this).Format(); }

std::string ExportToPrecomputedSummary::ToJson() const { return ToPipeline(*this).ToJson(); }

Result<ExportToPrecomputedSummary> ExportToPrecomputedSummary::FromJson(std::string_view text) {
  return FromPipeline(pipe::ExportToPrecomputedSummary::FromJson(text));
}

Result<ExportToPrecomputedSummary> ExportToPrecomputed(const Context& context,
                                                       const PrecomputedConversionUrls& urls,
                                                       ExportToPrecomputedOptions options,
                                                       const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(Conversion conversion, Open(context, urls, call));
  return FromPipeline(pipelines::ExportToPrecomputed(conversion.source, "",
                                                     std::move(conversion.spec), conversion.dest,
                                                     "", WithContext(context, call, options)));
}

Result<std::uint64_t> CountExportToPrecomputedShards(const Context& context,
                                                     const PrecomputedConversionUrls& urls,
                                                     const ExportToPrecomputedOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Conversion conversion, Open(context, urls));
  return pipelines::CountExportToPrecomputedShards(conversion.source, "", conversion.spec,
                                                   ToPipeline(options));
}

Status PrepareExportToPrecomputed(const Context& context, const PrecomputedConversionUrls& urls,
                                  const ExportToPrecomputedOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Conversion conversion, Open(context, urls));
  return pipelines::PrepareExportToPrecomputed(conversion.source, "", conversion.spec,
                                               conversion.dest, "", ToPipeline(options));
}

Result<ExportToPrecomputedSummary> ExportToPrecomputedPart(const Context& context,
                                                           const PrecomputedConversionUrls& urls,
                                                           int part, int parts,
                                                           ExportToPrecomputedOptions options,
                                                           const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Conversion conversion, Open(context, urls, call));
  return FromPipeline(pipelines::ExportToPrecomputedPart(conversion.source, "", conversion.spec,
                                                         conversion.dest, "", {part, parts},
                                                         WithContext(context, call, options)));
}

Result<ExportToPrecomputedSummary> PublishExportToPrecomputed(
    const Context& context, const PrecomputedConversionUrls& urls,
    const std::vector<ExportToPrecomputedSummary>& parts,
    const ExportToPrecomputedOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Conversion conversion, Open(context, urls));
  std::vector<pipe::ExportToPrecomputedSummary> pipeline_parts;
  pipeline_parts.reserve(parts.size());
  for (const ExportToPrecomputedSummary& summary : parts) {
    pipeline_parts.push_back(ToPipeline(summary));
  }
  return FromPipeline(pipelines::PublishExportToPrecomputed(conversion.source, "", conversion.spec,
                                                            conversion.dest, "", pipeline_parts,
                                                            ToPipeline(options)));
}

}  // namespace chunkwise
