#include "chunkwise/facade/precomputed_conversion.h"

#include <optional>
#include <string>

#include "chunkwise/facade/dvid_export.h"
#include "facade/dvid_export_access.h"

namespace chunkwise {
namespace {

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

ExportToPrecomputedOptions WithContext(const Context& context, const CallOptions& call,
                                       ExportToPrecomputedOptions options) {
  options.progress = call.progress_mode.value_or(context.progress_mode());
  if (call.threads != 0) options.threads = call.threads;
  if (options.threads == 0) options.threads = context.threads();
  return options;
}

}  // namespace

Result<ExportToPrecomputedSummary> ExportToPrecomputed(const Context& context,
                                                       const PrecomputedConversionUrls& urls,
                                                       ExportToPrecomputedOptions options,
                                                       const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(Conversion conversion, Open(context, urls, call));
  return pipelines::ExportToPrecomputed(conversion.source, "", std::move(conversion.spec),
                                        conversion.dest, "", WithContext(context, call, options));
}

Result<std::uint64_t> CountExportToPrecomputedShards(const Context& context,
                                                     const PrecomputedConversionUrls& urls,
                                                     const ExportToPrecomputedOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Conversion conversion, Open(context, urls));
  return pipelines::CountExportToPrecomputedShards(conversion.source, "", conversion.spec, options);
}

Status PrepareExportToPrecomputed(const Context& context, const PrecomputedConversionUrls& urls,
                                  const ExportToPrecomputedOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Conversion conversion, Open(context, urls));
  return pipelines::PrepareExportToPrecomputed(conversion.source, "", conversion.spec,
                                               conversion.dest, "", options);
}

Result<ExportToPrecomputedSummary> ExportToPrecomputedPart(const Context& context,
                                                           const PrecomputedConversionUrls& urls,
                                                           int part, int parts,
                                                           ExportToPrecomputedOptions options,
                                                           const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Conversion conversion, Open(context, urls, call));
  return pipelines::ExportToPrecomputedPart(conversion.source, "", conversion.spec, conversion.dest,
                                            "", {part, parts}, WithContext(context, call, options));
}

Result<ExportToPrecomputedSummary> PublishExportToPrecomputed(
    const Context& context, const PrecomputedConversionUrls& urls,
    const std::vector<ExportToPrecomputedSummary>& parts,
    const ExportToPrecomputedOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Conversion conversion, Open(context, urls));
  return pipelines::PublishExportToPrecomputed(conversion.source, "", conversion.spec,
                                               conversion.dest, "", parts, options);
}

}  // namespace chunkwise
