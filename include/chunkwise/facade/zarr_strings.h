// Arrays of variable-length UTF-8 strings: zarr v3 data_type "string" with
// the vlen-utf8 codec and v2 dtype "|O" with a vlen-utf8 filter, which
// zarr-python 3 writes for numpy StringDType and str data. Their elements
// have no fixed size, so ZarrArray refuses them and these read them as text
// (docs/formats/zarr.md, "Variable-length strings"). Read only.
#ifndef CHUNKWISE_FACADE_ZARR_STRINGS_H_
#define CHUNKWISE_FACADE_ZARR_STRINGS_H_

#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/index.h"
#include "chunkwise/core/region.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"

namespace chunkwise {

struct ZarrStringArrayInfo {
  int zarr_format = 3;
  core::Shape shape;
  core::Shape chunks;
  std::string fill_value;  // What an element of a chunk not stored reads as.
};

// The string array at `url`. NotFound when no array is there; Unsupported
// naming the data type when it is not a vlen-utf8 string array, or the
// codecs when they are more than vlen-utf8 and bytes-to-bytes codecs.
Result<ZarrStringArrayInfo> DescribeZarrStringArray(const Context& context, std::string_view url,
                                                    const CallOptions& call = {});

// The elements of `region` of the string array at `url`, C order (UTF-8).
// DescribeZarrStringArray's errors; InvalidArgument when `region` is not
// inside the array; Corruption naming a chunk that is not vlen-utf8 text;
// Cancelled if the call was.
Result<std::vector<std::string>> ReadZarrStrings(const Context& context, std::string_view url,
                                                 const core::Region& region,
                                                 const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_ZARR_STRINGS_H_
