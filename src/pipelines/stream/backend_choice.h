// Which backend writes a stream: the CPU, or the GPU for the tile codecs the
// CUDA backend runs there (none, and the deterministic blosc-lz4 encoder).
//
// The CUDA backend compresses on the GPU only what it can make byte-identical
// to the CPU backend: codec "none" and "blosc:lz4det[:CLEVEL[:SHUFFLE]]"
// (docs/formats/blosc-lz4-deterministic.md). Any other codec (zstd, gzip,
// c-blosc's own encoders, crc32c) is compressed on the CPU, by the CPU
// backend, and the choice says so.
#ifndef CHUNKWISE_PIPELINES_STREAM_BACKEND_CHOICE_H_
#define CHUNKWISE_PIPELINES_STREAM_BACKEND_CHOICE_H_

#include <optional>
#include <string>
#include <string_view>

#include "chunkwise/core/data_type.h"
#include "chunkwise/core/result.h"
#include "pipelines/stream/stream_config.h"

namespace chunkwise::pipelines::stream {

// The GPU form of `codec` (a shorthand, codec/codec_shorthand.h) for
// `data_type`, or nullopt with the reason in *why when it has none.
Result<std::optional<GpuTileCodec>> GpuTileCodecFor(std::string_view codec,
                                                    const core::DataType& data_type,
                                                    std::string* why);

enum class BackendRequest { kCpu, kCuda, kAuto };

// "cpu", "cuda" or "auto"; InvalidArgument naming --backend otherwise.
Result<BackendRequest> ParseBackendRequest(std::string_view text);

struct BackendChoice {
  StreamBackendKind kind = StreamBackendKind::kCpu;
  std::string note;  // Why, when the choice differs from the request or auto chose.
};

// Resolves `request` for `config`. `no_gpu_reason` is empty when a usable GPU
// and a CUDA build are present, else why not (cuda/device.h's
// NoDeviceReason, or "built without CUDA"). kCuda with no GPU is an error;
// kCuda with a codec the GPU does not run chooses the CPU and notes it; kAuto
// chooses the GPU when both are there.
Result<BackendChoice> ChooseStreamBackend(BackendRequest request, const StreamConfig& config,
                                          std::string_view no_gpu_reason);

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_BACKEND_CHOICE_H_
