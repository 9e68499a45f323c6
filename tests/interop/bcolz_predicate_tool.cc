// bcolz_predicate_tool: the C++ half of the bcolz --where property test
// (tests/interop/python/bcolz_predicate_interop.py). One process answers
// thousands of predicates through the library path `bcolz read --where`
// takes (ReadSelection), where one CLI run per predicate would take minutes.
//
//   bcolz_predicate_tool CTABLE PREDICATES OUT
//
// PREDICATES holds one predicate per line. OUT gets one line per predicate:
// "OK <row> <row> ..." (the int64 column "row" of the selected rows) or
// "ERR <StatusCode> <message>".
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "chunkwise/store/file_store.h"
#include "formats/bcolz/dataset.h"

int main(int argc, char** argv) {
  using namespace chunkwise;
  if (argc != 4) {
    std::fprintf(stderr, "usage: bcolz_predicate_tool CTABLE PREDICATES OUT\n");
    return 2;
  }
  auto store = store::FileStore::Open(argv[1], {.create_root = false});
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  std::ifstream predicates(argv[2]);
  std::ofstream out(argv[3]);
  std::string line;
  while (std::getline(predicates, line)) {
    const formats::bcolz::ReadRequest request{"", {"row"}, line};
    Result<core::NpyArray> rows = formats::bcolz::ReadSelection(*store, "", request);
    if (!rows.ok()) {
      std::string message(rows.status().message());
      for (char& c : message) c = c == '\n' ? ' ' : c;
      out << "ERR " << StatusCodeName(rows.status().code()) << " " << message << "\n";
      continue;
    }
    out << "OK";
    for (std::size_t i = 0; i < rows->data.size() / 8; ++i) {
      std::int64_t row;
      std::memcpy(&row, rows->data.data() + 8 * i, 8);
      out << " " << row;
    }
    out << "\n";
  }
  return out.good() ? 0 : 1;
}
