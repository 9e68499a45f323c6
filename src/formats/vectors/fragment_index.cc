#include "formats/vectors/fragment_index.h"

#include <string>

namespace chunkwise::formats::vectors {
namespace {

constexpr std::size_t kHeaderBytes = 16;

std::size_t BitmapBytes(std::uint64_t fragments) { return ((fragments + 7) / 8 + 7) / 8 * 8; }

Status Malformed(std::string_view key, const std::string& what) {
  return Status::Corruption("fragment index " + std::string(key) + ": " + what);
}

}  // namespace

Fragment MakeFragment(std::span<const std::int64_t> rows) {
  Fragment fragment;
  fragment.start = rows.empty() ? 0 : rows[0];
  fragment.count = static_cast<std::int64_t>(rows.size());
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i] != rows[0] + static_cast<std::int64_t>(i)) {
      fragment = Fragment{false, 0, 0, std::vector<std::int64_t>(rows.begin(), rows.end())};
      break;
    }
  }
  return fragment;
}

Bytes EncodeFragmentIndex(std::span<const Fragment> fragments) {
  Bytes blob;
  AppendLittleEndian<std::uint32_t>(kFragmentIndexMagic, blob);
  AppendLittleEndian<std::uint16_t>(1, blob);
  AppendLittleEndian<std::uint16_t>(0, blob);
  std::uint32_t ranges = 0;
  for (const Fragment& fragment : fragments) ranges += fragment.is_range ? 1 : 0;
  AppendLittleEndian<std::uint32_t>(static_cast<std::uint32_t>(fragments.size()), blob);
  AppendLittleEndian<std::uint32_t>(ranges, blob);
  if (fragments.empty()) return blob;
  const std::size_t bitmap_at = blob.size();
  blob.resize(bitmap_at + BitmapBytes(fragments.size()), 0);
  for (std::size_t f = 0; f < fragments.size(); ++f) {
    if (fragments[f].is_range) blob[bitmap_at + f / 8] |= static_cast<std::uint8_t>(1u << (f % 8));
  }
  for (const Fragment& fragment : fragments) {
    if (!fragment.is_range) continue;
    AppendLittleEndian(static_cast<std::uint64_t>(fragment.start), blob);
    AppendLittleEndian(static_cast<std::uint64_t>(fragment.count), blob);
  }
  if (ranges == fragments.size()) {
    AppendLittleEndian<std::uint32_t>(0, blob);  // offsets[E+1] with E = 0.
    return blob;
  }
  std::uint32_t offset = 0;
  AppendLittleEndian<std::uint32_t>(0, blob);
  for (const Fragment& fragment : fragments) {
    if (fragment.is_range) continue;
    offset += static_cast<std::uint32_t>(fragment.indices.size());
    AppendLittleEndian<std::uint32_t>(offset, blob);
  }
  for (const Fragment& fragment : fragments) {
    for (const std::int64_t index : fragment.indices) {
      AppendLittleEndian(static_cast<std::uint64_t>(index), blob);
    }
  }
  return blob;
}

Result<std::vector<Fragment>> DecodeFragmentIndex(ByteView blob, std::string_view key) {
  if (blob.size() < kHeaderBytes) return Malformed(key, "shorter than its 16-byte header");
  if (LoadLittleEndian<std::uint32_t>(blob.data()) != kFragmentIndexMagic) {
    return Malformed(key, "bad magic (not GFVZ)");
  }
  if (LoadLittleEndian<std::uint16_t>(blob.data() + 4) != 1)
    return Malformed(key, "version is not 1");
  const std::uint64_t count = LoadLittleEndian<std::uint32_t>(blob.data() + 8);
  const std::uint64_t ranges = LoadLittleEndian<std::uint32_t>(blob.data() + 12);
  if (count == 0) return std::vector<Fragment>{};
  std::size_t at = kHeaderBytes + BitmapBytes(count);
  // Checked before allocating: every fragment needs 16 bytes (range) or 4 (offset) of the blob.
  if (ranges > count || at + 16 * ranges + 4 * (count - ranges + 1) > blob.size()) {
    return Malformed(key, "sizes exceed the blob");
  }
  std::vector<Fragment> fragments(count);
  std::uint64_t seen_ranges = 0;
  for (std::uint64_t f = 0; f < count; ++f) {
    fragments[f].is_range = (blob[kHeaderBytes + f / 8] >> (f % 8)) & 1;
    if (!fragments[f].is_range) continue;
    if (++seen_ranges > ranges) return Malformed(key, "the bitmap marks more than R ranges");
    fragments[f].start =
        static_cast<std::int64_t>(LoadLittleEndian<std::uint64_t>(blob.data() + at));
    fragments[f].count =
        static_cast<std::int64_t>(LoadLittleEndian<std::uint64_t>(blob.data() + at + 8));
    at += 16;
  }
  if (seen_ranges != ranges) return Malformed(key, "the bitmap marks fewer than R ranges");
  const std::uint64_t explicit_count = count - ranges;
  if (at + 4 * (explicit_count + 1) > blob.size()) return Malformed(key, "truncated offsets");
  const std::size_t indices_at = at + 4 * (explicit_count + 1);
  std::uint64_t previous = 0;
  std::size_t e = 0;
  for (std::uint64_t f = 0; f < count; ++f) {
    if (fragments[f].is_range) continue;
    const std::uint64_t begin = LoadLittleEndian<std::uint32_t>(blob.data() + at + 4 * e);
    const std::uint64_t end = LoadLittleEndian<std::uint32_t>(blob.data() + at + 4 * (e + 1));
    ++e;
    if (begin != previous || end < begin || indices_at + 8 * end > blob.size()) {
      return Malformed(key, "explicit offsets out of order or range");
    }
    previous = end;
    for (std::uint64_t i = begin; i < end; ++i) {
      fragments[f].indices.push_back(static_cast<std::int64_t>(
          LoadLittleEndian<std::uint64_t>(blob.data() + indices_at + 8 * i)));
    }
  }
  return fragments;
}

}  // namespace chunkwise::formats::vectors
