#include "pipelines/stream/backend_choice.h"

#include "codec/codec_shorthand.h"

namespace chunkwise::pipelines::stream {

Result<std::optional<GpuTileCodec>> GpuTileCodecFor(std::string_view codec,
                                                    const core::DataType& data_type,
                                                    std::string* why) {
  CHUNKWISE_ASSIGN_OR_RETURN(codec::CodecShorthand shorthand,
                             codec::ParseCodecShorthandWithEncoders(codec, data_type.size()));
  if (shorthand.codecs.empty()) return std::optional<GpuTileCodec>(GpuTileCodec{});
  const nlohmann::json& first = shorthand.codecs[0];
  const bool deterministic_lz4 =
      shorthand.codecs.size() == 1 && first["name"] == "blosc" &&
      first["configuration"]["cname"] == "lz4" &&
      shorthand.build.blosc_encoder == codec::BloscEncoder::kDeterministic;
  if (!deterministic_lz4) {
    *why = "codec " + std::string(codec) +
           " has no GPU encoder here (the GPU runs none and blosc:lz4det)";
    return std::optional<GpuTileCodec>();
  }
  const nlohmann::json& configuration = first["configuration"];
  GpuTileCodec gpu;
  gpu.blosc_lz4 = true;
  gpu.typesize = configuration["typesize"].get<int>();
  gpu.shuffle = configuration["shuffle"] == "shuffle";
  gpu.store_only = configuration["clevel"].get<int>() == 0;
  return std::optional<GpuTileCodec>(gpu);
}

Result<BackendRequest> ParseBackendRequest(std::string_view text) {
  if (text == "cpu") return BackendRequest::kCpu;
  if (text == "cuda") return BackendRequest::kCuda;
  if (text == "auto") return BackendRequest::kAuto;
  return Status::InvalidArgument("the stream backend is cpu, cuda or auto, not \"" +
                                 std::string(text) + "\"")
      .WithField("backend");
}

Result<BackendChoice> ChooseStreamBackend(BackendRequest request, const StreamConfig& config,
                                          std::string_view no_gpu_reason) {
  if (request == BackendRequest::kCpu) return BackendChoice{};
  if (!no_gpu_reason.empty()) {
    if (request == BackendRequest::kCuda) {
      return Status::Unsupported("the CUDA backend: " + std::string(no_gpu_reason))
          .WithField("backend");
    }
    return BackendChoice{StreamBackendKind::kCpu,
                         "backend auto: the CPU (" + std::string(no_gpu_reason) + ")"};
  }
  std::string why;
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<GpuTileCodec> gpu,
                             GpuTileCodecFor(config.codec, config.data_type, &why));
  if (!gpu) {
    return BackendChoice{StreamBackendKind::kCpu,
                         "backend " +
                             std::string(request == BackendRequest::kCuda ? "cuda" : "auto") +
                             ": the CPU backend compresses, since " + why};
  }
  return BackendChoice{StreamBackendKind::kCuda,
                       request == BackendRequest::kAuto ? "backend auto: the GPU" : ""};
}

}  // namespace chunkwise::pipelines::stream
