#include "chunkwise/facade/zarr_array_files.h"

#include "facade/zarr_array_access.h"
#include "io/zarr_array_files.h"

namespace chunkwise {

Status ImportArrayFileIntoZarr(const std::filesystem::path& input, const io::ArrayFileHint& hint,
                               ZarrArray& array, const core::Coord& offset) {
  return io::ImportArrayFile(input, hint, ZarrArrayAccess::Held(array), offset);
}

Status ExportZarrRegionToFile(const ZarrArray& array, const core::Region& region,
                              const std::filesystem::path& output, bool raw) {
  return io::ExportRegion(ZarrArrayAccess::Held(array), region, output, raw);
}

}  // namespace chunkwise
