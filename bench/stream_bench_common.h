// What the stream writer's benchmarks share: the microscopy-like input (32
// distinct 2048×2048 uint16 frames, one tile epoch, repeated), its layout
// (tiles 32×128×128, 4×4×4 tiles per shard) and one timed run of a writer.
#ifndef CHUNKWISE_BENCH_STREAM_BENCH_COMMON_H_
#define CHUNKWISE_BENCH_STREAM_BENCH_COMMON_H_

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "bench_common.h"
#include "pipelines/stream/stream_writer.h"

namespace chunkwise::bench {

inline constexpr core::Index kFrameSide = 2048;
inline constexpr core::Index kDistinctFrames = 32;

inline void CheckOk(const Status& status, const char* what) {
  if (status.ok()) return;
  std::fprintf(stderr, "bench: %s: %s\n", what, status.ToString().c_str());
  std::exit(1);
}

inline pipelines::stream::StreamConfig MicroscopyStreamConfig(const std::string& codec,
                                                              std::size_t threads) {
  pipelines::stream::StreamConfig config;
  config.dimensions = {{0, 32, 4, "z"}, {kFrameSide, 128, 4, "y"}, {kFrameSide, 128, 4, "x"}};
  config.data_type = core::DataType(core::DataTypeId::kUInt16);
  config.codec = codec;
  config.threads = threads;
  return config;
}

// Appends `frames` frames (the distinct ones, repeated) and closes; returns
// the seconds from the writer's creation (which allocates and fills its
// buffers) to its close, its stats in *stats and the seconds its creation
// took in *create_seconds when given.
inline double StreamOnce(const pipelines::stream::StreamConfig& config, const Bytes& distinct,
                         core::Index frames, std::shared_ptr<store::Store> store,
                         pipelines::stream::StreamWriterOptions options,
                         pipelines::stream::StreamStats* stats = nullptr,
                         double* create_seconds = nullptr) {
  options.overwrite = true;
  return Seconds([&] {
    Result<std::unique_ptr<pipelines::stream::StreamWriter>> writer = Status::Internal("unset");
    const double created = Seconds([&] {
      writer = pipelines::stream::StreamWriter::Create(config, std::move(store), "", options);
    });
    if (create_seconds != nullptr) *create_seconds = created;
    CheckOk(writer.status(), "create stream writer");
    const std::size_t frame_bytes = (*writer)->plan().frame_bytes;
    for (core::Index f = 0; f < frames; ++f) {
      const std::size_t at = static_cast<std::size_t>(f % kDistinctFrames) * frame_bytes;
      CheckOk((*writer)->Append(ByteView(distinct).subspan(at, frame_bytes)), "append");
    }
    CheckOk((*writer)->Close(), "close");
    if (stats != nullptr) *stats = (*writer)->stats();
  });
}

}  // namespace chunkwise::bench

#endif  // CHUNKWISE_BENCH_STREAM_BENCH_COMMON_H_
