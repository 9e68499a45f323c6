#include "facade/new_vectors_store.h"

#include <string>
#include <vector>

namespace chunkwise {

Status CheckNewVectorsStore(const store::Store& store, std::string_view url,
                            std::string_view scratch_folder, bool overwrite) {
  if (overwrite) return Status::Ok();
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> keys, store.List(""));
  const std::string scratch = std::string(scratch_folder) + "/";
  std::erase_if(keys, [&](const std::string& key) { return key.starts_with(scratch); });
  if (keys.empty()) return Status::Ok();
  return Status::InvalidArgument(std::string(url) + " already holds " +
                                 std::to_string(keys.size()) + " keys (overwrite not requested)")
      .WithField("overwrite");
}

}  // namespace chunkwise
