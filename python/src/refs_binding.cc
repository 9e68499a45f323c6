// chunkwise._core's reference sets: build_references (the facade's
// BuildReferences then WriteReferences) and References, a read-only store
// over a set's keys (the facade's reference store), for chunkwise/refs.py.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "chunkwise/formats/refs/reference_summary.h"
#include "numpy_bytes.h"
#include "operation.h"
#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

namespace refs = formats::refs;

// What chunkwise.refs.build passes down.
struct BuildRequest {
  std::string format = "json-v1";  // "json" (v0), "json-v1" or "parquet".
  std::string url_base;            // Empty: the source's absolute path or URL.
  bool templates = true;
  std::uint64_t record_size = 100000;
  std::string root_array_name = "data";
  bool overwrite = false;
};

nb::dict SummaryDict(const refs::ReferenceSummary& summary) {
  nb::dict result;
  result["references"] = summary.total_references();
  result["inline"] = summary.inline_count;
  result["ranges"] = summary.range_count;
  result["whole_files"] = summary.whole_file_count;
  result["bytes"] = summary.total_bytes();
  result["arrays"] = nb::cast(summary.arrays);
  return result;
}

nb::dict BuildReferencesAt(const std::string& source, const std::string& output,
                           const BuildRequest& request, nb::object progress,
                           std::shared_ptr<CancelToken> cancel) {
  ReferenceWriteOptions write;
  write.format = ValueOrThrow(refs::ParseReferenceFormat(request.format));
  write.templates = request.templates;
  write.record_size = request.record_size;
  write.root_array_name = request.root_array_name;
  write.overwrite = request.overwrite;
  if (write.record_size == 0) {
    throw StatusError(Status::InvalidArgument("record_size must be positive"));
  }
  Operation operation(std::move(progress), std::move(cancel));
  refs::ReferenceSummary summary;
  operation.Run(
      [&]() -> Status {
        const Context& context = operation.context();
        CHUNKWISE_ASSIGN_OR_RETURN(
            const ReferenceSet set,
            BuildReferences(
                context, source,
                {.url_base = request.url_base,
                 .zarr_chunk_keys_only = write.format == refs::ReferenceFormat::kParquet}));
        CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled("writing references to " + output));
        CHUNKWISE_RETURN_IF_ERROR(WriteReferences(context, set, output, write));
        CHUNKWISE_ASSIGN_OR_RETURN(summary, refs::SummarizeReferences(set, nullptr));
        return Status::Ok();
      },
      // Always watched: the chunk count of the source is not known here.
      UINT64_MAX);
  return SummaryDict(summary);
}

// A reference set's keys, read through the facade's reference store: inline
// values, and byte ranges or whole files of the targets the set names.
class PyReferences {
 public:
  // The set at `url`: a path or file:// (its relative targets resolve
  // against its directory), or a set in object storage, s3://, gs:// or
  // http(s):// (facade/references.h, OpenReferenceStore).
  static PyReferences Open(const std::string& url, const std::vector<std::string>& roots,
                           bool allow_remote) {
    ReadReferencesOptions options;
    for (const std::string& root : roots) options.allowed_roots.emplace_back(root);
    options.allow_remote = allow_remote;
    nb::gil_scoped_release release;
    return PyReferences(url, ValueOrThrow(OpenReferenceStore(ModuleContext(), url, options)));
  }

  const std::string& url() const { return url_; }

  nb::object Get(const std::string& key) const {
    std::optional<Bytes> value;
    {
      nb::gil_scoped_release release;
      value = ValueOrThrow(store_->Get(key));
    }
    if (!value) return nb::none();
    return BytesToNumpy(*std::move(value));
  }

  // Bytes [start, stop) of `key`'s value, cut at its end; None without the key.
  nb::object GetRange(const std::string& key, std::uint64_t start,
                      std::optional<std::uint64_t> stop) const {
    std::optional<Bytes> value;
    {
      nb::gil_scoped_release release;
      const std::optional<std::uint64_t> size = ValueOrThrow(store_->Size(key));
      if (size) {
        const std::uint64_t end = std::min(stop.value_or(*size), *size);
        if (start >= end) {
          value.emplace();
        } else {
          value = ValueOrThrow(store_->GetRange(key, store::ByteRange::Span(start, end - start)));
        }
      }
    }
    if (!value) return nb::none();
    return BytesToNumpy(*std::move(value));
  }

  std::optional<std::uint64_t> Size(const std::string& key) const {
    nb::gil_scoped_release release;
    return ValueOrThrow(store_->Size(key));
  }

  std::vector<std::string> List(const std::string& prefix) const {
    nb::gil_scoped_release release;
    return ValueOrThrow(store_->List(prefix));
  }

  std::string Describe(const std::string& key) const { return store_->Describe(key); }

 private:
  PyReferences(std::string url, std::shared_ptr<store::Store> store)
      : url_(std::move(url)), store_(std::move(store)) {}

  std::string url_;
  std::shared_ptr<store::Store> store_;
};

}  // namespace

void BindReferences(nb::module_& module) {
  nb::class_<BuildRequest>(module, "ReferenceBuildRequest")
      .def(nb::init<>())
      .def_rw("format", &BuildRequest::format)
      .def_rw("url_base", &BuildRequest::url_base)
      .def_rw("templates", &BuildRequest::templates)
      .def_rw("record_size", &BuildRequest::record_size)
      .def_rw("root_array_name", &BuildRequest::root_array_name)
      .def_rw("overwrite", &BuildRequest::overwrite);

  module.def("build_references", &BuildReferencesAt, nb::arg("source"), nb::arg("output"),
             nb::arg("request"), nb::arg("progress") = nb::none(),
             nb::arg("cancel").none() = nb::none());

  nb::class_<PyReferences>(module, "References")
      .def_static("open", &PyReferences::Open, nb::arg("url"), nb::arg("roots"),
                  nb::arg("allow_remote"))
      .def_prop_ro("url", &PyReferences::url)
      .def("get", &PyReferences::Get, nb::arg("key"))
      .def("get_range", &PyReferences::GetRange, nb::arg("key"), nb::arg("start"),
           nb::arg("stop").none())
      .def("size", &PyReferences::Size, nb::arg("key"))
      .def("list", &PyReferences::List, nb::arg("prefix"))
      .def("describe", &PyReferences::Describe, nb::arg("key"));
}

}  // namespace chunkwise::python
