// chunkwise._core.ChunkBatchArray: a zarr array that zarr-python already
// opened, read and written a batch of chunks at a time
// (facade/zarr_chunk_batches.h: ReadZarrChunks and WriteZarrChunks), for
// chunkwise.zarr.CodecPipeline. zarr-python's metadata document comes in
// as text; each batch as an int64 array of (chunk, box start, box stop,
// buffer origin) rows and the numpy buffer the boxes are read into or
// written from. The array reads and writes a chunkwise store itself, or,
// for stores only zarr-python reaches, the chunk values zarr-python fetched
// (read_values, write_values): they are put in a memory store of the call's
// own, and the same library code runs over it.
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

// Rows of (chunk[rank], box start[rank], box stop[rank], buffer origin[rank]).
using TransferRows =
    nb::ndarray<nb::ro, const std::int64_t, nb::ndim<3>, nb::device::cpu, nb::c_contig>;
using OutArray = nb::ndarray<nb::device::cpu, nb::c_contig>;
using InArray = nb::ndarray<nb::ro, nb::device::cpu, nb::c_contig>;
using ValueBytes =
    nb::ndarray<nb::ro, const std::uint8_t, nb::ndim<1>, nb::device::cpu, nb::c_contig>;

// The array the metadata zarr-python would write for it describes (zarr.json's
// text, or .zarray's and .zattrs' for zarr_format 2) at `prefix` of `store`.
ZarrArray FromMetadata(std::shared_ptr<store::Store> store, const std::string& prefix,
                       const std::string& text, const std::optional<std::string>& zattrs,
                       int zarr_format) {
  std::optional<std::string_view> attributes;
  if (zattrs) attributes = *zattrs;
  return ValueOrThrow(ZarrArrayFromMetadata(ModuleContext(), std::move(store), prefix, text,
                                            attributes, zarr_format));
}

// A memory store of its own, shared with no one (not one of the module's memory://NAME).
Result<std::shared_ptr<store::Store>> PrivateMemoryStore() {
  StoreOptions options;
  options.create = true;
  return OpenStore("memory://private", options);
}

std::vector<ZarrChunkTransfer> ToTransfers(const TransferRows& rows, std::size_t rank) {
  if (rows.shape(1) != 4 || rows.shape(2) != rank) {
    throw StatusError(Status::InvalidArgument(
        "chunk transfers must be rows of 4 × " + std::to_string(rank) + " integers, not " +
        std::to_string(rows.shape(1)) + " × " + std::to_string(rows.shape(2))));
  }
  std::vector<ZarrChunkTransfer> transfers(rows.shape(0));
  const std::int64_t* at = rows.data();
  for (ZarrChunkTransfer& transfer : transfers) {
    const auto take = [&] {
      core::Coord coord(at, at + rank);
      at += rank;
      return coord;
    };
    transfer.chunk = take();
    core::Coord start = take(), stop = take();
    for (std::size_t d = 0; d < rank; ++d) {
      if (start[d] > stop[d]) {
        throw StatusError(Status::InvalidArgument("a chunk transfer's box starts after it stops"));
      }
    }
    transfer.box = core::Region(std::move(start), std::move(stop));
    transfer.buffer_origin = take();
  }
  return transfers;
}

class PyChunkBatchArray {
 public:
  // The array at `prefix` ("" or ending in "/") of the store at `url`.
  // `url` None: an array for read_values and write_values only.
  PyChunkBatchArray(const std::optional<std::string>& url, const std::string& prefix,
                    const std::string& text, const std::optional<std::string>& zattrs,
                    int zarr_format) {
    nb::gil_scoped_release release;
    std::shared_ptr<store::Store> store =
        ValueOrThrow(url ? OpenStoreForUrl(*url, false) : PrivateMemoryStore());
    array_ = std::make_shared<ZarrArray>(
        FromMetadata(std::move(store), prefix, text, zattrs, zarr_format));
  }

  // The numpy type string of the elements, e.g. "<u2".
  std::string dtype() const {
    return array_->metadata().data_type.numpy_typestr(core::Endian::kLittle);
  }
  // The shape of the grid's objects: shards when sharded, else chunks.
  std::vector<core::Index> chunk_shape() const { return array_->metadata().chunk_shape; }

  std::vector<bool> Read(const TransferRows& rows, const OutArray& out) const {
    const core::Shape shape = BufferShape(out.ndim(), out.shape_ptr(), out.nbytes(), "out");
    const std::vector<ZarrChunkTransfer> transfers = ToTransfers(rows, shape.size());
    void* data = out.data();
    nb::gil_scoped_release release;
    return ValueOrThrow(ReadZarrChunks(*array_, transfers, data, shape));
  }

  void Write(const TransferRows& rows, const InArray& data) {
    const core::Shape shape = BufferShape(data.ndim(), data.shape_ptr(), data.nbytes(), "value");
    const std::vector<ZarrChunkTransfer> transfers = ToTransfers(rows, shape.size());
    const ByteView bytes(static_cast<const std::uint8_t*>(data.data()), data.nbytes());
    nb::gil_scoped_release release;
    ThrowIfError(WriteZarrChunks(*array_, transfers, bytes, shape));
  }

  // As Read, from `values`: the stored value of each row's chunk, or None.
  std::vector<bool> ReadValues(const TransferRows& rows, const OutArray& out,
                               const std::vector<std::optional<ValueBytes>>& values) const {
    const core::Shape shape = BufferShape(out.ndim(), out.shape_ptr(), out.nbytes(), "out");
    const std::vector<ZarrChunkTransfer> transfers = ToTransfers(rows, shape.size());
    void* data = out.data();
    const std::vector<std::optional<ByteView>> views = Views(values, transfers.size());
    nb::gil_scoped_release release;
    const ValuesArray over = ValueOrThrow(OverValues(transfers, views));
    return ValueOrThrow(ReadZarrChunks(over.array, transfers, data, shape));
  }

  // As Write, over `old_values` (each row's chunk's stored value, or None
  // where it has none or the row covers it); returns each chunk's new
  // value, or None where it is all fill and is not to be stored.
  std::vector<nb::object> WriteValues(const TransferRows& rows, const InArray& data,
                                      const std::vector<std::optional<ValueBytes>>& old_values) {
    const core::Shape shape = BufferShape(data.ndim(), data.shape_ptr(), data.nbytes(), "value");
    const std::vector<ZarrChunkTransfer> transfers = ToTransfers(rows, shape.size());
    const ByteView bytes(static_cast<const std::uint8_t*>(data.data()), data.nbytes());
    const std::vector<std::optional<ByteView>> views = Views(old_values, transfers.size());
    std::vector<std::optional<Bytes>> written(transfers.size());
    {
      nb::gil_scoped_release release;
      ValuesArray over = ValueOrThrow(OverValues(transfers, views));
      ThrowIfError(WriteZarrChunks(over.array, transfers, bytes, shape));
      for (std::size_t i = 0; i < transfers.size(); ++i) {
        written[i] = ValueOrThrow(over.store->Get(ZarrChunkKey(over.array, transfers[i].chunk)));
      }
    }
    std::vector<nb::object> result;
    result.reserve(written.size());
    for (std::optional<Bytes>& value : written) {
      result.push_back(value ? BytesToNumpy(*std::move(value)) : nb::none());
    }
    return result;
  }

 private:
  // The buffer's shape, checked to hold elements of the array's type.
  core::Shape BufferShape(std::size_t ndim, const std::int64_t* extents, std::size_t nbytes,
                          const char* what) const {
    core::Shape shape(extents, extents + ndim);
    const std::size_t rank = array_->metadata().shape.size();
    std::size_t elements = 1;
    for (const core::Index extent : shape) elements *= static_cast<std::size_t>(extent);
    if (ndim != rank || nbytes != elements * array_->metadata().data_type.size()) {
      throw StatusError(Status::InvalidArgument(
          std::string(what) + " must be a C-contiguous array of rank " + std::to_string(rank) +
          " of " + std::to_string(array_->metadata().data_type.size()) + "-byte elements"));
    }
    return shape;
  }

  static std::vector<std::optional<ByteView>> Views(
      const std::vector<std::optional<ValueBytes>>& values, std::size_t rows) {
    if (values.size() != rows) {
      throw StatusError(Status::InvalidArgument(std::to_string(values.size()) +
                                                " chunk values for " + std::to_string(rows) +
                                                " chunk transfers"));
    }
    std::vector<std::optional<ByteView>> views(rows);
    for (std::size_t i = 0; i < rows; ++i) {
      if (values[i]) views[i] = ByteView(values[i]->data(), values[i]->size());
    }
    return views;
  }

  struct ValuesArray {
    std::shared_ptr<store::Store> store;
    ZarrArray array;
  };

  // This array over a memory store of the call's own holding `values` at the
  // keys of the transfers' chunks (copied in: the store owns what it holds).
  Result<ValuesArray> OverValues(std::span<const ZarrChunkTransfer> transfers,
                                 const std::vector<std::optional<ByteView>>& values) const {
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store, PrivateMemoryStore());
    CHUNKWISE_ASSIGN_OR_RETURN(ZarrArray array,
                               ZarrArrayFromMetadata(ModuleContext(), store, "", *array_));
    for (std::size_t i = 0; i < transfers.size(); ++i) {
      if (values[i])
        CHUNKWISE_RETURN_IF_ERROR(store->Set(ZarrChunkKey(array, transfers[i].chunk), *values[i]));
    }
    return ValuesArray{std::move(store), std::move(array)};
  }

  std::shared_ptr<ZarrArray> array_;
};

}  // namespace

void BindChunkBatch(nb::module_& module) {
  module.def(
      "check_zarr_metadata",
      [](const std::string& text, const std::optional<std::string>& zattrs, int zarr_format) {
        // An array over an empty memory store: its codecs and grid checked as Open checks them.
        FromMetadata(ValueOrThrow(PrivateMemoryStore()), "", text, zattrs, zarr_format);
      },
      nb::arg("text"), nb::arg("zattrs").none(), nb::arg("zarr_format"));
  nb::class_<PyChunkBatchArray>(module, "ChunkBatchArray")
      .def(nb::init<const std::optional<std::string>&, const std::string&, const std::string&,
                    const std::optional<std::string>&, int>(),
           nb::arg("url").none(), nb::arg("prefix"), nb::arg("text"), nb::arg("zattrs").none(),
           nb::arg("zarr_format"))
      .def_prop_ro("dtype", &PyChunkBatchArray::dtype)
      .def_prop_ro("chunk_shape", &PyChunkBatchArray::chunk_shape)
      .def("read", &PyChunkBatchArray::Read, nb::arg("transfers"), nb::arg("out").noconvert())
      .def("write", &PyChunkBatchArray::Write, nb::arg("transfers"), nb::arg("data").noconvert())
      .def("read_values", &PyChunkBatchArray::ReadValues, nb::arg("transfers"),
           nb::arg("out").noconvert(), nb::arg("values"))
      .def("write_values", &PyChunkBatchArray::WriteValues, nb::arg("transfers"),
           nb::arg("data").noconvert(), nb::arg("old_values"));
}

}  // namespace chunkwise::python
