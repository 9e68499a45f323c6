// libFuzzer target: bcolz predicates evaluated on arbitrary column bytes. The
// first byte picks the column's dtype, the text up to the first NUL is the
// predicate, the rest is the column. Parse, Check and Evaluate must return a
// value or an error (never crash or read past the block), and a comparison
// must agree with its negation.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "formats/bcolz/predicate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise;
  using namespace chunkwise::formats::bcolz;
  static constexpr const char* kDtypes[] = {"|b1",    "<i1",    "<i2", "<i4", "<i8", "|u1",
                                            "<u2",    "<u4",    ">u8", "<f2", "<f4", ">f8",
                                            "<M8[D]", "<m8[s]", "|S3", "<U2"};
  if (size < 2) return 0;
  const char* descr = kDtypes[data[0] % std::size(kDtypes)];
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::size_t nul = rest.find('\0');
  if (nul == std::string_view::npos) return 0;
  const std::string text = "v " + std::string(rest.substr(0, nul));
  auto dtype = core::NpyDtype::FromTypestr(descr);
  auto predicate = Predicate::Parse(text);
  if (!dtype.ok() || !predicate.ok()) return 0;
  if (!predicate->Check({{"v", *dtype}}).ok()) return 0;
  const ByteView column(data + 2 + nul, size - 2 - nul);
  const std::size_t rows = column.size() / dtype->itemsize();
  if (rows == 0) return 0;
  const std::vector<std::uint8_t> mask =
      predicate->Evaluate({{"v", {*dtype, column, dtype->itemsize()}}}, rows);
  if (mask.size() != rows) std::abort();
  // The negation nests one level deeper and adds a term, past the parser's
  // bounds when the predicate is at one: that must be the parser's clear
  // error, not a crash.
  auto negated = Predicate::Parse("~(" + text + ")");
  if (!negated.ok()) {
    const std::string_view message = negated.status().message();
    if (message.find("nesting too deep") == std::string_view::npos &&
        message.find("more than 150 terms") == std::string_view::npos) {
      std::abort();
    }
    return 0;
  }
  const std::vector<std::uint8_t> opposite =
      negated->Evaluate({{"v", {*dtype, column, dtype->itemsize()}}}, rows);
  for (std::size_t i = 0; i < rows; ++i) {
    if (mask[i] > 1 || mask[i] == opposite[i]) std::abort();
  }
  return 0;
}
