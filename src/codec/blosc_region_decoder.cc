#include "blosc_region_decoder.h"

#include <lz4.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/check.h"
#include "codec/blosc_lz4_layout.h"
#include "core/streamed_copy.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace chunkwise::codec::internal {
namespace {

using core::Index;

constexpr std::uint8_t kFlagBitShuffle = 0x04;
constexpr std::uint8_t kLz4FormatCode = 1;  // LZ4 and LZ4HC both write it.
// Larger blocks are left to c-blosc, so a hostile header cannot make every
// thread hold a buffer this large.
constexpr std::uint32_t kMaxBlockBytes = 8u << 20;

// What the 16-byte header says: the flags, and the block layout the
// encoder's rules (blosc_lz4_layout.h) describe.
struct ChunkHeader {
  std::uint8_t compressor_version, flags;
  bool memcpyed, shuffled;
  blosc_lz4::ChunkGeometry geometry;
};

ChunkHeader ReadHeader(ByteView encoded) {
  ChunkHeader h{};
  h.compressor_version = encoded[1];
  h.flags = encoded[2];
  h.memcpyed = (h.flags & blosc_lz4::kFlagMemcpyed) != 0;
  blosc_lz4::ChunkGeometry& g = h.geometry;
  g.typesize = encoded[3];
  g.nbytes = LoadLittleEndian<std::uint32_t>(encoded.data() + 4);
  g.blocksize = LoadLittleEndian<std::uint32_t>(encoded.data() + 8);
  g.block_count = g.blocksize == 0 ? 0 : (g.nbytes + g.blocksize - 1) / g.blocksize;
  g.shuffle = (h.flags & blosc_lz4::kFlagShuffle) != 0;
  // c-blosc's decoder rule: full blocks are split unless the header says not
  // to or the blocks are too small.
  g.split = (h.flags & blosc_lz4::kFlagDontSplit) == 0 && g.typesize <= blosc_lz4::kMaxSplits &&
            g.blocksize / g.typesize >= blosc_lz4::kMinCompressedBytes;
  h.shuffled = g.shuffle && g.typesize > 1;
  return h;
}

// Whether rows of `row_bytes` can be produced block by block from this chunk.
// Anything else, a header c-blosc would reject included, is left to c-blosc.
bool Handles(const ChunkHeader& h, std::size_t row_bytes, std::size_t element_size) {
  if (h.compressor_version != blosc_lz4::kLz4FormatVersion) return false;
  if (h.memcpyed) return true;
  if ((h.flags & kFlagBitShuffle) != 0 || (h.flags >> 5) != kLz4FormatCode) return false;
  const blosc_lz4::ChunkGeometry& g = h.geometry;
  if (h.shuffled && g.typesize != element_size) return false;
  // Split blocks must hold whole streams; c-blosc's encoder never writes otherwise.
  return g.blocksize > 0 && g.blocksize % g.typesize == 0 && g.blocksize <= kMaxBlockBytes &&
         g.blocksize % row_bytes == 0;
}

Status BlockError(std::uint32_t block, const std::string& what) {
  return Status::Corruption("blosc: block " + std::to_string(block) + " " + what);
}

// Decompresses block `block` into `out`: the block as the encoder saw it,
// shuffled when the chunk is.
Status DecompressBlock(const blosc_lz4::ChunkGeometry& g, ByteView encoded, std::uint32_t block,
                       std::uint8_t* out) {
  const std::uint64_t table_end = blosc_lz4::BlocksOffset(g);
  if (table_end > encoded.size()) return BlockError(block, "start table is truncated");
  std::uint64_t at = LoadLittleEndian<std::uint32_t>(encoded.data() + 16 + 4ull * block);
  if (at < table_end || at > encoded.size()) return BlockError(block, "starts outside the chunk");
  const std::uint32_t streams = blosc_lz4::StreamCount(g, block);
  const std::uint32_t stream_bytes = blosc_lz4::BlockBytes(g, block) / streams;
  for (std::uint32_t s = 0; s < streams; ++s, out += stream_bytes) {
    if (encoded.size() - at < 4) return BlockError(block, "is truncated");
    const auto size =
        static_cast<std::int32_t>(LoadLittleEndian<std::uint32_t>(encoded.data() + at));
    at += 4;
    if (size < 0 || static_cast<std::uint64_t>(size) > encoded.size() - at) {
      return BlockError(block, "has a stream size past the end of the chunk");
    }
    const auto* data = reinterpret_cast<const char*>(encoded.data() + at);
    if (static_cast<std::uint32_t>(size) == stream_bytes) {
      std::memcpy(out, data, stream_bytes);  // Stored raw: it did not compress.
    } else if (LZ4_decompress_safe(data, reinterpret_cast<char*>(out), size,
                                   static_cast<int>(stream_bytes)) !=
               static_cast<int>(stream_bytes)) {
      return BlockError(block, "has an LZ4 stream that does not decode to " +
                                   std::to_string(stream_bytes) + " bytes");
    }
    at += static_cast<std::uint32_t>(size);
  }
  return Status::Ok();
}

#if defined(__SSE2__)
void Store16(std::uint8_t* at, __m128i value, bool stream) {
  if (stream) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(at), value);
  } else {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(at), value);
  }
}
#endif

// Writes `count` elements of `typesize` bytes to `out` in their own order,
// from `in`, where byte j of element i is at j * elements + i (a shuffled
// block from the row's first element on). Streamed when `stream` is set;
// `out` must then be 16-byte aligned.
void UnshuffleRow(const std::uint8_t* in, std::size_t elements, std::size_t count,
                  std::uint32_t typesize, std::uint8_t* out, bool stream) {
  std::size_t i = 0;
#if defined(__SSE2__)
  const auto load = [&](std::size_t stream_index) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + stream_index * elements + i));
  };
  const auto store = [&](std::size_t at, __m128i value) { Store16(out + at, value, stream); };
  if (typesize == 2) {
    for (; i + 16 <= count; i += 16) {
      const __m128i low = load(0), high = load(1);
      store(2 * i, _mm_unpacklo_epi8(low, high));
      store(2 * i + 16, _mm_unpackhi_epi8(low, high));
    }
  } else if (typesize == 4) {
    for (; i + 16 <= count; i += 16) {
      const __m128i b0 = load(0), b1 = load(1), b2 = load(2), b3 = load(3);
      const __m128i low01 = _mm_unpacklo_epi8(b0, b1), high01 = _mm_unpackhi_epi8(b0, b1);
      const __m128i low23 = _mm_unpacklo_epi8(b2, b3), high23 = _mm_unpackhi_epi8(b2, b3);
      store(4 * i, _mm_unpacklo_epi16(low01, low23));
      store(4 * i + 16, _mm_unpackhi_epi16(low01, low23));
      store(4 * i + 32, _mm_unpacklo_epi16(high01, high23));
      store(4 * i + 48, _mm_unpackhi_epi16(high01, high23));
    }
  } else if (typesize == 8) {
    for (; i + 16 <= count; i += 16) {
      __m128i pairs[8], quads[8];
      for (std::size_t p = 0; p < 4; ++p) {
        const __m128i even = load(2 * p), odd = load(2 * p + 1);
        pairs[2 * p] = _mm_unpacklo_epi8(even, odd);  // Elements 0-7 of bytes 2p, 2p+1.
        pairs[2 * p + 1] = _mm_unpackhi_epi8(even, odd);
      }
      for (std::size_t q = 0; q < 2; ++q) {             // Bytes 0-3 (q = 0) and 4-7 (q = 1).
        for (std::size_t half = 0; half < 2; ++half) {  // Elements 0-7, then 8-15.
          const __m128i a = pairs[4 * q + half], b = pairs[4 * q + 2 + half];
          quads[4 * q + 2 * half] = _mm_unpacklo_epi16(a, b);
          quads[4 * q + 2 * half + 1] = _mm_unpackhi_epi16(a, b);
        }
      }
      for (std::size_t k = 0; k < 4; ++k) {  // Elements 4k to 4k+3.
        store(8 * i + 32 * k, _mm_unpacklo_epi32(quads[k], quads[4 + k]));
        store(8 * i + 32 * k + 16, _mm_unpackhi_epi32(quads[k], quads[4 + k]));
      }
    }
  }
#endif
  for (; i < count; ++i) {
    for (std::uint32_t j = 0; j < typesize; ++j) out[i * typesize + j] = in[j * elements + i];
  }
}

// The rows of a C-order chunk (its last dimension is a row) that a box
// meets, as runs: rows that follow each other along the second-last
// dimension, whose parts in the box land `row_stride()` bytes apart in the
// destination. A 64³ chunk is 4096 rows but only 64 runs, so the per-row
// work is a pointer increment.
class RowRuns {
 public:
  RowRuns(const core::StridedDestination& target, std::span<const Index> chunk_shape,
          const core::Region& box, std::size_t element_size)
      : chunk_shape_(chunk_shape),
        box_(box),
        strides_(chunk_shape.size()),
        data_(static_cast<std::uint8_t*>(target.data)) {
    auto stride = static_cast<std::ptrdiff_t>(element_size);
    for (std::size_t d = chunk_shape.size(); d-- > 0;) {
      strides_[d] = stride;
      // Where chunk coordinate 0 would land, so that the offset of row c is
      // base_ + sum of c[d] * strides_[d].
      base_ += (target.origin[d] - box.start()[d]) * stride;
      stride *= static_cast<std::ptrdiff_t>(target.shape[d]);
    }
    base_ += box.start().back() * strides_.back();
    for (std::size_t d = 0; d + 1 < chunk_shape.size(); ++d) {
      whole_ = whole_ && box.start()[d] == 0 && box.stop()[d] == chunk_shape[d];
    }
  }

  std::ptrdiff_t row_stride() const { return chunk_shape_.size() < 2 ? 0 : strides_[RunDim()]; }

  // Calls fn(r, n, destination) for each run of the box's rows among rows
  // [first, first + count): rows first + r to first + r + n - 1, whose first
  // part goes to `destination`.
  template <typename Fn>
  void ForEachRun(Index first, Index count, Fn&& fn) const {
    if (chunk_shape_.size() < 2) {  // One row, always in the box.
      if (first == 0 && count > 0) fn(Index{0}, Index{1}, data_ + base_);
      return;
    }
    const std::size_t run_dim = RunDim();
    const Index run_length = chunk_shape_[run_dim];
    for (Index r = 0, n = 0; r < count; r += n) {
      const Index row = first + r, position = row % run_length;
      n = std::min(count - r, run_length - position);
      const Index start = std::max(position, box_.start()[run_dim]);
      const Index stop = std::min(position + n, box_.stop()[run_dim]);
      if (start >= stop) continue;
      if (const std::optional<std::ptrdiff_t> offset = OuterOffset(row / run_length)) {
        fn(r + start - position, stop - start, data_ + *offset + start * strides_[run_dim]);
      }
    }
  }

  // Whether the box meets any of rows [first, first + count).
  bool Meets(Index first, Index count) const {
    if (whole_) return true;
    bool meets = false;
    ForEachRun(first, count, [&](Index, Index, std::uint8_t*) { meets = true; });
    return meets;
  }

 private:
  std::size_t RunDim() const { return chunk_shape_.size() - 2; }

  // For the run `run` (C order over all dimensions but the last two): where
  // its row 0 would land, or nullopt if the box does not hold it in those
  // dimensions.
  std::optional<std::ptrdiff_t> OuterOffset(Index run) const {
    std::ptrdiff_t offset = base_;
    for (std::size_t d = RunDim(); d-- > 0;) {
      const Index position = run % chunk_shape_[d];
      run /= chunk_shape_[d];
      if (position < box_.start()[d] || position >= box_.stop()[d]) return std::nullopt;
      offset += position * strides_[d];
    }
    return offset;
  }

  std::span<const Index> chunk_shape_;
  const core::Region& box_;
  std::vector<std::ptrdiff_t> strides_;
  std::uint8_t* data_;
  std::ptrdiff_t base_ = 0;
  bool whole_ = true;  // The box holds whole rows of every dimension but the last.
};

// A per-thread buffer: blocks are at most kMaxBlockBytes and a row at most a chunk's.
std::uint8_t* ThreadBuffer(std::vector<std::uint8_t>& buffer, std::size_t bytes) {
  if (buffer.size() < bytes) buffer.resize(bytes);
  return buffer.data();
}

// Decoded rows of the chunk: the chunk's bytes as they are, or a shuffled
// block of `elements` elements of `typesize` bytes (typesize > 1).
struct DecodedRows {
  const std::uint8_t* data;
  std::size_t row_elements, element_size;
  std::uint32_t typesize = 1;
  std::size_t elements = 0;
};

// Writes the box's part of each row to its place in the destination,
// streamed when the destination asks for that.
class RowWriter {
 public:
  RowWriter(const core::StridedDestination& target, std::span<const Index> chunk_shape,
            const core::Region& box, std::size_t element_size)
      : runs_(target, chunk_shape, box, element_size),
        element_size_(element_size),
        first_(static_cast<std::size_t>(box.start().back())),
        count_(static_cast<std::size_t>(box.shape().back())),
        streams_(target.streaming && count_ * element_size >= core::kMinStreamedRunBytes) {}
  ~RowWriter() {
    if (streams_) core::FenceStreamedStores();
  }
  RowWriter(const RowWriter&) = delete;
  RowWriter& operator=(const RowWriter&) = delete;

  const RowRuns& runs() const { return runs_; }

  // Writes the box's part of rows [first_row, first_row + count) of the
  // chunk, which `rows` holds from its start.
  void Write(const DecodedRows& rows, Index first_row, Index count) const {
    const std::ptrdiff_t stride = runs_.row_stride();
    runs_.ForEachRun(first_row, count, [&](Index r, Index n, std::uint8_t* out) {
      std::size_t first = static_cast<std::size_t>(r) * rows.row_elements + first_;
      for (Index k = 0; k < n; ++k, first += rows.row_elements, out += stride) {
        if (rows.typesize > 1) {
          WriteShuffled(rows, first, out);
        } else {
          WriteRun(out, rows.data + first * element_size_);
        }
      }
    });
  }

 private:
  // Streamed stores need 16-byte alignment: a row that lacks it is unshuffled
  // into a buffer and streamed from there, head and tail through the cache.
  void WriteShuffled(const DecodedRows& rows, std::size_t first, std::uint8_t* out) const {
    if (streams_ && reinterpret_cast<std::uintptr_t>(out) % 16 != 0) {
      thread_local std::vector<std::uint8_t> row_buffer;
      std::uint8_t* row = ThreadBuffer(row_buffer, count_ * element_size_);
      UnshuffleRow(rows.data + first, rows.elements, count_, rows.typesize, row, false);
      WriteRun(out, row);
    } else {
      UnshuffleRow(rows.data + first, rows.elements, count_, rows.typesize, out, streams_);
    }
  }

  void WriteRun(std::uint8_t* out, const std::uint8_t* elements) const {
    if (streams_) {
      core::StreamRun(out, elements, count_ * element_size_);
    } else {
      std::memcpy(out, elements, count_ * element_size_);
    }
  }

  RowRuns runs_;
  std::size_t element_size_, first_, count_;
  bool streams_;
};

// Decodes only the blocks the box meets.
Status DecodeBlocks(const ChunkHeader& h, ByteView encoded, std::size_t row_elements,
                    std::size_t element_size, RowWriter& writer) {
  thread_local std::vector<std::uint8_t> block_buffer;
  const blosc_lz4::ChunkGeometry& g = h.geometry;
  std::uint8_t* block_data = ThreadBuffer(block_buffer, g.blocksize);
  const std::size_t row_bytes = row_elements * element_size;
  const auto rows_per_block = static_cast<Index>(g.blocksize / row_bytes);
  for (std::uint32_t b = 0; b < g.block_count; ++b) {
    const std::uint32_t block_bytes = blosc_lz4::BlockBytes(g, b);
    const auto rows = static_cast<Index>(block_bytes / row_bytes);
    if (!writer.runs().Meets(b * rows_per_block, rows)) continue;
    CHUNKWISE_RETURN_IF_ERROR(DecompressBlock(g, encoded, b, block_data));
    DecodedRows decoded{block_data, row_elements, element_size};
    if (h.shuffled) {
      decoded.typesize = g.typesize;
      decoded.elements = block_bytes / g.typesize;
    }
    writer.Write(decoded, b * rows_per_block, rows);
  }
  return Status::Ok();
}

}  // namespace

Result<bool> DecodeBloscLz4IntoRegion(ByteView encoded, std::span<const Index> chunk_shape,
                                      std::size_t element_size, const core::Region& box,
                                      const core::StridedDestination& target) {
  CHUNKWISE_CHECK(!chunk_shape.empty() && chunk_shape.size() == target.shape.size() &&
                  chunk_shape.size() == target.origin.size() &&
                  chunk_shape.size() == box.start().size());
  const ChunkHeader h = ReadHeader(encoded);
  const auto row_elements = static_cast<std::size_t>(chunk_shape.back());
  if (row_elements == 0 || element_size == 0 || h.geometry.nbytes == 0 || box.IsEmpty()) {
    return false;
  }
  if (!Handles(h, row_elements * element_size, element_size)) return false;
  RowWriter writer(target, chunk_shape, box, element_size);
  if (h.memcpyed) {
    const DecodedRows stored{encoded.data() + blosc_lz4::kHeaderBytes, row_elements, element_size};
    writer.Write(stored, 0, static_cast<Index>(h.geometry.nbytes / (row_elements * element_size)));
    return true;
  }
  CHUNKWISE_RETURN_IF_ERROR(DecodeBlocks(h, encoded, row_elements, element_size, writer));
  return true;
}

}  // namespace chunkwise::codec::internal
