// The output directory of export-shards, made whole or not at all.
//
// Begin applies the --overwrite rule and creates a staging directory, a
// temporary sibling of DEST; the export writes into it; Commit adds `info`
// and `export.log` and renames it to DEST (an existing export moves aside
// first and is removed after). Dropping a destination that was not committed
// removes the staging directory, so an error leaves DEST as it was.
#ifndef CHUNKWISE_SRC_PIPELINES_EXPORT_EXPORT_DESTINATION_H_
#define CHUNKWISE_SRC_PIPELINES_EXPORT_EXPORT_DESTINATION_H_

#include <filesystem>
#include <string>

#include "chunkwise/core/result.h"

namespace chunkwise::pipelines::detail {

inline constexpr const char* kExportInfoName = "info";
inline constexpr const char* kExportLogName = "export.log";

// The directory of one scale's shards under DEST: s0, s1, ...
std::string ExportScaleDirName(int scale);

class ExportDestination {
 public:
  // InvalidArgument if `dest` exists and !overwrite, or exists and is not a
  // directory, or is a non-empty directory without an `info` file (not an
  // export: never wiped); IOError if the staging directory cannot be made.
  static Result<ExportDestination> Begin(const std::filesystem::path& dest, bool overwrite);
  ExportDestination(ExportDestination&& other) noexcept;
  ExportDestination& operator=(ExportDestination&&) = delete;
  ~ExportDestination();

  const std::filesystem::path& staging() const { return staging_; }
  // Writes `info` and `log`, then moves the staging directory to DEST.
  Status Commit(const std::string& info, const std::string& log);

 private:
  ExportDestination(std::filesystem::path dest, std::filesystem::path staging)
      : dest_(std::move(dest)), staging_(std::move(staging)) {}

  std::filesystem::path dest_;
  std::filesystem::path staging_;  // Empty once committed or moved from.
};

}  // namespace chunkwise::pipelines::detail

#endif  // CHUNKWISE_SRC_PIPELINES_EXPORT_EXPORT_DESTINATION_H_
