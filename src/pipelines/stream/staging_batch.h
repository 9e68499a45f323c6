// StagingBatch: one batch of the streaming writer's input (E tile epochs of
// frames) as the caller copies it in, in whatever layout the backend that
// made it wants: the CPU backend scatters the input into tiles as it arrives
// (tile_major_batch.h); the CUDA backend keeps it frame-major in page-locked
// memory for its copy to the GPU, which scatters it there
// (frame_major_batch.h).
#ifndef CHUNKWISE_PIPELINES_STREAM_STAGING_BATCH_H_
#define CHUNKWISE_PIPELINES_STREAM_STAGING_BATCH_H_

#include <cstddef>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/index.h"
#include "codec/codec.h"

namespace chunkwise::pipelines::stream {

// Writes the spec's fill value (empty: zero) over every element of `out`.
void FillWithValue(MutableByteView out, const codec::ChunkSpec& spec);

class StagingBatch {
 public:
  virtual ~StagingBatch() = default;

  // The input bytes a full batch holds: E·tile[0] frames.
  virtual std::size_t capacity() const = 0;
  // Takes `bytes`, this batch's input from byte `offset` on.
  virtual void Stage(std::size_t offset, ByteView bytes) = 0;
  // Sets frames [first, last) of the batch to the fill value.
  virtual void FillFrames(core::Index first, core::Index last) = 0;

  // Set by the writer: the first tile epoch (t0) held and the tile epochs to
  // compress.
  core::Index first_epoch = 0;
  std::size_t epochs = 0;
};

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_STAGING_BATCH_H_
