#include "formats/bcolz/blp_format.h"

#include <climits>
#include <cstring>
#include <string>

namespace chunkwise::formats::bcolz {
namespace {

// Blosc1 buffers are limited to INT_MAX - 16 bytes (docs/formats/bcolz.md,
// "Blosc1 chunk format").
constexpr std::uint32_t kMaxBloscBuffer = INT_MAX - kBloscHeaderSize;
// Byte and bit shuffle both set announce a Blosc2 extended header (same section).
constexpr std::uint8_t kFlagsBlosc2Extended = kBloscFlagShuffle | kBloscFlagBitShuffle;
constexpr std::uint8_t kBlosc1FormatVersion = 2;

Status Corrupt(std::string_view file_name, const std::string& what) {
  return Status::Corruption(std::string(file_name) + ": " + what);
}

}  // namespace

void EncodeBlpHeader(std::uint8_t* out) {
  std::memcpy(out, kBlpMagic.data(), kBlpMagic.size());
  out[4] = kBlpFormatVersion;
  out[5] = out[6] = out[7] = 0;
  StoreLittleEndian<std::uint64_t>(1, out + 8);
}

Status CheckBlpHeader(ByteView file, std::string_view file_name) {
  if (file.size() < kBlpHeaderSize) {
    return Corrupt(file_name, "truncated: " + std::to_string(file.size()) +
                                  " bytes, shorter than the 16-byte blpk header");
  }
  if (std::memcmp(file.data(), kBlpMagic.data(), kBlpMagic.size()) != 0) {
    return Corrupt(file_name, "does not start with the magic \"blpk\"");
  }
  if (file[4] != kBlpFormatVersion) {
    return Corrupt(file_name, "blpk format version " + std::to_string(file[4]) + ", expected 1");
  }
  const auto nchunks = static_cast<std::int64_t>(LoadLittleEndian<std::uint64_t>(file.data() + 8));
  if (nchunks != 1 && nchunks != -1) {
    return Corrupt(file_name, "blpk header says " + std::to_string(nchunks) +
                                  " Blosc chunks; bcolz 1.x files hold exactly 1");
  }
  return Status::Ok();
}

Result<BloscHeader> ParseBloscHeader(ByteView chunk, std::string_view file_name) {
  if (chunk.size() < kBloscHeaderSize) {
    return Corrupt(file_name, "truncated: the Blosc chunk has " + std::to_string(chunk.size()) +
                                  " bytes, shorter than its 16-byte header");
  }
  BloscHeader header;
  header.version = chunk[0];
  header.versionlz = chunk[1];
  header.flags = chunk[2];
  header.typesize = chunk[3];
  header.nbytes = LoadLittleEndian<std::uint32_t>(chunk.data() + 4);
  header.blocksize = LoadLittleEndian<std::uint32_t>(chunk.data() + 8);
  header.cbytes = LoadLittleEndian<std::uint32_t>(chunk.data() + 12);
  if (header.version > kBlosc1FormatVersion ||
      (header.flags & kFlagsBlosc2Extended) == kFlagsBlosc2Extended) {
    return Status::Unsupported(std::string(file_name) +
                               ": the chunk is Blosc2; bcolz 1.x chunks are Blosc1");
  }
  if (header.version == 0 || header.versionlz == 0 || header.typesize == 0) {
    return Corrupt(file_name, "Blosc header has a zero version, codec version or typesize");
  }
  if (header.nbytes > kMaxBloscBuffer || header.cbytes > kMaxBloscBuffer + kBloscHeaderSize) {
    return Corrupt(file_name, "Blosc header sizes pass the Blosc1 limit of 2 GiB");
  }
  if (header.cbytes < kBloscHeaderSize) {
    return Corrupt(file_name, "Blosc header cbytes " + std::to_string(header.cbytes) +
                                  " is smaller than the header");
  }
  if (header.memcpyed()) {
    if (std::uint64_t{header.nbytes} + kBloscHeaderSize != header.cbytes) {
      return Corrupt(file_name, "stored (memcpyed) Blosc chunk: cbytes is not nbytes + 16");
    }
    return header;
  }
  if (header.nbytes == 0) return header;
  if (header.blocksize == 0) return Corrupt(file_name, "Blosc header has blocksize 0");
  const std::uint64_t nblocks =
      (std::uint64_t{header.nbytes} + header.blocksize - 1) / header.blocksize;
  if (kBloscHeaderSize + 4 * nblocks > header.cbytes) {
    return Corrupt(file_name, "Blosc chunk is smaller than its table of " +
                                  std::to_string(nblocks) + " block offsets");
  }
  return header;
}

Result<BloscHeader> ParseBlpFile(ByteView file, std::string_view file_name) {
  CHUNKWISE_RETURN_IF_ERROR(CheckBlpHeader(file, file_name));
  const ByteView chunk = file.subspan(kBlpHeaderSize);
  CHUNKWISE_ASSIGN_OR_RETURN(BloscHeader header, ParseBloscHeader(chunk, file_name));
  if (header.cbytes != chunk.size()) {
    return Corrupt(file_name, (header.cbytes > chunk.size() ? "truncated: " : "") +
                                  std::string("the Blosc header says cbytes ") +
                                  std::to_string(header.cbytes) + " but " +
                                  std::to_string(chunk.size()) + " bytes follow the blpk header");
  }
  return header;
}

}  // namespace chunkwise::formats::bcolz
