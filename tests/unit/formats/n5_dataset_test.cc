// N5 datasets: block headers parsed (default and varlength modes) and
// refused when short; attributes.json parsed with its non-structural
// attributes kept and bad or unsupported ones refused; and datasets built
// here in a memory store, block by block (big-endian values, x fastest,
// edge blocks truncated or whole, a gzip block, a missing block), read back
// as the C-order array of the reversed dimensions, with damaged blocks
// refused naming their key.
#include "formats/n5/n5_dataset.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "codec/codec_registry.h"
#include "store/http_store.h"
#include "store/memory_store.h"
#include "unit/store/counting_http_server.h"
#include "unit/value_or_die.h"

namespace chunkwise::formats::n5 {
namespace {

using test::ValueOrDie;

void PutBig(Bytes& out, std::uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

// A block header: mode, the sizes (N5 order), and for mode 1 a count.
Bytes Header(std::uint16_t mode, const std::vector<std::uint32_t>& size,
             std::optional<std::uint32_t> count = std::nullopt) {
  Bytes out;
  PutBig(out, mode, 2);
  PutBig(out, size.size(), 2);
  for (const std::uint32_t s : size) PutBig(out, s, 4);
  if (count) PutBig(out, *count, 4);
  return out;
}

Bytes AsBytes(std::string_view text) { return Bytes(text.begin(), text.end()); }

TEST(N5BlockHeaderTest, ParsesDefaultAndVarlengthModes) {
  const Bytes plain = Header(0, {64, 32, 7});
  const BlockHeader header = ValueOrDie(ParseBlockHeader(plain, "ds/0/0/0"));
  EXPECT_EQ(header.mode, 0);
  EXPECT_EQ(header.size, (std::vector<std::uint32_t>{64, 32, 7}));
  EXPECT_FALSE(header.element_count.has_value());
  EXPECT_EQ(header.header_bytes, 16u);

  const Bytes varlength = Header(1, {5, 3}, 15);
  const BlockHeader counted = ValueOrDie(ParseBlockHeader(varlength, "ds/1/0"));
  EXPECT_EQ(counted.mode, 1);
  EXPECT_EQ(counted.element_count, 15u);
  EXPECT_EQ(counted.header_bytes, 16u);
}

TEST(N5BlockHeaderTest, RefusesShortBlocksNamingThem) {
  const Bytes full = Header(0, {4, 4, 4});
  for (const std::size_t size : {0, 1, 3, 4, 15}) {
    const Status status =
        ParseBlockHeader(ByteView(full).first(size), "/data/ds.n5/2/0/1").status();
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << size;
    EXPECT_NE(status.message().find("/data/ds.n5/2/0/1: N5 block of " + std::to_string(size) +
                                    " bytes, shorter than its header"),
              std::string_view::npos)
        << status.ToString();
  }
  // Varlength: the count is part of the header.
  const Bytes counted = Header(1, {4, 4}, 16);
  EXPECT_EQ(ParseBlockHeader(ByteView(counted).first(12), "k").status().code(),
            StatusCode::kCorruption);
  const Status mode = ParseBlockHeader(Header(7, {1}), "k").status();
  EXPECT_EQ(mode.code(), StatusCode::kCorruption);
  EXPECT_NE(mode.message().find("mode 7"), std::string_view::npos);
}

TEST(N5AttributesTest, KeepsTheAttributesThatAreNotStructural) {
  const N5Attributes attributes = ValueOrDie(
      ParseAttributes(AsBytes(R"({"dimensions": [5, 3], "blockSize": [2, 2], "dataType": "uint16",
                  "compression": {"type": "gzip", "level": -1}, "n5": "2.5.1",
                  "resolution": [4, 4], "unit": "nm"})"),
                      "a.json"));
  EXPECT_EQ(attributes.dimensions, (core::Shape{5, 3}));
  EXPECT_EQ(attributes.block_size, (core::Shape{2, 2}));
  EXPECT_EQ(attributes.data_type.zarr_name(), "uint16");
  EXPECT_EQ(attributes.compression_type, "gzip");
  EXPECT_EQ(attributes.other, nlohmann::json::parse(R"({"resolution": [4, 4], "unit": "nm"})"));
  // Before N5 1.0 the compression was a name.
  const N5Attributes old = ValueOrDie(
      ParseAttributes(AsBytes(R"({"dimensions": [1], "blockSize": [1], "dataType": "int8",
                  "compressionType": "raw"})"),
                      "b.json"));
  EXPECT_EQ(old.compression_type, "raw");
  EXPECT_TRUE(old.other.empty());
}

TEST(N5AttributesTest, RefusesWhatIsNotADatasetItReads) {
  const auto code = [](std::string_view json) {
    return ParseAttributes(AsBytes(json), "x.json").status().code();
  };
  EXPECT_EQ(code(R"({"n5": "2.5.1"})"), StatusCode::kInvalidArgument);  // A group.
  EXPECT_EQ(code("[1, 2]"), StatusCode::kCorruption);
  EXPECT_EQ(code("{not json"), StatusCode::kCorruption);
  EXPECT_EQ(code(R"({"dimensions": [4], "dataType": "uint8"})"), StatusCode::kCorruption);
  EXPECT_EQ(code(R"({"dimensions": [4, 4], "blockSize": [2], "dataType": "uint8"})"),
            StatusCode::kCorruption);
  EXPECT_EQ(code(R"({"dimensions": [4], "blockSize": [0], "dataType": "uint8"})"),
            StatusCode::kCorruption);
  EXPECT_EQ(code(R"({"dimensions": [-1], "blockSize": [1], "dataType": "uint8"})"),
            StatusCode::kCorruption);
  const Status object =
      ParseAttributes(AsBytes(R"({"dimensions": [4], "blockSize": [2], "dataType": "object"})"),
                      "x.json")
          .status();
  EXPECT_EQ(object.code(), StatusCode::kUnsupported);
  EXPECT_NE(object.message().find("dataType \"object\""), std::string_view::npos);
  const auto decoder = [](std::string_view compression) {
    const std::string json =
        R"({"dimensions": [4], "blockSize": [2], "dataType": "uint8", "compression": )" +
        std::string(compression) + "}";
    const N5Attributes attributes = ValueOrDie(ParseAttributes(AsBytes(json), "x.json"));
    return DecoderOf(attributes, "x.json");
  };
  const Status lz4 = decoder(R"({"type": "lz4", "blockSize": 65536})").status();
  EXPECT_EQ(lz4.code(), StatusCode::kUnsupported);
  EXPECT_NE(lz4.message().find("N5 compression lz4"), std::string_view::npos);
  EXPECT_EQ(decoder(R"({"type": "snappy"})").status().code(), StatusCode::kUnsupported);
  for (const char* known :
       {R"({"type": "raw"})", R"({"type": "gzip"})", R"({"type": "gzip", "useZlib": true})",
        R"({"type": "zstd"})", R"({"type": "blosc", "cname": "zstd"})", R"({"type": "bzip2"})",
        R"({"type": "xz", "preset": 6})"}) {
    EXPECT_TRUE(decoder(known).ok()) << known;
  }
}

// A 2-d uint16 dataset of N5 dimensions [5, 3] (x, y) in blocks [2, 2]:
// C order (y, x) = (3, 5), value 100·y + x.
class N5DatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::MemoryStore::Create("n5test");
    ASSERT_TRUE(store_
                    ->Set("attributes.json", AsBytes(R"({"dimensions": [5, 3], "blockSize": [2, 2],
                                      "dataType": "uint16", "compression": {"type": "raw"},
                                      "pixelResolution": {"unit": "um"}})"))
                    .ok());
  }

  static std::uint16_t Value(std::int64_t y, std::int64_t x) {
    return static_cast<std::uint16_t>(100 * y + x);
  }

  // The block at (bx, by) of size (sx, sy), values big-endian, x fastest.
  static Bytes Block(std::int64_t bx, std::int64_t by, std::uint32_t sx, std::uint32_t sy) {
    Bytes block = Header(0, {sx, sy});
    for (std::int64_t y = 0; y < sy; ++y) {
      for (std::int64_t x = 0; x < sx; ++x) PutBig(block, Value(2 * by + y, 2 * bx + x), 2);
    }
    return block;
  }

  void WriteAllBlocks(bool truncate_edges) {
    for (std::int64_t by = 0; by < 2; ++by) {
      for (std::int64_t bx = 0; bx < 3; ++bx) {
        const std::uint32_t sx = truncate_edges && bx == 2 ? 1 : 2;
        const std::uint32_t sy = truncate_edges && by == 1 ? 1 : 2;
        const std::string key = std::to_string(bx) + "/" + std::to_string(by);
        ASSERT_TRUE(store_->Set(key, Block(bx, by, sx, sy)).ok());
      }
    }
  }

  std::vector<std::uint16_t> Read(const N5Dataset& dataset, std::int64_t first, std::int64_t count,
                                  core::ThreadPool* pool = nullptr) {
    std::vector<std::uint16_t> out(static_cast<std::size_t>(count) * 5, 0xEEEE);
    const Status status = dataset.ReadRows(
        first, count,
        std::span(reinterpret_cast<std::uint8_t*>(out.data()), out.size() * sizeof(std::uint16_t)),
        pool);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return out;
  }

  std::vector<std::uint16_t> Expected(std::int64_t first, std::int64_t count) {
    std::vector<std::uint16_t> values;
    for (std::int64_t y = first; y < first + count; ++y) {
      for (std::int64_t x = 0; x < 5; ++x) values.push_back(Value(y, x));
    }
    return values;
  }

  std::shared_ptr<store::MemoryStore> store_;
};

TEST_F(N5DatasetTest, ReadsTruncatedEdgeBlocksAsTheReversedCOrderArray) {
  WriteAllBlocks(true);
  const auto dataset = ValueOrDie(N5Dataset::Open(store_));
  EXPECT_EQ(dataset->shape(), (core::Shape{3, 5}));
  EXPECT_EQ(dataset->chunks(), (core::Shape{2, 2}));
  EXPECT_EQ(dataset->row_bytes(), 10u);
  EXPECT_EQ(dataset->attributes().other,
            nlohmann::json::parse(R"({"pixelResolution": {"unit": "um"}})"));
  EXPECT_EQ(Read(*dataset, 0, 3), Expected(0, 3));
  EXPECT_EQ(Read(*dataset, 1, 2), Expected(1, 2));  // Rows across a block boundary.
  EXPECT_EQ(Read(*dataset, 2, 1), Expected(2, 1));
  core::ThreadPool pool(3);  // Blocks decoded at once, each into its own part.
  EXPECT_EQ(Read(*dataset, 0, 3, &pool), Expected(0, 3));
}

TEST_F(N5DatasetTest, ReadsWholeEdgeBlocksAndMissingBlocksAsZero) {
  WriteAllBlocks(false);
  ASSERT_TRUE(store_->Erase("1/0").ok());
  const auto dataset = ValueOrDie(N5Dataset::Open(store_));
  std::vector<std::uint16_t> expected = Expected(0, 3);
  for (const std::int64_t y : {0, 1}) {
    for (const std::int64_t x : {2, 3}) expected[y * 5 + x] = 0;
  }
  EXPECT_EQ(Read(*dataset, 0, 3), expected);
}

TEST(N5DatasetManyBlocksTest, ReadsMoreBlocksThanOneBatchPerSlab) {
  // 40 × 40 blocks of one uint8 each, all in the one row: more than the
  // 1024 positions ReadRows hands out at a time.
  auto store = store::MemoryStore::Create("many");
  ASSERT_TRUE(
      store
          ->Set("attributes.json", AsBytes(R"({"dimensions": [40, 40, 1], "blockSize": [1, 1, 1],
                                    "dataType": "uint8", "compression": {"type": "raw"}})"))
          .ok());
  for (int x = 0; x < 40; ++x) {
    for (int y = 0; y < 40; ++y) {
      Bytes block = Header(0, {1, 1, 1});
      block.push_back(static_cast<std::uint8_t>(x + 3 * y));
      ASSERT_TRUE(store->Set(std::to_string(x) + "/" + std::to_string(y) + "/0", block).ok());
    }
  }
  const auto dataset = ValueOrDie(N5Dataset::Open(store));
  ASSERT_EQ(dataset->shape(), (core::Shape{1, 40, 40}));
  core::ThreadPool pool(2);
  for (core::ThreadPool* used : {static_cast<core::ThreadPool*>(nullptr), &pool}) {
    std::vector<std::uint8_t> out(1600, 0xEE);
    ASSERT_TRUE(dataset->ReadRows(0, 1, out, used).ok());
    for (int y = 0; y < 40; ++y) {
      for (int x = 0; x < 40; ++x) ASSERT_EQ(out[y * 40 + x], x + 3 * y) << y << "," << x;
    }
  }
}

// Over HTTP (`zarr import` of a remote N5 dataset, #42), with one pool
// thread: the six blocks' GETs are on the wire together (the server holds
// them until all six are there, or a second), one missing block among them
// reads as zero, and the values are those stored.
TEST_F(N5DatasetTest, ReadsABatchOfBlocksFromARemoteStoreWithOnePoolThread) {
  WriteAllBlocks(true);
  ASSERT_TRUE(store_->Erase("1/0").ok());
  test::CountingServer server{Bytes{}};
  for (const std::string& key : ValueOrDie(store_->List(""))) {
    server.AddFile("/ds.n5/" + key, **store_->Get(key));
  }
  store::HttpStoreOptions options;
  options.base_url = server.Url("/ds.n5");
  const std::shared_ptr<store::HttpStore> http = ValueOrDie(store::HttpStore::Open(options));
  const auto dataset = ValueOrDie(N5Dataset::Open(http));
  server.Hold(5);  // Six blocks asked for: a client that sends them at once passes.
  core::ThreadPool pool(1);
  std::vector<std::uint16_t> expected = Expected(0, 3);
  for (const std::int64_t y : {0, 1}) {
    for (const std::int64_t x : {2, 3}) expected[y * 5 + x] = 0;
  }
  EXPECT_EQ(Read(*dataset, 0, 3, &pool), expected);
  EXPECT_EQ(server.max_held("GET"), 6);
  EXPECT_EQ(server.requests("/ds.n5/1/0"), 1);  // Asked, 404.
}

TEST_F(N5DatasetTest, DecodesGzipBlocks) {
  ASSERT_TRUE(store_
                  ->Set("attributes.json", AsBytes(R"({"dimensions": [5, 3], "blockSize": [2, 2],
                                    "dataType": "uint16", "compression": {"type": "gzip"}})"))
                  .ok());
  const auto gzip = std::dynamic_pointer_cast<const codec::BytesToBytesCodec>(
      ValueOrDie(codec::CodecRegistry::WithBuiltins().Create(
          nlohmann::json{{"name", "gzip"}, {"configuration", {{"level", 6}}}})));
  ASSERT_TRUE(gzip);
  for (std::int64_t by = 0; by < 2; ++by) {
    for (std::int64_t bx = 0; bx < 3; ++bx) {
      const std::uint32_t sx = bx == 2 ? 1 : 2;
      const std::uint32_t sy = by == 1 ? 1 : 2;
      const Bytes raw = Block(bx, by, sx, sy);
      Bytes block(raw.begin(), raw.begin() + 12);
      const Bytes packed = ValueOrDie(gzip->Encode(ByteView(raw).subspan(12)));
      block.insert(block.end(), packed.begin(), packed.end());
      ASSERT_TRUE(store_->Set(std::to_string(bx) + "/" + std::to_string(by), block).ok());
    }
  }
  const auto dataset = ValueOrDie(N5Dataset::Open(store_));
  EXPECT_EQ(Read(*dataset, 0, 3), Expected(0, 3));
}

TEST_F(N5DatasetTest, RefusesDamagedBlocksNamingTheirKey) {
  WriteAllBlocks(true);
  const auto dataset = ValueOrDie(N5Dataset::Open(store_));
  std::vector<std::uint8_t> out(30);
  const auto refused = [&](const Bytes& block) {
    EXPECT_TRUE(store_->Set("1/1", block).ok());
    return dataset->ReadRows(0, 3, out);
  };
  const Bytes good = Block(1, 1, 2, 1);
  const Status short_header = refused(Bytes(good.begin(), good.begin() + 6));
  EXPECT_EQ(short_header.code(), StatusCode::kCorruption);
  EXPECT_NE(short_header.message().find("1/1: N5 block of 6 bytes, shorter than its header (12"),
            std::string_view::npos)
      << short_header.ToString();
  const Status short_values = refused(Bytes(good.begin(), good.end() - 1));
  EXPECT_EQ(short_values.code(), StatusCode::kCorruption);
  EXPECT_NE(short_values.message().find("1/1: N5 block holds 3 bytes of values where its header "
                                        "states 4"),
            std::string_view::npos)
      << short_values.ToString();
  Bytes too_large = Block(1, 1, 2, 1);
  too_large[7] = 3;  // Size 3 in x, past the block size 2.
  EXPECT_EQ(refused(too_large).code(), StatusCode::kCorruption);
  const Status object = refused(Header(2, {2, 1}));
  EXPECT_EQ(object.code(), StatusCode::kUnsupported);
  const Status dims = refused(Header(0, {2, 1, 1}));
  EXPECT_EQ(dims.code(), StatusCode::kCorruption);
  EXPECT_NE(dims.message().find("3 dimensions in a dataset of 2"), std::string_view::npos);
}

TEST_F(N5DatasetTest, OpenNamesAMissingAttributesFile) {
  const auto empty = store::MemoryStore::Create("empty");
  const Status status = N5Dataset::Open(empty).status();
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_NE(status.message().find("attributes.json"), std::string_view::npos);
}

}  // namespace
}  // namespace chunkwise::formats::n5
