// chunkwise._core.Store: any chunkwise store as bytes by key, for
// chunkwise.zarr.Store and, over a reference set (the facade's
// OpenReferenceStore), chunkwise.refs.References. Values come back as numpy
// uint8 arrays that own the library's buffer: no copy on the way out.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "numpy_bytes.h"
#include "open_store.h"
#include "operation.h"
#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

using InBytes = nb::ndarray<nb::ro, nb::device::cpu, nb::c_contig>;

class PyStore {
 public:
  static PyStore Open(const std::string& url, bool create) {
    nb::gil_scoped_release release;
    return PyStore(url, ValueOrThrow(OpenStoreForUrl(url, create)));
  }

  // The read-only store over the reference set at `url`: a path or file://
  // (its relative targets resolve against its directory), or a set in
  // object storage, s3://, gs:// or http(s):// (facade/references.h).
  static PyStore OpenReferences(const std::string& url, const std::vector<std::string>& roots,
                                bool allow_remote) {
    ReadReferencesOptions options;
    for (const std::string& root : roots) options.allowed_roots.emplace_back(root);
    options.allow_remote = allow_remote;
    nb::gil_scoped_release release;
    return PyStore(url, ValueOrThrow(OpenReferenceStore(ModuleContext(), url, options)));
  }

  const std::string& url() const { return url_; }

  // The value of `key`, or None.
  nb::object Get(const std::string& key) const {
    std::optional<Bytes> value;
    {
      nb::gil_scoped_release release;
      value = ValueOrThrow(store_->Get(key));
    }
    if (!value) return nb::none();
    return BytesToNumpy(*std::move(value));
  }

  // Part of the value of `key`, or None: `length` bytes from `offset` (to
  // the end when no length), or the last `suffix` bytes; cut at the value's
  // end (ByteRange::ClampTo).
  nb::object GetRange(const std::string& key, std::uint64_t offset,
                      std::optional<std::uint64_t> length, bool suffix) const {
    std::optional<Bytes> value;
    {
      nb::gil_scoped_release release;
      std::unique_ptr<store::ValueReader> reader = ValueOrThrow(store_->OpenReader(key));
      if (reader != nullptr) {
        const store::ByteRange asked =
            suffix ? store::ByteRange::Suffix(length.value_or(0))
                   : store::ByteRange::Span(offset, length.value_or(UINT64_MAX));
        const store::ByteRange range = asked.ClampTo(reader->size());
        value.emplace(range.length);
        ThrowIfError(reader->ReadInto({&range, 1}, MutableByteView(value->data(), value->size())));
      }
    }
    if (!value) return nb::none();
    return BytesToNumpy(*std::move(value));
  }

  void Set(const std::string& key, InBytes data) {
    const ByteView bytes(static_cast<const std::uint8_t*>(data.data()), data.nbytes());
    nb::gil_scoped_release release;
    ThrowIfError(store_->Set(key, bytes));
  }

  void Erase(const std::string& key) {
    nb::gil_scoped_release release;
    ThrowIfError(store_->Erase(key));
  }

  bool Exists(const std::string& key) const {
    nb::gil_scoped_release release;
    return ValueOrThrow(store_->Exists(key));
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

  nb::dict Capabilities() const {
    const store::StoreCapabilities capabilities = store_->capabilities();
    nb::dict result;
    result["writable"] = capabilities.writable;
    result["listable"] = capabilities.listable;
    result["lists_every_key"] = capabilities.lists_every_key;
    result["efficient_ranges"] = capabilities.efficient_ranges;
    result["durable"] = capabilities.durable;
    result["local"] = capabilities.local;
    result["conditional_writes"] = capabilities.conditional_writes;
    return result;
  }

 private:
  PyStore(std::string url, std::shared_ptr<store::Store> store)
      : url_(std::move(url)), store_(std::move(store)) {}

  std::string url_;
  std::shared_ptr<store::Store> store_;
};

}  // namespace

void BindStore(nb::module_& module) {
  nb::class_<PyStore>(module, "Store")
      .def_static("open", &PyStore::Open, nb::arg("url"), nb::arg("create"))
      .def_static("open_references", &PyStore::OpenReferences, nb::arg("url"), nb::arg("roots"),
                  nb::arg("allow_remote"))
      .def_prop_ro("url", &PyStore::url)
      .def("get", &PyStore::Get, nb::arg("key"))
      .def("get_range", &PyStore::GetRange, nb::arg("key"), nb::arg("offset"),
           nb::arg("length").none(), nb::arg("suffix"))
      .def("set", &PyStore::Set, nb::arg("key"), nb::arg("data").noconvert())
      .def("erase", &PyStore::Erase, nb::arg("key"))
      .def("exists", &PyStore::Exists, nb::arg("key"))
      .def("size", &PyStore::Size, nb::arg("key"))
      .def("list", &PyStore::List, nb::arg("prefix"))
      .def("describe", &PyStore::Describe, nb::arg("key"))
      .def("capabilities", &PyStore::Capabilities);
}

}  // namespace chunkwise::python
