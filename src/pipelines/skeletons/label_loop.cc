#include "pipelines/skeletons/label_loop.h"

#include <mutex>
#include <utility>
#include <vector>

namespace chunkwise::pipelines::skeletons {

Status ForEachLabel(std::size_t count, core::ThreadPool* pool,
                    const core::Cancellation* cancellation, const std::string& what,
                    const std::function<Status(std::size_t, TeasarWorkspace&)>& skeletonize) {
  // One workspace per thread at a time: a label takes one from the shelf (or
  // a fresh one) and puts it back when done.
  std::mutex shelf_mutex;
  std::vector<TeasarWorkspacePtr> shelf;
  auto one = [&](std::size_t i) -> Status {
    if (cancellation != nullptr) CHUNKWISE_RETURN_IF_ERROR(cancellation->Check(what));
    TeasarWorkspacePtr workspace;
    {
      const std::lock_guard<std::mutex> lock(shelf_mutex);
      if (!shelf.empty()) {
        workspace = std::move(shelf.back());
        shelf.pop_back();
      }
    }
    if (workspace == nullptr) workspace = NewTeasarWorkspace();
    const Status status = skeletonize(i, *workspace);
    {
      const std::lock_guard<std::mutex> lock(shelf_mutex);
      shelf.push_back(std::move(workspace));
    }
    return status;
  };
  if (pool != nullptr && count > 1) return pool->ParallelFor(count, one);
  for (std::size_t i = 0; i < count; ++i) CHUNKWISE_RETURN_IF_ERROR(one(i));
  return Status();
}

}  // namespace chunkwise::pipelines::skeletons
