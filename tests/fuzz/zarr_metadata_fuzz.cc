// libFuzzer target: zarr array metadata as it arrives from a store. The bytes
// are parsed as a v3 `zarr.json` and as a v2 `.zarray` (with a `.zattrs` after
// the first NUL byte, when there is one).
//
// Nothing may throw or crash. Metadata that parses must format and parse back
// to the same fields; its codecs are then built through ZarrCodecRegistry, and
// a small chunk that the chain encodes must decode back to the same bytes.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "chunkwise/core/check.h"
#include "codec/codec_chain.h"
#include "formats/zarr/array_metadata.h"
#include "formats/zarr/sharding_codec.h"

namespace {

using chunkwise::Bytes;
using chunkwise::Result;
using chunkwise::formats::zarr::ArrayMetadata;

// Chunks larger than this are not encoded: the fuzzer must stay fast.
constexpr std::int64_t kMaxChunkElements = 4096;

bool SameMetadata(const ArrayMetadata& a, const ArrayMetadata& b) {
  return a.zarr_format == b.zarr_format && a.shape == b.shape && a.data_type == b.data_type &&
         a.chunk_shape == b.chunk_shape && a.chunk_key_encoding == b.chunk_key_encoding &&
         a.fill_value == b.fill_value && a.fill_value_null == b.fill_value_null &&
         a.codecs == b.codecs && a.attributes == b.attributes &&
         a.dimension_names == b.dimension_names;
}

// Builds the chain; when it encodes a small patterned chunk, decoding must give it back.
void CheckCodecs(const ArrayMetadata& metadata) {
  static const chunkwise::codec::CodecRegistry registry =
      chunkwise::formats::zarr::ZarrCodecRegistry();
  const Result<chunkwise::codec::CodecChain> chain =
      chunkwise::codec::CodecChain::FromJson(metadata.codecs, registry);
  if (!chain.ok() || chain->bytes_only()) return;
  const Result<std::int64_t> elements = chunkwise::core::NumElements(metadata.chunk_shape);
  if (!elements.ok() || *elements > kMaxChunkElements) return;
  const chunkwise::codec::ChunkSpec spec{metadata.data_type, metadata.chunk_shape,
                                         metadata.fill_value};
  Bytes chunk(spec.num_bytes());
  for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<std::uint8_t>(i / 3 * 7);
  const Result<Bytes> encoded = chain->Encode(spec, chunk);
  if (!encoded.ok()) return;
  const Result<Bytes> decoded = chain->Decode(spec, *encoded);
  CHUNKWISE_CHECK(decoded.ok() && *decoded == chunk);
}

void FuzzV3(std::string_view text) {
  const Result<ArrayMetadata> metadata =
      chunkwise::formats::zarr::ParseV3ArrayMetadata(text, "fuzz/zarr.json");
  if (!metadata.ok()) return;
  const Result<ArrayMetadata> again = chunkwise::formats::zarr::ParseV3ArrayMetadata(
      chunkwise::formats::zarr::FormatV3ArrayMetadata(*metadata), "formatted");
  CHUNKWISE_CHECK(again.ok() && SameMetadata(*again, *metadata));
  CheckCodecs(*metadata);
}

void FuzzV2(std::string_view text) {
  std::string_view zarray = text;
  std::optional<std::string_view> zattrs;
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    zarray = text.substr(0, nul);
    zattrs = text.substr(nul + 1);
  }
  const Result<ArrayMetadata> metadata =
      chunkwise::formats::zarr::ParseV2ArrayMetadata(zarray, zattrs, "fuzz/.zarray");
  if (!metadata.ok()) return;
  const Result<std::string> formatted = chunkwise::formats::zarr::FormatV2Zarray(*metadata);
  CHUNKWISE_CHECK(formatted.ok());  // Parsed v2 metadata always has a v2 form.
  const std::string formatted_attributes = chunkwise::formats::zarr::FormatV2Zattrs(*metadata);
  const Result<ArrayMetadata> again = chunkwise::formats::zarr::ParseV2ArrayMetadata(
      *formatted, std::string_view(formatted_attributes), "formatted");
  CHUNKWISE_CHECK(again.ok() && SameMetadata(*again, *metadata));
  CheckCodecs(*metadata);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  FuzzV3(text);
  FuzzV2(text);
  return 0;
}
