// Where export-shards writes: a prefix of a store, made whole or not at all.
//
// A store has no directories to stage in and rename, so the export uses the
// entry point readers open first: `info` is written last (with `export.log`
// just before it). A prefix without `info` holds no export, whatever else it
// holds. Begin applies the overwrite rule: keys under the prefix are refused
// unless overwrite, and even then unless `info` is among them (a prefix of
// other data is never wiped); an export being replaced loses its `info`
// first, then its other keys, so no reader ever takes a mix of old and new
// shards for an export. Dropping a destination that was not committed erases
// every key the export wrote, so an error leaves no export and no stray shard
// (an export it replaced is gone).
#ifndef CHUNKWISE_SRC_PIPELINES_EXPORT_EXPORT_DESTINATION_H_
#define CHUNKWISE_SRC_PIPELINES_EXPORT_EXPORT_DESTINATION_H_

#include <memory>
#include <string>

#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"

namespace chunkwise::pipelines::detail {

inline constexpr const char* kExportInfoName = "info";
inline constexpr const char* kExportLogName = "export.log";
// Present from Begin to Commit: an export killed midway (or while erasing the
// one it replaces) is recognisably ours, so the next run may replace it.
// Readers refuse it anyway: it has no info.
inline constexpr const char* kExportIncompleteName = ".chunkwise-incomplete";

// The name of scale `scale` in the export: "s0", "s1", ...
std::string ExportScaleName(int scale);
// The key prefix of one scale's shards under the export's prefix: "s0/", "s1/", ...
std::string ExportScalePrefix(int scale);

class ExportDestination {
 public:
  // InvalidArgument naming a key if keys exist under `prefix` ("" or ending
  // in "/") and !overwrite, or exist without `info` (not an export: never
  // replaced); the store's errors while erasing a replaced export.
  // With `resume` the keys of an export or an unfinished one stay (to be
  // finished), but an `info` among them is erased first.
  static Result<ExportDestination> Begin(std::shared_ptr<store::Store> store, std::string prefix,
                                         bool overwrite, bool resume = false);
  ExportDestination(ExportDestination&& other) noexcept;
  ExportDestination& operator=(ExportDestination&&) = delete;
  ~ExportDestination();

  const std::shared_ptr<store::Store>& store() const { return store_; }
  const std::string& prefix() const { return prefix_; }
  // Writes `log`, then `info`, which makes the export visible.
  Status Commit(const std::string& info, const std::string& log);
  // Leaves what was written (no `info`: unpublished) for a resumed export to finish.
  void Keep() { store_.reset(); }

 private:
  ExportDestination(std::shared_ptr<store::Store> store, std::string prefix)
      : store_(std::move(store)), prefix_(std::move(prefix)) {}

  std::shared_ptr<store::Store> store_;  // Null once committed or moved from.
  std::string prefix_;
};

}  // namespace chunkwise::pipelines::detail

#endif  // CHUNKWISE_SRC_PIPELINES_EXPORT_EXPORT_DESTINATION_H_
