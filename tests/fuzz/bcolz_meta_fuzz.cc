// libFuzzer target: the bcolz text parsers on arbitrary bytes: meta/storage,
// meta/sizes, __rootdirs__, __attrs__, dtype strings and dflt values, the
// ctable predicate grammar, and CSV tables. Each must return a value or an
// error, never crash; a parsed predicate must print and parse back to the
// same canonical text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "chunkwise/core/csv.h"
#include "formats/bcolz/meta.h"
#include "formats/bcolz/predicate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise;
  using namespace chunkwise::formats::bcolz;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto storage = ParseStorageMeta(text, "fuzz/meta/storage");
  if (storage.ok()) {
    (void)SerializeStorageMeta(*storage);
    (void)DfltToBytes(storage->dflt, storage->dtype);
    (void)ParseSizesMeta(text, "fuzz/meta/sizes", storage->dtype.itemsize());
  }
  (void)ParseSizesMeta(text, "fuzz/meta/sizes", 8);
  (void)ParseRootdirs(text, "fuzz/__rootdirs__");
  (void)ParseAttrs(text, "fuzz/__attrs__");
  if (auto dtype = DtypeFromString(text); dtype.ok()) {
    auto again = DtypeFromString(DtypeToString(*dtype));
    if (!again.ok() || !(*again == *dtype)) std::abort();
  }
  if (auto predicate = Predicate::Parse(text); predicate.ok()) {
    auto again = Predicate::Parse(predicate->ToString());
    if (!again.ok() || again->ToString() != predicate->ToString()) std::abort();
  }
  if (size < 4096) (void)core::ParseCsv(text, "fuzz.csv");
  return 0;
}
