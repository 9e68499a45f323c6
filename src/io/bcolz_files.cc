#include "chunkwise/io/bcolz_files.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <system_error>

#include "chunkwise/core/index.h"
#include "chunkwise/io/array_file.h"
#include "chunkwise/io/csv_file.h"
#include "chunkwise/io/file.h"
#include "chunkwise/io/npy_file.h"
#include "core/file_io.h"
#include "formats/bcolz/ctable.h"
#include "formats/bcolz/dataset.h"
#include "formats/bcolz/meta.h"

namespace chunkwise::io {

using formats::bcolz::Carray;
using formats::bcolz::CarrayOptions;
using formats::bcolz::ColumnSpec;
using formats::bcolz::Ctable;
using formats::bcolz::Mode;
using formats::bcolz::ParseRowSlice;
using formats::bcolz::ReadRequest;
using formats::bcolz::ReadSelection;

namespace {

constexpr std::uint64_t kBatchBytes = 16 << 20;

// An input array handed out in whole rows along axis 0.
class RowSource {
 public:
  static Result<RowSource> Open(const std::filesystem::path& path) {
    RowSource source;
    if (HasCsvExtension(path)) {
      CHUNKWISE_ASSIGN_OR_RETURN(source.whole_, ReadCsv(path));
    } else {
      CHUNKWISE_ASSIGN_OR_RETURN(source.stream_, ArrayStreamReader::Open(path, {}));
      if (source.stream_->fortran_order() && source.stream_->shape().size() > 1) {
        source.stream_.reset();  // Reordering needs the whole array.
        CHUNKWISE_ASSIGN_OR_RETURN(source.whole_, ReadArrayFile(path, {}));
        CHUNKWISE_RETURN_IF_ERROR(core::ToCOrder(source.whole_));
      } else {
        source.whole_.dtype = source.stream_->dtype();
        source.whole_.shape = source.stream_->shape();
      }
    }
    if (source.whole_.shape.empty()) {
      return Status::InvalidArgument(path.string() + ": a 0-d array has no rows to store");
    }
    source.row_size_ = source.whole_.dtype.itemsize();
    for (std::size_t d = 1; d < source.whole_.shape.size(); ++d) {
      source.row_size_ *= static_cast<std::uint64_t>(source.whole_.shape[d]);
    }
    return source;
  }

  const core::NpyDtype& dtype() const { return whole_.dtype; }
  std::vector<std::int64_t> row_shape() const {
    return {whole_.shape.begin() + 1, whole_.shape.end()};
  }
  std::int64_t rows() const { return whole_.shape[0]; }
  std::uint64_t row_size() const { return row_size_; }

  // The next whole rows into `out` (a multiple of row_size); the bytes read.
  Result<std::size_t> Read(MutableByteView out) {
    if (stream_) return stream_->Read(out);
    const std::size_t n = std::min(out.size(), whole_.data.size() - position_);
    std::memcpy(out.data(), whole_.data.data() + position_, n);
    position_ += n;
    return n;
  }

 private:
  std::unique_ptr<ArrayStreamReader> stream_;
  core::NpyArray whole_;  // dtype and shape always; data only when read whole.
  std::size_t position_ = 0;
  std::uint64_t row_size_ = 0;
};

// Feeds the source to `sink` in batches of `batch_rows` rows, with progress.
Status Pump(RowSource& source, std::int64_t chunklen, const BcolzImportOptions& options,
            const std::function<Status(ByteView)>& sink) {
  const std::uint64_t chunk_bytes = std::max<std::uint64_t>(source.row_size() * chunklen, 1);
  const std::uint64_t batch = std::max<std::uint64_t>(kBatchBytes / chunk_bytes, 1) * chunk_bytes;
  core::ProgressReporter progress({.label = "bcolz import",
                                   .total_units = source.row_size() * source.rows(),
                                   .mode = options.progress,
                                   .observer = options.observer});
  Bytes buffer(std::min<std::uint64_t>(batch, source.row_size() * source.rows()));
  while (!buffer.empty()) {
    if (options.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(options.cancellation->Check("importing rows"));
    }
    CHUNKWISE_ASSIGN_OR_RETURN(std::size_t n, source.Read(buffer));
    if (n == 0) break;
    if (n % source.row_size() != 0) return Status::IOError("input ends inside a row");
    CHUNKWISE_RETURN_IF_ERROR(sink(ByteView(buffer.data(), n)));
    progress.Add(n);
  }
  progress.Finish();
  return Status::Ok();
}

// Copies one field of `count` rows between structured layouts, converting
// the few cases a CSV's inferred dtypes need.
Status ConvertField(const core::NpyField& from, std::size_t from_stride, const std::uint8_t* src,
                    const core::NpyField& to, std::size_t to_stride, std::uint8_t* dst,
                    std::size_t count) {
  const core::NpyDtype &a = from.dtype, &b = to.dtype;
  const bool same = a == b && from.shape == to.shape;
  const bool strings = a.kind() == 'S' && b.kind() == 'S' && from.shape.empty() && to.shape.empty();
  const bool int_to_float = a.kind() == 'i' && a.itemsize() == 8 && b.kind() == 'f' &&
                            b.itemsize() == 8 && b.byte_order() != core::NpyDtype::ByteOrder::kBig;
  if (!same && !strings && !int_to_float) {
    return Status::InvalidArgument("input field \"" + from.name + "\" of dtype " + a.ToDescr() +
                                   " does not fit column dtype " + b.ToDescr());
  }
  for (std::size_t r = 0; r < count; ++r) {
    const std::uint8_t* s = src + r * from_stride + from.offset;
    std::uint8_t* d = dst + r * to_stride + to.offset;
    if (int_to_float) {
      std::int64_t value;
      std::memcpy(&value, s, 8);
      const auto converted = static_cast<double>(value);
      std::memcpy(d, &converted, 8);
    } else {
      std::memset(d, 0, to.size());
      std::memcpy(d, s, std::min(from.size(), to.size()));
    }
  }
  return Status::Ok();
}

Result<Bytes> ConvertRows(const core::NpyDtype& from, ByteView rows, const core::NpyDtype& to) {
  const std::size_t count = rows.size() / from.itemsize();
  Bytes out(count * to.itemsize(), 0);
  for (const core::NpyField& target : to.fields()) {
    const auto& fields = from.fields();
    const auto it = std::find_if(fields.begin(), fields.end(),
                                 [&](const core::NpyField& f) { return f.name == target.name; });
    if (it == fields.end()) {
      return Status::InvalidArgument("input has no field for column \"" + target.name + "\"");
    }
    CHUNKWISE_RETURN_IF_ERROR(
        ConvertField(*it, from.itemsize(), rows.data(), target, to.itemsize(), out.data(), count));
  }
  return out;
}

Result<BcolzImportSummary> AppendToCtable(RowSource& source, Ctable& table,
                                          const BcolzImportOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const core::NpyDtype row_dtype, table.RowDtype({}));
  if (!source.dtype().is_structured()) {
    return Status::InvalidArgument("a ctable takes structured rows, not " +
                                   source.dtype().ToDescr());
  }
  const bool convert = !(source.dtype() == row_dtype);
  const std::int64_t before = table.length();
  CHUNKWISE_RETURN_IF_ERROR(
      Pump(source, table.column(std::size_t{0}).chunklen(), options, [&](ByteView rows) {
        if (!convert) return table.Append(row_dtype, rows);
        CHUNKWISE_ASSIGN_OR_RETURN(Bytes converted, ConvertRows(source.dtype(), rows, row_dtype));
        return table.Append(row_dtype, converted);
      }));
  CHUNKWISE_RETURN_IF_ERROR(table.Flush());
  return BcolzImportSummary{
      true, table.length() - before, table.length(),
      source.row_size() * static_cast<std::uint64_t>(table.length() - before)};
}

Result<BcolzImportSummary> AppendToCarray(RowSource& source, Carray& carray,
                                          const BcolzImportOptions& options) {
  if (!(source.dtype() == carray.dtype()) || source.row_shape() != carray.atom_shape()) {
    return Status::InvalidArgument("input rows " + source.dtype().ToDescr() + " (" +
                                   core::FormatShape(source.row_shape()) +
                                   ") do not match the carray's " + carray.dtype().ToDescr() +
                                   " (" + core::FormatShape(carray.atom_shape()) + ")");
  }
  const std::int64_t before = carray.length();
  CHUNKWISE_RETURN_IF_ERROR(
      Pump(source, carray.chunklen(), options, [&](ByteView rows) { return carray.Append(rows); }));
  CHUNKWISE_RETURN_IF_ERROR(carray.Close());
  return BcolzImportSummary{
      false, carray.length() - before, carray.length(),
      source.row_size() * static_cast<std::uint64_t>(carray.length() - before)};
}

// Streams rows [start, stop) of `carray` into the .npy `output`, which
// appears when complete.
Status StreamCarrayToNpy(Carray& carray, std::int64_t start, std::int64_t stop,
                         const std::filesystem::path& output) {
  std::vector<std::int64_t> shape = carray.shape();
  shape[0] = stop - start;
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes header, core::SerializeNpyHeader(carray.dtype(), shape, false));
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<store::ValueWriter> file, OpenFileWriter(output));
  CHUNKWISE_RETURN_IF_ERROR(file->Append(header));
  Bytes rows;
  for (std::int64_t row = start; row < stop;) {
    const std::int64_t end = std::min(stop, (row / carray.chunklen() + 1) * carray.chunklen());
    rows.resize(static_cast<std::size_t>(end - row) * carray.atomsize());
    CHUNKWISE_RETURN_IF_ERROR(carray.Read(row, end, rows));
    CHUNKWISE_RETURN_IF_ERROR(file->Append(rows));
    row = end;
  }
  return file->Commit();
}

}  // namespace

Result<BcolzImportSummary> CreateBcolzFromFile(const std::filesystem::path& input,
                                               std::shared_ptr<store::Store> store,
                                               const std::string& prefix,
                                               const BcolzImportOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(RowSource source, RowSource::Open(input));
  CarrayOptions base;
  base.cparams = {options.cparams.clevel, options.cparams.shuffle, options.cparams.cname,
                  options.cparams.quantize};
  base.chunklen = options.chunklen;
  base.expectedlen = source.rows();
  base.threads = options.threads;
  if (source.dtype().is_structured() && source.row_shape().empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<ColumnSpec> columns,
                               Ctable::ColumnsFor(source.dtype(), base));
    CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Ctable> table,
                               Ctable::Create(std::move(store), prefix, columns));
    return AppendToCtable(source, *table, options);
  }
  base.dtype = source.dtype();
  base.atom_shape = source.row_shape();
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Carray> carray,
                             Carray::Create(std::move(store), prefix, base));
  return AppendToCarray(source, *carray, options);
}

Result<BcolzImportSummary> AppendBcolzFromFile(const std::filesystem::path& input,
                                               std::shared_ptr<store::Store> store,
                                               const std::string& prefix,
                                               const BcolzImportOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(RowSource source, RowSource::Open(input));
  CHUNKWISE_ASSIGN_OR_RETURN(bool is_ctable, Ctable::IsCtable(*store, prefix));
  if (is_ctable) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        std::unique_ptr<Ctable> table,
        Ctable::Open(std::move(store), prefix, Mode::kAppend, options.threads));
    return AppendToCtable(source, *table, options);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::unique_ptr<Carray> carray,
      Carray::Open(std::move(store), prefix, Mode::kAppend, options.threads));
  return AppendToCarray(source, *carray, options);
}

Result<std::int64_t> ExportBcolzSelection(std::shared_ptr<store::Store> store,
                                          const std::string& prefix,
                                          const BcolzSelection& selection,
                                          const std::filesystem::path& output) {
  const ReadRequest request{selection.slice, selection.columns, selection.where};
  CHUNKWISE_ASSIGN_OR_RETURN(bool is_ctable, Ctable::IsCtable(*store, prefix));
  if (!is_ctable && request.columns.empty() && request.where.empty() && !HasCsvExtension(output)) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Carray> carray,
                               Carray::Open(std::move(store), prefix, Mode::kRead));
    CHUNKWISE_ASSIGN_OR_RETURN(auto range, ParseRowSlice(request.slice, carray->length()));
    CHUNKWISE_RETURN_IF_ERROR(StreamCarrayToNpy(*carray, range.first, range.second, output));
    return range.second - range.first;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(core::NpyArray array,
                             ReadSelection(std::move(store), prefix, request));
  if (HasCsvExtension(output)) {
    CHUNKWISE_RETURN_IF_ERROR(WriteCsv(output, array));
  } else {
    CHUNKWISE_RETURN_IF_ERROR(WriteNpy(output, array));
  }
  return array.shape[0];
}

Status AddBcolzDataDirectories(const std::filesystem::path& root) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::FileStore> store, OpenDirectory(root, false));
  std::vector<std::filesystem::path> carrays = {root};
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> rootdirs, store->Get("__rootdirs__"));
  if (rootdirs.has_value()) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        const std::vector<std::string> names,
        formats::bcolz::ParseRootdirs(AsChars(*rootdirs), store->Describe("__rootdirs__")));
    carrays.clear();
    for (const std::string& name : names) carrays.push_back(root / name);
  }
  for (const std::filesystem::path& carray : carrays) {
    std::error_code error;
    std::filesystem::create_directories(carray / "data", error);
    if (error) {
      return Status::IOError("create directory " + (carray / "data").string() + ": " +
                             error.message());
    }
  }
  return Status::Ok();
}

}  // namespace chunkwise::io
