#include "pipelines/export/export_destination.h"

#include <system_error>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/file_io.h"

namespace chunkwise::pipelines::detail {
namespace fs = std::filesystem;

std::string ExportScaleDirName(int scale) {
  // Appended, not "s" + ...: GCC 12 warns falsely (-Wrestrict) on that form once inlined.
  std::string name = "s";
  name += std::to_string(scale);
  return name;
}

namespace {

Status CheckReplaceable(const fs::path& dest, bool overwrite) {
  std::error_code error;
  if (!fs::exists(dest, error)) return Status::Ok();
  if (!overwrite) {
    return Status::InvalidArgument(dest.string() + ": exists (pass --overwrite to replace it)");
  }
  if (!fs::is_directory(dest, error)) {
    return Status::InvalidArgument(dest.string() + ": exists and is not a directory");
  }
  const bool empty = fs::is_empty(dest, error);
  if (!empty && !fs::exists(dest / kExportInfoName, error)) {
    return Status::InvalidArgument(dest.string() +
                                   ": not an export (no info file); refusing to replace it");
  }
  return Status::Ok();
}

}  // namespace

Result<ExportDestination> ExportDestination::Begin(const fs::path& dest, bool overwrite) {
  CHUNKWISE_RETURN_IF_ERROR(CheckReplaceable(dest, overwrite));
  const fs::path absolute = fs::absolute(dest).lexically_normal();
  const fs::path target = absolute.has_filename() ? absolute : absolute.parent_path();
  std::error_code error;
  fs::create_directories(target.parent_path(), error);
  const fs::path staging = core::TemporarySibling(target);
  if (error || !fs::create_directory(staging, error) || error) {
    return Status::IOError(staging.string() + ": cannot create: " + error.message());
  }
  return ExportDestination(target, staging);
}

ExportDestination::ExportDestination(ExportDestination&& other) noexcept
    : dest_(std::move(other.dest_)), staging_(std::move(other.staging_)) {
  other.staging_.clear();
}

ExportDestination::~ExportDestination() {
  if (staging_.empty()) return;
  std::error_code error;
  fs::remove_all(staging_, error);
}

Status ExportDestination::Commit(const std::string& info, const std::string& log) {
  CHUNKWISE_RETURN_IF_ERROR(core::WriteFileAtomically(staging_ / kExportInfoName, AsBytes(info)));
  CHUNKWISE_RETURN_IF_ERROR(core::WriteFileAtomically(staging_ / kExportLogName, AsBytes(log)));
  std::error_code error;
  fs::path old;
  if (fs::exists(dest_, error)) {
    old = core::TemporarySibling(dest_);
    fs::rename(dest_, old, error);
    if (error) return Status::IOError(dest_.string() + ": cannot move aside: " + error.message());
  }
  fs::rename(staging_, dest_, error);
  if (error) {
    if (!old.empty()) fs::rename(old, dest_, error);
    return Status::IOError(dest_.string() + ": cannot rename the export into place");
  }
  staging_.clear();
  if (!old.empty()) fs::remove_all(old, error);
  return Status::Ok();
}

}  // namespace chunkwise::pipelines::detail
