#include "codec/codec_measurement.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

namespace chunkwise::codec {
namespace {

using Clock = std::chrono::steady_clock;

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

Result<CodecFigures> MeasureCodecChain(const CodecChain& chain, ByteView data,
                                       std::size_t chunk_bytes, int repetitions) {
  if (chunk_bytes == 0 || repetitions <= 0) {
    return Status::InvalidArgument("chunk size and repetitions must be positive");
  }
  const std::size_t chunk_count = (data.size() + chunk_bytes - 1) / chunk_bytes;
  std::vector<Bytes> encoded(chunk_count);
  std::vector<double> encode_times, decode_times;
  CodecFigures figures;
  figures.decoded_bytes = data.size();
  for (int repetition = 0; repetition < repetitions; ++repetition) {
    const Clock::time_point start = Clock::now();
    for (std::size_t i = 0; i < chunk_count; ++i) {
      const ByteView chunk =
          data.subspan(i * chunk_bytes, std::min(chunk_bytes, data.size() - i * chunk_bytes));
      CHUNKWISE_ASSIGN_OR_RETURN(encoded[i], chain.EncodeBytes(chunk));
    }
    const Clock::time_point middle = Clock::now();
    for (std::size_t i = 0; i < chunk_count; ++i) {
      const ByteView chunk =
          data.subspan(i * chunk_bytes, std::min(chunk_bytes, data.size() - i * chunk_bytes));
      CHUNKWISE_ASSIGN_OR_RETURN(Bytes decoded, chain.DecodeBytes(encoded[i], chunk.size()));
      if (decoded.size() != chunk.size() ||
          std::memcmp(decoded.data(), chunk.data(), chunk.size()) != 0) {
        return Status::Internal("chunk " + std::to_string(i) + " did not decode to its input");
      }
    }
    encode_times.push_back(std::chrono::duration<double>(middle - start).count());
    decode_times.push_back(std::chrono::duration<double>(Clock::now() - middle).count());
  }
  for (const Bytes& chunk : encoded) figures.encoded_bytes += chunk.size();
  figures.encode_seconds = Median(encode_times);
  figures.decode_seconds = Median(decode_times);
  return figures;
}

}  // namespace chunkwise::codec
