// bcolz datasets to and from array files (.npy, .csv): what the `chunkwise
// bcolz create`, `append` and `read` commands do, kept in the library.
//
// A plain .npy becomes a carray (its rows are shape[0], the rest the row
// shape); a structured .npy or a CSV file with a header becomes a ctable,
// one column per field. Inputs are streamed in batches of whole chunks, so a
// .npy larger than memory imports in bounded memory (CSV and Fortran-order
// .npy files are read whole). Functions here are thread-compatible.
#ifndef CHUNKWISE_IO_BCOLZ_FILES_H_
#define CHUNKWISE_IO_BCOLZ_FILES_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/store/store.h"

namespace chunkwise::io {

// The Blosc parameters a new dataset's chunks are compressed with
// (meta/storage's "cparams", docs/formats/bcolz.md).
struct BcolzCparams {
  int clevel = 5;             // 0..9.
  int shuffle = 1;            // 0 none, 1 byte, 2 bit (c-blosc's doshuffle).
  std::string cname = "lz4";  // A Blosc compressor name.
  int quantize = 0;           // Lossy float rounding by bcolz on write; readers ignore it.
};

struct BcolzImportOptions {
  BcolzCparams cparams;       // For Create; Append keeps the dataset's own.
  std::int64_t chunklen = 0;  // For Create; 0 = bcolz's default from the row count.
  int threads = 0;            // Compressing threads (CarrayOptions); 0 = one per core.
  core::ProgressMode progress = core::ProgressMode::kQuiet;
  core::ProgressObserver* observer = nullptr;  // Told of the row bytes done; may be null.
  // Checked before each batch of chunks; may be null. A cancelled import
  // keeps the batches it finished (whole chunks, counted in the dataset).
  const core::Cancellation* cancellation = nullptr;
};

struct BcolzImportSummary {
  bool ctable = false;
  std::int64_t rows_added = 0;
  std::int64_t length = 0;        // Rows after the import.
  std::uint64_t input_bytes = 0;  // Bytes of row data imported.
};

// Creates a carray or ctable at `prefix` of `store` (erasing what is there)
// from the array file `input`. InvalidArgument for a 0-d array or a dtype
// bcolz cannot hold; errors of the file readers, naming the file.
Result<BcolzImportSummary> CreateBcolzFromFile(const std::filesystem::path& input,
                                               std::shared_ptr<store::Store> store,
                                               const std::string& prefix,
                                               const BcolzImportOptions& options);
// Appends the rows of `input` to the dataset at `prefix` of `store`. Its
// dtype and row shape must match (a CSV's columns are matched by name and
// converted: strings to the column's width, integers to floats);
// InvalidArgument naming the mismatch otherwise.
Result<BcolzImportSummary> AppendBcolzFromFile(const std::filesystem::path& input,
                                               std::shared_ptr<store::Store> store,
                                               const std::string& prefix,
                                               const BcolzImportOptions& options);

// Which rows ExportBcolzSelection writes.
struct BcolzSelection {
  std::string slice;                 // "a:b" over rows ("" = all; negatives count from the end).
  std::vector<std::string> columns;  // A ctable's columns to keep (empty = all).
  std::string where;                 // A ctable's predicate ("x > 3 & id == 1").
};

// Writes the selection to `output` atomically: CSV when it ends in ".csv",
// else .npy. A carray selection without a filter is streamed to the .npy one
// chunk at a time (memory stays at one chunk); other selections are built
// in memory first. Returns the number of rows written. InvalidArgument for
// columns or where on a carray, a bad slice or predicate; IOError naming the output.
Result<std::int64_t> ExportBcolzSelection(std::shared_ptr<store::Store> store,
                                          const std::string& prefix,
                                          const BcolzSelection& selection,
                                          const std::filesystem::path& output);

// bcolz's open() refuses a carray whose data/ is not a directory, even one
// with no chunk file yet. A store has no directories (a FileStore makes them
// for the values it writes and prunes them once empty), so the format never
// makes one. This makes the missing ones of the dataset in the directory
// `root`: root/data for a carray, root/<column>/data for each column of a
// ctable (as __rootdirs__ names them). NotFound if `root` does not exist;
// IOError naming a directory it cannot make.
Status AddBcolzDataDirectories(const std::filesystem::path& root);

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_BCOLZ_FILES_H_
