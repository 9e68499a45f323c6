#include "formats/n5/n5_dataset.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "codec/codec_registry.h"
#include "core/json.h"
#include "core/memory_limit.h"
#include "store/batched_gets.h"

namespace chunkwise::formats::n5 {

namespace {

// ReadRows' batches of blocks: at most this many, and about this many bytes
// of decoded blocks (the encoded ones a batch holds are rarely larger).
constexpr std::size_t kBatchBlocks = 1024;
constexpr std::uint64_t kBatchBytes = std::uint64_t{128} << 20;

constexpr std::string_view kAttributesKey = "attributes.json";

// A non-negative integer array of `field`; `positive` refuses zeros too.
Result<core::Shape> ShapeField(const nlohmann::json& json, std::string_view field, bool positive,
                               std::string_view where) {
  const auto it = json.find(field);
  if (it == json.end() || !it->is_array() || it->empty()) {
    return Status::Corruption(std::string(where) + ": \"" + std::string(field) +
                              "\" is not a list of sizes");
  }
  core::Shape shape;
  for (const nlohmann::json& value : *it) {
    // 2^53: what a JSON number holds exactly; sums of such sizes cannot overflow.
    constexpr std::int64_t kLargest = std::int64_t{1} << 53;
    if (!value.is_number_integer() || value.get<std::int64_t>() < (positive ? 1 : 0) ||
        (value.is_number_unsigned() && value.get<std::uint64_t>() > kLargest) ||
        value.get<std::int64_t>() > kLargest) {
      return Status::Corruption(std::string(where) + ": \"" + std::string(field) + "\" holds " +
                                value.dump() + ", not a " +
                                (positive ? "positive" : "non-negative") + " integer");
    }
    shape.push_back(value.get<core::Index>());
  }
  return shape;
}

// The compression object of N5 1.0 and later, or the "compressionType"
// string of earlier versions; raw when neither is given.
Result<nlohmann::json> CompressionOf(const nlohmann::json& json, std::string_view where) {
  if (const auto it = json.find("compression"); it != json.end()) {
    if (!it->is_object() || !it->contains("type") || !(*it)["type"].is_string()) {
      return Status::Corruption(std::string(where) + ": \"compression\" " + it->dump() +
                                " is not an object with a \"type\"");
    }
    return *it;
  }
  if (const auto it = json.find("compressionType"); it != json.end()) {
    if (!it->is_string()) {
      return Status::Corruption(std::string(where) + ": \"compressionType\" " + it->dump() +
                                " is not a string");
    }
    return nlohmann::json{{"type", *it}};
  }
  return nlohmann::json{{"type", "raw"}};
}

bool IsStructural(std::string_view name) {
  return name == "dimensions" || name == "blockSize" || name == "dataType" ||
         name == "compression" || name == "compressionType" || name == "n5";
}

// An integer member of the compression object, or `fallback`.
int IntOf(const nlohmann::json& compression, const char* name, int fallback) {
  const auto it = compression.find(name);
  return it != compression.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

// The zarr v3 codec document that decodes `compression`'s stream: the
// configuration only has to be valid, as every one of these streams
// describes itself to its decoder.
Result<nlohmann::json> CodecDocument(const nlohmann::json& compression, std::string_view where) {
  const std::string type = compression["type"].get<std::string>();
  if (type == "gzip") {
    const auto zlib = compression.find("useZlib");
    if (zlib != compression.end() && zlib->is_boolean() && zlib->get<bool>()) {
      return nlohmann::json{{"name", "numcodecs.zlib"}, {"configuration", {{"level", 1}}}};
    }
    return nlohmann::json{{"name", "gzip"}, {"configuration", {{"level", 5}}}};
  }
  if (type == "zstd") return nlohmann::json{{"name", "zstd"}, {"configuration", {{"level", 3}}}};
  if (type == "blosc") {
    return nlohmann::json{{"name", "blosc"},
                          {"configuration",
                           {{"cname", "lz4"},
                            {"clevel", 5},
                            {"shuffle", "noshuffle"},
                            {"typesize", 1},
                            {"blocksize", 0}}}};
  }
  if (type == "bzip2") {
    return nlohmann::json{
        {"name", "numcodecs.bz2"},
        {"configuration", {{"level", std::clamp(IntOf(compression, "blockSize", 9), 1, 9)}}}};
  }
  if (type == "xz") {
    return nlohmann::json{{"name", "numcodecs.lzma"}, {"configuration", {{"format", 1}}}};
  }
  if (type == "lz4") {
    return Status::Unsupported(std::string(where) +
                               ": N5 compression lz4 (Java's LZ4Block stream) is not read here; "
                               "raw, gzip, zstd, blosc, bzip2 and xz are");
  }
  return Status::Unsupported(std::string(where) + ": N5 compression \"" + type +
                             "\" is not read here; raw, gzip, zstd, blosc, bzip2 and xz are");
}

std::uint16_t BigEndian16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

std::uint32_t BigEndian32(const std::uint8_t* p) {
  return (static_cast<std::uint32_t>(p[0]) << 24) | (static_cast<std::uint32_t>(p[1]) << 16) |
         (static_cast<std::uint32_t>(p[2]) << 8) | p[3];
}

}  // namespace

Result<N5Attributes> ParseAttributes(ByteView json_bytes, std::string_view where) {
  CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::json json,
                             core::ParseJson(AsChars(json_bytes), where, StatusCode::kCorruption));
  if (!json.is_object()) {
    return Status::Corruption(std::string(where) + ": not a JSON object");
  }
  if (!json.contains("dimensions") && !json.contains("dataType")) {
    return Status::InvalidArgument(std::string(where) +
                                   ": an N5 group (no \"dimensions\", no \"dataType\"), not a "
                                   "dataset; name a dataset's folder");
  }
  N5Attributes attributes;
  CHUNKWISE_ASSIGN_OR_RETURN(attributes.dimensions, ShapeField(json, "dimensions", false, where));
  CHUNKWISE_ASSIGN_OR_RETURN(attributes.block_size, ShapeField(json, "blockSize", true, where));
  if (attributes.dimensions.size() != attributes.block_size.size()) {
    return Status::Corruption(
        std::string(where) + ": " + std::to_string(attributes.dimensions.size()) +
        " dimensions but a blockSize of " + std::to_string(attributes.block_size.size()));
  }
  const auto type = json.find("dataType");
  if (type == json.end() || !type->is_string()) {
    return Status::Corruption(std::string(where) + ": no \"dataType\" string");
  }
  const std::string type_name = type->get<std::string>();
  constexpr std::string_view kTypes[] = {"uint8", "uint16", "uint32",  "uint64",  "int8",
                                         "int16", "int32",  "float32", "float64", "int64"};
  Result<core::DataType> data_type = core::DataType::FromZarrName(type_name);
  if (std::find(std::begin(kTypes), std::end(kTypes), type_name) == std::end(kTypes) ||
      !data_type.ok()) {
    return Status::Unsupported(std::string(where) + ": N5 dataType \"" + type_name +
                               "\" is not a volume here (uint8..uint64, int8..int64, float32, "
                               "float64 are)");
  }
  attributes.data_type = *data_type;
  CHUNKWISE_ASSIGN_OR_RETURN(attributes.compression, CompressionOf(json, where));
  attributes.compression_type = attributes.compression["type"].get<std::string>();
  for (const auto& [name, value] : json.items()) {
    if (!IsStructural(name)) attributes.other[name] = value;
  }
  return attributes;
}

Result<std::shared_ptr<const codec::BytesToBytesCodec>> DecoderOf(const N5Attributes& attributes,
                                                                  std::string_view where) {
  if (attributes.compression_type == "raw") {
    return std::shared_ptr<const codec::BytesToBytesCodec>();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::json document,
                             CodecDocument(attributes.compression, where));
  static const codec::CodecRegistry registry = codec::CodecRegistry::WithBuiltins();
  CHUNKWISE_ASSIGN_OR_RETURN(const std::shared_ptr<const codec::Codec> codec,
                             registry.Create(document));
  auto bytes = std::dynamic_pointer_cast<const codec::BytesToBytesCodec>(codec);
  if (!bytes) return Status::Internal(document.dump() + " is not a bytes-to-bytes codec");
  return bytes;
}

Result<BlockHeader> ParseBlockHeader(ByteView block, std::string_view where) {
  const auto shorter = [&](std::size_t needed) {
    return Status::Corruption(std::string(where) + ": N5 block of " + std::to_string(block.size()) +
                              " bytes, shorter than its header (" + std::to_string(needed) +
                              " bytes)");
  };
  if (block.size() < 4) return shorter(4);
  BlockHeader header;
  header.mode = BigEndian16(block.data());
  if (header.mode > 2) {
    return Status::Corruption(std::string(where) + ": N5 block mode " +
                              std::to_string(header.mode) + " (known: 0, 1, 2)");
  }
  const std::size_t ndim = BigEndian16(block.data() + 2);
  const std::size_t needed = 4 + 4 * ndim + (header.mode == 1 ? 4 : 0);
  if (block.size() < needed) return shorter(needed);
  for (std::size_t d = 0; d < ndim; ++d) {
    header.size.push_back(BigEndian32(block.data() + 4 + 4 * d));
  }
  if (header.mode == 1) header.element_count = BigEndian32(block.data() + 4 + 4 * ndim);
  header.header_bytes = needed;
  return header;
}

Result<std::unique_ptr<N5Dataset>> N5Dataset::Open(std::shared_ptr<const store::Store> store) {
  std::unique_ptr<N5Dataset> dataset(new N5Dataset());
  dataset->name_ = store->Describe("");
  const std::string where = store->Describe(kAttributesKey);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> json, store->Get(kAttributesKey));
  if (!json) return Status::NotFound(where + ": no such file (not an N5 dataset)");
  CHUNKWISE_ASSIGN_OR_RETURN(dataset->attributes_, ParseAttributes(*json, where));
  CHUNKWISE_ASSIGN_OR_RETURN(dataset->decoder_, DecoderOf(dataset->attributes_, where));
  const N5Attributes& attributes = dataset->attributes_;
  dataset->shape_.assign(attributes.dimensions.rbegin(), attributes.dimensions.rend());
  for (std::size_t d = 0; d < dataset->shape_.size(); ++d) {
    const core::Index block = attributes.block_size[attributes.block_size.size() - 1 - d];
    dataset->chunks_.push_back(std::max<core::Index>(1, std::min(block, dataset->shape_[d])));
  }
  dataset->store_ = std::move(store);
  return dataset;
}

std::uint64_t N5Dataset::row_bytes() const {
  std::uint64_t bytes = data_type().size();
  for (std::size_t d = 1; d < shape_.size(); ++d) {
    bytes = core::SaturatingProduct(bytes, static_cast<std::uint64_t>(shape_[d]));
  }
  return bytes;
}

Status N5Dataset::ReadRows(core::Index first, core::Index count, std::span<std::uint8_t> out,
                           core::ThreadPool* pool) const {
  const std::size_t ndim = shape_.size();
  if (first < 0 || count < 0 || first + count > shape_[0]) {
    return Status::OutOfRange(name_ + ": rows " + std::to_string(first) + ".." +
                              std::to_string(first + count) + " of " + std::to_string(shape_[0]));
  }
  if (out.size() != static_cast<std::uint64_t>(count) * row_bytes()) {
    return Status::OutOfRange(name_ + ": a buffer of " + std::to_string(out.size()) +
                              " bytes for " + std::to_string(count) + " rows");
  }
  std::fill(out.begin(), out.end(), std::uint8_t{0});
  if (count == 0 || out.empty()) return Status::Ok();
  // Grid positions in N5 order; the last N5 dimension is the rows'.
  const core::Shape& block = attributes_.block_size;
  std::vector<core::Index> lo(ndim, 0);
  std::vector<core::Index> hi(ndim);
  for (std::size_t d = 0; d < ndim; ++d) {
    hi[d] = (attributes_.dimensions[d] + block[d] - 1) / block[d];
  }
  lo[ndim - 1] = first / block[ndim - 1];
  hi[ndim - 1] = (first + count - 1) / block[ndim - 1] + 1;
  // The blocks go out in batches, so that a grid of tiny blocks needs no
  // list of all their positions: at most 1024 blocks, about 128 MiB of
  // them. From a store whose gets are batched (a remote one) a batch's GETs
  // are on the wire together, sent from this thread (store::GetMany), and
  // the pool only decodes; elsewhere each pool task reads its own block.
  std::uint64_t block_bytes = data_type().size();
  for (const core::Index extent : chunks_) {
    block_bytes = core::SaturatingProduct(block_bytes, static_cast<std::uint64_t>(extent));
  }
  const std::size_t batch = static_cast<std::size_t>(std::clamp<std::uint64_t>(
      kBatchBytes / std::max<std::uint64_t>(block_bytes, 1), 1, kBatchBlocks));
  const bool batched = store::BatchesGets(*store_);
  std::vector<std::vector<core::Index>> positions;
  std::vector<Result<std::optional<Bytes>>> fetched;
  const auto copy = [&](std::size_t i) -> Status {
    if (batched) {
      CHUNKWISE_RETURN_IF_ERROR(fetched[i].status());
      return CopyBlock(positions[i], *fetched[i], first, count, out);
    }
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> stored,
                               store_->Get(BlockKey(positions[i])));
    return CopyBlock(positions[i], stored, first, count, out);
  };
  const auto flush = [&]() -> Status {
    if (batched) {
      std::vector<std::string> keys;
      keys.reserve(positions.size());
      for (const std::vector<core::Index>& at : positions) keys.push_back(BlockKey(at));
      fetched = store::GetMany(*store_, keys);
    }
    if (pool == nullptr || positions.size() < 2) {
      for (std::size_t i = 0; i < positions.size(); ++i) CHUNKWISE_RETURN_IF_ERROR(copy(i));
    } else {
      CHUNKWISE_RETURN_IF_ERROR(pool->ParallelFor(positions.size(), copy));
    }
    positions.clear();
    fetched.clear();
    return Status::Ok();
  };
  std::vector<core::Index> position = lo;
  while (true) {
    positions.push_back(position);
    if (positions.size() == batch) CHUNKWISE_RETURN_IF_ERROR(flush());
    std::size_t d = 0;
    while (d < ndim && ++position[d] == hi[d]) {
      position[d] = lo[d];
      ++d;
    }
    if (d == ndim) break;
  }
  return flush();
}

std::string N5Dataset::BlockKey(const std::vector<core::Index>& position) const {
  std::string key;
  for (std::size_t d = 0; d < position.size(); ++d) {
    if (d > 0) key += '/';
    key += std::to_string(position[d]);
  }
  return key;
}

Status N5Dataset::CopyBlock(const std::vector<core::Index>& position,
                            const std::optional<Bytes>& stored, core::Index first,
                            core::Index count, std::span<std::uint8_t> out) const {
  const std::size_t ndim = shape_.size();
  if (!stored) return Status::Ok();  // Never written: zero, N5's fill.
  const std::string key = BlockKey(position);
  const std::string where = store_->Describe(key);
  CHUNKWISE_ASSIGN_OR_RETURN(const BlockHeader header, ParseBlockHeader(*stored, where));
  if (header.mode == 2) {
    return Status::Unsupported(where + ": an N5 object-mode block, not values of " +
                               std::string(data_type().zarr_name()));
  }
  if (header.size.size() != ndim) {
    return Status::Corruption(where + ": N5 block header of " + std::to_string(header.size.size()) +
                              " dimensions in a dataset of " + std::to_string(ndim));
  }
  std::uint64_t elements = 1;
  for (std::size_t d = 0; d < ndim; ++d) {
    if (header.size[d] > static_cast<std::uint64_t>(attributes_.block_size[d])) {
      return Status::Corruption(where + ": N5 block header size " + std::to_string(header.size[d]) +
                                " in dimension " + std::to_string(d) + ", past the blockSize " +
                                std::to_string(attributes_.block_size[d]));
    }
    elements = core::SaturatingProduct(elements, header.size[d]);
  }
  if (header.element_count && *header.element_count != elements) {
    return Status::Unsupported(where + ": an N5 varlength block of " +
                               std::to_string(*header.element_count) + " elements in a block of " +
                               std::to_string(elements));
  }
  const std::uint64_t expected = core::SaturatingProduct(elements, data_type().size());
  CHUNKWISE_RETURN_IF_ERROR(core::CheckAllocation(expected, where));
  const ByteView payload = ByteView(*stored).subspan(header.header_bytes);
  Bytes decoded;
  if (decoder_) {
    Result<Bytes> inflated = decoder_->Decode(payload, static_cast<std::size_t>(expected));
    if (!inflated.ok()) {
      return Status::Corruption(where + ": N5 block values do not decompress (" +
                                attributes_.compression_type +
                                "): " + std::string(inflated.status().message()) +
                                "; its header states " + std::to_string(expected) + " bytes");
    }
    decoded = *std::move(inflated);
  } else {
    decoded.assign(payload.begin(), payload.end());
  }
  if (decoded.size() != expected) {
    return Status::Corruption(where + ": N5 block holds " + std::to_string(decoded.size()) +
                              " bytes of values where its header states " +
                              std::to_string(expected) + " (" + std::to_string(elements) + " " +
                              std::string(data_type().zarr_name()) + ")");
  }
  if constexpr (std::endian::native == std::endian::little) {
    core::SwapByteOrder(data_type().size(), decoded);
  }
  // The block in C order: shape `extent`, its corner at `origin`; the part
  // inside the volume and the rows [first, first + count) is copied.
  std::vector<core::Index> origin(ndim), extent(ndim), from(ndim), to(ndim);
  for (std::size_t c = 0; c < ndim; ++c) {
    const std::size_t d = ndim - 1 - c;
    origin[c] = position[d] * attributes_.block_size[d];
    extent[c] = header.size[d];
    from[c] = origin[c];
    to[c] = std::min(origin[c] + extent[c], shape_[c]);
  }
  from[0] = std::max(from[0], first);
  to[0] = std::min(to[0], first + count);
  for (std::size_t c = 0; c < ndim; ++c) {
    if (from[c] >= to[c]) return Status::Ok();
  }
  const std::size_t item = data_type().size();
  const std::size_t run = static_cast<std::size_t>(to[ndim - 1] - from[ndim - 1]) * item;
  std::vector<core::Index> at = from;  // The C-order volume index of a run's start.
  while (true) {
    std::uint64_t source = 0;
    std::uint64_t target = 0;
    for (std::size_t c = 0; c < ndim; ++c) {
      source = source * static_cast<std::uint64_t>(extent[c]) +
               static_cast<std::uint64_t>(at[c] - origin[c]);
      const core::Index row = c == 0 ? at[c] - first : at[c];
      const core::Index span = c == 0 ? count : shape_[c];
      target = target * static_cast<std::uint64_t>(span) + static_cast<std::uint64_t>(row);
    }
    std::memcpy(out.data() + target * item, decoded.data() + source * item, run);
    std::size_t c = ndim - 1;
    while (c-- > 0) {
      if (++at[c] < to[c]) break;
      at[c] = from[c];
    }
    if (c == static_cast<std::size_t>(-1)) break;
  }
  return Status::Ok();
}

}  // namespace chunkwise::formats::n5
