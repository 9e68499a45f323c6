// TIFF stacks as volumes (`chunkwise import`): one TIFF or BigTIFF file whose
// pages are the z planes, or a folder of single-plane TIFF files taken in
// natural order (plane2 before plane10). libtiff decodes strips and tiles,
// whatever their compression; this file checks the stack is one volume and
// hands it out plane by plane, so memory stays at one plane.
//
// Only one sample per pixel of 8, 16, 32 or 64 bits (unsigned or signed
// integers; IEEE floats of 16, 32 or 64 bits) is a volume here; anything
// else is Unsupported naming the file and what it holds. OME-TIFF: when the first page's
// ImageDescription is OME-XML, its Pixels' PhysicalSizeX/Y/Z and their units are reported.
#ifndef CHUNKWISE_IO_TIFF_STACK_H_
#define CHUNKWISE_IO_TIFF_STACK_H_

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/data_type.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"

namespace chunkwise::io {

// The physical size of a voxel an OME-TIFF states, slowest axis first (z, y,
// x). A size the XML leaves out is 1 with no unit; units are UDUNITS-2 names
// ("micrometer"), empty where the XML names none we know.
struct PhysicalSizes {
  std::vector<double> scale;
  std::vector<std::string> units;
};

// One page's shape and data type: what every plane of a stack must share.
struct TiffPageInfo {
  core::Index height = 0;
  core::Index width = 0;
  core::DataType data_type;
};

class TiffStack {
 public:
  // Opens `path`: a .tif/.tiff file (every page a plane) or a folder of
  // them (each one plane). Reads every page's header and checks them all
  // before any plane is read: NotFound for a missing path or a folder
  // without TIFF files; Corruption naming the file for one libtiff cannot
  // parse or whose strips or tiles reach past its end (truncated);
  // Unsupported naming the file and page for samples that are not one
  // numeric value per pixel; InvalidArgument naming the file and plane whose
  // shape or data type differs from the first plane's.
  static Result<std::unique_ptr<TiffStack>> Open(const std::filesystem::path& path);

  ~TiffStack();
  TiffStack(const TiffStack&) = delete;
  TiffStack& operator=(const TiffStack&) = delete;

  // (z, y, x).
  const core::Shape& shape() const { return shape_; }
  core::DataType data_type() const { return data_type_; }
  // Present for an OME-TIFF whose XML states any physical size.
  const std::optional<PhysicalSizes>& physical_sizes() const { return physical_sizes_; }
  // Bytes of one plane.
  std::size_t plane_bytes() const;

  // Reads plane `z` into `out` (plane_bytes() bytes, C order, host byte
  // order). Corruption naming the file and plane where libtiff cannot
  // decode it; OutOfRange for z outside the stack.
  Status ReadPlane(core::Index z, std::span<std::uint8_t> out);

 private:
  struct Plane {
    std::size_t file = 0;    // Index into files_.
    std::uint32_t page = 0;  // The TIFF directory in that file.
  };
  struct OpenFile;
  TiffStack() = default;
  Status AddPlanesOf(std::size_t file, bool folder);
  Status ReadOmeDescription(bool folder);
  Status Select(const Plane& plane);
  // Plane z of the selected page into `out`, from tiles or strips.
  Status ReadTiles(core::Index z, std::span<std::uint8_t> out);
  Status ReadStrips(core::Index z, std::span<std::uint8_t> out);
  // Corruption naming plane z and `what`, with libtiff's reason.
  Status DecodeFailed(core::Index z, const std::string& what) const;
  std::string Where(core::Index z) const;

  std::vector<std::filesystem::path> files_;
  std::vector<Plane> planes_;
  core::Shape shape_;
  core::DataType data_type_;
  std::optional<PhysicalSizes> physical_sizes_;
  // Set while opening: the first plane, and its OME-XML (empty if none).
  std::optional<TiffPageInfo> first_;
  std::string ome_xml_;
  std::unique_ptr<OpenFile> open_;
};

// Natural order of names: runs of digits compare as numbers ("plane2" <
// "plane10"), the rest byte by byte; equal numbers compare by their text.
bool NaturalLess(std::string_view a, std::string_view b);

// The physical sizes an OME-XML document's first Pixels element states;
// nullopt when it states none. Unsupported when it describes more than one
// channel or time point (only z stacks are volumes here).
Result<std::optional<PhysicalSizes>> ParseOmePhysicalSizes(std::string_view xml);

// Unsupported when the OME-XML's first Pixels element states a SizeZ other
// than `pages`: one file of a multi-file OME-TIFF set, whose other planes
// are elsewhere. OK when it states none.
Status CheckOmePlaneCount(std::string_view xml, std::size_t pages);

// True for a path that names a TIFF file by its extension (.tif, .tiff, any case).
bool HasTiffExtension(const std::filesystem::path& path);

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_TIFF_STACK_H_
