#include "pipelines/skeletons/label_loop.h"

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace chunkwise::pipelines::skeletons {

Status ForEachLabel(std::size_t count, core::ThreadPool* pool,
                    const core::Cancellation* cancellation, const std::string& what,
                    const std::function<Status(std::size_t, LabelBuffers&)>& skeletonize) {
  // One set of buffers per thread at a time: a label takes one from the
  // shelf (or a fresh one) and puts it back when done.
  std::mutex shelf_mutex;
  std::vector<std::unique_ptr<LabelBuffers>> shelf;
  auto one = [&](std::size_t i) -> Status {
    if (cancellation != nullptr) CHUNKWISE_RETURN_IF_ERROR(cancellation->Check(what));
    std::unique_ptr<LabelBuffers> buffers;
    {
      const std::lock_guard<std::mutex> lock(shelf_mutex);
      if (!shelf.empty()) {
        buffers = std::move(shelf.back());
        shelf.pop_back();
      }
    }
    if (buffers == nullptr) buffers = std::make_unique<LabelBuffers>();
    const Status status = skeletonize(i, *buffers);
    {
      const std::lock_guard<std::mutex> lock(shelf_mutex);
      shelf.push_back(std::move(buffers));
    }
    return status;
  };
  if (pool != nullptr && count > 1) return pool->ParallelFor(count, one);
  for (std::size_t i = 0; i < count; ++i) CHUNKWISE_RETURN_IF_ERROR(one(i));
  return Status();
}

}  // namespace chunkwise::pipelines::skeletons
