// chunkwise._core's bcolz: carrays as numpy arrays and ctables as numpy
// structured arrays (formats/bcolz), for chunkwise/bcolz.py. dtypes cross as
// the descr literal a .npy header holds (numpy.lib.format.dtype_to_descr).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "chunkwise/core/index.h"
#include "chunkwise/formats/bcolz/carray.h"
#include "chunkwise/formats/bcolz/ctable.h"
#include "chunkwise/formats/bcolz/dataset.h"
#include "chunkwise/io/bcolz_files.h"
#include "chunkwise/store/remote_store_url.h"
#include "numpy_bytes.h"
#include "open_store.h"
#include "operation.h"
#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

namespace bcolz = formats::bcolz;

using InBytes = nb::ndarray<nb::ro, nb::device::cpu, nb::c_contig>;

// What chunkwise.bcolz.write passes down.
struct BcolzWriteRequest {
  std::string descr;                // The rows' dtype, as a .npy header's descr.
  std::vector<std::int64_t> shape;  // {rows, row shape...}.
  std::string cname = "lz4";
  int clevel = 5;
  int shuffle = 1;
  std::int64_t chunklen = 0;  // 0: bcolz's default for the row count.
  int threads = 0;
  bool overwrite = false;
  bool append = false;  // Add the rows to the dataset there.
};

// The directory a local URL names; empty for other stores.
std::string LocalDirectory(const std::string& url) {
  if (url.starts_with("file://")) return url.substr(7);
  return url.find("://") == std::string::npos ? url : "";
}

Status AppendRows(store::Store& store, const std::shared_ptr<store::Store>& shared,
                  const core::NpyDtype& dtype, const std::vector<std::int64_t>& shape,
                  ByteView rows, const std::string& url, const bcolz::CallHooks& hooks) {
  CHUNKWISE_ASSIGN_OR_RETURN(const bool ctable, bcolz::Ctable::IsCtable(store, ""));
  if (ctable) {
    CHUNKWISE_ASSIGN_OR_RETURN(auto table, bcolz::Ctable::Open(shared, "", bcolz::Mode::kAppend));
    table->set_hooks(hooks);
    CHUNKWISE_RETURN_IF_ERROR(table->Append(dtype, rows));
    return table->Flush();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(auto carray, bcolz::Carray::Open(shared, "", bcolz::Mode::kAppend));
  const std::vector<std::int64_t> row_shape(shape.begin() + 1, shape.end());
  if (dtype.is_structured() || !(carray->dtype() == dtype) || carray->atom_shape() != row_shape) {
    return Status::InvalidArgument(url + ": the carray holds rows of " + carray->dtype().ToDescr() +
                                   " and shape " + core::FormatShape(carray->atom_shape()) +
                                   "; the data's are " + dtype.ToDescr() + " and " +
                                   core::FormatShape(row_shape));
  }
  carray->set_hooks(hooks);
  CHUNKWISE_RETURN_IF_ERROR(carray->Append(rows));
  return carray->Flush();
}

Status CreateRows(const std::shared_ptr<store::Store>& store, const core::NpyDtype& dtype,
                  const BcolzWriteRequest& request, ByteView rows, const bcolz::CallHooks& hooks) {
  bcolz::CarrayOptions options;
  options.cparams.cname = request.cname;
  options.cparams.clevel = request.clevel;
  options.cparams.shuffle = request.shuffle;
  options.expectedlen = request.shape.empty() ? 0 : request.shape[0];
  options.chunklen = request.chunklen;
  options.threads = request.threads;
  if (dtype.is_structured()) {
    CHUNKWISE_ASSIGN_OR_RETURN(auto columns, bcolz::Ctable::ColumnsFor(dtype, options));
    CHUNKWISE_ASSIGN_OR_RETURN(auto table, bcolz::Ctable::Create(store, "", columns));
    table->set_hooks(hooks);
    CHUNKWISE_RETURN_IF_ERROR(table->Append(dtype, rows));
    return table->Flush();
  }
  options.dtype = dtype;
  options.atom_shape.assign(request.shape.begin() + 1, request.shape.end());
  CHUNKWISE_ASSIGN_OR_RETURN(auto carray, bcolz::Carray::Create(store, "", options));
  carray->set_hooks(hooks);
  CHUNKWISE_RETURN_IF_ERROR(carray->Append(rows));
  return carray->Flush();
}

// Writes (or appends) the rows on the Operation's Context: its progress
// counts the rows' bytes, its cancellation stops the write between batches
// of chunks (formats/bcolz/carray.h, Append), keeping the rows written.
Status WriteRows(const Context& context, const std::string& url, const BcolzWriteRequest& request,
                 const core::NpyDtype& dtype, ByteView rows, std::int64_t& length) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled("writing " + url));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store, OpenStoreForUrl(url, true));
  const std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress("bcolz write", rows.size(), "B");
  const bcolz::CallHooks hooks{progress.get(), &context.cancellation()};
  if (request.append) {
    CHUNKWISE_RETURN_IF_ERROR(AppendRows(*store, store, dtype, request.shape, rows, url, hooks));
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store->List(""));
    if (!request.overwrite && !keys.empty()) {
      return Status::InvalidArgument(url + " already holds data; not replaced");
    }
    CHUNKWISE_RETURN_IF_ERROR(CreateRows(store, dtype, request, rows, hooks).WithContext(url));
  }
  // bcolz itself opens a dataset only with its data/ directories present.
  if (const std::string directory = LocalDirectory(url); !directory.empty()) {
    CHUNKWISE_RETURN_IF_ERROR(io::AddBcolzDataDirectories(directory));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::ordered_json described,
                             bcolz::DescribeDatasetJson(store, ""));
  length = described["length"].get<std::int64_t>();
  progress->Finish();
  return Status::Ok();
}

std::int64_t WriteBcolz(const std::string& url, const BcolzWriteRequest& request, InBytes data,
                        nb::object progress, std::shared_ptr<CancelToken> cancel) {
  const core::NpyDtype dtype = ValueOrThrow(core::NpyDtype::FromDescr(request.descr));
  if (request.shape.empty()) {
    throw StatusError(Status::InvalidArgument(url + ": bcolz holds rows; a 0-d array has none"));
  }
  const ByteView rows(static_cast<const std::uint8_t*>(data.data()), data.nbytes());
  Operation operation(std::move(progress), std::move(cancel));
  std::int64_t length = 0;
  operation.Run([&] { return WriteRows(operation.context(), url, request, dtype, rows, length); },
                rows.size());
  return length;
}

// The store of the dataset at `url`, to be read: for object storage and
// http(s) the facade's OpenBcolz (it finds a dataset without listing); for
// paths and memory:// the module's own stores.
Result<std::shared_ptr<store::Store>> OpenForReading(const Context& context,
                                                     const std::string& url) {
  if (store::IsRemoteStoreUrl(url)) return OpenBcolz(context, url);
  return OpenStoreForUrl(url, false);
}

// What chunkwise.bcolz.import_file passes down.
struct BcolzImportRequest {
  std::string cname = "lz4";
  int clevel = 5;
  int shuffle = 1;
  std::int64_t chunklen = 0;
  int threads = 0;
  bool overwrite = false;
  bool append = false;
};

nb::dict SummaryDict(const BcolzImportSummary& summary) {
  nb::dict result;
  result["kind"] = summary.ctable ? "ctable" : "carray";
  result["rows_added"] = summary.rows_added;
  result["length"] = summary.length;
  result["input_bytes"] = summary.input_bytes;
  return result;
}

// A .npy (or .csv, for a ctable) file into the dataset at `url`: the
// facade's CreateBcolz / AppendBcolz. memory:// URLs are the module's own
// stores, which the facade's context does not see: the same io calls on them.
nb::dict ImportBcolz(const std::string& url, const std::string& input,
                     const BcolzImportRequest& request, nb::object progress,
                     std::shared_ptr<CancelToken> cancel) {
  BcolzImportOptions options;
  options.cparams.cname = request.cname;
  options.cparams.clevel = request.clevel;
  options.cparams.shuffle = request.shuffle;
  options.chunklen = request.chunklen;
  options.threads = request.threads;
  BcolzImportSummary summary;
  Operation operation(std::move(progress), std::move(cancel));
  operation.Run(
      [&]() -> Status {
        const Context& context = operation.context();
        CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled("importing into " + url));
        options.observer = context.observer();  // Row bytes, to the callback.
        options.cancellation = &context.cancellation();
        if (!url.starts_with("memory://")) {
          CHUNKWISE_ASSIGN_OR_RETURN(
              summary, request.append
                           ? AppendBcolz(context, url, input, options)
                           : CreateBcolz(context, url, input, options, request.overwrite));
          return Status::Ok();
        }
        CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store, OpenStoreForUrl(url, true));
        if (request.append) {
          CHUNKWISE_ASSIGN_OR_RETURN(summary, io::AppendBcolzFromFile(input, store, "", options));
          return Status::Ok();
        }
        CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store->List(""));
        if (!request.overwrite && !keys.empty()) {
          return Status::InvalidArgument(url + " already holds data; not replaced");
        }
        CHUNKWISE_ASSIGN_OR_RETURN(summary, io::CreateBcolzFromFile(input, store, "", options));
        return Status::Ok();
      },
      // Always watched: the file's size is not looked at here.
      UINT64_MAX);
  return SummaryDict(summary);
}

// (descr, shape, bytes) of the rows the request selects.
std::tuple<std::string, std::vector<std::int64_t>, nb::object> ReadBcolz(
    const std::string& url, const std::string& slice, const std::vector<std::string>& columns,
    const std::string& where, nb::object progress, std::shared_ptr<CancelToken> cancel) {
  core::NpyArray array;
  Operation operation(std::move(progress), std::move(cancel));
  operation.Run(
      [&]() -> Status {
        const Context& context = operation.context();
        CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled("reading " + url));
        CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                                   OpenForReading(context, url));
        bcolz::ReadRequest request{slice, columns, where};
        request.progress = [&](std::uint64_t total) {
          return context.StartProgress("bcolz read", total, "B");
        };
        request.cancellation = &context.cancellation();
        Result<core::NpyArray> read = bcolz::ReadSelection(store, "", request);
        if (!read.ok()) return read.status().WithContext(url);
        array = *std::move(read);
        return Status::Ok();
      },
      // Always watched: the selection's size is known only once opened.
      UINT64_MAX);
  return {array.dtype.ToDescr(), array.shape, BytesToNumpy(std::move(array.data))};
}

std::string DescribeBcolz(const std::string& url) {
  nb::gil_scoped_release release;
  std::shared_ptr<store::Store> store = ValueOrThrow(OpenForReading(ModuleContext(), url));
  Result<nlohmann::ordered_json> described = bcolz::DescribeDatasetJson(store, "");
  if (!described.ok()) throw StatusError(described.status().WithContext(url));
  return described->dump();
}

}  // namespace

void BindBcolz(nb::module_& module) {
  nb::class_<BcolzWriteRequest>(module, "BcolzWriteRequest")
      .def(nb::init<>())
      .def_rw("descr", &BcolzWriteRequest::descr)
      .def_rw("shape", &BcolzWriteRequest::shape)
      .def_rw("cname", &BcolzWriteRequest::cname)
      .def_rw("clevel", &BcolzWriteRequest::clevel)
      .def_rw("shuffle", &BcolzWriteRequest::shuffle)
      .def_rw("chunklen", &BcolzWriteRequest::chunklen)
      .def_rw("threads", &BcolzWriteRequest::threads)
      .def_rw("overwrite", &BcolzWriteRequest::overwrite)
      .def_rw("append", &BcolzWriteRequest::append);
  module.def("bcolz_write", &WriteBcolz, nb::arg("url"), nb::arg("request"),
             nb::arg("data").noconvert(), nb::arg("progress") = nb::none(),
             nb::arg("cancel").none() = nb::none());
  module.def("bcolz_read", &ReadBcolz, nb::arg("url"), nb::arg("slice"), nb::arg("columns"),
             nb::arg("where"), nb::arg("progress") = nb::none(),
             nb::arg("cancel").none() = nb::none());
  module.def("bcolz_info", &DescribeBcolz, nb::arg("url"));
  nb::class_<BcolzImportRequest>(module, "BcolzImportRequest")
      .def(nb::init<>())
      .def_rw("cname", &BcolzImportRequest::cname)
      .def_rw("clevel", &BcolzImportRequest::clevel)
      .def_rw("shuffle", &BcolzImportRequest::shuffle)
      .def_rw("chunklen", &BcolzImportRequest::chunklen)
      .def_rw("threads", &BcolzImportRequest::threads)
      .def_rw("overwrite", &BcolzImportRequest::overwrite)
      .def_rw("append", &BcolzImportRequest::append);
  module.def("bcolz_import", &ImportBcolz, nb::arg("url"), nb::arg("input"), nb::arg("request"),
             nb::arg("progress") = nb::none(), nb::arg("cancel").none() = nb::none());
}

}  // namespace chunkwise::python
