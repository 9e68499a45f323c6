#include "codec/bytes_codec.h"

#include <bit>
#include <string>

#include "config_json.h"

namespace chunkwise::codec {
namespace {

constexpr core::Endian kHostEndian =
    std::endian::native == std::endian::big ? core::Endian::kBig : core::Endian::kLittle;

}  // namespace

std::shared_ptr<const BytesCodec> BytesCodec::Create(std::optional<core::Endian> endian) {
  return std::shared_ptr<const BytesCodec>(new BytesCodec(endian));
}

Result<std::shared_ptr<const BytesCodec>> BytesCodec::FromJson(
    const nlohmann::json& configuration) {
  CHUNKWISE_RETURN_IF_ERROR(internal::CheckConfigKeys("bytes", configuration, {"endian"}));
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::string> endian,
                             internal::GetString("bytes", configuration, "endian"));
  if (!endian) return Create(std::nullopt);
  if (*endian == "little") return Create(core::Endian::kLittle);
  if (*endian == "big") return Create(core::Endian::kBig);
  return internal::BadField("bytes", "endian",
                            "must be \"little\" or \"big\", got \"" + *endian + "\"");
}

nlohmann::json BytesCodec::ToJson() const {
  // zarr-python writes {"name": "bytes"} when no endian is stated.
  if (!endian_) return {{"name", "bytes"}};
  return {{"name", "bytes"},
          {"configuration", {{"endian", *endian_ == core::Endian::kBig ? "big" : "little"}}}};
}

Result<Bytes> BytesCodec::Convert(const ChunkSpec& spec, ByteView input) const {
  const std::size_t unit = spec.dtype.swap_unit();
  if (unit > 1 && !endian_) {
    return Status::InvalidArgument("bytes: configuration must state 'endian' for data type " +
                                   std::string(spec.dtype.zarr_name()));
  }
  Bytes output = CopyToBytes(input);
  if (unit > 1 && *endian_ != kHostEndian) core::SwapByteOrder(unit, output);
  return output;
}

bool BytesCodec::PassesThrough(const ChunkSpec& spec) const {
  if (spec.dtype.swap_unit() == 1) return true;
  return endian_.has_value() && *endian_ == kHostEndian;
}

Result<Bytes> BytesCodec::Encode(const ChunkSpec& spec, ByteView data) const {
  if (data.size() != spec.num_bytes()) {
    return Status::InvalidArgument("bytes: chunk data is " + std::to_string(data.size()) +
                                   " bytes, its spec needs " + std::to_string(spec.num_bytes()));
  }
  return Convert(spec, data);
}

Result<Bytes> BytesCodec::Decode(const ChunkSpec& spec, ByteView encoded) const {
  if (encoded.size() != spec.num_bytes()) {
    return Status::Corruption("bytes: encoded chunk is " + std::to_string(encoded.size()) +
                              " bytes, expected " + std::to_string(spec.num_bytes()));
  }
  return Convert(spec, encoded);
}

}  // namespace chunkwise::codec
