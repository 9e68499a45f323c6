#include "pipelines/precomputed/downsample.h"

#include <cmath>
#include <cstring>
#include <type_traits>

namespace chunkwise::pipelines::detail {
namespace {

template <typename T>
T Mode(const T* values, int n) {
  T best = values[0];
  int best_count = 0;
  for (int i = 0; i < n; ++i) {
    int count = 0;
    for (int j = 0; j < n; ++j) count += values[j] == values[i];
    if (count > best_count || (count == best_count && values[i] < best)) {
      best = values[i];
      best_count = count;
    }
  }
  return best;
}

template <typename T>
T Mean(const T* values, int n) {
  if constexpr (std::is_floating_point_v<T>) {
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += values[i];
    return static_cast<T>(sum / n);
  } else {
    long double sum = 0;
    for (int i = 0; i < n; ++i) sum += static_cast<long double>(values[i]);
    return static_cast<T>(std::roundl(sum / n));
  }
}

template <typename T>
Bytes Halve(ByteView fine, const std::array<core::Index, 3>& shape, int channels,
            DownsampleRule rule) {
  const std::array<core::Index, 3> coarse{(shape[0] + 1) / 2, (shape[1] + 1) / 2,
                                          (shape[2] + 1) / 2};
  Bytes out(static_cast<std::size_t>(coarse[0] * coarse[1] * coarse[2] * channels) * sizeof(T));
  const auto* in = reinterpret_cast<const T*>(fine.data());
  auto* result = reinterpret_cast<T*>(out.data());
  const core::Index fine_channel = shape[0] * shape[1] * shape[2];
  T group[8];
  std::size_t o = 0;
  for (int c = 0; c < channels; ++c) {
    const T* channel = in + c * fine_channel;
    for (core::Index z = 0; z < coarse[0]; ++z) {
      for (core::Index y = 0; y < coarse[1]; ++y) {
        for (core::Index x = 0; x < coarse[2]; ++x) {
          int n = 0;
          for (core::Index dz = 2 * z; dz < std::min(2 * z + 2, shape[0]); ++dz) {
            for (core::Index dy = 2 * y; dy < std::min(2 * y + 2, shape[1]); ++dy) {
              for (core::Index dx = 2 * x; dx < std::min(2 * x + 2, shape[2]); ++dx) {
                group[n++] = channel[(dz * shape[1] + dy) * shape[2] + dx];
              }
            }
          }
          result[o++] = rule == DownsampleRule::kMode ? Mode(group, n) : Mean(group, n);
        }
      }
    }
  }
  return out;
}

}  // namespace

Bytes Downsample2x(ByteView fine, const std::array<core::Index, 3>& fine_shape, int channels,
                   core::DataType type, DownsampleRule rule) {
  switch (type.id()) {
    case core::DataTypeId::kInt8:
      return Halve<std::int8_t>(fine, fine_shape, channels, rule);
    case core::DataTypeId::kUInt8:
      return Halve<std::uint8_t>(fine, fine_shape, channels, rule);
    case core::DataTypeId::kInt16:
      return Halve<std::int16_t>(fine, fine_shape, channels, rule);
    case core::DataTypeId::kUInt16:
      return Halve<std::uint16_t>(fine, fine_shape, channels, rule);
    case core::DataTypeId::kInt32:
      return Halve<std::int32_t>(fine, fine_shape, channels, rule);
    case core::DataTypeId::kUInt32:
      return Halve<std::uint32_t>(fine, fine_shape, channels, rule);
    case core::DataTypeId::kInt64:
      return Halve<std::int64_t>(fine, fine_shape, channels, rule);
    case core::DataTypeId::kFloat32:
      return Halve<float>(fine, fine_shape, channels, rule);
    case core::DataTypeId::kFloat64:
      return Halve<double>(fine, fine_shape, channels, rule);
    default:
      return Halve<std::uint64_t>(fine, fine_shape, channels, rule);
  }
}

}  // namespace chunkwise::pipelines::detail
