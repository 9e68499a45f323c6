#include "page_compression.h"

#include <snappy.h>

#include <string>

#include "codec/gzip_codec.h"
#include "codec/zstd_codec.h"

namespace chunkwise::formats::parquet {
namespace {

Result<std::shared_ptr<const codec::ZstdCodec>> Zstd(int level) {
  return codec::ZstdCodec::Create(codec::ZstdOptions{level, false});
}

Result<Bytes> SnappyDecompress(ByteView page, std::size_t uncompressed_size,
                               const std::string& what) {
  const char* input = reinterpret_cast<const char*>(page.data());
  std::size_t size = 0;
  if (!snappy::GetUncompressedLength(input, page.size(), &size)) {
    return Status::Corruption(what + ": snappy page has no valid length");
  }
  if (size != uncompressed_size) {
    return Status::Corruption(what + ": snappy page decodes to " + std::to_string(size) +
                              " bytes, the header says " + std::to_string(uncompressed_size));
  }
  // Snappy's densest element, a 3-byte copy, decodes to 64 bytes: a page
  // declaring more is corrupt, refused before that size is allocated (the
  // page header that agrees with it is as forged as the page).
  if (size / 64 > page.size() / 3) {
    return Status::Corruption(what + ": snappy page of " + std::to_string(page.size()) +
                              " bytes declares " + std::to_string(size) +
                              " decoded bytes, more than snappy decodes from it");
  }
  Bytes out(size);
  if (!snappy::RawUncompress(input, page.size(), reinterpret_cast<char*>(out.data()))) {
    return Status::Corruption(what + ": snappy page does not decode");
  }
  return out;
}

}  // namespace

Result<Bytes> CompressPage(ByteView page, Compression codec, int zstd_level) {
  switch (codec) {
    case Compression::kUncompressed:
      return CopyToBytes(page);
    case Compression::kZstd: {
      CHUNKWISE_ASSIGN_OR_RETURN(const auto zstd, Zstd(zstd_level));
      return zstd->Encode(page);
    }
    case Compression::kGzip: {
      CHUNKWISE_ASSIGN_OR_RETURN(const auto gzip, codec::GzipCodec::Create(6));
      return gzip->Encode(page);
    }
    case Compression::kSnappy: {
      std::string out;
      snappy::Compress(reinterpret_cast<const char*>(page.data()), page.size(), &out);
      return CopyToBytes(AsBytes(out));
    }
  }
  return Status::Unsupported("parquet compression codec " +
                             std::to_string(static_cast<int>(codec)));
}

Result<Bytes> DecompressPage(ByteView page, std::int32_t codec, std::size_t uncompressed_size,
                             const std::string& what) {
  Result<Bytes> out = Status::Internal("unset");
  switch (static_cast<Compression>(codec)) {
    case Compression::kUncompressed:
      out = CopyToBytes(page);
      break;
    case Compression::kSnappy:
      return SnappyDecompress(page, uncompressed_size, what);
    case Compression::kZstd: {
      CHUNKWISE_ASSIGN_OR_RETURN(const auto zstd, Zstd(0));
      out = zstd->Decode(page, uncompressed_size);
      break;
    }
    case Compression::kGzip: {
      CHUNKWISE_ASSIGN_OR_RETURN(const auto gzip, codec::GzipCodec::Create(6));
      out = gzip->Decode(page, uncompressed_size);
      break;
    }
    default:
      return Status::Unsupported(what + ": compression codec " + std::to_string(codec) +
                                 " (only UNCOMPRESSED, SNAPPY, GZIP and ZSTD are read)");
  }
  if (!out.ok()) return Status::Corruption(what + ": " + std::string(out.status().message()));
  if (out->size() != uncompressed_size) {
    return Status::Corruption(what + ": page decodes to " + std::to_string(out->size()) +
                              " bytes, the header says " + std::to_string(uncompressed_size));
  }
  return out;
}

}  // namespace chunkwise::formats::parquet
