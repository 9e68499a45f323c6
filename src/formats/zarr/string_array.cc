#include "formats/zarr/string_array.h"

#include <cstring>
#include <optional>
#include <utility>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/chunk_grid.h"
#include "chunkwise/formats/zarr/array.h"
#include "chunkwise/formats/zarr/sharding_codec.h"
#include "core/memory_limit.h"
#include "core/utf8.h"
#include "metadata_json.h"

namespace chunkwise::formats::zarr {
namespace {

std::string CodecName(const nlohmann::json& codec) {
  if (codec.is_string()) return codec.get<std::string>();
  return codec.is_object() ? codec.value("name", std::string()) : std::string();
}

// The codecs after the array→bytes step: v3 [vlen-utf8, b2b...]; v2's
// translation [numcodecs.vlen-utf8, bytes, b2b...]. nullopt for any other list.
std::optional<nlohmann::json> BytesCodecsAfterVlen(const ArrayMetadata& metadata) {
  const nlohmann::json& codecs = metadata.codecs;
  if (!codecs.is_array() || codecs.empty()) return std::nullopt;
  std::size_t first = 0;
  if (metadata.zarr_format == 3 && CodecName(codecs[0]) == "vlen-utf8") {
    first = 1;
  } else if (metadata.zarr_format == 2 && CodecName(codecs[0]) == "numcodecs.vlen-utf8" &&
             codecs.size() > 1 && CodecName(codecs[1]) == "bytes") {
    first = 2;
  } else {
    return std::nullopt;
  }
  nlohmann::json rest = nlohmann::json::array();
  for (std::size_t i = first; i < codecs.size(); ++i) rest.push_back(codecs[i]);
  return rest;
}

// The u32 little-endian at `*at`, advancing it; nullopt past the end.
std::optional<std::uint32_t> ReadU32(ByteView data, std::size_t* at) {
  if (data.size() - *at < 4) return std::nullopt;
  const std::uint32_t value = LoadLittleEndian<std::uint32_t>(data.data() + *at);
  *at += 4;
  return value;
}

// The C-order index of `coord` in an array of `shape`.
std::size_t FlatIndex(std::span<const core::Index> shape, std::span<const core::Index> coord) {
  std::size_t index = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    index = index * static_cast<std::size_t>(shape[d]) + static_cast<std::size_t>(coord[d]);
  }
  return index;
}

// Calls visit(coord) for every coordinate of `region`, in C order.
template <typename Visit>
void ForEachCoord(const core::Region& region, Visit visit) {
  if (region.num_elements() == 0) return;
  core::Coord coord = region.start();
  for (;;) {
    visit(coord);
    std::size_t d = coord.size();
    while (d > 0) {
      --d;
      if (++coord[d] < region.stop()[d]) break;
      coord[d] = region.start()[d];
      if (d == 0) return;
    }
    if (coord.empty()) return;  // Rank 0: one element.
  }
}

// The metadata's fill_value as text: ArrayMetadata keeps none for a type it
// cannot hold, so it is read from the document. "" when it is not a string
// (null, or the 0 older v2 writers put in every .zarray).
Result<std::string> FillText(const store::Store& store, const std::string& prefix,
                             int zarr_format) {
  const std::string key = prefix + std::string(zarr_format == 3 ? kZarrJsonKey : kZarrayKey);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> text, store.Get(key));
  if (!text) return Status::NotFound(store.Describe(key) + " is gone");
  CHUNKWISE_ASSIGN_OR_RETURN(
      const nlohmann::json root,
      ParseJsonDocument(std::string_view(reinterpret_cast<const char*>(text->data()), text->size()),
                        store.Describe(key)));
  const nlohmann::json fill =
      root.is_object() ? root.value("fill_value", nlohmann::json()) : nlohmann::json();
  return fill.is_string() ? fill.get<std::string>() : std::string();
}

// Appends `value` as a little-endian u32.
void PutU32(Bytes& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

// The chunk's vlen-utf8 bytes: its element count, then per element a length
// and the bytes. InvalidArgument when a count or a length does not fit a u32.
Result<Bytes> EncodeVlenUtf8(const std::vector<std::string>& strings) {
  if (strings.size() > UINT32_MAX) {
    return Status::InvalidArgument("a vlen-utf8 chunk holds at most 2^32-1 elements, not " +
                                   std::to_string(strings.size()));
  }
  std::size_t total = 4;
  for (const std::string& text : strings) total += 4 + text.size();
  CHUNKWISE_RETURN_IF_ERROR(core::CheckAllocation(total, "encoding a vlen-utf8 chunk"));
  Bytes out;
  out.reserve(total);
  PutU32(out, static_cast<std::uint32_t>(strings.size()));
  for (const std::string& text : strings) {
    if (text.size() > UINT32_MAX) {
      return Status::InvalidArgument("a vlen-utf8 string holds at most 2^32-1 bytes, not " +
                                     std::to_string(text.size()));
    }
    PutU32(out, static_cast<std::uint32_t>(text.size()));
    out.insert(out.end(), text.begin(), text.end());
  }
  return out;
}

// The metadata documents of a new string array, key → text: built as for a
// uint8 array (the same checks and conventions as numeric arrays), then the
// bytes codec becomes vlen-utf8, and data type and fill value the strings'.
Result<std::vector<std::pair<std::string, std::string>>> StringMetadataDocuments(
    const ArrayLayout& layout) {
  if (layout.shard_shape) {
    return Status::Unsupported("sharded string arrays are not written yet")
        .WithField("shard_shape");
  }
  ArrayLayout numeric = layout;
  CHUNKWISE_ASSIGN_OR_RETURN(numeric.data_type, core::DataType::FromZarrName("uint8"));
  numeric.fill_value.reset();
  numeric.endian = core::Endian::kLittle;
  CHUNKWISE_ASSIGN_OR_RETURN(ArrayMetadata metadata, BuildArrayMetadata(numeric));
  const std::string fill = layout.fill_value.value_or("");
  if (!core::IsUtf8(fill)) {
    return Status::InvalidArgument("the fill value is not UTF-8").WithField("fill_value");
  }
  std::vector<std::pair<std::string, std::string>> documents;
  if (layout.zarr_format == 3) {
    metadata.codecs[0] = {{"name", "vlen-utf8"}, {"configuration", nlohmann::json::object()}};
    nlohmann::ordered_json root = nlohmann::ordered_json::parse(FormatV3ArrayMetadata(metadata));
    root["data_type"] = "string";
    root["fill_value"] = fill;
    documents.emplace_back(std::string(kZarrJsonKey), root.dump(2) + "\n");
    return documents;
  }
  metadata.codecs.insert(
      metadata.codecs.begin(),
      nlohmann::json{{"name", "numcodecs.vlen-utf8"}, {"configuration", nlohmann::json::object()}});
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string zarray_text, FormatV2Zarray(metadata));
  nlohmann::ordered_json zarray = nlohmann::ordered_json::parse(zarray_text);
  zarray["dtype"] = "|O";
  zarray["fill_value"] = fill;
  documents.emplace_back(std::string(kZattrsKey), FormatV2Zattrs(metadata));
  documents.emplace_back(std::string(kZarrayKey), zarray.dump(4) + "\n");
  return documents;
}

}  // namespace

bool StringArray::Holds(const ArrayMetadata& metadata) {
  const bool string_type =
      (metadata.zarr_format == 3 && metadata.unsupported_data_type == "string") ||
      (metadata.zarr_format == 2 && metadata.unsupported_data_type == "|O");
  if (!string_type || !metadata.codecs.is_array() || metadata.codecs.empty()) return false;
  const std::string first = CodecName(metadata.codecs[0]);
  return first == "vlen-utf8" || first == "numcodecs.vlen-utf8";
}

Result<StringArray> StringArray::Create(std::shared_ptr<store::Store> store, std::string prefix,
                                        const ArrayLayout& layout, bool overwrite) {
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  CHUNKWISE_ASSIGN_OR_RETURN(const auto documents, StringMetadataDocuments(layout));
  CHUNKWISE_RETURN_IF_ERROR(
      ClearForOverwrite(*store, prefix, overwrite, DescribePrefix(*store, prefix)));
  for (const auto& [key, text] : documents) {  // .zarray last: the array appears whole.
    CHUNKWISE_RETURN_IF_ERROR(store->Set(prefix + key, AsBytes(text)));
  }
  return OpenForWrite(std::move(store), std::move(prefix));
}

Result<StringArray> StringArray::OpenForWrite(std::shared_ptr<store::Store> store,
                                              std::string prefix) {
  CHUNKWISE_ASSIGN_OR_RETURN(StringArray array, Open(store, std::move(prefix)));
  array.writable_ = std::move(store);
  return array;
}

Result<StringArray> StringArray::Open(std::shared_ptr<const store::Store> store,
                                      std::string prefix) {
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  CHUNKWISE_ASSIGN_OR_RETURN(ArrayMetadata metadata, ReadArrayMetadata(*store, prefix));
  const std::string where = DescribePrefix(*store, prefix);
  if (!Holds(metadata)) {
    return Status::Unsupported(where + ": data type " + metadata.data_type_name() +
                               " with codecs " + metadata.codecs.dump() +
                               " is not a variable-length UTF-8 string array");
  }
  const std::optional<nlohmann::json> rest = BytesCodecsAfterVlen(metadata);
  Result<codec::CodecChain> chain = rest ? codec::CodecChain::BytesOnly(*rest, ZarrCodecRegistry())
                                         : Result<codec::CodecChain>(Status::Unsupported("layout"));
  if (!chain.ok()) {
    return Status::Unsupported(where + ": string array codecs " + metadata.codecs.dump() +
                               " (vlen-utf8 then bytes-to-bytes codecs are read; not sharding, "
                               "transpose or F order): " +
                               std::string(chain.status().message()));
  }
  StringArray array;
  CHUNKWISE_ASSIGN_OR_RETURN(array.fill_value_, FillText(*store, prefix, metadata.zarr_format));
  array.store_ = std::move(store);
  array.prefix_ = std::move(prefix);
  array.metadata_ = std::move(metadata);
  array.bytes_codecs_ = std::make_shared<const codec::CodecChain>(*std::move(chain));
  return array;
}

Result<std::optional<std::vector<std::string>>> StringArray::ReadChunk(
    const core::Coord& chunk) const {
  const std::string key = prefix_ + metadata_.chunk_key_encoding.Key(chunk);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> stored, store_->Get(key));
  if (!stored) return std::optional<std::vector<std::string>>();
  const std::string where = store_->Describe(key);
  // A string has no size bound but memory: no decode step may produce more
  // than this process may hold.
  CHUNKWISE_ASSIGN_OR_RETURN(
      const Bytes decoded,
      bytes_codecs_->DecodeBytes(*stored, static_cast<std::size_t>(core::ProcessMemoryLimit())));
  const std::size_t count =
      static_cast<std::size_t>(core::Region::Full(metadata_.chunk_shape).num_elements());
  std::size_t at = 0;
  const std::optional<std::uint32_t> stated = ReadU32(decoded, &at);
  if (!stated || *stated != count) {
    return Status::Corruption(where + ": a vlen-utf8 chunk of " + std::to_string(count) +
                              " elements states " +
                              (stated ? std::to_string(*stated) : std::string("no count")));
  }
  std::vector<std::string> strings;
  strings.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::optional<std::uint32_t> length = ReadU32(decoded, &at);
    if (!length || decoded.size() - at < *length) {
      return Status::Corruption(where + ": vlen-utf8 element " + std::to_string(i) +
                                " runs past the chunk's " + std::to_string(decoded.size()) +
                                " bytes");
    }
    std::string text(reinterpret_cast<const char*>(decoded.data() + at), *length);
    at += *length;
    if (!core::IsUtf8(text)) {
      return Status::Corruption(where + ": vlen-utf8 element " + std::to_string(i) +
                                " is not UTF-8");
    }
    strings.push_back(std::move(text));
  }
  if (at != decoded.size()) {
    return Status::Corruption(where + ": " + std::to_string(decoded.size() - at) +
                              " bytes after the last vlen-utf8 element");
  }
  return std::optional<std::vector<std::string>>(std::move(strings));
}

Status StringArray::CheckRegion(const core::Region& region) const {
  if (region.rank() != static_cast<int>(metadata_.shape.size()) ||
      !core::Region::Full(metadata_.shape).Covers(region)) {
    return Status::InvalidArgument("region [" + region.ToString() +
                                   "] is not inside the array of shape [" +
                                   core::FormatShape(metadata_.shape) + "]");
  }
  return Status::Ok();
}

Result<std::vector<std::string>> StringArray::Read(const core::Region& region) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckRegion(region));
  const auto count = static_cast<std::uint64_t>(region.num_elements());
  CHUNKWISE_RETURN_IF_ERROR(
      core::CheckAllocation(core::SaturatingProduct(count, sizeof(std::string)),
                            "reading " + std::to_string(count) + " strings"));
  CHUNKWISE_ASSIGN_OR_RETURN(
      const core::RegularChunkGrid grid,
      core::RegularChunkGrid::Create(metadata_.shape, metadata_.chunk_shape));
  std::vector<std::string> out(static_cast<std::size_t>(count), fill_value_);
  const core::Shape out_shape = region.shape();
  CHUNKWISE_RETURN_IF_ERROR(
      grid.ForEachChunkIn(region, [&](const core::ChunkOverlap& overlap) -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> chunk,
                                   ReadChunk(overlap.chunk));
        if (!chunk) return Status::Ok();  // Not stored: the fill value.
        const core::Coord shift = overlap.region_local.start();
        ForEachCoord(overlap.chunk_local, [&](const core::Coord& local) {
          core::Coord target(local.size());
          for (std::size_t d = 0; d < local.size(); ++d) {
            target[d] = local[d] - overlap.chunk_local.start()[d] + shift[d];
          }
          out[FlatIndex(out_shape, target)] =
              std::move((*chunk)[FlatIndex(metadata_.chunk_shape, local)]);
        });
        return Status::Ok();
      }));
  return out;
}

Status StringArray::WriteChunk(const core::Coord& chunk,
                               const std::vector<std::string>& strings) const {
  const std::string key = prefix_ + metadata_.chunk_key_encoding.Key(chunk);
  bool all_fill = true;
  for (const std::string& text : strings) all_fill = all_fill && text == fill_value_;
  if (all_fill) return writable_->Erase(key);
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes raw, EncodeVlenUtf8(strings));
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes encoded, bytes_codecs_->EncodeBytes(raw));
  return writable_->Set(key, encoded);
}

Status StringArray::Write(const core::Region& region,
                          const std::vector<std::string>& values) const {
  if (!writable_) {
    return Status::Unsupported(DescribePrefix(*store_, prefix_) +
                               ": the string array was opened read-only");
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckRegion(region));
  if (values.size() != static_cast<std::uint64_t>(region.num_elements())) {
    return Status::InvalidArgument(std::to_string(values.size()) + " strings for a region of " +
                                   std::to_string(region.num_elements()) + " elements");
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!core::IsUtf8(values[i])) {
      return Status::InvalidArgument("string " + std::to_string(i) + " is not UTF-8");
    }
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      const core::RegularChunkGrid grid,
      core::RegularChunkGrid::Create(metadata_.shape, metadata_.chunk_shape));
  const core::Shape in_shape = region.shape();
  const std::size_t chunk_count =
      static_cast<std::size_t>(core::Region::Full(metadata_.chunk_shape).num_elements());
  return grid.ForEachChunkIn(region, [&](const core::ChunkOverlap& overlap) -> Status {
    std::vector<std::string> chunk;
    if (overlap.chunk_local.num_elements() != static_cast<core::Index>(chunk_count)) {
      // In part: keep what the rest of the chunk holds.
      CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> stored,
                                 ReadChunk(overlap.chunk));
      if (stored) chunk = *std::move(stored);
    }
    if (chunk.empty()) chunk.assign(chunk_count, fill_value_);
    const core::Coord shift = overlap.region_local.start();
    ForEachCoord(overlap.chunk_local, [&](const core::Coord& local) {
      core::Coord source(local.size());
      for (std::size_t d = 0; d < local.size(); ++d) {
        source[d] = local[d] - overlap.chunk_local.start()[d] + shift[d];
      }
      chunk[FlatIndex(metadata_.chunk_shape, local)] = values[FlatIndex(in_shape, source)];
    });
    return WriteChunk(overlap.chunk, chunk);
  });
}

}  // namespace chunkwise::formats::zarr
