// Moving whole arrays between array files (.npy, .csv) and bcolz datasets:
// what the `chunkwise bcolz` commands do, kept in the library.
//
// A plain .npy becomes a carray (its rows are shape[0], the rest the row
// shape); a structured .npy or a CSV file with a header becomes a ctable,
// one column per field. Inputs are streamed in batches of whole chunks, so a
// .npy larger than memory imports in bounded memory (CSV and Fortran-order
// .npy files are read whole). Functions here are thread-compatible.
#ifndef CHUNKWISE_FORMATS_BCOLZ_ARRAY_IO_H_
#define CHUNKWISE_FORMATS_BCOLZ_ARRAY_IO_H_

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "chunkwise/core/npy.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/formats/bcolz/meta.h"
#include "chunkwise/store/store.h"

namespace chunkwise::formats::bcolz {

struct ImportOptions {
  Cparams cparams;            // For Create; Append keeps the dataset's own.
  std::int64_t chunklen = 0;  // For Create; 0 = bcolz's default from the row count.
  int threads = 0;            // Compressing threads (CarrayOptions); 0 = one per core.
  core::ProgressMode progress = core::ProgressMode::kQuiet;
};

struct ImportSummary {
  bool ctable = false;
  std::int64_t rows_added = 0;
  std::int64_t length = 0;        // Rows after the import.
  std::uint64_t input_bytes = 0;  // Bytes of row data imported.
};

// Creates a carray or ctable at the root of `store` (erasing what is there)
// from the array file `input`. InvalidArgument for a 0-d array or a dtype
// bcolz cannot hold; errors of the file readers, naming the file.
Result<ImportSummary> CreateFromArrayFile(const std::filesystem::path& input,
                                          std::shared_ptr<store::Store> store,
                                          const ImportOptions& options);
// Appends the rows of `input` to the dataset at the root of `store`. Its
// dtype and row shape must match (a CSV's columns are matched by name and
// converted: strings to the column's width, integers to floats);
// InvalidArgument naming the mismatch otherwise.
Result<ImportSummary> AppendFromArrayFile(const std::filesystem::path& input,
                                          std::shared_ptr<store::Store> store,
                                          const ImportOptions& options);

struct ReadRequest {
  std::string slice;                 // "a:b" over rows ("" = all; negatives count from the end).
  std::vector<std::string> columns;  // ctable columns to keep (empty = all).
  std::string where;                 // A Predicate (ctable only).
};

// The selected rows of the dataset at the root of `store`, as an array:
// the carray's shape and dtype, or a structured array of the columns.
// InvalidArgument for columns or where on a carray, a bad slice or predicate.
Result<core::NpyArray> ReadSelection(std::shared_ptr<store::Store> store,
                                     const ReadRequest& request);

// Writes the selection to `output` atomically: CSV when it ends in ".csv",
// else .npy. A carray selection without a filter is streamed to the .npy one
// chunk at a time (memory stays at one chunk); other selections are built
// in memory first. Returns the number of rows written. Errors as
// ReadSelection, plus IOError naming the output.
Result<std::int64_t> ExportSelection(std::shared_ptr<store::Store> store,
                                     const ReadRequest& request,
                                     const std::filesystem::path& output);

// Several lines describing the dataset: kind, shape, dtype, chunklen,
// cparams, chunk count, sizes, and for a ctable each column.
Result<std::string> DescribeDataset(std::shared_ptr<store::Store> store);

}  // namespace chunkwise::formats::bcolz

#endif  // CHUNKWISE_FORMATS_BCOLZ_ARRAY_IO_H_
