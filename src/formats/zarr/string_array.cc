#include "formats/zarr/string_array.h"

#include <cstring>
#include <optional>
#include <utility>

#include "chunkwise/core/bytes.h"
#include "core/base64.h"
#include "core/chunk_grid.h"
#include "core/memory_limit.h"
#include "core/utf8.h"
#include "formats/zarr/array.h"
#include "formats/zarr/shard_index.h"
#include "formats/zarr/sharding_codec.h"
#include "metadata_json.h"

namespace chunkwise::formats::zarr {
namespace {

using Elements = StringArray::Elements;

// zarr-python 3's v3 data type for variable-length bytes.
constexpr std::string_view kBytesType = "variable_length_bytes";

// The array→bytes codec (v2: the filter's id) of each kind of elements.
std::string_view VlenCodec(Elements elements) {
  return elements == Elements::kBytes ? "vlen-bytes" : "vlen-utf8";
}

std::string CodecName(const nlohmann::json& codec) {
  if (codec.is_string()) return codec.get<std::string>();
  return codec.is_object() ? codec.value("name", std::string()) : std::string();
}

nlohmann::json Configuration(const nlohmann::json& codec) {
  if (!codec.is_object()) return nlohmann::json::object();
  const nlohmann::json configuration = codec.value("configuration", nlohmann::json::object());
  return configuration.is_object() ? configuration : nlohmann::json::object();
}

// The codecs of a string array, taken apart: the bytes→bytes codecs after
// vlen-utf8, and for a sharded array its inner chunk and index location.
struct StringCodecs {
  nlohmann::json bytes_codecs = nlohmann::json::array();
  std::vector<std::size_t> transpose;      // A leading transpose's order (v2 "F" too); empty: none.
  std::optional<core::Shape> inner_chunk;  // Set when sharded.
  IndexLocation index_location = IndexLocation::kEnd;
};

// The order of a transpose codec over `rank` dimensions; nullopt when it is
// not a permutation of 0..rank-1.
std::optional<std::vector<std::size_t>> TransposeOrder(const nlohmann::json& codec,
                                                       std::size_t rank) {
  const nlohmann::json order = Configuration(codec).value("order", nlohmann::json());
  if (!order.is_array() || order.size() != rank) return std::nullopt;
  std::vector<std::size_t> permutation;
  std::vector<bool> seen(rank, false);
  for (const nlohmann::json& axis : order) {
    if (!axis.is_number_unsigned() || axis.get<std::uint64_t>() >= rank ||
        seen[axis.get<std::size_t>()]) {
      return std::nullopt;
    }
    seen[axis.get<std::size_t>()] = true;
    permutation.push_back(axis.get<std::size_t>());
  }
  return permutation;
}

// `codecs` after an optional transpose (its order into `*transpose`) and
// `vlen` (vlen-utf8 or vlen-bytes): v3 [transpose,] vlen, b2b...; v2's
// translation [transpose,] numcodecs.vlen, bytes, b2b.... nullopt for any other list.
std::optional<nlohmann::json> AfterVlen(const nlohmann::json& codecs, int zarr_format,
                                        std::size_t rank, std::vector<std::size_t>* transpose,
                                        std::string_view vlen) {
  if (!codecs.is_array() || codecs.empty()) return std::nullopt;
  std::size_t first = 0;
  if (CodecName(codecs[0]) == "transpose") {
    std::optional<std::vector<std::size_t>> order = TransposeOrder(codecs[0], rank);
    if (!order) return std::nullopt;
    *transpose = *std::move(order);
    first = 1;
  }
  if (first >= codecs.size()) return std::nullopt;
  if (zarr_format == 3 && CodecName(codecs[first]) == vlen) {
    first += 1;
  } else if (zarr_format == 2 && CodecName(codecs[first]) == "numcodecs." + std::string(vlen) &&
             codecs.size() > first + 1 && CodecName(codecs[first + 1]) == "bytes") {
    first += 2;
  } else {
    return std::nullopt;
  }
  nlohmann::json rest = nlohmann::json::array();
  for (std::size_t i = first; i < codecs.size(); ++i) rest.push_back(codecs[i]);
  return rest;
}

// True for the shard index codecs this reads and writes: [bytes little, crc32c].
bool IsShardIndexCodecs(const nlohmann::json& codecs) {
  if (!codecs.is_array() || codecs.size() != 2) return false;
  const std::string endian = Configuration(codecs[0]).value("endian", std::string("little"));
  return CodecName(codecs[0]) == "bytes" && endian == "little" && CodecName(codecs[1]) == "crc32c";
}

// The codecs taken apart; nullopt for a list that is not `vlen` then
// bytes→bytes codecs, alone or inside sharding_indexed (with the index
// codecs above and an inner chunk that divides the shard).
std::optional<StringCodecs> SplitCodecs(const ArrayMetadata& metadata, std::string_view vlen) {
  StringCodecs split;
  const nlohmann::json& codecs = metadata.codecs;
  if (metadata.zarr_format == 3 && codecs.is_array() && codecs.size() == 1 &&
      CodecName(codecs[0]) == kShardingCodecName) {
    const nlohmann::json configuration = Configuration(codecs[0]);
    const Result<core::Shape> inner = internal::GetShape(configuration, "chunk_shape");
    if (!inner.ok() || inner->size() != metadata.chunk_shape.size()) return std::nullopt;
    for (std::size_t d = 0; d < inner->size(); ++d) {
      if ((*inner)[d] <= 0 || metadata.chunk_shape[d] % (*inner)[d] != 0) return std::nullopt;
    }
    if (!IsShardIndexCodecs(configuration.value("index_codecs", ShardIndexCodecs()))) {
      return std::nullopt;
    }
    const std::string location = configuration.value("index_location", std::string("end"));
    if (location != "end" && location != "start") return std::nullopt;
    split.index_location = location == "start" ? IndexLocation::kStart : IndexLocation::kEnd;
    std::optional<nlohmann::json> rest = AfterVlen(configuration.value("codecs", nlohmann::json()),
                                                   3, inner->size(), &split.transpose, vlen);
    if (!rest) return std::nullopt;
    split.bytes_codecs = *std::move(rest);
    split.inner_chunk = *inner;
    return split;
  }
  std::optional<nlohmann::json> rest =
      AfterVlen(codecs, metadata.zarr_format, metadata.chunk_shape.size(), &split.transpose, vlen);
  if (!rest) return std::nullopt;
  split.bytes_codecs = *std::move(rest);
  return split;
}

// The u32 little-endian at `*at`, advancing it; nullopt past the end.
std::optional<std::uint32_t> ReadU32(ByteView data, std::size_t* at) {
  if (data.size() - *at < 4) return std::nullopt;
  const std::uint32_t value = LoadLittleEndian<std::uint32_t>(data.data() + *at);
  *at += 4;
  return value;
}

// The `count` strings of a vlen-utf8 (vlen-bytes) chunk, bytes→bytes codecs
// undone; Corruption naming `where` when it is not that. The two lay out
// their elements alike; only text must be UTF-8.
Result<std::vector<std::string>> DecodeVlen(ByteView decoded, std::size_t count,
                                            const std::string& where, Elements elements) {
  const std::string vlen(VlenCodec(elements));
  std::size_t at = 0;
  const std::optional<std::uint32_t> stated = ReadU32(decoded, &at);
  if (!stated || *stated != count) {
    return Status::Corruption(where + ": a " + vlen + " chunk of " + std::to_string(count) +
                              " elements states " +
                              (stated ? std::to_string(*stated) : std::string("no count")));
  }
  std::vector<std::string> strings;
  strings.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::optional<std::uint32_t> length = ReadU32(decoded, &at);
    if (!length || decoded.size() - at < *length) {
      return Status::Corruption(where + ": " + vlen + " element " + std::to_string(i) +
                                " runs past the chunk's " + std::to_string(decoded.size()) +
                                " bytes");
    }
    std::string text(reinterpret_cast<const char*>(decoded.data() + at), *length);
    at += *length;
    if (elements == Elements::kText && !core::IsUtf8(text)) {
      return Status::Corruption(where + ": vlen-utf8 element " + std::to_string(i) +
                                " is not UTF-8");
    }
    strings.push_back(std::move(text));
  }
  if (at != decoded.size()) {
    return Status::Corruption(where + ": " + std::to_string(decoded.size() - at) +
                              " bytes after the last " + vlen + " element");
  }
  return strings;
}

// Appends `value` as a little-endian u32.
void PutU32(Bytes& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

// The chunk's vlen-utf8 (vlen-bytes: the same) bytes: its element count,
// then per element a length and the bytes. InvalidArgument when a count or
// a length does not fit a u32.
Result<Bytes> EncodeVlen(const std::vector<std::string>& strings) {
  if (strings.size() > UINT32_MAX) {
    return Status::InvalidArgument("a vlen chunk holds at most 2^32-1 elements, not " +
                                   std::to_string(strings.size()));
  }
  std::size_t total = 4;
  for (const std::string& text : strings) total += 4 + text.size();
  CHUNKWISE_RETURN_IF_ERROR(core::CheckAllocation(total, "encoding a vlen chunk"));
  Bytes out;
  out.reserve(total);
  PutU32(out, static_cast<std::uint32_t>(strings.size()));
  for (const std::string& text : strings) {
    if (text.size() > UINT32_MAX) {
      return Status::InvalidArgument("a vlen element holds at most 2^32-1 bytes, not " +
                                     std::to_string(text.size()));
    }
    PutU32(out, static_cast<std::uint32_t>(text.size()));
    out.insert(out.end(), text.begin(), text.end());
  }
  return out;
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
// (null, or the 0 older v2 writers put in every .zarray). Bytes are in
// base64, as zarr-python 3 writes them (v2 too); InvalidArgument if not.
Result<std::string> FillText(const store::Store& store, const std::string& prefix, int zarr_format,
                             Elements elements) {
  const std::string key = prefix + std::string(zarr_format == 3 ? kZarrJsonKey : kZarrayKey);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> text, store.Get(key));
  if (!text) return Status::NotFound(store.Describe(key) + " is gone");
  CHUNKWISE_ASSIGN_OR_RETURN(
      const nlohmann::json root,
      ParseJsonDocument(std::string_view(reinterpret_cast<const char*>(text->data()), text->size()),
                        store.Describe(key)));
  const nlohmann::json fill =
      root.is_object() ? root.value("fill_value", nlohmann::json()) : nlohmann::json();
  if (!fill.is_string()) return std::string();
  if (elements == Elements::kText) return fill.get<std::string>();
  Result<Bytes> bytes = core::DecodeBase64(fill.get<std::string>());
  if (!bytes.ok()) {
    return Status::InvalidArgument(store.Describe(key) + ": the vlen-bytes fill_value " +
                                   fill.dump() +
                                   " is not base64: " + std::string(bytes.status().message()));
  }
  return std::string(bytes->begin(), bytes->end());
}

// The metadata documents of a new string array, key → text: built as for a
// uint8 array (the same checks and conventions as numeric arrays), then the
// bytes codec becomes vlen-utf8 (vlen-bytes), and data type and fill value
// the strings' (bytes': base64).
Result<std::vector<std::pair<std::string, std::string>>> StringMetadataDocuments(
    const ArrayLayout& layout, Elements elements) {
  ArrayLayout numeric = layout;
  CHUNKWISE_ASSIGN_OR_RETURN(numeric.data_type, core::DataType::FromZarrName("uint8"));
  numeric.fill_value.reset();
  numeric.endian = core::Endian::kLittle;
  CHUNKWISE_ASSIGN_OR_RETURN(ArrayMetadata metadata, BuildArrayMetadata(numeric));
  const bool bytes = elements == Elements::kBytes;
  std::string fill = layout.fill_value.value_or("");
  if (bytes) {
    fill = core::EncodeBase64(AsBytes(fill));
  } else if (!core::IsUtf8(fill)) {
    return Status::InvalidArgument("the fill value is not UTF-8").WithField("fill_value");
  }
  const std::string vlen_name(VlenCodec(elements));
  const nlohmann::json vlen = {{"name", vlen_name}, {"configuration", nlohmann::json::object()}};
  std::vector<std::pair<std::string, std::string>> documents;
  if (layout.zarr_format == 3) {
    if (layout.shard_shape) {
      metadata.codecs[0]["configuration"]["codecs"][0] = vlen;
    } else {
      metadata.codecs[0] = vlen;
    }
    nlohmann::ordered_json root = nlohmann::ordered_json::parse(FormatV3ArrayMetadata(metadata));
    root["data_type"] = bytes ? std::string(kBytesType) : std::string("string");
    root["fill_value"] = fill;
    documents.emplace_back(std::string(kZarrJsonKey), root.dump(2) + "\n");
    return documents;
  }
  metadata.codecs.insert(metadata.codecs.begin(),
                         nlohmann::json{{"name", "numcodecs." + vlen_name},
                                        {"configuration", nlohmann::json::object()}});
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string zarray_text, FormatV2Zarray(metadata));
  nlohmann::ordered_json zarray = nlohmann::ordered_json::parse(zarray_text);
  zarray["dtype"] = "|O";
  zarray["fill_value"] = fill;
  documents.emplace_back(std::string(kZattrsKey), FormatV2Zattrs(metadata));
  documents.emplace_back(std::string(kZarrayKey), zarray.dump(4) + "\n");
  return documents;
}

// What the elements of `metadata`'s array are; nullopt when it is not a
// vlen-utf8 string or vlen-bytes array (a v3 data type must match its codec).
std::optional<Elements> ElementsOf(const ArrayMetadata& metadata) {
  const std::string& type = metadata.unsupported_data_type;
  const bool vlen_type = metadata.zarr_format == 3 ? type == "string" || type == kBytesType
                                                   : metadata.zarr_format == 2 && type == "|O";
  if (!vlen_type || !metadata.codecs.is_array() || metadata.codecs.empty()) return std::nullopt;
  nlohmann::json codecs = metadata.codecs;
  if (CodecName(codecs[0]) == kShardingCodecName) {
    codecs = Configuration(codecs[0]).value("codecs", nlohmann::json());
  }
  // The array→bytes codec: the first, or the second after a transpose.
  std::string name;
  for (std::size_t i = 0; codecs.is_array() && i < codecs.size() && i < 2; ++i) {
    name = CodecName(codecs[i]);
    if (name != "transpose") break;
  }
  if (name.starts_with("numcodecs.")) name = name.substr(std::string_view("numcodecs.").size());
  std::optional<Elements> elements;
  if (name == "vlen-utf8") elements = Elements::kText;
  if (name == "vlen-bytes") elements = Elements::kBytes;
  if (elements && metadata.zarr_format == 3 &&
      (type == kBytesType) != (*elements == Elements::kBytes)) {
    return std::nullopt;
  }
  return elements;
}

}  // namespace

bool StringArray::Holds(const ArrayMetadata& metadata) { return ElementsOf(metadata).has_value(); }

Result<StringArray> StringArray::Create(std::shared_ptr<store::Store> store, std::string prefix,
                                        const ArrayLayout& layout, bool overwrite,
                                        Elements elements) {
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  CHUNKWISE_ASSIGN_OR_RETURN(const auto documents, StringMetadataDocuments(layout, elements));
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
  const std::optional<Elements> elements = ElementsOf(metadata);
  if (!elements) {
    return Status::Unsupported(where + ": data type " + metadata.data_type_name() +
                               " with codecs " + metadata.codecs.dump() +
                               " is not a variable-length UTF-8 string (vlen-utf8) or bytes "
                               "(vlen-bytes) array");
  }
  const std::string vlen(VlenCodec(*elements));
  const std::optional<StringCodecs> split = SplitCodecs(metadata, vlen);
  Result<codec::CodecChain> chain =
      split ? codec::CodecChain::BytesOnly(split->bytes_codecs, ZarrCodecRegistry())
            : Result<codec::CodecChain>(Status::Unsupported("layout"));
  if (!chain.ok()) {
    return Status::Unsupported(
        where + ": string array codecs " + metadata.codecs.dump() + " (" + vlen +
        " then bytes-to-bytes codecs are read, alone or in sharding_indexed with "
        "index codecs [bytes little, crc32c], after a transpose or not): " +
        std::string(chain.status().message()));
  }
  StringArray array;
  CHUNKWISE_ASSIGN_OR_RETURN(array.fill_value_,
                             FillText(*store, prefix, metadata.zarr_format, *elements));
  array.elements_ = *elements;
  array.store_ = std::move(store);
  array.prefix_ = std::move(prefix);
  array.inner_chunk_ = split->inner_chunk.value_or(metadata.chunk_shape);
  array.sharded_ = split->inner_chunk.has_value();
  array.index_location_ = split->index_location;
  array.transpose_ = split->transpose;
  array.metadata_ = std::move(metadata);
  array.bytes_codecs_ = std::make_shared<const codec::CodecChain>(*std::move(chain));
  return array;
}

template <typename Visit>
void StringArray::ForEachTransposed(Visit visit) const {
  // The chunk is stored as chunk.transpose(order): stored coordinate u holds
  // the element c with c[order[i]] = u[i], in u's C order.
  core::Shape stored_shape(transpose_.size());
  for (std::size_t i = 0; i < transpose_.size(); ++i) stored_shape[i] = inner_chunk_[transpose_[i]];
  core::Coord element(transpose_.size());
  ForEachCoord(core::Region::Full(stored_shape), [&](const core::Coord& u) {
    for (std::size_t i = 0; i < transpose_.size(); ++i) element[transpose_[i]] = u[i];
    visit(FlatIndex(inner_chunk_, element));
  });
}

Result<std::vector<std::string>> StringArray::DecodeChunk(ByteView stored,
                                                          const std::string& where) const {
  // A string has no size bound but memory: no decode step may produce more
  // than this process may hold.
  Result<Bytes> decoded =
      bytes_codecs_->DecodeBytes(stored, static_cast<std::size_t>(core::ProcessMemoryLimit()));
  if (!decoded.ok()) return decoded.status().WithContext(where);  // A checksum names no key.
  const auto count = static_cast<std::size_t>(core::Region::Full(inner_chunk_).num_elements());
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> stored_order,
                             DecodeVlen(*decoded, count, where, elements_));
  if (transpose_.empty()) return stored_order;
  std::vector<std::string> strings(count);
  std::size_t j = 0;
  ForEachTransposed([&](std::size_t element) { strings[element] = std::move(stored_order[j++]); });
  return strings;
}

core::Shape StringArray::ChunksPerShard() const {
  core::Shape per_shard(inner_chunk_.size());
  for (std::size_t d = 0; d < per_shard.size(); ++d) {
    per_shard[d] = metadata_.chunk_shape[d] / inner_chunk_[d];
  }
  return per_shard;
}

Result<std::optional<std::vector<std::string>>> StringArray::ReadBlock(
    const core::Coord& block) const {
  const std::string key = prefix_ + metadata_.chunk_key_encoding.Key(block);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> stored, store_->Get(key));
  if (!stored) return std::optional<std::vector<std::string>>();
  const std::string where = store_->Describe(key);
  if (!sharded_) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> strings, DecodeChunk(*stored, where));
    return std::optional<std::vector<std::string>>(std::move(strings));
  }
  const core::Shape per_shard = ChunksPerShard();
  const auto n = static_cast<std::size_t>(core::Region::Full(per_shard).num_elements());
  const std::size_t index_size = ShardIndex::EncodedSize(n);
  if (stored->size() < index_size) {
    return Status::Corruption(where + ": a shard of " + std::to_string(stored->size()) +
                              " bytes cannot hold its index of " + std::to_string(index_size) +
                              " bytes");
  }
  const ByteView whole(*stored);
  const ByteView index_bytes = index_location_ == IndexLocation::kEnd
                                   ? whole.subspan(whole.size() - index_size)
                                   : whole.subspan(0, index_size);
  CHUNKWISE_ASSIGN_OR_RETURN(
      const ShardIndex index,
      ShardIndex::Decode(index_bytes, n, whole.size(), where, index_location_));
  const auto count =
      static_cast<std::uint64_t>(core::Region::Full(metadata_.chunk_shape).num_elements());
  CHUNKWISE_RETURN_IF_ERROR(core::CheckAllocation(
      core::SaturatingProduct(count, sizeof(std::string)), "reading a shard of strings"));
  std::vector<std::string> strings(static_cast<std::size_t>(count), fill_value_);
  Status status;
  std::size_t k = 0;
  ForEachCoord(core::Region::Full(per_shard), [&](const core::Coord& position) {
    const ChunkLocation location = index.at(k);
    const std::string inner_where = where + " (inner chunk " + std::to_string(k) + ")";
    ++k;
    if (!status.ok() || location.empty()) return;
    Result<std::vector<std::string>> inner =
        DecodeChunk(whole.subspan(static_cast<std::size_t>(location.offset),
                                  static_cast<std::size_t>(location.nbytes)),
                    inner_where);
    if (!inner.ok()) {
      status = inner.status();
      return;
    }
    std::size_t j = 0;
    ForEachCoord(InnerRegion(position), [&](const core::Coord& element) {
      strings[FlatIndex(metadata_.chunk_shape, element)] = std::move((*inner)[j++]);
    });
  });
  CHUNKWISE_RETURN_IF_ERROR(status);
  return std::optional<std::vector<std::string>>(std::move(strings));
}

core::Region StringArray::InnerRegion(const core::Coord& position) const {
  core::Coord start(position.size());
  core::Coord stop(position.size());
  for (std::size_t d = 0; d < position.size(); ++d) {
    start[d] = position[d] * inner_chunk_[d];
    stop[d] = start[d] + inner_chunk_[d];
  }
  return core::Region(start, stop);
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
        CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> block,
                                   ReadBlock(overlap.chunk));
        if (!block) return Status::Ok();  // Not stored: the fill value.
        const core::Coord shift = overlap.region_local.start();
        ForEachCoord(overlap.chunk_local, [&](const core::Coord& local) {
          core::Coord target(local.size());
          for (std::size_t d = 0; d < local.size(); ++d) {
            target[d] = local[d] - overlap.chunk_local.start()[d] + shift[d];
          }
          out[FlatIndex(out_shape, target)] =
              std::move((*block)[FlatIndex(metadata_.chunk_shape, local)]);
        });
        return Status::Ok();
      }));
  return out;
}

Result<std::optional<Bytes>> StringArray::EncodeChunk(
    const std::vector<std::string>& strings) const {
  bool all_fill = true;
  for (const std::string& text : strings) all_fill = all_fill && text == fill_value_;
  if (all_fill) return std::optional<Bytes>();
  std::vector<std::string> stored_order;
  if (!transpose_.empty()) {
    stored_order.reserve(strings.size());
    ForEachTransposed([&](std::size_t element) { stored_order.push_back(strings[element]); });
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes raw,
                             EncodeVlen(transpose_.empty() ? strings : stored_order));
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes encoded, bytes_codecs_->EncodeBytes(raw));
  return std::optional<Bytes>(std::move(encoded));
}

Status StringArray::WriteBlock(const core::Coord& block,
                               const std::vector<std::string>& strings) const {
  const std::string key = prefix_ + metadata_.chunk_key_encoding.Key(block);
  if (!sharded_) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> encoded, EncodeChunk(strings));
    return encoded ? writable_->Set(key, *encoded) : writable_->Erase(key);
  }
  const core::Shape per_shard = ChunksPerShard();
  const auto n = static_cast<std::size_t>(core::Region::Full(per_shard).num_elements());
  ShardIndex index = ShardIndex::Empty(n);
  Bytes data;
  Status status;
  std::size_t k = 0;
  ForEachCoord(core::Region::Full(per_shard), [&](const core::Coord& position) {
    const std::size_t entry = k++;
    if (!status.ok()) return;
    std::vector<std::string> inner;
    ForEachCoord(InnerRegion(position), [&](const core::Coord& element) {
      inner.push_back(strings[FlatIndex(metadata_.chunk_shape, element)]);
    });
    Result<std::optional<Bytes>> encoded = EncodeChunk(inner);
    if (!encoded.ok()) {
      status = encoded.status();
      return;
    }
    if (!*encoded) return;  // All fill value: an empty entry.
    index.Set(entry, ChunkLocation{.offset = data.size(), .nbytes = (*encoded)->size()});
    data.insert(data.end(), (*encoded)->begin(), (*encoded)->end());
  });
  CHUNKWISE_RETURN_IF_ERROR(status);
  if (index.all_empty()) return writable_->Erase(key);
  const std::uint64_t shift = DataOffsetShift(index_location_, n);
  for (std::size_t i = 0; shift != 0 && i < n; ++i) {
    ChunkLocation location = index.at(i);
    if (location.empty()) continue;
    location.offset += shift;
    index.Set(i, location);
  }
  const Bytes encoded_index = index.Encode();
  const std::array<ByteView, 2> parts =
      index_location_ == IndexLocation::kEnd
          ? std::array<ByteView, 2>{ByteView(data), ByteView(encoded_index)}
          : std::array<ByteView, 2>{ByteView(encoded_index), ByteView(data)};
  return writable_->SetParts(key, parts);
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
    if (elements_ == Elements::kText && !core::IsUtf8(values[i])) {
      return Status::InvalidArgument("string " + std::to_string(i) + " is not UTF-8");
    }
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      const core::RegularChunkGrid grid,
      core::RegularChunkGrid::Create(metadata_.shape, metadata_.chunk_shape));
  const core::Shape in_shape = region.shape();
  const auto block_count =
      static_cast<std::size_t>(core::Region::Full(metadata_.chunk_shape).num_elements());
  return grid.ForEachChunkIn(region, [&](const core::ChunkOverlap& overlap) -> Status {
    std::vector<std::string> block;
    if (overlap.chunk_local.num_elements() != static_cast<core::Index>(block_count)) {
      // In part: keep what the rest of the chunk or shard holds.
      CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> stored,
                                 ReadBlock(overlap.chunk));
      if (stored) block = *std::move(stored);
    }
    if (block.empty()) block.assign(block_count, fill_value_);
    const core::Coord shift = overlap.region_local.start();
    ForEachCoord(overlap.chunk_local, [&](const core::Coord& local) {
      core::Coord source(local.size());
      for (std::size_t d = 0; d < local.size(); ++d) {
        source[d] = local[d] - overlap.chunk_local.start()[d] + shift[d];
      }
      block[FlatIndex(metadata_.chunk_shape, local)] = values[FlatIndex(in_shape, source)];
    });
    return WriteBlock(overlap.chunk, block);
  });
}

}  // namespace chunkwise::formats::zarr
