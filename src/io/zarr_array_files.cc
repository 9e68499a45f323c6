#include "io/zarr_array_files.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "chunkwise/core/npy.h"
#include "chunkwise/io/npy_file.h"
#include "core/ravel.h"

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

namespace {

// The metadata of a new array holding the .npy file `input`, laid out as `layout`.
Result<ArrayMetadata> NewArrayMetadata(const std::filesystem::path& input,
                                       formats::zarr::ArrayLayout layout) {
  CHUNKWISE_ASSIGN_OR_RETURN(const core::NpyHeader header, ReadNpyHeader(input));
  const std::optional<core::DataType> dtype = header.dtype.AsDataType(nullptr);
  if (!dtype) {
    return Status::Unsupported(input.string() + ": dtype " + header.dtype.ToDescr() +
                               " is not a numeric type a zarr array can hold");
  }
  layout.shape = core::Shape(header.shape.begin(), header.shape.end());
  layout.data_type = *dtype;
  return formats::zarr::BuildArrayMetadata(layout);
}

// The box of grid rows (i0, i1) of an array: rows i0 of dim 0 and i1 of dim 1
// of the storage grid (shards), whole along the other dimensions.
core::Region GridRowBox(const core::Shape& shape, const core::Shape& grid_chunk, core::Index i0,
                        core::Index i1) {
  core::Coord start(shape.size(), 0);
  core::Shape extent = shape;
  for (std::size_t d = 0; d < std::min<std::size_t>(2, shape.size()); ++d) {
    const core::Index index = d == 0 ? i0 : i1;
    start[d] = index * grid_chunk[d];
    extent[d] = std::min(grid_chunk[d], shape[d] - start[d]);
  }
  return core::Region::FromOriginAndShape(start, extent);
}

// Whether every object of the grid row (i0, i1) (i0 alone when `flat`) is in `stored`.
bool BoxIsStored(const core::RegularChunkGrid& grid, core::Index i0, core::Index i1, bool flat,
                 const std::unordered_set<core::Index>& stored) {
  const core::Shape& grid_shape = grid.grid_shape();
  core::Shape rest(grid_shape.begin() + (flat ? 1 : 2), grid_shape.end());
  const core::Index count = core::Region::Full(rest).num_elements();
  core::Coord coord(grid_shape.size(), 0);
  coord[0] = i0;
  if (!flat) coord[1] = i1;
  for (core::Index k = 0; k < count; ++k) {
    const core::Coord local = core::Unravel(k, rest);
    std::copy(local.begin(), local.end(), coord.begin() + (flat ? 1 : 2));
    if (!stored.contains(core::Ravel(coord, grid_shape))) return false;
  }
  return true;
}

// Writes the boxes of the C-order file `input` (at the origin of `array`)
// that `part` owns, each read with one positional read per row of dim 0
// (one in all for a 1-d array).
Status ImportOwnBoxes(const std::filesystem::path& input, Array& array, const core::JobPart& part,
                      const ImportJobOptions& job) {
  // Resumed: the stored objects, to keep the boxes already whole.
  std::unordered_set<core::Index> stored;
  if (job.resume) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::vector<core::Index>> listed,
                               array.ListStoredObjects());
    if (listed) stored.insert(listed->begin(), listed->end());
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<ArrayStreamReader> reader,
                             ArrayStreamReader::Open(input, {}));
  core::Endian endian = core::Endian::kLittle;
  CHUNKWISE_RETURN_IF_ERROR(CheckInputFits(input, *reader, array,
                                           core::Coord(array.metadata().shape.size(), 0), &endian));
  const core::Shape& shape = array.metadata().shape;
  const core::Shape& grid_chunk = array.grid().chunk_shape();
  const core::Shape& grid = array.grid().grid_shape();
  const std::size_t element_size = array.metadata().data_type.size();
  // A 1-d array is read as rows of one element.
  const bool flat = shape.size() == 1;
  // Bytes of one element of dim 1 (dims 2.. whole), and of one row of dim 0.
  const std::uint64_t column_bytes =
      flat ? element_size
           : static_cast<std::uint64_t>(
                 core::Region::Full(std::span(shape).subspan(2)).num_elements()) *
                 element_size;
  const std::uint64_t row_bytes =
      flat ? element_size : column_bytes * static_cast<std::uint64_t>(shape[1]);
  std::uint64_t unit = 0;
  for (core::Index i0 = 0; i0 < grid[0]; ++i0) {
    for (core::Index i1 = 0; i1 < (flat ? 1 : grid[1]); ++i1) {
      if (!part.Owns(unit++)) continue;
      if (job.resume && BoxIsStored(array.grid(), i0, i1, flat, stored)) continue;
      const core::Region box = GridRowBox(shape, grid_chunk, i0, i1);
      if (job.before_box) {
        core::Coord first(grid.size(), 0);
        first[0] = i0;
        if (!flat) first[1] = i1;
        CHUNKWISE_RETURN_IF_ERROR(job.before_box(array.ChunkKey(first)));
      }
      const core::Shape extent = box.shape();
      // One run of bytes per row of dim 0; a 1-d box is one run.
      const std::uint64_t rows = flat ? 1 : static_cast<std::uint64_t>(extent[0]);
      const std::uint64_t run = flat ? static_cast<std::uint64_t>(extent[0]) * element_size
                                     : column_bytes * static_cast<std::uint64_t>(extent[1]);
      Bytes data(static_cast<std::size_t>(run * rows));
      for (std::uint64_t r = 0; r < rows; ++r) {
        const std::uint64_t at =
            (static_cast<std::uint64_t>(box.start()[0]) + r) * row_bytes +
            (flat ? 0 : static_cast<std::uint64_t>(box.start()[1]) * column_bytes);
        CHUNKWISE_RETURN_IF_ERROR(reader->ReadAt(
            at, MutableByteView(data).subspan(static_cast<std::size_t>(r * run), run)));
      }
      if (endian == core::Endian::kBig) {
        core::SwapByteOrder(array.metadata().data_type.swap_unit(), data);
      }
      CHUNKWISE_RETURN_IF_ERROR(array.Write(box, data));
    }
  }
  return Status::Ok();
}

// This rank's share of the import into the new, unpublished `array`.
Status ImportPart(const std::filesystem::path& input, Array& array, const core::JobPart& part,
                  const ImportJobOptions& job) {
  const core::Coord origin(array.metadata().shape.size(), 0);
  const bool by_boxes = !part.whole() || job.resume || job.before_box;
  if (!by_boxes) return ImportArrayFile(input, {}, array, origin);
  CHUNKWISE_ASSIGN_OR_RETURN(const core::NpyHeader header, ReadNpyHeader(input));
  if (header.fortran_order || header.shape.empty()) {
    return part.rank == 0 ? ImportArrayFile(input, {}, array, origin) : Status::Ok();
  }
  return ImportOwnBoxes(input, array, part, job);
}

}  // namespace

Result<Array> ImportNpyAsNewArray(const std::filesystem::path& input,
                                  formats::zarr::ArrayLayout layout,
                                  std::shared_ptr<store::Store> store, const std::string& prefix,
                                  bool overwrite, formats::zarr::ArrayOptions options,
                                  const ImportJobOptions& options_of_job) {
  core::SingleProcess alone;
  core::Communicator& job = options_of_job.ranks != nullptr ? *options_of_job.ranks : alone;
  const bool root = job.rank() == 0;
  // Every rank reaches each collective call with its outcome; none returns early.
  const Result<ArrayMetadata> metadata = NewArrayMetadata(input, std::move(layout));
  Result<Array> array = metadata.ok() ? Status::Internal("not yet created") : metadata.status();
  if (root && metadata.ok()) {
    array = options_of_job.resume
                ? Array::ResumeUnpublished(store, prefix, *metadata, options)
                : Array::CreateUnpublished(store, prefix, *metadata, overwrite, options);
  }
  CHUNKWISE_RETURN_IF_ERROR(core::ShareRootStatus(job, root ? array.status() : Status::Ok()));
  // A resumed job's array may be published already (a complete import resumed).
  if (!root && metadata.ok()) {
    array = options_of_job.resume ? Array::ResumeUnpublished(store, prefix, *metadata, options)
                                  : Array::JoinUnpublished(store, prefix, *metadata, options);
  }
  const Status imported = array.ok()
                              ? ImportPart(input, *array, {job.rank(), job.size()}, options_of_job)
                              : array.status();
  CHUNKWISE_RETURN_IF_ERROR(
      core::GatherOutcomes(job, imported.ok() ? Result<std::string>("") : imported).status());
  CHUNKWISE_RETURN_IF_ERROR(core::ShareRootStatus(job, root ? array->Publish() : Status::Ok()));
  return array;
}

}  // namespace chunkwise::io
