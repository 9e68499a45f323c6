// Downsampler: an n-d block of elements reduced by windows of a few elements
// per dimension, as the levels of an image pyramid are made.
//
// The block is cut into windows of `factors` elements (a factor of 1 leaves
// a dimension as it is), starting at element 0 of each dimension. A window at
// the far end of a dimension its factor does not divide holds what is left,
// so no edge is dropped: the output has ceil(shape / factor) elements per
// dimension. Each window becomes one element (docs/pipelines/stream-writer.md, "Multiscale"):
// - mean: integers: the exact sum divided by the count, rounded to the
//   nearest integer, ties to the even one (2.5 -> 2, 3.5 -> 4, -2.5 -> -2).
//   Halves to even because that is what a zarr or neuroglancer user checks a
//   pyramid against: numpy's rint/round and TensorStore's downsample driver
//   ("mean") round so, and it has no bias up or down over many ties. Every
//   mean downsample in chunkwise is this class: the stream writer's pyramids
//   and `zarr to-precomputed`'s scales give the same voxels. Floats: the elements converted to
//   double and added one by one, in row-major order of the window, starting
//   from +0.0, divided by the count and rounded once to the type.
// - mode: the most frequent value; among equally frequent values, the least.
// - min, max: the least or greatest value; among equal ones (-0.0 and +0.0)
//   the first in row-major order of the window.
// For floats, a window holding a NaN gives the type's quiet NaN (all payload
// bits clear but the quiet bit), whatever the input NaN's bits, so that every
// machine writes the same bytes. Mean needs integers or float32/float64;
// mode, integers or bool (labels); min and max, any of those. float16 and
// complex are refused.
#ifndef CHUNKWISE_CORE_DOWNSAMPLE_H_
#define CHUNKWISE_CORE_DOWNSAMPLE_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/data_type.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

enum class DownsampleMethod { kMean, kMode, kMin, kMax };

// "mean", "mode", "min" or "max"; InvalidArgument naming the text otherwise.
Result<DownsampleMethod> ParseDownsampleMethod(std::string_view name);
std::string_view DownsampleMethodName(DownsampleMethod method);

// The most elements one window may hold.
inline constexpr Index kMaxDownsampleWindow = Index{1} << 16;

class Downsampler {
 public:
  // Unsupported for float16 and complex; InvalidArgument when `method` has no
  // meaning for `type` (mean of bool, mode of floats), naming both, a
  // factor is below 1, or a window would hold more than kMaxDownsampleWindow.
  static Result<Downsampler> Create(DownsampleMethod method, DataType type, Shape factors);

  DownsampleMethod method() const { return method_; }
  DataType type() const { return type_; }
  const Shape& factors() const { return factors_; }

  // What a block of `shape` reduces to: ceil(shape[d] / factors[d]).
  Shape OutputShape(std::span<const Index> shape) const;
  // The output's rows (every dimension but the last), the unit Reduce splits on.
  Index OutputRows(std::span<const Index> shape) const;

  // Reduces `in`, a row-major block of `shape` (of the factors' rank), into
  // output rows [first_row, last_row) of `out`, the whole row-major output.
  // Calls on disjoint rows may run at once. REQUIRES: in.size() and
  // out.size() match the shapes.
  void Reduce(ByteView in, std::span<const Index> shape, MutableByteView out, Index first_row,
              Index last_row) const;
  void Reduce(ByteView in, std::span<const Index> shape, MutableByteView out) const {
    Reduce(in, shape, out, 0, OutputRows(shape));
  }

  // Frame sums: a stream's frames (blocks of one element along dimension 0)
  // reduced as they come, without keeping a window's frames: each frame adds
  // its elements into one exact 32-bit sum per output element of a frame, and
  // MeansOfFrameSums turns the sums of a window's frames into the bytes
  // Reduce makes of those frames together. Only for the mean of integers of
  // at most 16 bits over windows of 2^k elements whose factors divide
  // `frame_shape` (every dimension but the first), which SumsFrames tells.
  bool SumsFrames(std::span<const Index> frame_shape) const;
  // Adds (sets, when `first`) the sums of output rows [first_row, last_row)
  // of one frame, rows as OutputRows(frame_shape) counts them; `sums` holds
  // one per output element of the frame. Calls on disjoint rows may run at once.
  void AddFrameSums(ByteView frame, std::span<const Index> frame_shape,
                    std::span<std::int32_t> sums, bool first, Index first_row,
                    Index last_row) const;
  // The means of windows of `frames` frames (1..factors()[0]; fewer at the
  // end of a stream) from their sums, into `out`, one output frame.
  void MeansOfFrameSums(std::span<const std::int32_t> sums, Index frames,
                        MutableByteView out) const;

 private:
  using Kernel = void (*)(const Downsampler&, ByteView, std::span<const Index>, MutableByteView,
                          Index, Index);
  Downsampler(DownsampleMethod method, DataType type, Shape factors, Kernel kernel)
      : method_(method), type_(type), factors_(std::move(factors)), kernel_(kernel) {}

  DownsampleMethod method_;
  DataType type_;
  Shape factors_;
  Kernel kernel_;
};

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_DOWNSAMPLE_H_
