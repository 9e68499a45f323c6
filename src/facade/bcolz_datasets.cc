#include "chunkwise/facade/bcolz_datasets.h"

#include <algorithm>
#include <string>
#include <vector>

#include "chunkwise/store/file_store.h"

namespace chunkwise {
namespace {

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

}  // namespace

Result<BcolzImportSummary> CreateBcolz(const Context& context, std::string_view url,
                                       const std::filesystem::path& input,
                                       const BcolzImportOptions& options, bool overwrite) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable(*store, url));
  CHUNKWISE_RETURN_IF_ERROR(CheckReplaceable(*store, url, overwrite));
  CHUNKWISE_ASSIGN_OR_RETURN(BcolzImportSummary summary,
                             io::CreateBcolzFromFile(input, store, "", options));
  CHUNKWISE_RETURN_IF_ERROR(AddLocalDirectories(*store));
  return summary;
}

Result<BcolzImportSummary> AppendBcolz(const Context& context, std::string_view url,
                                       const std::filesystem::path& input,
                                       const BcolzImportOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenExisting(context, url, /*write=*/true));
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable(*store, url));
  CHUNKWISE_ASSIGN_OR_RETURN(BcolzImportSummary summary,
                             io::AppendBcolzFromFile(input, store, "", options));
  CHUNKWISE_RETURN_IF_ERROR(AddLocalDirectories(*store));
  return summary;
}

Result<std::shared_ptr<store::Store>> OpenBcolz(const Context& context, std::string_view url) {
  return OpenExisting(context, url, /*write=*/false);
}

}  // namespace chunkwise
