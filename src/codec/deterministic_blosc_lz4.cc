#include "codec/deterministic_blosc_lz4.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "codec/blosc_lz4_layout.h"

namespace chunkwise::codec {
namespace {

using blosc_lz4::ChunkGeometry;

// What one thread needs to encode blocks: the gathered stream and the LZ4 table.
struct BlockScratch {
  std::uint8_t gathered[blosc_lz4::kBlockBytes];
  std::uint16_t hash_table[lz4::kHashEntries];
};

std::size_t WriteMemcpyed(const ChunkGeometry& g, ByteView input, std::uint8_t* out) {
  const std::size_t cbytes = input.size() + blosc_lz4::kHeaderBytes;
  blosc_lz4::WriteHeader(g, /*memcpyed=*/true, static_cast<std::uint32_t>(cbytes), out);
  if (!input.empty()) std::memcpy(out + blosc_lz4::kHeaderBytes, input.data(), input.size());
  return cbytes;
}

// Encodes the blocks in order straight into `out`; returns the chunk's size,
// or 0 if it would exceed `limit`.
std::size_t EncodeBlocksSerially(const ChunkGeometry& g, ByteView input, std::uint8_t* out,
                                 std::size_t limit) {
  std::size_t position = blosc_lz4::BlocksOffset(g);
  if (position > limit) return 0;
  auto scratch = std::make_unique<BlockScratch>();
  const std::size_t max_block = blosc_lz4::MaxEncodedBlockBytes(g);
  Bytes spill;  // For the last blocks, when `out` may not hold a worst case.
  for (std::uint32_t block = 0; block < g.block_count; ++block) {
    blosc_lz4::Store32(out + blosc_lz4::kHeaderBytes + 4 * block,
                       static_cast<std::uint32_t>(position));
    if (limit - position >= max_block) {
      position += blosc_lz4::EncodeBlock(g, input.data(), block, out + position, scratch->gathered,
                                         scratch->hash_table);
      continue;
    }
    spill.resize(max_block);
    const std::size_t size = blosc_lz4::EncodeBlock(g, input.data(), block, spill.data(),
                                                    scratch->gathered, scratch->hash_table);
    if (size > limit - position) return 0;
    std::memcpy(out + position, spill.data(), size);
    position += size;
  }
  return position;
}

// Encodes groups of blocks on `pool`, each block into its own slot of a
// staging buffer, then concatenates them; returns as EncodeBlocksSerially.
Result<std::size_t> EncodeBlocksInParallel(const ChunkGeometry& g, ByteView input,
                                           std::uint8_t* out, std::size_t limit,
                                           core::ThreadPool& pool) {
  const std::size_t max_block = blosc_lz4::MaxEncodedBlockBytes(g);
  Bytes staging(max_block * g.block_count);
  std::vector<std::uint32_t> sizes(g.block_count);
  const std::size_t groups = std::min<std::size_t>(g.block_count, 4 * pool.num_threads() + 4);
  CHUNKWISE_RETURN_IF_ERROR(pool.ParallelFor(groups, [&](std::size_t group) {
    auto scratch = std::make_unique<BlockScratch>();
    const std::size_t first = group * g.block_count / groups;
    const std::size_t last = (group + 1) * g.block_count / groups;
    for (std::size_t block = first; block < last; ++block) {
      sizes[block] = blosc_lz4::EncodeBlock(g, input.data(), static_cast<std::uint32_t>(block),
                                            staging.data() + block * max_block, scratch->gathered,
                                            scratch->hash_table);
    }
    return Status::Ok();
  }));
  std::size_t position = blosc_lz4::BlocksOffset(g);
  if (position > limit) return std::size_t{0};
  for (std::uint32_t block = 0; block < g.block_count; ++block) {
    if (sizes[block] > limit - position) return std::size_t{0};
    blosc_lz4::Store32(out + blosc_lz4::kHeaderBytes + 4 * block,
                       static_cast<std::uint32_t>(position));
    std::memcpy(out + position, staging.data() + block * max_block, sizes[block]);
    position += sizes[block];
  }
  return position;
}

// Encodes into `out`, which holds at least DeterministicBloscLz4Bound bytes.
Result<std::size_t> EncodeIntoBound(const ChunkGeometry& g, ByteView input, std::uint8_t* out,
                                    core::ThreadPool* pool) {
  const std::size_t bound = DeterministicBloscLz4Bound(input.size());
  if (g.memcpyed_only) return WriteMemcpyed(g, input, out);
  std::size_t cbytes = 0;
  if (pool != nullptr && pool->num_threads() > 1 && g.block_count > 1) {
    CHUNKWISE_ASSIGN_OR_RETURN(cbytes, EncodeBlocksInParallel(g, input, out, bound, *pool));
  } else {
    cbytes = EncodeBlocksSerially(g, input, out, bound);
  }
  if (cbytes == 0) return WriteMemcpyed(g, input, out);
  blosc_lz4::WriteHeader(g, /*memcpyed=*/false, static_cast<std::uint32_t>(cbytes), out);
  return cbytes;
}

}  // namespace

Result<std::size_t> EncodeDeterministicBloscLz4(ByteView input,
                                                const DeterministicBloscLz4Options& options,
                                                MutableByteView out, core::ThreadPool* pool) {
  if (options.typesize < 1 || options.typesize > 255) {
    return Status::InvalidArgument("blosc (deterministic lz4): typesize must be in 1..255, got " +
                                   std::to_string(options.typesize));
  }
  if (input.size() > blosc_lz4::kMaxInputBytes) {
    return Status::OutOfRange("blosc (deterministic lz4): input of " +
                              std::to_string(input.size()) + " bytes exceeds the Blosc1 limit of " +
                              std::to_string(blosc_lz4::kMaxInputBytes) + " bytes");
  }
  const ChunkGeometry g = blosc_lz4::MakeGeometry(static_cast<std::uint32_t>(input.size()),
                                                  static_cast<std::uint32_t>(options.typesize),
                                                  options.shuffle, options.store_only);
  const std::size_t bound = DeterministicBloscLz4Bound(input.size());
  if (out.size() >= bound) return EncodeIntoBound(g, input, out.data(), pool);
  // The choices must not depend on the room given: encode at the bound, then copy.
  Bytes whole(bound);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::size_t cbytes,
                             EncodeIntoBound(g, input, whole.data(), pool));
  if (cbytes > out.size()) {
    return Status::OutOfRange("blosc (deterministic lz4): the output of " +
                              std::to_string(out.size()) + " bytes is too small for the " +
                              std::to_string(cbytes) + "-byte chunk");
  }
  std::memcpy(out.data(), whole.data(), cbytes);
  return cbytes;
}

Result<Bytes> EncodeDeterministicBloscLz4(ByteView input,
                                          const DeterministicBloscLz4Options& options,
                                          core::ThreadPool* pool) {
  Bytes out(DeterministicBloscLz4Bound(input.size()));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::size_t cbytes,
                             EncodeDeterministicBloscLz4(input, options, out, pool));
  out.resize(cbytes);
  return out;
}

}  // namespace chunkwise::codec
