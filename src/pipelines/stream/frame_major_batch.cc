#include "pipelines/stream/frame_major_batch.h"

#include <cstring>

#include "chunkwise/core/check.h"

namespace chunkwise::pipelines::stream {
namespace {

MutableByteView FullBatch(const StreamPlan& plan, MutableByteView memory) {
  const std::size_t capacity = BatchInputBytes(plan);
  CHUNKWISE_CHECK(memory.size() >= capacity);
  return memory.first(capacity);
}

}  // namespace

FrameMajorBatch::FrameMajorBatch(const StreamPlan& plan, MutableByteView memory,
                                 std::shared_ptr<void> owner)
    : spec_(plan.tile_spec),
      frame_bytes_(plan.frame_bytes),
      memory_(FullBatch(plan, memory)),
      owner_(std::move(owner)) {}

void FrameMajorBatch::Stage(std::size_t offset, ByteView bytes) {
  CHUNKWISE_CHECK(offset + bytes.size() <= memory_.size());
  std::memcpy(memory_.data() + offset, bytes.data(), bytes.size());
}

void FrameMajorBatch::FillFrames(core::Index first, core::Index last) {
  const auto begin = static_cast<std::size_t>(first) * frame_bytes_;
  const auto end = static_cast<std::size_t>(last) * frame_bytes_;
  FillWithValue(memory_.subspan(begin, end - begin), spec_);
}

}  // namespace chunkwise::pipelines::stream
