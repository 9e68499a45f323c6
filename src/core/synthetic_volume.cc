#include "core/synthetic_volume.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace chunkwise::core {
namespace {

// splitmix64: small, fast and good enough for synthetic data; deterministic everywhere.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  double Uniform(double low, double high) { return low + (high - low) * Uniform(); }
  double Gaussian() {  // Box-Muller
    const double u = std::max(Uniform(), 1e-300);
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * Uniform());
  }

 private:
  std::uint64_t state_;
};

struct Vec3 {
  double z, y, x;
};

class LabelCanvas {
 public:
  LabelCanvas(std::vector<std::uint64_t>& voxels, const std::array<std::int64_t, 3>& shape)
      : voxels_(voxels), shape_(shape) {}

  void FillSphere(const Vec3& center, double radius, std::uint64_t label) {
    const double r2 = radius * radius;
    const auto lo = [&](double c) { return static_cast<std::int64_t>(std::floor(c - radius)); };
    const auto hi = [&](double c) { return static_cast<std::int64_t>(std::ceil(c + radius)); };
    for (std::int64_t z = std::max<std::int64_t>(0, lo(center.z));
         z <= std::min(shape_[0] - 1, hi(center.z)); ++z) {
      const double dz2 = (z - center.z) * (z - center.z);
      for (std::int64_t y = std::max<std::int64_t>(0, lo(center.y));
           y <= std::min(shape_[1] - 1, hi(center.y)); ++y) {
        const double dzy2 = dz2 + (y - center.y) * (y - center.y);
        if (dzy2 > r2) continue;
        const double half = std::sqrt(r2 - dzy2);
        const std::int64_t x0 =
            std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(center.x - half)));
        const std::int64_t x1 =
            std::min(shape_[2] - 1, static_cast<std::int64_t>(std::floor(center.x + half)));
        std::uint64_t* row = voxels_.data() + (z * shape_[1] + y) * shape_[2];
        for (std::int64_t x = x0; x <= x1; ++x) row[x] = label;
      }
    }
  }

  bool Inside(const Vec3& p) const {
    return p.z >= 0 && p.y >= 0 && p.x >= 0 && p.z < shape_[0] && p.y < shape_[1] &&
           p.x < shape_[2];
  }

 private:
  std::vector<std::uint64_t>& voxels_;
  std::array<std::int64_t, 3> shape_;
};

Vec3 RandomDirection(Random& random) {
  Vec3 d{random.Gaussian(), random.Gaussian(), random.Gaussian()};
  const double n = std::max(std::sqrt(d.z * d.z + d.y * d.y + d.x * d.x), 1e-9);
  return {d.z / n, d.y / n, d.x / n};
}

// A branch is a persistent random walk whose radius tapers; it may fork once.
void GrowBranch(LabelCanvas& canvas, Random& random, Vec3 position, double radius,
                std::uint64_t label, int depth) {
  Vec3 direction = RandomDirection(random);
  const int steps = static_cast<int>(random.Uniform(80, 400));
  for (int step = 0; step < steps && radius >= 1.0; ++step) {
    const Vec3 turn = RandomDirection(random);
    direction = {direction.z * 0.92 + turn.z * 0.08, direction.y * 0.92 + turn.y * 0.08,
                 direction.x * 0.92 + turn.x * 0.08};
    const double n = std::max(std::sqrt(direction.z * direction.z + direction.y * direction.y +
                                        direction.x * direction.x),
                              1e-9);
    direction = {direction.z / n, direction.y / n, direction.x / n};
    position = {position.z + direction.z, position.y + direction.y, position.x + direction.x};
    if (!canvas.Inside(position)) return;
    if (step % 2 == 0) canvas.FillSphere(position, radius, label);
    radius *= 0.998;
    if (depth < 2 && random.Uniform() < 0.004) {
      GrowBranch(canvas, random, position, radius * 0.7, label, depth + 1);
    }
  }
}

}  // namespace

Result<std::vector<std::uint64_t>> GenerateNeuronLabels(const NeuronVolumeOptions& options) {
  std::int64_t voxels = 1;
  for (std::int64_t extent : options.shape) {
    if (extent <= 0)
      return Status::InvalidArgument("synthetic volume: every dimension must be positive");
    voxels *= extent;
    if (voxels > (std::int64_t{1} << 34)) {
      return Status::InvalidArgument("synthetic volume: more than 2^34 voxels requested");
    }
  }
  std::vector<std::uint64_t> labels(static_cast<std::size_t>(voxels), 0);
  LabelCanvas canvas(labels, options.shape);
  Random random(options.seed);
  const double scale = std::cbrt(static_cast<double>(voxels)) / 256.0;
  for (int neuron = 0; neuron < options.neuron_count; ++neuron) {
    // Ids are spaced irregularly, like agglomerated segment ids.
    const std::uint64_t label =
        options.first_label + static_cast<std::uint64_t>(neuron) * 7919 + (random.Next() % 997);
    const Vec3 soma{random.Uniform(0, options.shape[0]), random.Uniform(0, options.shape[1]),
                    random.Uniform(0, options.shape[2])};
    canvas.FillSphere(soma, random.Uniform(6, 14) * scale, label);
    for (int branch = 0; branch < options.branches_per_neuron; ++branch) {
      GrowBranch(canvas, random, soma, random.Uniform(2.5, 5.5) * scale, label, 0);
    }
    if (options.progress != nullptr) options.progress->Add(1);
  }
  return labels;
}

std::vector<std::uint16_t> RenderMicroscopyFrames(const std::vector<std::uint64_t>& labels,
                                                  const std::array<std::int64_t, 3>& shape,
                                                  const MicroscopyFrameOptions& options) {
  const std::int64_t depth = shape[0], height = shape[1], width = shape[2];
  CHUNKWISE_CHECK(static_cast<std::int64_t>(labels.size()) == depth * height * width);
  std::vector<std::uint16_t> frames(labels.size());
  for (std::int64_t z = 0; z < depth; ++z) {
    Random random(options.seed * 1'000'003 + static_cast<std::uint64_t>(z));
    const std::uint64_t* plane = labels.data() + z * height * width;
    for (std::int64_t y = 0; y < height; ++y) {
      for (std::int64_t x = 0; x < width; ++x) {
        const std::uint64_t label = plane[y * width + x];
        const bool boundary = (x + 1 < width && plane[y * width + x + 1] != label) ||
                              (y + 1 < height && plane[(y + 1) * width + x] != label) ||
                              (x > 0 && plane[y * width + x - 1] != label) ||
                              (y > 0 && plane[(y - 1) * width + x] != label);
        double level = boundary ? options.membrane_level
                       : label == 0
                           ? options.background_level
                           : options.cytoplasm_level + static_cast<double>(label % 13) * 40.0;
        // Slow texture: organelles and staining variation.
        level += 150.0 * std::sin(0.11 * x + 0.07 * y + 0.05 * z) * std::cos(0.09 * y - 0.03 * x);
        level += options.noise_sigma * random.Gaussian();
        frames[z * height * width + y * width + x] =
            static_cast<std::uint16_t>(std::clamp(level, 0.0, 4095.0));
      }
    }
    if (options.progress != nullptr) options.progress->Add(1);
  }
  return frames;
}

}  // namespace chunkwise::core
