// chunkwise._core's bcolz: carrays as numpy arrays and ctables as numpy
// structured arrays, through the facade (facade/bcolz_datasets.h), for
// chunkwise/bcolz.py. dtypes cross as the descr literal a .npy header holds
// (numpy.lib.format.dtype_to_descr).
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
#include "numpy_bytes.h"
#include "operation.h"
#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

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

// Writes (or appends) the rows: progress counts their bytes, cancellation
// stops the write between batches of chunks, keeping the rows written.
std::int64_t WriteBcolz(const std::string& url, const BcolzWriteRequest& request, InBytes data,
                        nb::object progress, std::shared_ptr<CancelToken> cancel) {
  BcolzRows rows;
  rows.dtype = ValueOrThrow(core::NpyDtype::FromDescr(request.descr));
  rows.shape = request.shape;
  rows.bytes = ByteView(static_cast<const std::uint8_t*>(data.data()), data.nbytes());
  BcolzImportOptions options;
  options.cparams.cname = request.cname;
  options.cparams.clevel = request.clevel;
  options.cparams.shuffle = request.shuffle;
  options.chunklen = request.chunklen;
  options.threads = request.threads;
  Operation operation(std::move(progress), std::move(cancel));
  std::int64_t length = 0;
  operation.Run(
      [&]() -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(
            length, request.append
                        ? AppendBcolzRows(operation.context(), url, rows, operation.call())
                        : WriteBcolzRows(operation.context(), url, rows, options, request.overwrite,
                                         operation.call()));
        return Status::Ok();
      },
      rows.bytes.size());
  return length;
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
// facade's CreateBcolz / AppendBcolz, on the module's Context (whose
// memory:// stores every call sees).
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
        const CallOptions& call = operation.call();  // Row bytes, to the callback.
        CHUNKWISE_ASSIGN_OR_RETURN(
            summary, request.append
                         ? AppendBcolz(context, url, input, options, call)
                         : CreateBcolz(context, url, input, options, request.overwrite, call));
        return Status::Ok();
      },
      // Always watched: the file's size is not looked at here.
      UINT64_MAX);
  return SummaryDict(summary);
}

// (descr, shape, bytes) of the rows the request selects.
std::tuple<std::string, std::vector<std::int64_t>, nb::object> ReadBcolzRows(
    const std::string& url, const std::string& slice, const std::vector<std::string>& columns,
    const std::string& where, nb::object progress, std::shared_ptr<CancelToken> cancel) {
  core::NpyArray array;
  Operation operation(std::move(progress), std::move(cancel));
  operation.Run(
      [&]() -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(
            array, ReadBcolz(operation.context(), url, {slice, columns, where}, operation.call()));
        return Status::Ok();
      },
      // Always watched: the selection's size is known only once opened.
      UINT64_MAX);
  return {array.dtype.ToDescr(), array.shape, BytesToNumpy(std::move(array.data))};
}

std::string DescribeBcolzAt(const std::string& url) {
  nb::gil_scoped_release release;
  return ValueOrThrow(DescribeBcolzJson(ModuleContext(), url)).dump();
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
  module.def("bcolz_read", &ReadBcolzRows, nb::arg("url"), nb::arg("slice"), nb::arg("columns"),
             nb::arg("where"), nb::arg("progress") = nb::none(),
             nb::arg("cancel").none() = nb::none());
  module.def("bcolz_info", &DescribeBcolzAt, nb::arg("url"));
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
