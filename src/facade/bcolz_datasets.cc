#include "chunkwise/facade/bcolz_datasets.h"

#include <algorithm>
#include <string>
#include <vector>

#include "chunkwise/core/index.h"
#include "chunkwise/store/file_store.h"
#include "formats/bcolz/carray.h"
#include "formats/bcolz/ctable.h"
#include "formats/bcolz/dataset.h"

namespace chunkwise {
namespace {

namespace bcolz = formats::bcolz;

bool IsBcolzKey(const std::string& key) {
  if (key == "__rootdirs__" || key == "meta/storage") return true;
  // A ctable whose creation was cut short: its columns are written before
  // __rootdirs__, so a column holding meta/storage marks it ours.
  const std::size_t slash = key.find('/');
  return slash != std::string::npos && key.substr(slash + 1) == "meta/storage";
}

// Something at `url` is replaced only when asked, and only when it is a bcolz dataset.
Status CheckReplaceable(const store::Store& store, std::string_view url, bool overwrite) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store.List(""));
  if (keys.empty()) return Status::Ok();
  if (!overwrite) {
    return Status::InvalidArgument(std::string(url) + " already holds " +
                                   std::to_string(keys.size()) + " keys (overwrite not requested)")
        .WithField("overwrite");
  }
  if (std::any_of(keys.begin(), keys.end(), IsBcolzKey)) return Status::Ok();
  return Status::InvalidArgument(std::string(url) +
                                 ": exists and is not a bcolz carray or ctable; not replacing it");
}

// Refused before any work: an http(s) store takes no writes.
Status CheckWritable(const store::Store& store, std::string_view url) {
  if (store.capabilities().writable) return Status::Ok();
  return Status::Unsupported(std::string(url) + ": read-only store; a bcolz dataset is written " +
                             "to a directory, file://, s3:// or gs://");
}

// bcolz's open() wants data/ directories a store never makes; object stores have none.
Status AddLocalDirectories(const store::Store& store) {
  const auto* directory = dynamic_cast<const store::FileStore*>(&store);
  if (directory == nullptr) return Status::Ok();
  return io::AddBcolzDataDirectories(directory->root());
}

// A killed writer's temporary files in a local dataset go before the next write.
Status RemoveDeadTemporaries(const store::Store& store) {
  const auto* directory = dynamic_cast<const store::FileStore*>(&store);
  if (directory == nullptr) return Status::Ok();
  return directory->RemoveDeadTemporaries().status();
}

Result<std::shared_ptr<store::Store>> OpenExisting(const Context& context, std::string_view url,
                                                   bool write) {
  Result<std::shared_ptr<store::Store>> opened =
      OpenStore(context, url, context.store_options(false));
  if (!opened.ok()) {
    if (opened.status().code() == StatusCode::kNotFound) {
      return Status::NotFound(std::string(url) + ": no such bcolz dataset");
    }
    return opened.status();
  }
  std::shared_ptr<store::Store> store = *std::move(opened);
  // By the values a dataset must have, not by listing: an http(s) store may not list.
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::uint64_t> carray,
                             store->Size("meta/storage"));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::uint64_t> ctable,
                             store->Size("__rootdirs__"));
  if (!carray && !ctable) {
    return Status::NotFound(std::string(url) + ": no bcolz carray or ctable there");
  }
  if (write) CHUNKWISE_RETURN_IF_ERROR(RemoveDeadTemporaries(*store));
  return store;
}

// `options` with the call's observer, cancellation and threads where it leaves them unset.
BcolzImportOptions WithCall(const Context& context, const CallOptions& call,
                            BcolzImportOptions options) {
  if (options.observer == nullptr) {
    options.observer = call.observer != nullptr ? call.observer : context.observer();
  }
  if (options.cancellation == nullptr) options.cancellation = &context.cancellation(call);
  if (options.threads == 0) options.threads = static_cast<int>(call.threads);
  return options;
}

Status CreateRows(const std::shared_ptr<store::Store>& store, const BcolzRows& rows,
                  const BcolzImportOptions& options, const bcolz::CallHooks& hooks) {
  bcolz::CarrayOptions carray_options;
  carray_options.cparams = {options.cparams.clevel, options.cparams.shuffle, options.cparams.cname,
                            options.cparams.quantize};
  carray_options.expectedlen = rows.shape[0];
  carray_options.chunklen = options.chunklen;
  carray_options.threads = options.threads;
  if (rows.dtype.is_structured()) {
    CHUNKWISE_ASSIGN_OR_RETURN(auto columns, bcolz::Ctable::ColumnsFor(rows.dtype, carray_options));
    CHUNKWISE_ASSIGN_OR_RETURN(auto table, bcolz::Ctable::Create(store, "", columns));
    table->set_hooks(hooks);
    CHUNKWISE_RETURN_IF_ERROR(table->Append(rows.dtype, rows.bytes));
    return table->Flush();
  }
  carray_options.dtype = rows.dtype;
  carray_options.atom_shape.assign(rows.shape.begin() + 1, rows.shape.end());
  CHUNKWISE_ASSIGN_OR_RETURN(auto carray, bcolz::Carray::Create(store, "", carray_options));
  carray->set_hooks(hooks);
  CHUNKWISE_RETURN_IF_ERROR(carray->Append(rows.bytes));
  return carray->Flush();
}

Status AppendRows(const std::shared_ptr<store::Store>& store, const BcolzRows& rows,
                  std::string_view url, const bcolz::CallHooks& hooks) {
  CHUNKWISE_ASSIGN_OR_RETURN(const bool ctable, bcolz::Ctable::IsCtable(*store, ""));
  if (ctable) {
    CHUNKWISE_ASSIGN_OR_RETURN(auto table, bcolz::Ctable::Open(store, "", bcolz::Mode::kAppend));
    table->set_hooks(hooks);
    CHUNKWISE_RETURN_IF_ERROR(table->Append(rows.dtype, rows.bytes));
    return table->Flush();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(auto carray, bcolz::Carray::Open(store, "", bcolz::Mode::kAppend));
  const std::vector<std::int64_t> row_shape(rows.shape.begin() + 1, rows.shape.end());
  if (rows.dtype.is_structured() || !(carray->dtype() == rows.dtype) ||
      carray->atom_shape() != row_shape) {
    return Status::InvalidArgument(std::string(url) + ": the carray holds rows of " +
                                   carray->dtype().ToDescr() + " and shape " +
                                   core::FormatShape(carray->atom_shape()) + "; the data's are " +
                                   rows.dtype.ToDescr() + " and " + core::FormatShape(row_shape));
  }
  carray->set_hooks(hooks);
  CHUNKWISE_RETURN_IF_ERROR(carray->Append(rows.bytes));
  return carray->Flush();
}

Status CheckRows(const BcolzRows& rows, std::string_view url) {
  if (rows.shape.empty()) {
    return Status::InvalidArgument(std::string(url) + ": bcolz holds rows; a 0-d array has none");
  }
  return Status::Ok();
}

// The dataset's length once written, with its data/ directories when local.
Result<std::int64_t> Finish(const std::shared_ptr<store::Store>& store, std::string_view url,
                            core::ProgressReporter& progress) {
  CHUNKWISE_RETURN_IF_ERROR(AddLocalDirectories(*store));
  Result<nlohmann::ordered_json> described = bcolz::DescribeDatasetJson(store, "");
  if (!described.ok()) return described.status().WithContext(url);
  progress.Finish();
  return (*described)["length"].get<std::int64_t>();
}

}  // namespace

Result<BcolzImportSummary> CreateBcolz(const Context& context, std::string_view url,
                                       const std::filesystem::path& input,
                                       const BcolzImportOptions& options, bool overwrite,
                                       const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "importing into " + std::string(url)));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable(*store, url));
  CHUNKWISE_RETURN_IF_ERROR(CheckReplaceable(*store, url, overwrite));
  CHUNKWISE_ASSIGN_OR_RETURN(
      BcolzImportSummary summary,
      io::CreateBcolzFromFile(input, store, "", WithCall(context, call, options)));
  CHUNKWISE_RETURN_IF_ERROR(AddLocalDirectories(*store));
  return summary;
}

Result<BcolzImportSummary> AppendBcolz(const Context& context, std::string_view url,
                                       const std::filesystem::path& input,
                                       const BcolzImportOptions& options, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "appending to " + std::string(url)));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenExisting(context, url, /*write=*/true));
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable(*store, url));
  CHUNKWISE_ASSIGN_OR_RETURN(
      BcolzImportSummary summary,
      io::AppendBcolzFromFile(input, store, "", WithCall(context, call, options)));
  CHUNKWISE_RETURN_IF_ERROR(AddLocalDirectories(*store));
  return summary;
}

Result<std::shared_ptr<store::Store>> OpenBcolz(const Context& context, std::string_view url) {
  return OpenExisting(context, url, /*write=*/false);
}

Result<std::int64_t> WriteBcolzRows(const Context& context, std::string_view url,
                                    const BcolzRows& rows, const BcolzImportOptions& options,
                                    bool overwrite, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(CheckRows(rows, url));
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "writing " + std::string(url)));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable(*store, url));
  CHUNKWISE_RETURN_IF_ERROR(CheckReplaceable(*store, url, overwrite));
  const std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "bcolz write", rows.bytes.size(), "B");
  const bcolz::CallHooks hooks{progress.get(), &context.cancellation(call)};
  CHUNKWISE_RETURN_IF_ERROR(CreateRows(store, rows, options, hooks).WithContext(url));
  return Finish(store, url, *progress);
}

Result<std::int64_t> AppendBcolzRows(const Context& context, std::string_view url,
                                     const BcolzRows& rows, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(CheckRows(rows, url));
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "appending to " + std::string(url)));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenExisting(context, url, /*write=*/true));
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable(*store, url));
  const std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "bcolz write", rows.bytes.size(), "B");
  const bcolz::CallHooks hooks{progress.get(), &context.cancellation(call)};
  CHUNKWISE_RETURN_IF_ERROR(AppendRows(store, rows, url, hooks));
  return Finish(store, url, *progress);
}

Result<core::NpyArray> ReadBcolz(const Context& context, std::string_view url,
                                 const BcolzReadOptions& options, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "reading " + std::string(url)));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store, OpenBcolz(context, url));
  bcolz::ReadRequest request{options.slice, options.columns, options.where};
  request.progress = [&context, &call](std::uint64_t total) {
    return context.StartProgress(call, "bcolz read", total, "B");
  };
  request.cancellation = &context.cancellation(call);
  Result<core::NpyArray> read = bcolz::ReadSelection(store, "", request);
  if (!read.ok()) return read.status().WithContext(url);
  return read;
}

Result<std::string> DescribeBcolz(const Context& context, std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store, OpenBcolz(context, url));
  return formats::bcolz::DescribeDataset(std::move(store), "");
}

Result<nlohmann::ordered_json> DescribeBcolzJson(const Context& context, std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store, OpenBcolz(context, url));
  return formats::bcolz::DescribeDatasetJson(std::move(store), "");
}

}  // namespace chunkwise
