#include "chunkwise/facade/zarr_strings.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "chunkwise/core/npy.h"
#include "chunkwise/io/npy_file.h"
#include "core/memory_limit.h"
#include "formats/zarr/array_layout.h"
#include "formats/zarr/string_array.h"

namespace chunkwise {
namespace {

Result<formats::zarr::StringArray> OpenStringArray(const Context& context, std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  return formats::zarr::StringArray::Open(std::move(store), "");
}

ZarrStringArrayInfo InfoOf(const formats::zarr::StringArray& array) {
  return ZarrStringArrayInfo{
      .zarr_format = array.metadata().zarr_format,
      .shape = array.metadata().shape,
      .chunks = array.metadata().chunk_shape,
      .fill_value = array.fill_value(),
      .bytes = array.elements() == formats::zarr::StringArray::Elements::kBytes};
}

// A region error names the URL; the array's other errors name their keys.
Status WithUrl(Status status, std::string_view url) {
  if (status.code() == StatusCode::kInvalidArgument) return status.WithContext(url);
  return status;
}

// The code points of `text`, UTF-8 the reader has checked.
std::u32string CodePoints(std::string_view text) {
  std::u32string points;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const int extra = lead < 0x80 ? 0 : lead < 0xE0 ? 1 : lead < 0xF0 ? 2 : 3;
    char32_t point = extra == 0 ? lead : lead & (0x3F >> extra);
    for (int k = 1; k <= extra && i + k < text.size(); ++k) {
      point = (point << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    }
    points.push_back(point);
    i += 1 + extra;
  }
  return points;
}

// Appends the UTF-8 of `point`; false for a surrogate or a value past
// U+10FFFF, which no UTF-8 holds.
bool AppendUtf8(char32_t point, std::string& out) {
  if (point > 0x10FFFF || (point >= 0xD800 && point <= 0xDFFF)) return false;
  if (point < 0x80) {
    out.push_back(static_cast<char>(point));
  } else if (point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (point >> 6)));
    out.push_back(static_cast<char>(0x80 | (point & 0x3F)));
  } else if (point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (point & 0x3F)));
  }
  return true;
}

// The elements of a C-order 'U' .npy as UTF-8, trailing NULs dropped as
// numpy drops them; InvalidArgument naming `path` and the element whose
// code unit is not a Unicode scalar value.
Result<std::vector<std::string>> TextElements(const core::NpyArray& npy, std::size_t count,
                                              const std::filesystem::path& path) {
  const std::size_t width = npy.dtype.itemsize() / 4;
  const bool big = npy.dtype.byte_order() == core::NpyDtype::ByteOrder::kBig;
  std::vector<std::string> elements(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t* element = npy.data.data() + i * width * 4;
    std::size_t length = width;
    const auto point_at = [element, big](std::size_t c) {
      char32_t point = 0;
      for (int b = 0; b < 4; ++b) {
        point |= static_cast<char32_t>(element[c * 4 + (big ? 3 - b : b)]) << (8 * b);
      }
      return point;
    };
    while (length > 0 && point_at(length - 1) == 0) --length;
    for (std::size_t c = 0; c < length; ++c) {
      if (!AppendUtf8(point_at(c), elements[i])) {
        return Status::InvalidArgument(path.string() + ": element " + std::to_string(i) +
                                       " holds " + std::to_string(point_at(c)) +
                                       ", which is not a Unicode character (a surrogate or "
                                       "past U+10FFFF)");
      }
    }
  }
  return elements;
}

// The elements of a C-order 'S' .npy, trailing NULs dropped as numpy drops them.
std::vector<std::string> ByteElements(const core::NpyArray& npy, std::size_t count) {
  const std::size_t width = npy.dtype.itemsize();
  std::vector<std::string> elements(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto* element = reinterpret_cast<const char*>(npy.data.data() + i * width);
    std::size_t length = width;
    while (length > 0 && element[length - 1] == 0) --length;
    elements[i].assign(element, length);
  }
  return elements;
}

}  // namespace

Result<ZarrStringArrayInfo> CreateZarrStringArray(const Context& context, std::string_view url,
                                                  const ZarrStringArraySpec& spec,
                                                  const ZarrStringCreateOptions& options,
                                                  const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "creating " + std::string(url)));
  if (!spec.attributes.is_object()) {
    return Status::InvalidArgument("the attributes must be a JSON object, not " +
                                   std::string(spec.attributes.type_name()) + " (" +
                                   std::string(url) + ")")
        .WithField("attributes");
  }
  formats::zarr::ArrayLayout layout;
  layout.shape = spec.shape;
  layout.chunk_shape = spec.chunks;
  layout.shard_shape = spec.shards;
  CHUNKWISE_ASSIGN_OR_RETURN(
      layout.codec,
      CodecsWithChunkChecksum(spec.codecs.ToShorthand(), spec.checksum, spec.zarr_format));
  layout.fill_value = spec.fill_value;
  layout.dimension_names = spec.dimension_names;
  layout.zarr_format = spec.zarr_format;
  layout.attributes = spec.attributes;
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  Result<formats::zarr::StringArray> array =
      formats::zarr::StringArray::Create(std::move(store), "", layout, options.overwrite,
                                         spec.bytes ? formats::zarr::StringArray::Elements::kBytes
                                                    : formats::zarr::StringArray::Elements::kText);
  if (!array.ok()) return WithUrl(array.status(), url);
  return InfoOf(*array);
}

Status WriteZarrStrings(const Context& context, std::string_view url, const core::Region& region,
                        const std::vector<std::string>& values, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "writing " + std::string(url)));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(const formats::zarr::StringArray array,
                             formats::zarr::StringArray::OpenForWrite(std::move(store), ""));
  return WithUrl(array.Write(region, values), url);
}

Result<ZarrStringArrayInfo> DescribeZarrStringArray(const Context& context, std::string_view url,
                                                    const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "opening " + std::string(url)));
  CHUNKWISE_ASSIGN_OR_RETURN(const formats::zarr::StringArray array, OpenStringArray(context, url));
  return InfoOf(array);
}

Result<std::vector<std::string>> ReadZarrStrings(const Context& context, std::string_view url,
                                                 const core::Region& region,
                                                 const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "reading " + std::string(url)));
  CHUNKWISE_ASSIGN_OR_RETURN(const formats::zarr::StringArray array, OpenStringArray(context, url));
  Result<std::vector<std::string>> strings = array.Read(region);
  if (!strings.ok() && strings.status().code() == StatusCode::kInvalidArgument) {
    return strings.status().WithContext(url);
  }
  return strings;
}

Result<std::size_t> ExportZarrStringsToNpy(const Context& context, std::string_view url,
                                           const core::Region& region,
                                           const std::filesystem::path& path,
                                           const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(const ZarrStringArrayInfo info,
                             DescribeZarrStringArray(context, url, call));
  if (info.bytes) {
    return Status::Unsupported(std::string(url) +
                               ": variable-length bytes have no .npy dtype that holds them whole "
                               "(Python: chunkwise.open gives a BytesArray)");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> strings,
                             ReadZarrStrings(context, url, region, call));
  std::vector<std::u32string> points;
  points.reserve(strings.size());
  std::size_t width = 1;  // numpy's np.array([""]) is '<U1'.
  for (const std::string& text : strings) {
    points.push_back(CodePoints(text));
    width = std::max(width, points.back().size());
  }
  CHUNKWISE_ASSIGN_OR_RETURN(core::NpyDtype dtype,
                             core::NpyDtype::FromTypestr("<U" + std::to_string(width)));
  core::NpyArray npy{.dtype = std::move(dtype), .shape = {}, .fortran_order = false, .data = {}};
  for (const core::Index extent : region.shape()) npy.shape.push_back(extent);
  const std::uint64_t size =
      core::SaturatingProduct(static_cast<std::uint64_t>(points.size()), width * 4);
  CHUNKWISE_RETURN_IF_ERROR(core::CheckAllocation(size, "a '<U' .npy of " + std::string(url)));
  npy.data.assign(static_cast<std::size_t>(size), 0);
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::uint8_t* element = npy.data.data() + i * width * 4;
    for (std::size_t c = 0; c < points[i].size(); ++c) {
      for (int b = 0; b < 4; ++b) {  // UTF-32 little-endian.
        element[c * 4 + b] = static_cast<std::uint8_t>(points[i][c] >> (8 * b));
      }
    }
  }
  CHUNKWISE_RETURN_IF_ERROR(io::WriteNpy(path, npy));
  return width;
}

Result<core::Region> ImportNpyIntoZarrStrings(const Context& context, std::string_view url,
                                              const std::filesystem::path& path,
                                              const core::Coord& offset, const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(const ZarrStringArrayInfo info,
                             DescribeZarrStringArray(context, url, call));
  CHUNKWISE_ASSIGN_OR_RETURN(core::NpyArray npy, io::ReadNpy(path));
  const char kind = npy.dtype.is_structured() ? 'V' : npy.dtype.kind();
  const char wanted = info.bytes ? 'S' : 'U';
  if (kind != wanted) {
    const std::string dtype =
        npy.dtype.is_structured() ? "a structured dtype" : npy.dtype.typestr();
    return Status::InvalidArgument(path.string() + ": its dtype " + dtype + " does not fit the " +
                                   (info.bytes ? "variable-length bytes" : "string") + " array " +
                                   std::string(url) + ", which takes a .npy of " +
                                   (info.bytes ? "'|S<n>' bytes" : "'<U<n>' text (numpy's str)"));
  }
  if (!offset.empty() && offset.size() != info.shape.size()) {
    return Status::InvalidArgument(path.string() + ": the offset has " +
                                   std::to_string(offset.size()) + " dimensions and " +
                                   std::string(url) + " has " + std::to_string(info.shape.size()))
        .WithField("offset");
  }
  const core::Shape shape(npy.shape.begin(), npy.shape.end());
  if (shape.size() != info.shape.size()) {
    return Status::InvalidArgument(path.string() + " has " + std::to_string(shape.size()) +
                                   " dimensions and " + std::string(url) + " has " +
                                   std::to_string(info.shape.size()));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const core::Index count, core::NumElements(shape));
  CHUNKWISE_RETURN_IF_ERROR(core::ToCOrder(npy));
  std::vector<std::string> elements;
  if (info.bytes) {
    elements = ByteElements(npy, static_cast<std::size_t>(count));
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(elements, TextElements(npy, static_cast<std::size_t>(count), path));
  }
  const core::Coord origin = offset.empty() ? core::Coord(shape.size(), 0) : offset;
  const core::Region region = core::Region::FromOriginAndShape(origin, shape);
  CHUNKWISE_RETURN_IF_ERROR(WriteZarrStrings(context, url, region, elements, call));
  return region;
}

}  // namespace chunkwise
