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

}  // namespace chunkwise
