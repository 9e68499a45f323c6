#include "chunkwise/facade/vectors_conversion.h"

#include <string>

namespace chunkwise {
namespace {

std::string_view WithoutTrailingSlash(std::string_view url) {
  while (url.size() > 1 && url.back() == '/') url.remove_suffix(1);
  return url;
}

}  // namespace

Result<VectorsWriteSummary> ConvertVectors(const Context& context, std::string_view source,
                                           std::string_view destination,
                                           const VectorsConvertOptions& options,
                                           const CallOptions& call) {
  // Overwriting the source would erase it before the copy is whole.
  if (WithoutTrailingSlash(source) == WithoutTrailingSlash(destination)) {
    return Status::InvalidArgument("converting " + std::string(source) +
                                   " onto itself: give another destination")
        .WithField("destination");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(VectorsInfo info, DescribeVectors(context, source));
  if (info.root.num_levels > 1) {
    return Status::Unsupported(std::string(source) + " has " +
                               std::to_string(info.root.num_levels) +
                               " levels: only single-level stores are converted (convert level "
                               "0 of a store without its pyramid, then build the pyramid again)");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(VectorsLevelGeometry read, ReadVectors(context, source, {}, call));
  Result<VectorsWriteSummary> written = WriteVectors(context, destination, read.geometry,
                                                     {.chunk_shape = info.root.chunk_shape,
                                                      .overwrite = options.overwrite,
                                                      .layout = options.layout},
                                                     call);
  if (!written.ok()) return written.status().WithContext("converting " + std::string(source));
  return written;
}

}  // namespace chunkwise
