#include "chunkwise/io/zarr_array_files.h"

#include <algorithm>
#include <string>

#include "chunkwise/core/npy.h"
#include "chunkwise/io/npy_file.h"

namespace chunkwise::io {

using formats::zarr::Array;
using formats::zarr::ArrayMetadata;

namespace {

Status CheckInputFits(const std::filesystem::path& input, const ArrayStreamReader& reader,
                      const Array& array, const core::Coord& offset, core::Endian* endian) {
  const ArrayMetadata& metadata = array.metadata();
  const std::optional<core::DataType> dtype = reader.dtype().AsDataType(endian);
  if (!dtype || *dtype != metadata.data_type) {
    return Status::InvalidArgument(input.string() + ": dtype " + reader.dtype().ToDescr() +
                                   " does not match the array's " +
                                   std::string(metadata.data_type.zarr_name()));
  }
  const core::Shape& shape = reader.shape();
  bool fits = shape.size() == metadata.shape.size() && offset.size() == shape.size();
  for (std::size_t d = 0; fits && d < shape.size(); ++d) {
    fits = offset[d] <= metadata.shape[d] && shape[d] <= metadata.shape[d] - offset[d];
  }
  if (!fits) {
    return Status::InvalidArgument(input.string() + ": shape (" + core::FormatShape(shape) +
                                   ") at offset [" + core::FormatShape(offset) +
                                   "] does not fit in the array of shape [" +
                                   core::FormatShape(metadata.shape) + "]");
  }
  return Status::Ok();
}

// The rows of dim 0 to read next: up to the next grid boundary along dim 0.
core::Index SlabRows(core::Index array_row, core::Index rows_left, core::Index chunk_rows) {
  return std::min(rows_left, chunk_rows - array_row % chunk_rows);
}

Status ImportWhole(const std::filesystem::path& input, const ArrayFileHint& hint, Array& array,
                   const core::Coord& offset) {
  CHUNKWISE_ASSIGN_OR_RETURN(core::NpyArray data, ReadArrayFile(input, hint));
  CHUNKWISE_RETURN_IF_ERROR(core::ToCOrder(data));
  core::Endian endian = core::Endian::kLittle;
  data.dtype.AsDataType(&endian);
  if (endian == core::Endian::kBig) {
    core::SwapByteOrder(array.metadata().data_type.swap_unit(), data.data);
  }
  return array.Write(core::Region::FromOriginAndShape(offset, data.shape), data.data);
}

}  // namespace

Status ImportArrayFile(const std::filesystem::path& input, const ArrayFileHint& hint, Array& array,
                       const core::Coord& offset_in) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<ArrayStreamReader> reader,
                             ArrayStreamReader::Open(input, hint));
  const core::Coord offset =
      offset_in.empty() ? core::Coord(array.metadata().shape.size(), 0) : offset_in;
  core::Endian endian = core::Endian::kLittle;
  CHUNKWISE_RETURN_IF_ERROR(CheckInputFits(input, *reader, array, offset, &endian));
  const core::Shape shape = reader->shape();
  if (reader->fortran_order() || shape.empty()) {
    reader.reset();
    return ImportWhole(input, hint, array, offset);
  }
  const std::size_t element_size = array.metadata().data_type.size();
  const std::size_t row_bytes =
      static_cast<std::size_t>(core::Region::Full(std::span(shape).subspan(1)).num_elements()) *
      element_size;
  for (core::Index row = 0; row < shape[0];) {
    const core::Index rows =
        SlabRows(offset[0] + row, shape[0] - row, array.grid().chunk_shape()[0]);
    Bytes slab(static_cast<std::size_t>(rows) * row_bytes);
    CHUNKWISE_ASSIGN_OR_RETURN(std::size_t got, reader->Read(slab));
    if (got != slab.size()) {
      return Status::IOError(input.string() + ": ended early while reading rows " +
                             std::to_string(row) + " to " + std::to_string(row + rows));
    }
    if (endian == core::Endian::kBig) {
      core::SwapByteOrder(array.metadata().data_type.swap_unit(), slab);
    }
    core::Coord start = offset;
    start[0] += row;
    core::Shape extent = shape;
    extent[0] = rows;
    CHUNKWISE_RETURN_IF_ERROR(array.Write(core::Region::FromOriginAndShape(start, extent), slab));
    row += rows;
  }
  return Status::Ok();
}

Status ExportRegion(const Array& array, const core::Region& region,
                    const std::filesystem::path& output, bool raw) {
  core::NpyArray out;
  out.dtype = core::NpyDtype::FromDataType(array.metadata().data_type, core::Endian::kLittle);
  out.shape = region.shape();
  CHUNKWISE_ASSIGN_OR_RETURN(out.data, array.Read(region));
  return WriteArrayFile(output, out, raw);
}

Result<Array> ImportNpyAsNewArray(const std::filesystem::path& input,
                                  formats::zarr::ArrayLayout layout,
                                  std::shared_ptr<store::Store> store, const std::string& prefix,
                                  bool overwrite, formats::zarr::ArrayOptions options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const core::NpyHeader header, ReadNpyHeader(input));
  const std::optional<core::DataType> dtype = header.dtype.AsDataType(nullptr);
  if (!dtype) {
    return Status::Unsupported(input.string() + ": dtype " + header.dtype.ToDescr() +
                               " is not a numeric type a zarr array can hold");
  }
  layout.shape = core::Shape(header.shape.begin(), header.shape.end());
  layout.data_type = *dtype;
  CHUNKWISE_ASSIGN_OR_RETURN(ArrayMetadata metadata, formats::zarr::BuildArrayMetadata(layout));
  // The metadata goes last (Publish): an import killed or failing half-way
  // leaves no array that readers would take, partly filled, for the whole.
  CHUNKWISE_ASSIGN_OR_RETURN(
      Array array,
      Array::CreateUnpublished(std::move(store), prefix, std::move(metadata), overwrite, options));
  CHUNKWISE_RETURN_IF_ERROR(ImportArrayFile(input, {}, array, core::Coord(layout.shape.size(), 0)));
  CHUNKWISE_RETURN_IF_ERROR(array.Publish());
  return array;
}

}  // namespace chunkwise::io
