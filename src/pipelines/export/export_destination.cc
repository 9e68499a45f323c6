#include "pipelines/export/export_destination.h"

#include <algorithm>
#include <vector>

#include "chunkwise/core/bytes.h"

namespace chunkwise::pipelines::detail {

std::string ExportScaleName(int scale) {
  // Appended, not "s" + ...: GCC 12 warns falsely (-Wrestrict) on that form once inlined.
  std::string name = "s";
  name += std::to_string(scale);
  return name;
}

std::string ExportScalePrefix(int scale) { return ExportScaleName(scale) + "/"; }

namespace {

Status EraseAll(store::Store& store, const std::vector<std::string>& keys) {
  for (const std::string& key : keys) CHUNKWISE_RETURN_IF_ERROR(store.Erase(key));
  return Status::Ok();
}

}  // namespace

Result<ExportDestination> ExportDestination::Begin(std::shared_ptr<store::Store> store,
                                                   std::string prefix, bool overwrite,
                                                   bool resume) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> keys, store->List(prefix));
  const std::string marker = prefix + kExportIncompleteName;
  if (keys.empty()) {
    CHUNKWISE_RETURN_IF_ERROR(store->Set(marker, ByteView()));
    return ExportDestination(std::move(store), std::move(prefix));
  }
  const std::string info = prefix + kExportInfoName;
  const bool is_export = std::binary_search(keys.begin(), keys.end(), info);
  const bool unfinished = std::binary_search(keys.begin(), keys.end(), marker);
  if (!resume && !overwrite) {
    if (unfinished) {
      return Status::InvalidArgument(store->Describe(marker) +
                                     ": an unfinished export is there (overwrite not requested, "
                                     "resume not requested)")
          .WithField("resume");
    }
    return Status::InvalidArgument(store->Describe(is_export ? info : keys.front()) +
                                   ": exists (overwrite not requested)")
        .WithField("overwrite");
  }
  if (!is_export && !unfinished) {
    return Status::InvalidArgument(store->Describe(keys.front()) +
                                   ": not an export (no info beside it); refusing to " +
                                   (resume ? "resume into it" : "replace it"));
  }
  // Marked before the entry point goes, so a kill between the two still leaves a prefix
  // that is ours to replace; from then on it holds no export.
  CHUNKWISE_RETURN_IF_ERROR(store->Set(marker, ByteView()));
  CHUNKWISE_RETURN_IF_ERROR(store->Erase(info));
  if (!resume) {
    std::erase(keys, marker);
    CHUNKWISE_RETURN_IF_ERROR(EraseAll(*store, keys));
  }
  return ExportDestination(std::move(store), std::move(prefix));
}

ExportDestination::ExportDestination(ExportDestination&& other) noexcept
    : store_(std::move(other.store_)), prefix_(std::move(other.prefix_)) {
  other.store_.reset();
}

ExportDestination::~ExportDestination() {
  if (store_ == nullptr) return;
  // Best effort: the export's own error is the one reported.
  // The marker goes last, so a kill during this cleanup leaves the prefix still marked.
  Result<std::vector<std::string>> keys = store_->List(prefix_);
  if (!keys.ok()) return;
  const std::string marker = prefix_ + kExportIncompleteName;
  std::erase(*keys, marker);
  if (EraseAll(*store_, *keys).ok()) (void)store_->Erase(marker);
}

Status ExportDestination::Commit(const std::string& info, const std::string& log) {
  CHUNKWISE_RETURN_IF_ERROR(store_->Set(prefix_ + kExportLogName, AsBytes(log)));
  CHUNKWISE_RETURN_IF_ERROR(store_->Set(prefix_ + kExportInfoName, AsBytes(info)));
  CHUNKWISE_RETURN_IF_ERROR(store_->Erase(prefix_ + kExportIncompleteName));
  store_.reset();
  return Status::Ok();
}

}  // namespace chunkwise::pipelines::detail
