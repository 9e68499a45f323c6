// FrameMajorBatch: a staging batch that keeps the input as it arrives,
// frame after frame, in memory its backend provides (the CUDA backend's
// page-locked buffers, which it copies to the GPU and scatters there with
// scatter_geometry.h's arithmetic).
#ifndef CHUNKWISE_PIPELINES_STREAM_FRAME_MAJOR_BATCH_H_
#define CHUNKWISE_PIPELINES_STREAM_FRAME_MAJOR_BATCH_H_

#include <memory>

#include "pipelines/stream/staging_batch.h"
#include "pipelines/stream/stream_config.h"

namespace chunkwise::pipelines::stream {

class FrameMajorBatch final : public StagingBatch {
 public:
  // `memory` holds at least a full batch (E·tile[0] frames) and is kept alive
  // by `owner` for as long as the batch.
  FrameMajorBatch(const StreamPlan& plan, MutableByteView memory, std::shared_ptr<void> owner);

  std::size_t capacity() const override { return memory_.size(); }
  void Stage(std::size_t offset, ByteView bytes) override;
  void FillFrames(core::Index first, core::Index last) override;

  // The staged frames, the first `frames` of them.
  ByteView Frames(std::size_t frames) const { return memory_.first(frames * frame_bytes_); }

 private:
  codec::ChunkSpec spec_;
  std::size_t frame_bytes_;
  MutableByteView memory_;
  std::shared_ptr<void> owner_;
};

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_FRAME_MAJOR_BATCH_H_
