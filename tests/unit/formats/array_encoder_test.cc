// zarr arrays written with a chosen encoder (ArrayOptions::codec_build): the
// deterministic blosc-lz4 encoder writes the chunks the codec gives, under the
// same metadata as c-blosc, and refuses arrays whose blosc it cannot write.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "codec/deterministic_blosc_lz4.h"
#include "formats/zarr/array.h"
#include "formats/zarr/array_layout.h"
#include "store/memory_store.h"

namespace chunkwise::formats::zarr {
namespace {

using core::Region;

constexpr codec::CodecBuildOptions kDeterministic{codec::BloscEncoder::kDeterministic};

ArrayMetadata Layout(const std::string& codec, bool sharded) {
  ArrayLayout layout;
  layout.shape = {40, 300};
  layout.data_type = core::DataType(core::DataTypeId::kUInt16);
  layout.chunk_shape = {20, 150};
  if (sharded) layout.shard_shape = core::Shape{40, 300};
  layout.codec = codec;
  Result<ArrayMetadata> metadata = BuildArrayMetadata(layout);
  CHUNKWISE_CHECK(metadata.ok());
  return *std::move(metadata);
}

Bytes Values() {
  Bytes values(40 * 300 * 2);
  for (std::size_t i = 0; i < values.size() / 2; ++i) {
    StoreLittleEndian(static_cast<std::uint16_t>(1000 + (i % 300) / 3 + i % 7), &values[2 * i]);
  }
  return values;
}

// Writes Values() into a new array and returns its store.
std::shared_ptr<store::MemoryStore> Write(const ArrayMetadata& metadata,
                                          codec::CodecBuildOptions build) {
  auto store = store::MemoryStore::Create();
  Result<Array> array = Array::Create(store, "", metadata, false, {.codec_build = build});
  CHUNKWISE_CHECK(array.ok());
  CHUNKWISE_CHECK(array->Write(Region({0, 0}, {40, 300}), Values()).ok());
  return store;
}

TEST(ArrayEncoder, DeterministicChunksAreTheEncodersOwn) {
  const ArrayMetadata metadata = Layout("blosc:lz4:5:shuffle", false);
  const auto store = Write(metadata, kDeterministic);
  const Bytes values = Values();
  Bytes first_chunk;  // Rows 0..19, columns 0..149.
  for (std::size_t row = 0; row < 20; ++row) {
    AppendBytes(first_chunk, ByteView(values).subspan(row * 600, 300));
  }
  const Result<std::optional<Bytes>> stored = store->Get("c/0/0");
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ(**stored, *codec::EncodeDeterministicBloscLz4(first_chunk, {2, true, false}));
  // Any reader (c-blosc decodes) gets the values back.
  const Array reopened = *Array::Open(store, "");
  EXPECT_EQ(*reopened.Read(Region({0, 0}, {40, 300})), values);
}

TEST(ArrayEncoder, ShardsRepeatToTheByteAndDifferFromCBloscs) {
  const ArrayMetadata metadata = Layout("blosc:lz4:5:shuffle", true);
  const Bytes once = **Write(metadata, kDeterministic)->Get("c/0/0");
  const Bytes again = **Write(metadata, kDeterministic)->Get("c/0/0");
  const Bytes cblosc = **Write(metadata, {})->Get("c/0/0");
  EXPECT_EQ(once, again);
  EXPECT_NE(once, cblosc);
}

TEST(ArrayEncoder, DeterministicRefusesBloscItCannotWrite) {
  for (const char* codec : {"blosc:zstd:5:shuffle", "blosc:lz4:5:bitshuffle"}) {
    auto store = store::MemoryStore::Create();
    const Result<Array> array =
        Array::Create(store, "", Layout(codec, true), false, {.codec_build = kDeterministic});
    ASSERT_FALSE(array.ok()) << codec;
    EXPECT_EQ(array.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(array.status().message().find("deterministic encoder"), std::string::npos)
        << array.status().ToString();
  }
}

}  // namespace
}  // namespace chunkwise::formats::zarr
