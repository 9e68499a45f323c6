// The stream writer tests' shapes and helpers, shared by the CPU tests
// (tests/unit/pipelines) and the GPU tests (tests/unit/cuda), which must cover
// the same shapes.
#ifndef CHUNKWISE_TESTS_UNIT_PIPELINES_STREAM_TEST_CASES_H_
#define CHUNKWISE_TESTS_UNIT_PIPELINES_STREAM_TEST_CASES_H_

#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/store/store.h"
#include "pipelines/stream/stream_writer.h"

namespace chunkwise::pipelines::stream::testing_cases {

struct Case {
  std::string name;
  std::vector<StreamDimension> dims;
  std::string dtype = "uint16";
  std::string codec = "zstd:1";
  formats::zarr::IndexLocation location = formats::zarr::IndexLocation::kEnd;
  std::optional<std::string> fill;
  core::Index frames = 0;  // Frames appended; dims[0].size when bounded.
};

inline StreamDimension D(core::Index size, core::Index tile, core::Index tiles_per_shard) {
  return {size, tile, tiles_per_shard, ""};
}

// A case of `dims` and `dtype` with the other fields at their defaults.
inline Case Simple(std::vector<StreamDimension> dims, std::string dtype) {
  Case c;
  c.dims = std::move(dims);
  c.dtype = std::move(dtype);
  return c;
}

inline StreamConfig ConfigOf(const Case& c) {
  StreamConfig config;
  config.dimensions = c.dims;
  config.data_type = *core::DataType::FromZarrName(c.dtype);
  config.codec = c.codec;
  config.index_location = c.location;
  config.fill_value = c.fill;
  config.threads = 2;
  return config;
}

// Smooth values with runs of zeros (so some tiles are all fill value) and
// noise, deterministic per case.
inline Bytes MakeInput(std::size_t bytes, std::uint32_t seed) {
  Bytes data(bytes);
  std::mt19937 random(seed);
  for (std::size_t i = 0; i < bytes; ++i) {
    const bool quiet = (i / 4096) % 5 == 0;
    data[i] = quiet ? 0 : static_cast<std::uint8_t>((i / 7) + (random() % 4));
  }
  return data;
}

// Appends `data` in pieces of varying odd sizes.
inline Status AppendInOddPieces(StreamWriter& writer, ByteView data, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::size_t at = 0;
  while (at < data.size()) {
    const std::size_t n = std::min<std::size_t>(data.size() - at, 1 + random() % 5000);
    CHUNKWISE_RETURN_IF_ERROR(writer.Append(data.subspan(at, n)));
    at += n;
  }
  return Status::Ok();
}

// Every key and value of `store`.
inline std::map<std::string, Bytes> Contents(store::Store& store) {
  std::map<std::string, Bytes> contents;
  const std::vector<std::string> keys = *store.List("");
  for (const std::string& key : keys) contents[key] = **store.Get(key);
  return contents;
}

inline std::vector<Case> Cases() {
  using L = formats::zarr::IndexLocation;
  return {
      {"rank1_bounded_edge", {D(1000, 64, 4)}, "uint8", "zstd:1", L::kEnd, {}, 1000},
      {"rank1_unbounded", {D(0, 50, 3)}, "int32", "gzip:1", L::kEnd, {}, 777},
      {"rank2_divisible", {D(64, 8, 4), D(96, 16, 2)}, "uint16", "zstd:1", L::kEnd, {}, 64},
      {"rank2_edges_start_index",
       {D(45, 8, 3), D(50, 16, 2)},
       "uint16",
       "zstd:1",
       L::kStart,
       {},
       45},
      {"rank3_unbounded_blosc",
       {D(0, 4, 2), D(37, 8, 3), D(29, 8, 2)},
       "uint16",
       "blosc:lz4:5:shuffle",
       L::kEnd,
       {},
       23},
      {"rank3_deterministic_blosc_lz4",
       {D(0, 4, 2), D(37, 8, 3), D(29, 8, 2)},
       "uint16",
       "blosc:lz4det:5:shuffle",
       L::kEnd,
       {},
       23},
      {"rank3_bitshuffle_fill",
       {D(20, 4, 2), D(33, 16, 1), D(40, 16, 2)},
       "float32",
       "blosc:zstd:3:bitshuffle",
       L::kEnd,
       "-1.5",
       20},
      {"rank4_none_codec",
       {D(9, 2, 2), D(5, 2, 2), D(7, 3, 2), D(11, 4, 2)},
       "int16",
       "none",
       L::kEnd,
       {},
       9},
      {"rank5_unbounded",
       {D(0, 2, 3), D(3, 2, 1), D(4, 3, 2), D(5, 2, 2), D(6, 4, 1)},
       "uint8",
       "zstd:3",
       L::kStart,
       {},
       7},
      {"rank3_one_frame",
       {D(0, 8, 2), D(17, 4, 2), D(19, 4, 2)},
       "float64",
       "zstd:1",
       L::kEnd,
       {},
       1},
  };
}

}  // namespace chunkwise::pipelines::stream::testing_cases

#endif  // CHUNKWISE_TESTS_UNIT_PIPELINES_STREAM_TEST_CASES_H_
