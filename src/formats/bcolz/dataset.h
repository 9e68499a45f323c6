// A bcolz dataset (a carray or a ctable) at a prefix of a store, as a whole:
// rows selected by slice, columns and filter, and a description. What the
// `chunkwise bcolz read` and `info` commands do, kept in the library; files
// in and out are io/bcolz_files.h. Functions here are thread-compatible.
#ifndef CHUNKWISE_FORMATS_BCOLZ_DATASET_H_
#define CHUNKWISE_FORMATS_BCOLZ_DATASET_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/npy.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/store/store.h"

namespace chunkwise::formats::bcolz {

struct ReadRequest {
  std::string slice;                 // "a:b" over rows ("" = all; negatives count from the end).
  std::vector<std::string> columns;  // ctable columns to keep (empty = all).
  std::string where;                 // A Predicate (ctable only).
  // Made once the selection is known, given the bytes it reads (rows
  // scanned for a where); may be empty. Told of each chunk; finished on success.
  std::function<std::unique_ptr<core::ProgressReporter>(std::uint64_t total_bytes)> progress =
      nullptr;
  // Checked before each chunk (Cancelled); may be null.
  const core::Cancellation* cancellation = nullptr;
};

// Rows [first, second) of a dataset of `length` rows named by `slice`
// (ReadRequest::slice). InvalidArgument for a malformed slice.
Result<std::pair<std::int64_t, std::int64_t>> ParseRowSlice(std::string_view slice,
                                                            std::int64_t length);

// The selected rows of the dataset at `prefix` of `store` ("" or ending in
// "/"), as an array: the carray's shape and dtype, or a structured array of
// the columns. InvalidArgument for columns or where on a carray, a bad slice
// or predicate.
Result<core::NpyArray> ReadSelection(std::shared_ptr<store::Store> store, const std::string& prefix,
                                     const ReadRequest& request);

// Several lines describing the dataset at `prefix`: kind, shape, dtype,
// chunklen, cparams, chunk count, sizes, and for a ctable each column.
Result<std::string> DescribeDataset(std::shared_ptr<store::Store> store, const std::string& prefix);
// The same as one JSON object: {"kind": "carray" | "ctable", "length", and
// for a carray its shape, dtype, cparams, chunk count and sizes, for a
// ctable the same per column under "columns"; "attrs"}.
Result<nlohmann::ordered_json> DescribeDatasetJson(std::shared_ptr<store::Store> store,
                                                   const std::string& prefix);

}  // namespace chunkwise::formats::bcolz

#endif  // CHUNKWISE_FORMATS_BCOLZ_DATASET_H_
