// Fuzz target for the .npy reader: ParseNpy (magic, version, header length,
// the Python-literal header and the data size check) on arbitrary bytes, and
// NpyDtype::FromDescr on the same bytes as descr text. Neither may crash,
// hang or read out of bounds; whatever parses must serialize and parse back.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "chunkwise/core/check.h"
#include "chunkwise/core/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise::core;
  const chunkwise::ByteView bytes(data, size);
  chunkwise::Result<NpyArray> array = ParseNpy(bytes, "fuzz");
  if (array.ok()) {
    chunkwise::Result<NpyArray> again = ParseNpy(SerializeNpy(*array), "reserialized");
    CHUNKWISE_CHECK(again.ok());
    CHUNKWISE_CHECK(again->dtype == array->dtype && again->shape == array->shape);
    CHUNKWISE_CHECK(again->data == array->data);
    (void)ToCOrder(*array);
  }
  chunkwise::Result<NpyDtype> dtype = NpyDtype::FromDescr(chunkwise::AsChars(bytes));
  if (dtype.ok()) {
    chunkwise::Result<NpyDtype> again = NpyDtype::FromDescr(dtype->ToDescr());
    CHUNKWISE_CHECK(again.ok() && *again == *dtype);
  }
  return 0;
}
