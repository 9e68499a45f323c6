#include "io/tiff_stack.h"

#include <tiffio.h>

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <utility>

#include "core/memory_limit.h"

namespace chunkwise::io {

namespace {

// libtiff reports through callbacks; each open file keeps its first error
// here, so that a Status can name it (and nothing goes to stderr).
struct ErrorSink {
  std::string message;
};

int KeepError(TIFF*, void* user_data, const char* module, const char* format, va_list args) {
  auto* sink = static_cast<ErrorSink*>(user_data);
  if (sink->message.empty()) {
    char text[512];
    std::vsnprintf(text, sizeof(text), format, args);
    sink->message = module != nullptr && *module != '\0' ? std::string(module) + ": " + text : text;
  }
  return 1;  // Handled: libtiff's global handler would print it.
}

// Warnings (unknown private tags, which tifffile and OME writers add) are not faults.
int IgnoreWarning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

// What one page holds, as far as a volume cares (tiff_stack.h).
using PageInfo = TiffPageInfo;

Result<core::DataType> DataTypeOf(std::uint16_t format, std::uint16_t bits) {
  using core::DataTypeId;
  const auto pick = [bits](DataTypeId b8, DataTypeId b16, DataTypeId b32,
                           DataTypeId b64) -> std::optional<core::DataType> {
    switch (bits) {
      case 8:
        return core::DataType(b8);
      case 16:
        return core::DataType(b16);
      case 32:
        return core::DataType(b32);
      case 64:
        return core::DataType(b64);
      default:
        return std::nullopt;
    }
  };
  std::optional<core::DataType> type;
  if (format == SAMPLEFORMAT_UINT) {
    type = pick(DataTypeId::kUInt8, DataTypeId::kUInt16, DataTypeId::kUInt32, DataTypeId::kUInt64);
  } else if (format == SAMPLEFORMAT_INT) {
    type = pick(DataTypeId::kInt8, DataTypeId::kInt16, DataTypeId::kInt32, DataTypeId::kInt64);
  } else if (format == SAMPLEFORMAT_IEEEFP && (bits == 16 || bits == 32 || bits == 64)) {
    type = core::DataType(bits == 16   ? DataTypeId::kFloat16
                          : bits == 32 ? DataTypeId::kFloat32
                                       : DataTypeId::kFloat64);
  }
  if (!type) {
    const char* kind = format == SAMPLEFORMAT_UINT     ? "unsigned"
                       : format == SAMPLEFORMAT_INT    ? "signed"
                       : format == SAMPLEFORMAT_IEEEFP ? "float"
                                                       : "complex or undefined";
    return Status::Unsupported(std::to_string(bits) + "-bit " + kind +
                               " samples (8, 16, 32 or 64-bit integers and 16, 32 or 64-bit "
                               "floats are supported)");
  }
  return *type;
}

}  // namespace

// The one file of the stack open now.
struct TiffStack::OpenFile {
  std::size_t file = 0;
  std::unique_ptr<ErrorSink> sink = std::make_unique<ErrorSink>();
  TIFF* tiff = nullptr;
  ~OpenFile() {
    if (tiff != nullptr) TIFFClose(tiff);
  }
};

namespace {

// Opens `path` with errors kept in `sink`. Corruption naming the file when
// libtiff cannot read its header or first directory.
Result<TIFF*> OpenTiff(const std::filesystem::path& path, ErrorSink& sink) {
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(options, KeepError, &sink);
  TIFFOpenOptionsSetWarningHandlerExtR(options, IgnoreWarning, nullptr);
  // libtiff's own allocations (strip tables, decoding buffers) stay within what we may use.
  TIFFOpenOptionsSetMaxSingleMemAlloc(
      options, static_cast<tmsize_t>(
                   std::min<std::uint64_t>(core::ProcessMemoryLimit(), std::uint64_t{1} << 62)));
  TIFF* tiff = TIFFOpenExt(path.c_str(), "r", options);
  TIFFOpenOptionsFree(options);
  if (tiff == nullptr) {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) {
      return Status::NotFound(path.string() + ": no such file");
    }
    return Status::Corruption(path.string() + ": not a TIFF file libtiff can read (" +
                              (sink.message.empty() ? "no reason given" : sink.message) + ")");
  }
  return tiff;
}

bool IsReducedImage(TIFF* tiff) {
  std::uint32_t subfile = 0;
  return TIFFGetField(tiff, TIFFTAG_SUBFILETYPE, &subfile) == 1 &&
         (subfile & FILETYPE_REDUCEDIMAGE) != 0;
}

// The current page of `tiff`, checked: one numeric sample per pixel, a codec
// libtiff has, and every strip or tile inside the file's `file_size` bytes.
Result<PageInfo> InspectPage(TIFF* tiff, std::uint64_t file_size) {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::uint16_t samples = 1;
  std::uint16_t bits = 1;
  std::uint16_t format = SAMPLEFORMAT_UINT;
  std::uint16_t compression = COMPRESSION_NONE;
  std::uint32_t depth = 1;
  if (TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &width) != 1 ||
      TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &height) != 1) {
    return Status::Corruption("no image width or length");
  }
  TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_COMPRESSION, &compression);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_IMAGEDEPTH, &depth);
  if (samples != 1) {
    return Status::Unsupported(std::to_string(samples) +
                               " samples per pixel (RGB or multi-channel); only one is supported");
  }
  if (depth != 1) {
    return Status::Unsupported("an image depth of " + std::to_string(depth) +
                               " (SGI volume tiles)");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const core::DataType type, DataTypeOf(format, bits));
  if (TIFFIsCODECConfigured(compression) == 0) {
    return Status::Unsupported("compression " + std::to_string(compression) +
                               ", which this build of libtiff cannot decode");
  }
  const std::uint32_t striles = TIFFNumberOfStrips(tiff);
  for (std::uint32_t s = 0; s < striles; ++s) {
    int failed = 0;
    const std::uint64_t offset = TIFFGetStrileOffsetWithErr(tiff, s, &failed);
    const std::uint64_t count = TIFFGetStrileByteCountWithErr(tiff, s, &failed);
    if (failed != 0)
      return Status::Corruption("strip or tile " + std::to_string(s) + " unreadable");
    if (count != 0 && (offset > file_size || count > file_size - offset)) {
      return Status::Corruption((TIFFIsTiled(tiff) ? "tile " : "strip ") + std::to_string(s) +
                                " ends at byte " + std::to_string(offset + count) +
                                ", past the file's end at " + std::to_string(file_size) +
                                " (truncated?)");
    }
  }
  return PageInfo{static_cast<core::Index>(height), static_cast<core::Index>(width), type};
}

std::string ShapeText(const PageInfo& page) {
  return std::to_string(page.height) + "x" + std::to_string(page.width);
}

}  // namespace

TiffStack::~TiffStack() = default;

bool HasTiffExtension(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".tif" || extension == ".tiff";
}

bool NaturalLess(std::string_view a, std::string_view b) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t i_end = i;
      std::size_t j_end = j;
      while (i_end < a.size() && digit(a[i_end])) ++i_end;
      while (j_end < b.size() && digit(b[j_end])) ++j_end;
      // Compare as numbers without overflow: skip leading zeros, then length, then digits.
      std::size_t i_lead = i;
      std::size_t j_lead = j;
      while (i_lead + 1 < i_end && a[i_lead] == '0') ++i_lead;
      while (j_lead + 1 < j_end && b[j_lead] == '0') ++j_lead;
      const std::string_view x = a.substr(i_lead, i_end - i_lead);
      const std::string_view y = b.substr(j_lead, j_end - j_lead);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = i_end;
      j = j_end;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // Equal but for leading zeros: a total order all the same.
}

namespace {

// The value of attribute `name` in the tag text `tag`; nullopt if absent.
std::optional<std::string> Attribute(std::string_view tag, std::string_view name) {
  for (std::size_t at = tag.find(name); at != std::string_view::npos; at = tag.find(name, at + 1)) {
    const bool starts = at > 0 && std::isspace(static_cast<unsigned char>(tag[at - 1])) != 0;
    std::size_t next = at + name.size();
    while (next < tag.size() && std::isspace(static_cast<unsigned char>(tag[next])) != 0) ++next;
    if (!starts || next >= tag.size() || tag[next] != '=') continue;
    ++next;
    while (next < tag.size() && std::isspace(static_cast<unsigned char>(tag[next])) != 0) ++next;
    if (next >= tag.size() || (tag[next] != '"' && tag[next] != '\'')) return std::nullopt;
    const std::size_t end = tag.find(tag[next], next + 1);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(tag.substr(next + 1, end - next - 1));
  }
  return std::nullopt;
}

// The first Pixels start tag (any namespace prefix), without its brackets.
std::optional<std::string_view> PixelsTag(std::string_view xml) {
  for (std::size_t at = xml.find("Pixels"); at != std::string_view::npos;
       at = xml.find("Pixels", at + 1)) {
    std::size_t open = at;
    while (open > 0 && (std::isalnum(static_cast<unsigned char>(xml[open - 1])) != 0 ||
                        xml[open - 1] == ':' || xml[open - 1] == '_')) {
      --open;
    }
    const std::size_t after = at + 6;
    if (open == 0 || xml[open - 1] != '<' || after >= xml.size()) continue;
    const std::string_view name = xml.substr(open, after - open);
    if (name != "Pixels" && (name.size() < 7 || name[name.size() - 7] != ':')) continue;
    if (std::isspace(static_cast<unsigned char>(xml[after])) == 0 && xml[after] != '>' &&
        xml[after] != '/') {
      continue;
    }
    const std::size_t close = xml.find('>', after);
    if (close == std::string_view::npos) return std::nullopt;
    return xml.substr(after, close - after);
  }
  return std::nullopt;
}

// OME's UnitsLength symbols as the UDUNITS-2 names OME-Zarr uses; "" for others.
std::string UnitName(std::string symbol) {
  static const std::pair<const char*, const char*> kUnits[] = {{"m", "meter"},
                                                               {"dm", "decimeter"},
                                                               {"cm", "centimeter"},
                                                               {"mm", "millimeter"},
                                                               {"\xC2\xB5m", "micrometer"},
                                                               {"\xCE\xBCm", "micrometer"},
                                                               {"&#181;m", "micrometer"},
                                                               {"&#xB5;m", "micrometer"},
                                                               {"um", "micrometer"},
                                                               {"nm", "nanometer"},
                                                               {"pm", "picometer"},
                                                               {"fm", "femtometer"},
                                                               {"am", "attometer"},
                                                               {"\xC3\x85", "angstrom"},
                                                               {"\xE2\x84\xAB", "angstrom"},
                                                               {"km", "kilometer"},
                                                               {"hm", "hectometer"},
                                                               {"in", "inch"},
                                                               {"ft", "foot"},
                                                               {"yd", "yard"},
                                                               {"mi", "mile"},
                                                               {"pc", "parsec"}};
  for (const auto& [from, to] : kUnits) {
    if (symbol == from) return to;
  }
  return "";
}

}  // namespace

Result<std::optional<PhysicalSizes>> ParseOmePhysicalSizes(std::string_view xml) {
  const std::optional<std::string_view> tag = PixelsTag(xml);
  if (!tag) return std::optional<PhysicalSizes>();  // Not nullopt: that would be no Result.
  for (const char* size : {"SizeC", "SizeT"}) {
    const std::optional<std::string> count = Attribute(*tag, size);
    if (count && *count != "1") {
      return Status::Unsupported(std::string("an OME-TIFF of ") + size + "=" + *count +
                                 " (only single-channel, single-timepoint z stacks)");
    }
  }
  PhysicalSizes sizes{{1.0, 1.0, 1.0}, {"", "", ""}};
  bool stated = false;
  const char* axes[] = {"Z", "Y", "X"};
  for (std::size_t d = 0; d < 3; ++d) {
    const std::optional<std::string> value = Attribute(*tag, std::string("PhysicalSize") + axes[d]);
    if (!value) continue;
    char* end = nullptr;
    const double parsed = std::strtod(value->c_str(), &end);
    if (end == value->c_str() || *end != '\0' || !(parsed > 0) || parsed > 1e300) {
      return Status::InvalidArgument(std::string("OME-XML PhysicalSize") + axes[d] + "=\"" +
                                     *value + "\" is not a positive number");
    }
    sizes.scale[d] = parsed;
    // OME's default length unit is the micrometer.
    sizes.units[d] = UnitName(
        Attribute(*tag, std::string("PhysicalSize") + axes[d] + "Unit").value_or("\xC2\xB5m"));
    stated = true;
  }
  if (!stated) return std::optional<PhysicalSizes>();
  return sizes;
}

Status CheckOmePlaneCount(std::string_view xml, std::size_t pages) {
  const std::optional<std::string_view> tag = PixelsTag(xml);
  if (!tag) return Status::Ok();
  const std::optional<std::string> size_z = Attribute(*tag, "SizeZ");
  if (!size_z || *size_z == std::to_string(pages)) return Status::Ok();
  return Status::Unsupported("its OME-XML describes SizeZ=" + *size_z + " planes but it holds " +
                             std::to_string(pages) +
                             " pages (a multi-file OME-TIFF set is not read as one volume)");
}

namespace {

// The current page's ImageDescription when it is OME-XML; empty otherwise.
std::string OmeXml(TIFF* tiff) {
  char* description = nullptr;
  if (TIFFGetField(tiff, TIFFTAG_IMAGEDESCRIPTION, &description) != 1 || description == nullptr ||
      std::strstr(description, "<OME") == nullptr) {
    return "";
  }
  return description;
}

}  // namespace

namespace {

// The .tif/.tiff files of `folder`, in natural order of their names.
Result<std::vector<std::filesystem::path>> TiffFilesIn(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    if (entry.is_regular_file(error) && HasTiffExtension(entry.path())) {
      files.push_back(entry.path());
    }
  }
  if (error) return Status::IOError(folder.string() + ": cannot list: " + error.message());
  if (files.empty()) {
    return Status::NotFound(folder.string() + ": no .tif or .tiff files in this folder");
  }
  std::sort(files.begin(), files.end(),
            [](const std::filesystem::path& a, const std::filesystem::path& b) {
              return NaturalLess(a.filename().string(), b.filename().string());
            });
  return files;
}

// InvalidArgument naming `where` (plane z) when `page` is not shaped and
// typed as `first`, the first plane (of `first_file`).
Status CheckSameAsFirst(const PageInfo& page, const PageInfo& first, const std::string& where,
                        std::size_t z, const std::filesystem::path& first_file) {
  const std::string plane = where + " (plane " + std::to_string(z) + "): ";
  const std::string whose = " (" + first_file.string() + ")";
  if (page.height != first.height || page.width != first.width) {
    return Status::InvalidArgument(plane + "shape " + ShapeText(page) +
                                   " differs from the first plane's " + ShapeText(first) + whose);
  }
  if (page.data_type != first.data_type) {
    return Status::InvalidArgument(plane + "data type " + std::string(page.data_type.zarr_name()) +
                                   " differs from the first plane's " +
                                   std::string(first.data_type.zarr_name()) + whose);
  }
  return Status::Ok();
}

}  // namespace

// Checks every page of file `f` and adds its planes; the first page of all
// sets `first_` and the OME-XML. A file of a folder must hold one plane.
Status TiffStack::AddPlanesOf(std::size_t f, bool folder) {
  const std::filesystem::path& file = files_[f];
  std::error_code error;
  std::uint64_t file_size = std::filesystem::file_size(file, error);
  if (error) file_size = UINT64_MAX;  // Unknown: libtiff's own reads will fail instead.
  OpenFile opened;
  CHUNKWISE_ASSIGN_OR_RETURN(opened.tiff, OpenTiff(file, *opened.sink));
  std::uint32_t page = 0;
  std::size_t pages_here = 0;
  do {
    if (IsReducedImage(opened.tiff)) continue;  // A thumbnail, not a plane.
    const std::string where = file.string() + ": page " + std::to_string(page);
    Result<PageInfo> info = InspectPage(opened.tiff, file_size);
    if (!info.ok()) return info.status().WithContext(where);
    if (!first_) {
      first_ = *info;
      ome_xml_ = OmeXml(opened.tiff);
    } else {
      CHUNKWISE_RETURN_IF_ERROR(CheckSameAsFirst(*info, *first_, where, planes_.size(), files_[0]));
    }
    planes_.push_back({f, page});
    ++pages_here;
  } while (++page, TIFFReadDirectory(opened.tiff) == 1);
  if (!opened.sink->message.empty()) {
    // The next directory is unreadable: most often a file cut short.
    return Status::Corruption(file.string() + ": page " + std::to_string(page) + ": " +
                              opened.sink->message + " (truncated?)");
  }
  if (folder && pages_here != 1) {
    return Status::Unsupported(file.string() + ": " + std::to_string(pages_here) +
                               " pages; each file of a folder must hold one plane");
  }
  return Status::Ok();
}

// The physical sizes of the first page's OME-XML, checked against the pages
// of a single file (a folder's files each describe only themselves).
Status TiffStack::ReadOmeDescription(bool folder) {
  if (ome_xml_.empty()) return Status::Ok();
  const std::string& described = files_[0].string();
  if (!folder) {
    CHUNKWISE_RETURN_IF_ERROR(CheckOmePlaneCount(ome_xml_, planes_.size()).WithContext(described));
  }
  Result<std::optional<PhysicalSizes>> sizes = ParseOmePhysicalSizes(ome_xml_);
  if (!sizes.ok()) return sizes.status().WithContext(described);
  physical_sizes_ = *std::move(sizes);
  return Status::Ok();
}

Result<std::unique_ptr<TiffStack>> TiffStack::Open(const std::filesystem::path& path) {
  std::unique_ptr<TiffStack> stack(new TiffStack());
  std::error_code error;
  const bool folder = std::filesystem::is_directory(path, error);
  if (folder) {
    CHUNKWISE_ASSIGN_OR_RETURN(stack->files_, TiffFilesIn(path));
  } else {
    stack->files_.push_back(path);
  }
  for (std::size_t f = 0; f < stack->files_.size(); ++f) {
    CHUNKWISE_RETURN_IF_ERROR(stack->AddPlanesOf(f, folder));
  }
  if (!stack->first_) return Status::InvalidArgument(path.string() + ": no full-resolution pages");
  CHUNKWISE_RETURN_IF_ERROR(stack->ReadOmeDescription(folder));
  const PageInfo& first = *stack->first_;
  stack->shape_ = {static_cast<core::Index>(stack->planes_.size()), first.height, first.width};
  stack->data_type_ = first.data_type;
  CHUNKWISE_RETURN_IF_ERROR(core::CheckAllocation(
      core::SaturatingProduct(core::SaturatingProduct(static_cast<std::uint64_t>(first.height),
                                                      static_cast<std::uint64_t>(first.width)),
                              first.data_type.size()),
      path.string() + ": one plane"));
  return stack;
}

std::size_t TiffStack::plane_bytes() const {
  return static_cast<std::size_t>(shape_[1] * shape_[2]) * data_type_.size();
}

std::string TiffStack::Where(core::Index z) const {
  const Plane& plane = planes_[static_cast<std::size_t>(z)];
  return files_[plane.file].string() + ": page " + std::to_string(plane.page) + " (plane " +
         std::to_string(z) + ")";
}

// Makes `plane`'s page the current directory, opening its file if need be.
Status TiffStack::Select(const Plane& plane) {
  if (!open_ || open_->file != plane.file) {
    open_.reset();
    auto opened = std::make_unique<OpenFile>();
    opened->file = plane.file;
    CHUNKWISE_ASSIGN_OR_RETURN(opened->tiff, OpenTiff(files_[plane.file], *opened->sink));
    open_ = std::move(opened);
  }
  const tdir_t current = TIFFCurrentDirectory(open_->tiff);
  if (current == plane.page) return Status::Ok();
  // Planes are read in order: the next directory is one step on.
  const int ok = current + 1 == plane.page ? TIFFReadDirectory(open_->tiff)
                                           : TIFFSetDirectory(open_->tiff, plane.page);
  if (ok != 1) return Status::Corruption("cannot read the directory: " + open_->sink->message);
  return Status::Ok();
}

Status TiffStack::ReadPlane(core::Index z, std::span<std::uint8_t> out) {
  if (z < 0 || z >= shape_[0]) {
    return Status::OutOfRange("plane " + std::to_string(z) + " of a stack of " +
                              std::to_string(shape_[0]));
  }
  if (out.size() != plane_bytes()) {
    return Status::InvalidArgument("a plane buffer of " + std::to_string(out.size()) +
                                   " bytes for a plane of " + std::to_string(plane_bytes()));
  }
  Status selected = Select(planes_[static_cast<std::size_t>(z)]);
  if (!selected.ok()) return selected.WithContext(Where(z));
  open_->sink->message.clear();
  return TIFFIsTiled(open_->tiff) != 0 ? ReadTiles(z, out) : ReadStrips(z, out);
}

Status TiffStack::DecodeFailed(core::Index z, const std::string& what) const {
  return Status::Corruption(
      Where(z) + ": cannot decode " + what + ": " +
      (open_->sink->message.empty() ? "libtiff gave no reason" : open_->sink->message));
}

Status TiffStack::ReadTiles(core::Index z, std::span<std::uint8_t> out) {
  TIFF* tiff = open_->tiff;
  const std::size_t element = data_type_.size();
  const auto width = static_cast<std::size_t>(shape_[2]);
  const auto height = static_cast<std::size_t>(shape_[1]);
  std::uint32_t tile_width = 0;
  std::uint32_t tile_height = 0;
  TIFFGetField(tiff, TIFFTAG_TILEWIDTH, &tile_width);
  TIFFGetField(tiff, TIFFTAG_TILELENGTH, &tile_height);
  // Tiles may overhang the image (writers keep one tile size for every
  // image), but one far larger than the image is only a way to make us
  // allocate: refused before the buffer is made.
  const std::uint64_t padded = ((width + 15) / 16 * 16) * ((height + 15) / 16 * 16);
  if (std::uint64_t{tile_width} * tile_height > std::max<std::uint64_t>(padded, 1u << 20)) {
    return Status::Corruption(Where(z) + ": tiles of " + std::to_string(tile_width) + "x" +
                              std::to_string(tile_height) + " for an image of " +
                              std::to_string(width) + "x" + std::to_string(height));
  }
  const tmsize_t tile_size = TIFFTileSize(tiff);
  if (tile_width == 0 || tile_height == 0 || tile_size <= 0 ||
      static_cast<std::uint64_t>(tile_size) < std::uint64_t{tile_width} * tile_height * element) {
    return DecodeFailed(z, "its tile layout");
  }
  CHUNKWISE_RETURN_IF_ERROR(
      core::CheckAllocation(static_cast<std::uint64_t>(tile_size), Where(z) + ": one tile"));
  std::vector<std::uint8_t> tile(static_cast<std::size_t>(tile_size));
  for (std::size_t y0 = 0; y0 < height; y0 += tile_height) {
    for (std::size_t x0 = 0; x0 < width; x0 += tile_width) {
      const std::uint32_t index = TIFFComputeTile(tiff, static_cast<std::uint32_t>(x0),
                                                  static_cast<std::uint32_t>(y0), 0, 0);
      if (TIFFReadEncodedTile(tiff, index, tile.data(), tile_size) < 0) {
        return DecodeFailed(z, "tile " + std::to_string(index));
      }
      // The part of the tile inside the image, row by row.
      const std::size_t rows = std::min<std::size_t>(tile_height, height - y0);
      const std::size_t run = std::min<std::size_t>(tile_width, width - x0) * element;
      for (std::size_t r = 0; r < rows; ++r) {
        std::memcpy(out.data() + ((y0 + r) * width + x0) * element,
                    tile.data() + r * tile_width * element, run);
      }
    }
  }
  return Status::Ok();
}

Status TiffStack::ReadStrips(core::Index z, std::span<std::uint8_t> out) {
  TIFF* tiff = open_->tiff;
  const auto height = static_cast<std::size_t>(shape_[1]);
  const std::size_t row_bytes = static_cast<std::size_t>(shape_[2]) * data_type_.size();
  std::uint32_t rows_per_strip = 0;
  TIFFGetFieldDefaulted(tiff, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
  rows_per_strip = std::clamp<std::uint32_t>(rows_per_strip, 1, static_cast<std::uint32_t>(height));
  const std::uint32_t strips = TIFFNumberOfStrips(tiff);
  // Strips decode straight into the plane: each is whole rows.
  for (std::uint32_t s = 0; s < strips; ++s) {
    const std::size_t y0 = std::size_t{s} * rows_per_strip;
    if (y0 >= height) break;
    const std::size_t expected = std::min<std::size_t>(rows_per_strip, height - y0) * row_bytes;
    const tmsize_t got =
        TIFFReadEncodedStrip(tiff, s, out.data() + y0 * row_bytes, static_cast<tmsize_t>(expected));
    if (got < 0 || static_cast<std::size_t>(got) != expected) {
      return DecodeFailed(z, "strip " + std::to_string(s) +
                                 (got >= 0 ? " (" + std::to_string(got) + " of " +
                                                 std::to_string(expected) + " bytes)"
                                           : std::string()));
    }
  }
  return Status::Ok();
}

}  // namespace chunkwise::io
