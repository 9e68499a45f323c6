// bcolz carrays and ctables by URL: create, append, read and describe
// (io/bcolz_files.h over the store the URL names).
//
// On an object store (s3://, gs://) a dataset is its keys: meta/sizes,
// data/__0.blp, ...; downloaded into a directory it opens in bcolz itself.
// A local dataset also gets the empty data/ directories bcolz's open() wants.
#ifndef CHUNKWISE_FACADE_BCOLZ_DATASETS_H_
#define CHUNKWISE_FACADE_BCOLZ_DATASETS_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/npy.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/io/bcolz_files.h"

namespace chunkwise {

using BcolzImportOptions = io::BcolzImportOptions;
using BcolzImportSummary = io::BcolzImportSummary;

// Creates a carray or ctable at `url` from the array file `input`. Something
// already at `url` is refused (InvalidArgument naming it, "overwrite not
// requested") unless `overwrite`; even then only a bcolz dataset is replaced,
// never other keys. Where `options` leave them unset, the observer (row
// bytes), cancellation and threads are the call's, else the context's.
Result<BcolzImportSummary> CreateBcolz(const Context& context, std::string_view url,
                                       const std::filesystem::path& input,
                                       const BcolzImportOptions& options, bool overwrite,
                                       const CallOptions& call = {});

// Appends the rows of `input` to the dataset at `url` (io::AppendBcolzFromFile).
// NotFound naming the URL when no dataset is there. The call as CreateBcolz's.
Result<BcolzImportSummary> AppendBcolz(const Context& context, std::string_view url,
                                       const std::filesystem::path& input,
                                       const BcolzImportOptions& options,
                                       const CallOptions& call = {});

// The store of the dataset at `url`, to be read. NotFound naming the URL
// when no carray or ctable is there.
Result<std::shared_ptr<store::Store>> OpenBcolz(const Context& context, std::string_view url);

// The dataset at `url` described: several lines of text (kind, shape, dtype,
// chunklen, cparams, chunks, sizes, each column of a ctable), or the same as
// one JSON object. OpenBcolz's errors.
Result<std::string> DescribeBcolz(const Context& context, std::string_view url);
Result<nlohmann::ordered_json> DescribeBcolzJson(const Context& context, std::string_view url);

// Rows held in memory (a numpy array's bytes, C order): a structured dtype
// makes a ctable, one column per field; any other a carray of that dtype.
struct BcolzRows {
  core::NpyDtype dtype;
  std::vector<std::int64_t> shape;  // {rows, row shape...}.
  ByteView bytes;
};

// Creates a carray or ctable at `url` holding `rows`, refused as CreateBcolz
// refuses (something there, unless `overwrite`, and then only a bcolz
// dataset is replaced). options.cparams, chunklen and threads as for an
// import; progress counts the rows' bytes, and a cancelled write keeps the
// batches of chunks it finished. The dataset's length after it.
Result<std::int64_t> WriteBcolzRows(const Context& context, std::string_view url,
                                    const BcolzRows& rows, const BcolzImportOptions& options,
                                    bool overwrite, const CallOptions& call = {});
// Appends `rows` to the dataset at `url`: InvalidArgument naming the URL when
// their dtype or row shape is not the carray's (or a ctable's columns).
Result<std::int64_t> AppendBcolzRows(const Context& context, std::string_view url,
                                     const BcolzRows& rows, const CallOptions& call = {});

// What ReadBcolz selects.
struct BcolzReadOptions {
  std::string slice;                 // "a:b" over rows; "" is all.
  std::vector<std::string> columns;  // A ctable's columns to keep; empty is all.
  std::string where;                 // A ctable's predicate ("x > 3 & id == 1").
};

// The selected rows of the dataset at `url`: the carray's shape and dtype,
// or a structured array of the columns. Progress counts the bytes read (the
// rows scanned for `where`); Cancelled between chunks.
Result<core::NpyArray> ReadBcolz(const Context& context, std::string_view url,
                                 const BcolzReadOptions& options, const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_BCOLZ_DATASETS_H_
