#include "chunkwise/core/downsample.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::core {
namespace {

__extension__ using Int128 = __int128;

// Elements may sit at any address (an append splits input anywhere).
template <typename T>
T Load(const std::uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

template <typename T>
void Store(std::uint8_t* at, T value) {
  std::memcpy(at, &value, sizeof(T));
}

// Integer mean: sums in a type that cannot overflow for kMaxDownsampleWindow
// elements; the quotient rounded to nearest, ties to even (downsample.h says
// why). The one integer mean rule of the library.
template <typename T>
class IntegerMean {
 public:
  using Wide = std::conditional_t<(sizeof(T) < 8), std::int64_t, Int128>;
  void Reset() { sum_ = 0, count_ = 0; }
  void Add(T value) { sum_ += static_cast<Wide>(value), ++count_; }
  void AddSum(std::int64_t sum, std::int64_t count) { sum_ += sum, count_ += count; }
  T Result() const {
    Wide quotient = sum_ / count_;
    Wide remainder = sum_ % count_;
    if (remainder < 0) remainder += count_, --quotient;  // Floor division.
    if (2 * remainder > count_ || (2 * remainder == count_ && (quotient & 1) != 0)) ++quotient;
    return static_cast<T>(quotient);
  }

 private:
  Wide sum_ = 0;
  Wide count_ = 0;
};

template <typename T>
class FloatMean {
 public:
  void Reset() { sum_ = 0.0, count_ = 0; }
  void Add(T value) { sum_ += static_cast<double>(value), ++count_; }
  T Result() const {
    const T mean = static_cast<T>(sum_ / static_cast<double>(count_));
    return std::isnan(mean) ? std::numeric_limits<T>::quiet_NaN() : mean;
  }

 private:
  double sum_ = 0.0;
  Index count_ = 0;
};

// The least (kLeast) or greatest value; the first of equals; any NaN wins.
template <typename T, bool kLeast>
class Extreme {
 public:
  void Reset() { any_ = false, nan_ = false; }
  void Add(T value) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(value)) {
        nan_ = true;
        return;
      }
    }
    if (!any_ || (kLeast ? value < best_ : best_ < value)) best_ = value;
    any_ = true;
  }
  T Result() const {
    if constexpr (std::is_floating_point_v<T>) {
      if (nan_) return std::numeric_limits<T>::quiet_NaN();
    }
    return best_;
  }

 private:
  T best_{};
  bool any_ = false;
  bool nan_ = false;
};

// The most frequent value, the least of the most frequent on ties: sorted,
// the first longest run.
template <typename T>
class Mode {
 public:
  void Reset() { values_.clear(); }
  void Add(T value) { values_.push_back(value); }
  T Result() {
    std::sort(values_.begin(), values_.end());
    T best = values_[0];
    std::size_t best_run = 0;
    for (std::size_t i = 0; i < values_.size();) {
      std::size_t j = i + 1;
      while (j < values_.size() && values_[j] == values_[i]) ++j;
      if (j - i > best_run) best_run = j - i, best = values_[i];
      i = j;
    }
    return best;
  }

 private:
  std::vector<T> values_;
};

// The coordinates, in every dimension but the last, of row `row` of an
// array of `shape` (rows in C order).
Coord RowCoordinates(std::span<const Index> shape, Index row) {
  const std::size_t lead = shape.size() - 1;
  Coord coords(lead, 0);
  for (std::size_t d = lead, rest = static_cast<std::size_t>(row); d-- > 0;) {
    coords[d] = static_cast<Index>(rest % static_cast<std::size_t>(shape[d]));
    rest /= static_cast<std::size_t>(shape[d]);
  }
  return coords;
}

// Steps `coords` (from RowCoordinates) to the next row.
void NextRow(std::span<const Index> shape, Coord& coords) {
  for (std::size_t d = coords.size(); d-- > 0;) {
    if (++coords[d] < shape[d]) break;
    coords[d] = 0;
  }
}

// The window's input rows of output row `out_row`, in row-major order of
// their offsets in the window: `rows` gets each row's first element index.
// `next` is scratch.
void WindowRows(std::span<const Index> shape, std::span<const Index> factors,
                std::span<const Index> out_row, std::vector<Index>& rows,
                std::vector<Index>& next) {
  const std::size_t lead = shape.size() - 1;
  rows.assign(1, 0);
  for (std::size_t d = 0; d < lead; ++d) {
    const Index start = out_row[d] * factors[d];
    const Index count = std::min(factors[d], shape[d] - start);
    next.clear();
    for (Index row : rows) {
      for (Index a = 0; a < count; ++a) next.push_back(row * shape[d] + start + a);
    }
    rows.swap(next);
  }
  for (Index& row : rows) row *= shape[lead];
}

// Adds each input row's windows of `factor` elements into `sums`, one
// input row at a time so that the loop over x vectorizes (a factor of 2,
// the pyramids' own, is a loop of its own for that reason).
template <typename T, typename Sum>
void AddWindowsOfRow(const std::uint8_t* source, Index factor, Index windows, Sum* sums) {
  if (factor == 2) {
    for (Index x = 0; x < windows; ++x) {
      const std::uint8_t* pair = source + static_cast<std::size_t>(x) * 2 * sizeof(T);
      sums[x] += Sum{Load<T>(pair)} + Sum{Load<T>(pair + sizeof(T))};
    }
    return;
  }
  for (Index x = 0; x < windows; ++x) {
    const std::uint8_t* window = source + static_cast<std::size_t>(x * factor) * sizeof(T);
    for (Index i = 0; i < factor; ++i) sums[x] += Load<T>(window + i * sizeof(T));
  }
}

// The sums of ShiftedMeans: 32 bits where every window's sum fits (the
// loops then run twice as wide), else 64.
template <typename T>
using WindowSum = std::conditional_t<(sizeof(T) <= 2), std::int32_t, std::int64_t>;
// Elements a window may hold for WindowSum<T>: 2^15 of 16-bit values fit 32
// bits; kMaxDownsampleWindow of 32-bit values fit 64.
template <typename T>
constexpr std::int64_t kMostShiftedElements = sizeof(T) <= 2 ? 1 << 15 : kMaxDownsampleWindow;

// IntegerMean's rule over whole windows of 2^k elements, by a shift in
// place of its two divisions an element (which were most of a 2x2x2
// pyramid level's time); `>>` floors negative sums as IntegerMean does.
// Fills the first `windows` outputs of a row and returns how many it
// filled: none for other windows. `sums` is scratch.
template <typename T>
Index ShiftedMeans(const std::uint8_t* in, std::span<const Index> rows, Index factor, Index windows,
                   std::uint8_t* target, std::vector<WindowSum<T>>& sums) {
  static_assert(std::is_integral_v<T> && sizeof(T) <= 4);
  using Sum = WindowSum<T>;
  const auto elements = static_cast<std::int64_t>(rows.size()) * factor;
  if (elements == 0 || elements > kMostShiftedElements<T> ||
      !std::has_single_bit(static_cast<std::uint64_t>(elements))) {
    return 0;
  }
  const int shift = std::countr_zero(static_cast<std::uint64_t>(elements));
  // Round half to even without a branch, so that this loop vectorizes too
  // (branching, it was most of the mean's time): adding half the count less
  // one, plus the floored quotient's low bit, carries into the next quotient
  // exactly when IntegerMean rounds up. A window of one element is its value.
  const Sum bias = static_cast<Sum>((elements - 1) >> 1);
  const Sum odd = shift == 0 ? 0 : 1;
  sums.assign(static_cast<std::size_t>(windows), 0);
  for (Index row : rows) {
    AddWindowsOfRow<T, Sum>(in + static_cast<std::size_t>(row) * sizeof(T), factor, windows,
                            sums.data());
  }
  const Sum* sum = sums.data();
  for (Index x = 0; x < windows; ++x) {
    const Sum mean = (sum[x] + bias + ((sum[x] >> shift) & odd)) >> shift;
    Store<T>(target + static_cast<std::size_t>(x) * sizeof(T), static_cast<T>(mean));
  }
  return windows;
}

template <typename T, typename Op>
void ReduceRows(const Downsampler& downsampler, ByteView in, std::span<const Index> shape,
                MutableByteView out, Index first_row, Index last_row) {
  const Shape out_shape = downsampler.OutputShape(shape);
  const std::span<const Index> factors = downsampler.factors();
  const std::size_t lead = shape.size() - 1;
  const Index width = shape[lead];
  const Index out_width = out_shape[lead];
  const Index factor = factors[lead];
  // The output row's coordinates in every dimension but the last.
  Coord out_row = RowCoordinates(out_shape, first_row);
  std::vector<Index> rows;
  std::vector<Index> scratch;
  std::vector<WindowSum<T>> sums;
  Op op;
  for (Index r = first_row; r < last_row; ++r) {
    WindowRows(shape, factors, out_row, rows, scratch);
    std::uint8_t* target = out.data() + static_cast<std::size_t>(r * out_width) * sizeof(T);
    Index whole = 0;  // Outputs already made by a faster rule.
    if constexpr (std::is_same_v<Op, IntegerMean<T>> && sizeof(T) <= 4) {
      whole = ShiftedMeans<T>(in.data(), rows, factor, width / factor, target, sums);
    }
    for (Index x = whole; x < out_width; ++x) {
      const Index x0 = x * factor;
      const Index count = std::min(factor, width - x0);
      op.Reset();
      for (Index row : rows) {
        const std::uint8_t* source = in.data() + static_cast<std::size_t>(row + x0) * sizeof(T);
        for (Index i = 0; i < count; ++i) op.Add(Load<T>(source + i * sizeof(T)));
      }
      Store<T>(target + static_cast<std::size_t>(x) * sizeof(T), op.Result());
    }
    NextRow(out_shape, out_row);
  }
}

// Frame sums (downsample.h): output row `r` of one frame, the windows of
// its input rows added into 32-bit sums.
template <typename T>
void AddFrameSumsOf(const Downsampler& downsampler, ByteView frame,
                    std::span<const Index> frame_shape, std::span<std::int32_t> sums, bool first,
                    Index first_row, Index last_row) {
  const std::span<const Index> factors = std::span(downsampler.factors()).subspan(1);
  const std::size_t lead = frame_shape.size() - 1;
  const Index factor = factors[lead];
  const Index out_width = frame_shape[lead] / factor;
  Shape out_shape(frame_shape.begin(), frame_shape.end());
  for (std::size_t d = 0; d < out_shape.size(); ++d) out_shape[d] /= factors[d];
  Coord out_row = RowCoordinates(out_shape, first_row);
  std::vector<Index> rows;
  std::vector<Index> scratch;
  for (Index r = first_row; r < last_row; ++r) {
    WindowRows(frame_shape, factors, out_row, rows, scratch);
    std::int32_t* row_sums = sums.data() + static_cast<std::size_t>(r * out_width);
    if (first) std::fill(row_sums, row_sums + out_width, 0);
    for (Index row : rows) {
      AddWindowsOfRow<T, std::int32_t>(frame.data() + static_cast<std::size_t>(row) * sizeof(T),
                                       factor, out_width, row_sums);
    }
    NextRow(out_shape, out_row);
  }
}

// IntegerMean's rule on sums of `count` elements each: by ShiftedMeans' shift
// for 2^k, else by its division (a partial window at a stream's end).
template <typename T>
void MeansOfSums(std::span<const std::int32_t> sums, std::int64_t count, std::uint8_t* target) {
  if (std::has_single_bit(static_cast<std::uint64_t>(count))) {
    const int shift = std::countr_zero(static_cast<std::uint64_t>(count));
    const auto bias = static_cast<std::int32_t>((count - 1) >> 1);
    const std::int32_t odd = shift == 0 ? 0 : 1;
    for (std::size_t x = 0; x < sums.size(); ++x) {
      const std::int32_t mean = (sums[x] + bias + ((sums[x] >> shift) & odd)) >> shift;
      Store<T>(target + x * sizeof(T), static_cast<T>(mean));
    }
    return;
  }
  IntegerMean<T> op;
  for (std::size_t x = 0; x < sums.size(); ++x) {
    op.Reset();
    op.AddSum(sums[x], count);
    Store<T>(target + x * sizeof(T), op.Result());
  }
}

template <typename T>
using Mean = std::conditional_t<std::is_floating_point_v<T>, FloatMean<T>, IntegerMean<T>>;

using KernelFunction = void (*)(const Downsampler&, ByteView, std::span<const Index>,
                                MutableByteView, Index, Index);

template <typename T>
KernelFunction KernelFor(DownsampleMethod method) {
  switch (method) {
    case DownsampleMethod::kMean:
      return &ReduceRows<T, Mean<T>>;
    case DownsampleMethod::kMode:
      return &ReduceRows<T, Mode<T>>;
    case DownsampleMethod::kMin:
      return &ReduceRows<T, Extreme<T, true>>;
    case DownsampleMethod::kMax:
      return &ReduceRows<T, Extreme<T, false>>;
  }
  return nullptr;
}

// OK when `method` can reduce `type`.
Status CheckMethodFits(DownsampleMethod method, DataType type) {
  const std::string what = std::string(DownsampleMethodName(method)) + " downsampling of " +
                           std::string(type.zarr_name());
  if (!type.is_numeric() || type.is_complex() || type.id() == DataTypeId::kFloat16) {
    return Status::Unsupported(what +
                               " is not implemented (integers, bool, float32 and "
                               "float64 are)")
        .WithField("downsample_method");
  }
  if (method == DownsampleMethod::kMean && type.id() == DataTypeId::kBool) {
    return Status::InvalidArgument(what + " has no meaning: use mode, min or max for bool")
        .WithField("downsample_method");
  }
  if (method == DownsampleMethod::kMode && type.is_float()) {
    return Status::InvalidArgument(what + " has no meaning: mode is for labels (integers or bool)")
        .WithField("downsample_method");
  }
  return Status::Ok();
}

}  // namespace

Result<DownsampleMethod> ParseDownsampleMethod(std::string_view name) {
  for (DownsampleMethod method : {DownsampleMethod::kMean, DownsampleMethod::kMode,
                                  DownsampleMethod::kMin, DownsampleMethod::kMax}) {
    if (DownsampleMethodName(method) == name) return method;
  }
  return Status::InvalidArgument("unknown downsampling method \"" + std::string(name) +
                                 "\" (expected mean, mode, min or max)")
      .WithField("downsample_method");
}

std::string_view DownsampleMethodName(DownsampleMethod method) {
  switch (method) {
    case DownsampleMethod::kMean:
      return "mean";
    case DownsampleMethod::kMode:
      return "mode";
    case DownsampleMethod::kMin:
      return "min";
    case DownsampleMethod::kMax:
      return "max";
  }
  return "?";
}

Result<Downsampler> Downsampler::Create(DownsampleMethod method, DataType type, Shape factors) {
  CHUNKWISE_RETURN_IF_ERROR(CheckMethodFits(method, type));
  if (factors.empty()) return Status::InvalidArgument("downsampling needs at least one dimension");
  Index window = 1;
  for (Index factor : factors) {
    if (factor < 1) {
      return Status::InvalidArgument("downsampling factors must be at least 1, not " +
                                     std::to_string(factor))
          .WithField("downsample_factors");
    }
    window *= std::min(factor, kMaxDownsampleWindow + 1);
    if (window > kMaxDownsampleWindow) {
      return Status::InvalidArgument("downsampling windows of [" + FormatShape(factors) +
                                     "] hold more than " + std::to_string(kMaxDownsampleWindow) +
                                     " elements")
          .WithField("downsample_factors");
    }
  }
  KernelFunction kernel = nullptr;
  switch (type.id()) {
    case DataTypeId::kBool:
    case DataTypeId::kUInt8:
      kernel = KernelFor<std::uint8_t>(method);
      break;
    case DataTypeId::kInt8:
      kernel = KernelFor<std::int8_t>(method);
      break;
    case DataTypeId::kInt16:
      kernel = KernelFor<std::int16_t>(method);
      break;
    case DataTypeId::kInt32:
      kernel = KernelFor<std::int32_t>(method);
      break;
    case DataTypeId::kInt64:
      kernel = KernelFor<std::int64_t>(method);
      break;
    case DataTypeId::kUInt16:
      kernel = KernelFor<std::uint16_t>(method);
      break;
    case DataTypeId::kUInt32:
      kernel = KernelFor<std::uint32_t>(method);
      break;
    case DataTypeId::kUInt64:
      kernel = KernelFor<std::uint64_t>(method);
      break;
    case DataTypeId::kFloat32:
      kernel = KernelFor<float>(method);
      break;
    case DataTypeId::kFloat64:
      kernel = KernelFor<double>(method);
      break;
    default:
      break;  // Refused above.
  }
  return Downsampler(method, type, std::move(factors), kernel);
}

Shape Downsampler::OutputShape(std::span<const Index> shape) const {
  Shape out(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    out[d] = (shape[d] + factors_[d] - 1) / factors_[d];
  }
  return out;
}

Index Downsampler::OutputRows(std::span<const Index> shape) const {
  const Shape out = OutputShape(shape);
  Index rows = 1;
  for (std::size_t d = 0; d + 1 < out.size(); ++d) rows *= out[d];
  return rows;
}

void Downsampler::Reduce(ByteView in, std::span<const Index> shape, MutableByteView out,
                         Index first_row, Index last_row) const {
  if (first_row >= last_row) return;
  kernel_(*this, in, shape, out, first_row, last_row);
}

bool Downsampler::SumsFrames(std::span<const Index> frame_shape) const {
  if (method_ != DownsampleMethod::kMean || type_.is_float() || type_.size() > 2 ||
      frame_shape.empty() || frame_shape.size() + 1 != factors_.size()) {
    return false;
  }
  Index window = factors_[0];
  for (std::size_t d = 0; d < frame_shape.size(); ++d) {
    if (frame_shape[d] % factors_[d + 1] != 0) return false;
    window *= factors_[d + 1];
  }
  // 2^15 elements of 16 bits fit 32-bit sums, as in ShiftedMeans.
  return window <= (Index{1} << 15) && std::has_single_bit(static_cast<std::uint64_t>(window));
}

void Downsampler::AddFrameSums(ByteView frame, std::span<const Index> frame_shape,
                               std::span<std::int32_t> sums, bool first, Index first_row,
                               Index last_row) const {
  switch (type_.id()) {
    case DataTypeId::kUInt8:
      return AddFrameSumsOf<std::uint8_t>(*this, frame, frame_shape, sums, first, first_row,
                                          last_row);
    case DataTypeId::kInt8:
      return AddFrameSumsOf<std::int8_t>(*this, frame, frame_shape, sums, first, first_row,
                                         last_row);
    case DataTypeId::kUInt16:
      return AddFrameSumsOf<std::uint16_t>(*this, frame, frame_shape, sums, first, first_row,
                                           last_row);
    case DataTypeId::kInt16:
      return AddFrameSumsOf<std::int16_t>(*this, frame, frame_shape, sums, first, first_row,
                                          last_row);
    default:
      return;  // SumsFrames is false.
  }
}

void Downsampler::MeansOfFrameSums(std::span<const std::int32_t> sums, Index frames,
                                   MutableByteView out) const {
  std::int64_t count = frames;
  for (std::size_t d = 1; d < factors_.size(); ++d) count *= factors_[d];
  switch (type_.id()) {
    case DataTypeId::kUInt8:
      return MeansOfSums<std::uint8_t>(sums, count, out.data());
    case DataTypeId::kInt8:
      return MeansOfSums<std::int8_t>(sums, count, out.data());
    case DataTypeId::kUInt16:
      return MeansOfSums<std::uint16_t>(sums, count, out.data());
    case DataTypeId::kInt16:
      return MeansOfSums<std::int16_t>(sums, count, out.data());
    default:
      return;  // SumsFrames is false.
  }
}

}  // namespace chunkwise::core
