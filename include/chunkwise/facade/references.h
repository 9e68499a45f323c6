// kerchunk/fsspec reference sets by URL: build them for a zarr array or
// group, a bcolz carray or DVID export shards, and write them as JSON or
// Parquet (formats/refs).
#ifndef CHUNKWISE_FACADE_REFERENCES_H_
#define CHUNKWISE_FACADE_REFERENCES_H_

#include <string>
#include <string_view>

#include "chunkwise/facade/context.h"
#include "chunkwise/formats/refs/reference_file.h"
#include "chunkwise/formats/refs/reference_set.h"

namespace chunkwise {

using ReferenceSet = formats::refs::ReferenceSet;
using ReferenceWriteOptions = formats::refs::ReferenceWriteOptions;
using ReferenceFormat = formats::refs::ReferenceFormat;

struct BuildReferencesOptions {
  // What each reference's URL starts with; empty: the source's absolute
  // path (local) or its URL, with a "/" after it.
  std::string url_base;
};

// References to every chunk of the source at `source_url`: a zarr v3 or v2
// array or group, a bcolz carray, DVID export shards, or one .arrow shard.
// Unsupported naming the format for other sources; DetectFormat's errors
// when there is none.
Result<ReferenceSet> BuildReferences(const Context& context, std::string_view source_url,
                                     const BuildReferencesOptions& options = {});

// Writes `set` to `output_url`: a JSON value, or a Parquet set (a directory
// of values) as options.format says. An existing output is refused unless
// options.overwrite.
Status WriteReferences(const Context& context, const ReferenceSet& set, std::string_view output_url,
                       const ReferenceWriteOptions& options);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_REFERENCES_H_
