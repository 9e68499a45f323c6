// The local directory a job is about to create for its output. Opening a
// file store to write creates its root; a job that then fails erases the
// keys it wrote, and this removes the root too when the job made it, so a
// failed output leaves nothing behind. Private to the facade.
#ifndef CHUNKWISE_SRC_FACADE_NEW_OUTPUT_DIRECTORY_H_
#define CHUNKWISE_SRC_FACADE_NEW_OUTPUT_DIRECTORY_H_

#include <filesystem>
#include <string_view>

namespace chunkwise {

class NewOutputDirectory {
 public:
  // Notes whether `url` names a local directory that does not exist yet;
  // any other URL (an existing directory, a bucket, memory://) is left alone.
  explicit NewOutputDirectory(std::string_view url);

  // Removes the directory if this job made it and it is empty: a job that
  // failed after opening its destination calls it after erasing its keys.
  void RemoveIfEmpty() const;

 private:
  std::filesystem::path path_;  // Empty: nothing to remove.
};

}  // namespace chunkwise

#endif  // CHUNKWISE_SRC_FACADE_NEW_OUTPUT_DIRECTORY_H_
