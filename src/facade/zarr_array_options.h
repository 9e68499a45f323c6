// What the facade's zarr entry points share, private to the facade: a spec
// as formats/zarr's layout, the options an array runs with, and a call's
// progress as a pipeline takes it.
#ifndef CHUNKWISE_FACADE_ZARR_ARRAY_OPTIONS_H_
#define CHUNKWISE_FACADE_ZARR_ARRAY_OPTIONS_H_

#include <string>
#include <string_view>

#include "chunkwise/core/progress.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/zarr_arrays.h"
#include "formats/zarr/array.h"
#include "formats/zarr/array_layout.h"

namespace chunkwise::internal {

// The layout `zarr create` builds metadata from (formats/zarr/array_layout.h):
// its codec shorthand is the spec's codecs with the spec's checksum added.
// InvalidArgument (field "checksum") for a checksum the codecs cannot carry,
// or one other than none beside codec documents.
Result<formats::zarr::ArrayLayout> LayoutOf(const ZarrArraySpec& spec);

// The metadata of `layout` with the spec's codec documents when it has them
// (the chain as given; `layout`'s codec shorthand is then cleared: no encoder
// choice, default encoders), else with `layout`'s codec shorthand.
Result<formats::zarr::ArrayMetadata> MetadataOf(formats::zarr::ArrayLayout& layout,
                                                const ZarrArraySpec& spec);

// An array's pool (the call's threads, else the context's for `store`),
// buffers, chunk cache, and the encoders for `codecs` (a shorthand; "" for none) and
// `encoders`.
Result<formats::zarr::ArrayOptions> ArrayOptionsOf(const Context& context,
                                                   const store::Store& store,
                                                   std::string_view codecs,
                                                   const ZarrWriteEncoders& encoders,
                                                   const CallOptions& call);

// A pipeline's progress options for one call: its mode and observer, else the context's.
core::ProgressOptions ProgressOptionsOf(const Context& context, const CallOptions& call,
                                        std::string label);

}  // namespace chunkwise::internal

#endif  // CHUNKWISE_FACADE_ZARR_ARRAY_OPTIONS_H_
