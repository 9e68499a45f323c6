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

#include "chunkwise/facade/context.h"
#include "chunkwise/formats/bcolz/dataset.h"
#include "chunkwise/io/bcolz_files.h"

namespace chunkwise {

using BcolzImportOptions = io::BcolzImportOptions;
using BcolzImportSummary = io::BcolzImportSummary;

// Creates a carray or ctable at `url` from the array file `input`. Something
// already at `url` is refused (InvalidArgument naming it, "overwrite not
// requested") unless `overwrite`; even then only a bcolz dataset is replaced,
// never other keys.
Result<BcolzImportSummary> CreateBcolz(const Context& context, std::string_view url,
                                       const std::filesystem::path& input,
                                       const BcolzImportOptions& options, bool overwrite);

// Appends the rows of `input` to the dataset at `url` (io::AppendBcolzFromFile).
// NotFound naming the URL when no dataset is there.
Result<BcolzImportSummary> AppendBcolz(const Context& context, std::string_view url,
                                       const std::filesystem::path& input,
                                       const BcolzImportOptions& options);

// The store of the dataset at `url`, to be read. NotFound naming the URL
// when no carray or ctable is there.
Result<std::shared_ptr<store::Store>> OpenBcolz(const Context& context, std::string_view url);

// The dataset at `url` described: several lines of text (kind, shape, dtype,
// chunklen, cparams, chunks, sizes, each column of a ctable), or the same as
// one JSON object. OpenBcolz's errors.
Result<std::string> DescribeBcolz(const Context& context, std::string_view url);
Result<nlohmann::ordered_json> DescribeBcolzJson(const Context& context, std::string_view url);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_BCOLZ_DATASETS_H_
