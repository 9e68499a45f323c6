// Zarr arrays through the facade: create, write a region, read it back, on a
// memory:// store and a directory; the typed options and their parsers; the
// context's progress observer and cancellation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

using api_test::At16;
using api_test::Message;
using api_test::Ramp16;
using ::testing::HasSubstr;

ZarrArraySpec Sharded16() {
  ZarrArraySpec spec;
  spec.shape = {8, 12};
  spec.data_type = *ParseDataType("<u2");
  spec.chunks = {2, 3};
  spec.shards = core::Shape{4, 6};
  spec.codecs = *ParseCodecs("zstd:1");
  spec.fill_value = "7";
  return spec;
}

void WriteAndReadBack(const std::string& url) {
  Context context({.threads = 2});
  auto created = CreateZarrArray(context, url, Sharded16());
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const core::Region box({1, 2}, {5, 9});  // 4 x 7, across shards.
  ASSERT_TRUE(WriteRegion(context, *created, box, Ramp16(28, 100)).ok());

  auto opened = OpenZarrArray(context, url);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ(opened->metadata().shape, (core::Shape{8, 12}));
  auto all = ReadRegion(context, *opened, core::Region::Full(opened->metadata().shape));
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 8u * 12 * 2);
  EXPECT_EQ(At16(*all, 0), 7);             // Never written: the fill value.
  EXPECT_EQ(At16(*all, 1 * 12 + 2), 100);  // The box's first element.
  EXPECT_EQ(At16(*all, 1 * 12 + 8), 106);  // End of its first row.
  EXPECT_EQ(At16(*all, 4 * 12 + 8), 127);  // Its last element.
  EXPECT_EQ(At16(*all, 4 * 12 + 9), 7);

  auto region = ParseRegion("2:3,2:4", *opened);
  ASSERT_TRUE(region.ok());
  auto part = ReadRegion(context, *opened, *region);
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(At16(*part, 0), 107);
  EXPECT_EQ(At16(*part, 1), 108);

  auto outside = ReadRegion(context, *opened, core::Region({0, 0}, {9, 1}));
  EXPECT_EQ(outside.status().code(), StatusCode::kInvalidArgument);
  auto again = CreateZarrArray(context, url, Sharded16());
  EXPECT_EQ(again.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(CreateZarrArray(context, url, Sharded16(), {.overwrite = true}).ok());
}

TEST(ZarrApi, WriteAndReadOnAMemoryStore) { WriteAndReadBack("memory://zarr"); }

TEST(ZarrApi, WriteAndReadInADirectory) {
  WriteAndReadBack((api_test::FreshDirectory("zarr") / "a.zarr").string());
}

TEST(ZarrApi, ErrorsNameTheUrlOrTheField) {
  Context context;
  auto missing = OpenZarrArray(context, "memory://none");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(Message(missing.status()), HasSubstr("memory://none"));
  ZarrArraySpec spec = Sharded16();
  spec.shards = core::Shape{3, 6};  // Not a multiple of the chunk.
  auto bad = CreateZarrArray(context, "memory://bad", spec);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad.status()), HasSubstr("[3,6]"));
}

// Attributes that are not a JSON object are refused by the facade (field
// "attributes"), for the CLI's --attributes and the module's attributes=
// alike; before #38 they were stored as {} without a word.
TEST(ZarrApi, AttributesMustBeAnObject) {
  Context context;
  ZarrArraySpec spec = Sharded16();
  spec.attributes = nlohmann::json::array({1});
  auto bad = CreateZarrArray(context, "memory://bad-attributes", spec);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().field(), "attributes");
  EXPECT_THAT(Message(bad.status()), HasSubstr("not array"));
  EXPECT_EQ(OpenZarrArray(context, "memory://bad-attributes").status().code(),
            StatusCode::kNotFound);
}

// A stored zarr.json that is not JSON is damage: opening the array and
// ZarrInfo both say Corruption naming the key (#38: the open said
// InvalidArgument, the info Corruption).
TEST(ZarrApi, MetadataThatIsNotJsonIsCorruptionFromEveryDoor) {
  Context context;
  auto store = OpenStore(context, "memory://not-json", {.create = true});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Set("zarr.json", AsBytes(std::string_view("{ not json"))).ok());
  const Status opened = OpenZarrArray(context, "memory://not-json").status();
  const Status described = ZarrInfo(context, "memory://not-json").status();
  for (const Status& status : {opened, described}) {
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
    EXPECT_THAT(Message(status), HasSubstr("zarr.json"));
  }
}

// Unpublished creation for many writers: the creator makes the array, a
// second writer joins it by its metadata, and only Publish makes it visible.
TEST(ZarrApi, UnpublishedArrayIsJoinedByMetadataAndAppearsOnlyOnPublish) {
  Context context({.threads = 2});
  const std::string url = "memory://unpublished";
  auto created = CreateZarrArray(context, url, Sharded16(), {.publish = false});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(OpenZarrArray(context, url).status().code(), StatusCode::kNotFound);

  const std::string zarr_json = ZarrMetadataJson(*created);
  auto joined = JoinUnpublishedZarrArray(context, url, zarr_json, "zstd:1");
  ASSERT_TRUE(joined.ok()) << joined.status().ToString();
  EXPECT_EQ(joined->metadata().shape, (core::Shape{8, 12}));
  ASSERT_TRUE(WriteRegion(context, *joined, core::Region({4, 6}, {8, 12}), Ramp16(24, 500)).ok());
  ASSERT_TRUE(WriteRegion(context, *created, core::Region({0, 0}, {4, 6}), Ramp16(24, 10)).ok());
  EXPECT_EQ(OpenZarrArray(context, url).status().code(), StatusCode::kNotFound);

  ASSERT_TRUE(PublishZarrArray(*created).ok());
  auto opened = OpenZarrArray(context, url);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  auto all = ReadRegion(context, *opened, core::Region::Full(opened->metadata().shape));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(At16(*all, 0), 10);            // The creator's write.
  EXPECT_EQ(At16(*all, 3 * 12 + 5), 33);   // Its last element.
  EXPECT_EQ(At16(*all, 4 * 12 + 6), 500);  // The joiner's.
  EXPECT_EQ(At16(*all, 7 * 12 + 11), 523);
  EXPECT_EQ(At16(*all, 0 * 12 + 6), 7);  // Written by neither: the fill value.

  // Published: nothing left to join.
  auto late = JoinUnpublishedZarrArray(context, url, zarr_json);
  EXPECT_EQ(late.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(Message(late.status()), HasSubstr(".chunkwise-incomplete"));
  auto never = JoinUnpublishedZarrArray(context, "memory://never-created", zarr_json);
  EXPECT_EQ(never.status().code(), StatusCode::kNotFound);
  auto garbled = JoinUnpublishedZarrArray(context, url, "{\"zarr_format\": 3");
  EXPECT_EQ(garbled.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(garbled.status()), HasSubstr("zarr.json"));
}

TEST(OptionsApi, CodecShorthandsParseIntoTypedChains) {
  auto zstd = ParseCodecs("zstd:1");
  ASSERT_TRUE(zstd.ok());
  ASSERT_EQ(zstd->codecs.size(), 1u);
  EXPECT_EQ(zstd->codecs[0].kind, CodecSpec::Kind::kZstd);
  EXPECT_EQ(zstd->codecs[0].level, 1);
  EXPECT_EQ(zstd->ToShorthand(), "zstd:1");

  auto chain = ParseCodecs("blosc:lz4det:5:noshuffle+crc32c");
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  ASSERT_EQ(chain->codecs.size(), 2u);
  EXPECT_EQ(chain->codecs[0].kind, CodecSpec::Kind::kBlosc);
  EXPECT_EQ(chain->codecs[0].blosc_compressor, "lz4det");
  EXPECT_EQ(chain->codecs[0].blosc_shuffle, "noshuffle");
  EXPECT_EQ(chain->codecs[1].kind, CodecSpec::Kind::kCrc32c);
  EXPECT_EQ(chain->ToShorthand(), "blosc:lz4det:5:noshuffle+crc32c");
  EXPECT_EQ(ParseCodecs("none")->codecs.size(), 0u);
  EXPECT_EQ(CodecChainSpec{}.ToShorthand(), "none");

  auto bad = ParseCodecs("zstd:99");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad.status()), HasSubstr("zstd:99"));
  EXPECT_EQ(ParseCodecs("brotli").status().code(), StatusCode::kInvalidArgument);
  // numcodecs' compressors keep their kind and level (lzma was once unknown;
  // it must not come back as another codec).
  auto numcodecs = ParseCodecs("zlib:5+lz4+bz2:9+lzma:1");
  ASSERT_TRUE(numcodecs.ok()) << numcodecs.status().ToString();
  ASSERT_EQ(numcodecs->codecs.size(), 4u);
  EXPECT_EQ(numcodecs->codecs[0].kind, CodecSpec::Kind::kZlib);
  EXPECT_EQ(numcodecs->codecs[3].kind, CodecSpec::Kind::kLzma);
  EXPECT_EQ(numcodecs->ToShorthand(), "zlib:5+lz4+bz2:9+lzma:1");
}

TEST(OptionsApi, DataTypesByZarrNameOrTypestr) {
  EXPECT_EQ(*ParseDataType("uint16"), *ParseDataType("<u2"));
  EXPECT_EQ(ParseDataType("float32")->size(), 4u);
  EXPECT_EQ(ParseDataType("|u1")->size(), 1u);
  auto big = ParseDataType(">u2");
  EXPECT_EQ(big.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(big.status()), HasSubstr(">u2"));
}

class CountingObserver : public ProgressObserver {
 public:
  void OnStart(std::string_view label, std::uint64_t total, std::string_view unit) override {
    starts++;
    last_total = total;
  }
  void OnProgress(std::string_view label, std::uint64_t done) override {
    std::uint64_t seen = most.load();
    while (done > seen && !most.compare_exchange_weak(seen, done)) {
    }
  }
  void OnFinish(std::string_view label, std::uint64_t done) override { finished_with = done; }

  std::atomic<int> starts{0};
  std::atomic<std::uint64_t> last_total{0}, most{0}, finished_with{0};
};

TEST(ContextApi, ObserversSeeProgressAndCancelStopsWork) {
  auto observer = std::make_shared<CountingObserver>();
  Context context({.threads = 2, .observer = observer});
  auto array = CreateZarrArray(context, "memory://progress", Sharded16());
  ASSERT_TRUE(array.ok());
  ASSERT_TRUE(WriteRegion(context, *array, core::Region({0, 0}, {8, 12}), Ramp16(96)).ok());
  EXPECT_EQ(observer->starts, 1);
  EXPECT_EQ(observer->last_total, 192u);
  EXPECT_EQ(observer->most, 192u);
  EXPECT_EQ(observer->finished_with, 192u);

  context.Cancel();
  const Status cancelled =
      WriteRegion(context, *array, core::Region({0, 0}, {1, 1}), Ramp16(1, 999));
  EXPECT_EQ(cancelled.code(), StatusCode::kCancelled);
  EXPECT_THAT(cancelled.ToString(), HasSubstr("Cancelled"));
  EXPECT_EQ(ReadRegion(context, *array, core::Region({0, 0}, {1, 1})).status().code(),
            StatusCode::kCancelled);
  context.ResetCancel();
  auto first = ReadRegion(context, *array, core::Region({0, 0}, {1, 1}));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(At16(*first, 0), 0);  // The cancelled write wrote nothing.
}

// One context serves calls watched apart: each call's observer and
// cancellation flag (CallOptions) are its own, the context's untouched.
TEST(ContextApi, ACallsOwnObserverAndCancellationLeaveTheContextsAlone) {
  auto context_observer = std::make_shared<CountingObserver>();
  Context context({.threads = 2, .observer = context_observer});
  auto array = CreateZarrArray(context, "memory://per-call", Sharded16());
  ASSERT_TRUE(array.ok());
  CountingObserver call_observer;
  core::Cancellation flag;
  CallOptions call;
  call.observer = &call_observer;
  call.cancellation = &flag;
  ASSERT_TRUE(WriteRegion(context, *array, core::Region({0, 0}, {8, 12}), Ramp16(96), call).ok());
  EXPECT_EQ(call_observer.finished_with, 192u);
  EXPECT_EQ(context_observer->starts, 0);  // Told nothing of the call's counts.

  flag.Cancel();  // This call's flag: it stops, another call on the context runs.
  EXPECT_EQ(ReadRegion(context, *array, core::Region({0, 0}, {1, 1}), call).status().code(),
            StatusCode::kCancelled);
  EXPECT_FALSE(context.cancelled());
  auto read = ReadRegion(context, *array, core::Region({0, 0}, {1, 1}));
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(At16(*read, 0), 0);
  EXPECT_EQ(context_observer->starts, 1);
}

// Cancels its context at the first progress report: the operation is then
// running, and stops at its next chunk.
class CancelOnFirstProgress : public ProgressObserver {
 public:
  void OnProgress(std::string_view, std::uint64_t) override {
    if (context != nullptr) context->Cancel();
  }
  Context* context = nullptr;
};

TEST(ContextApi, CancelStopsAReadOrWriteBetweenChunksAndLeavesWholeChunks) {
  auto observer = std::make_shared<CancelOnFirstProgress>();
  Context context({.threads = 1, .observer = observer});
  ZarrArraySpec spec;
  spec.shape = {64, 12};
  spec.data_type = *ParseDataType("uint16");
  spec.chunks = {1, 12};
  auto array = CreateZarrArray(context, "memory://cancel-mid-write", spec);
  ASSERT_TRUE(array.ok());
  const core::Region all({0, 0}, {64, 12});
  observer->context = &context;
  const Status write = WriteRegion(context, *array, all, Ramp16(64 * 12, 1));
  EXPECT_EQ(write.code(), StatusCode::kCancelled);
  EXPECT_THAT(write.ToString(), HasSubstr("cancelled"));
  auto stats = array->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_GT(stats->stored_keys, 0u);   // It had started ...
  EXPECT_LT(stats->stored_keys, 64u);  // ... and stopped before the end.

  observer->context = nullptr;
  context.ResetCancel();
  auto back = ReadRegion(context, *array, all);
  ASSERT_TRUE(back.ok());
  int whole_rows = 0;
  for (int row = 0; row < 64; ++row) {  // Each row (chunk) is all written or all fill (0).
    const bool written = At16(*back, row * 12) != 0;
    for (int x = 0; x < 12; ++x) {
      ASSERT_EQ(At16(*back, row * 12 + x), written ? 1 + row * 12 + x : 0) << row << "," << x;
    }
    whole_rows += written ? 1 : 0;
  }
  EXPECT_EQ(static_cast<std::uint64_t>(whole_rows), stats->stored_keys);

  observer->context = &context;
  Bytes out(64 * 12 * 2);
  EXPECT_EQ(ReadRegionInto(context, *array, all, out.data()).code(), StatusCode::kCancelled);
  context.ResetCancel();
  observer->context = nullptr;
  ASSERT_TRUE(ReadRegionInto(context, *array, all, out.data()).ok());
  EXPECT_EQ(out, *back);
}

// A sharded array converted to plain zarr v2 chunks of another shape and
// codec, by URL: the values, fill value and new layout all as asked; a second
// convert onto it is refused naming the URL; a cancelled context stops one.
TEST(ZarrApi, ConvertsAnArrayIntoANewLayout) {
  Context context({.threads = 2});
  auto created = CreateZarrArray(context, "memory://source", Sharded16());
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ASSERT_TRUE(WriteRegion(context, *created, core::Region({1, 2}, {5, 9}), Ramp16(28, 100)).ok());
  const ZarrConversionLayout layout{
      .chunks = core::Shape{3, 5}, .codecs = "gzip:5", .zarr_format = 2};
  auto converted = ConvertZarrArray(context, "memory://source", "memory://copy", layout);
  ASSERT_TRUE(converted.ok()) << converted.status().ToString();
  auto opened = OpenZarrArray(context, "memory://copy");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ(opened->metadata().zarr_format, 2);
  EXPECT_EQ(opened->metadata().chunk_shape, (core::Shape{3, 5}));
  EXPECT_THAT(ZarrMetadataJson(*opened), HasSubstr("gzip"));
  auto all = ReadRegion(context, *opened, core::Region::Full(opened->metadata().shape));
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(At16(*all, 0), 7);
  EXPECT_EQ(At16(*all, 1 * 12 + 2), 100);
  EXPECT_EQ(At16(*all, 4 * 12 + 8), 127);

  const Status again =
      ConvertZarrArray(context, "memory://source", "memory://copy", layout).status();
  EXPECT_EQ(again.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(again), HasSubstr("memory://copy"));

  context.Cancel();
  const Status cancelled =
      ConvertZarrArray(context, "memory://source", "memory://other", {}).status();
  EXPECT_EQ(cancelled.code(), StatusCode::kCancelled);
  context.ResetCancel();
  auto unpublished = OpenZarrArray(context, "memory://other");
  EXPECT_EQ(unpublished.status().code(), StatusCode::kNotFound);
}

// A convert that names no layout keeps the source's: its shards (4 shards
// stay 4 objects, not 16 chunk files), chunks and codecs. Unsharded drops
// them; new chunks that do not divide the kept shards are refused naming them.
TEST(ZarrApi, ConvertKeepsTheSourcesShardsUnlessToldOtherwise) {
  Context context({.threads = 2});
  ZarrArraySpec spec = Sharded16();  // 8x12 in shards of 4x6: 4 shards of 8 chunks.
  auto created = CreateZarrArray(context, "memory://sharded", spec);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ASSERT_TRUE(WriteRegion(context, *created, core::Region({0, 0}, {8, 12}), Ramp16(96)).ok());

  ASSERT_TRUE(ConvertZarrArray(context, "memory://sharded", "memory://kept", {}).ok());
  auto kept = ZarrInfo(context, "memory://kept");
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ((*kept)["shards"], nlohmann::ordered_json({4, 6}));
  EXPECT_EQ((*kept)["chunks"], nlohmann::ordered_json({2, 3}));
  EXPECT_EQ((*kept)["nchunks_initialized"], 4);
  EXPECT_EQ((*kept)["ninner_chunks_initialized"], 16);

  ASSERT_TRUE(
      ConvertZarrArray(context, "memory://sharded", "memory://flat", {.unsharded = true}).ok());
  auto flat = ZarrInfo(context, "memory://flat");
  ASSERT_TRUE(flat.ok()) << flat.status().ToString();
  EXPECT_TRUE((*flat)["shards"].is_null());
  EXPECT_EQ((*flat)["nchunks_initialized"], 16);

  const Status misfit = ConvertZarrArray(context, "memory://sharded", "memory://misfit",
                                         {.chunks = core::Shape{3, 3}})
                            .status();
  EXPECT_EQ(misfit.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(misfit), HasSubstr("the source's shards [4,6]"));
}

// Null dimension names (zarr v3 allows them) are written as null; the
// shorthand parser reads an empty item as one.
TEST(ZarrApi, DimensionNamesMayBeNull) {
  EXPECT_EQ(ParseDimensionNames("y, "),
            (std::vector<std::optional<std::string>>{"y", std::nullopt}));
  EXPECT_EQ(ParseDimensionNames(",x"),
            (std::vector<std::optional<std::string>>{std::nullopt, "x"}));
  EXPECT_TRUE(ParseDimensionNames("").empty());
  Context context;
  ZarrArraySpec spec = Sharded16();
  spec.dimension_names = ParseDimensionNames("y,");
  auto created = CreateZarrArray(context, "memory://named", spec);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const nlohmann::json written = nlohmann::json::parse(ZarrMetadataJson(*created));
  EXPECT_EQ(written["dimension_names"], nlohmann::json::parse(R"(["y", null])"));
}

// A 0-d array: the empty shape text, created, written and read as one element.
TEST(ZarrApi, ZeroDimensionalArrayFromTheEmptyShape) {
  auto shape = ParseArrayShape("");
  ASSERT_TRUE(shape.ok());
  EXPECT_TRUE(shape->empty());
  EXPECT_EQ(ParseArrayShape("4, 5").value(), (core::Shape{4, 5}));
  EXPECT_EQ(ParseArrayShape("4,x").status().code(), StatusCode::kInvalidArgument);
  Context context;
  ZarrArraySpec spec{.shape = {}, .data_type = *ParseDataType("uint16"), .chunks = {}};
  auto created = CreateZarrArray(context, "memory://scalar", spec);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const core::Region whole = core::Region::Full(core::Shape{});
  ASSERT_TRUE(WriteRegion(context, *created, whole, Ramp16(1, 42)).ok());
  auto read = ReadRegion(context, *created, whole);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(At16(*read, 0), 42);
  auto info = ZarrInfo(context, "memory://scalar");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ((*info)["shape"], nlohmann::ordered_json::array());
  EXPECT_EQ((*info)["nbytes"], 2);
}

// The arrays a Context opens borrow its shard buffers: after a sharded
// write and read the buffers wait in the context's pool, and another
// Context's pool has none of them (nothing is process-wide).
// The facade's metadata of a new array says what it was created with: the
// fields a caller reads, the shard and its inner chunk apart, and the same
// on reopening; an unsharded v2 array has no inner chunk.
TEST(ZarrApi, MetadataSaysWhatTheArrayWasCreatedWith) {
  Context context;
  ZarrArraySpec spec = Sharded16();
  spec.dimension_names = ParseDimensionNames("y,x");
  spec.attributes = {{"unit", "nm"}};
  auto created = CreateZarrArray(context, "memory://facts", spec);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const auto check = [](const ZarrArrayMetadata& metadata) {
    EXPECT_EQ(metadata.zarr_format, 3);
    EXPECT_EQ(metadata.shape, (core::Shape{8, 12}));
    EXPECT_EQ(metadata.data_type, *ParseDataType("uint16"));
    EXPECT_EQ(metadata.data_type_name, "uint16");
    EXPECT_EQ(metadata.chunk_shape, (core::Shape{4, 6}));
    EXPECT_EQ(metadata.inner_chunk_shape, (core::Shape{2, 3}));
    ASSERT_EQ(metadata.codecs.size(), 1u);
    EXPECT_EQ(metadata.codecs[0]["name"], "sharding_indexed");
    EXPECT_EQ(metadata.attributes, nlohmann::json({{"unit", "nm"}}));
    EXPECT_EQ(metadata.dimension_names, nlohmann::json::parse(R"(["y", "x"])"));
  };
  check(created->metadata());
  auto opened = OpenZarrArray(context, "memory://facts");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  check(opened->metadata());

  ZarrArraySpec v2;
  v2.shape = {5, 7};
  v2.data_type = *ParseDataType("<i4");
  v2.chunks = {2, 3};
  v2.zarr_format = 2;
  auto plain = CreateZarrArray(context, "memory://facts-v2", v2);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->metadata().zarr_format, 2);
  EXPECT_EQ(plain->metadata().data_type_name, "int32");
  EXPECT_EQ(plain->metadata().chunk_shape, (core::Shape{2, 3}));
  EXPECT_FALSE(plain->metadata().inner_chunk_shape.has_value());
  EXPECT_FALSE(plain->metadata().dimension_names.has_value());
  auto stats = plain->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->grid_chunks, 9u);  // 3 x 3 chunks, none stored.
  EXPECT_EQ(stats->stored_keys, 0u);
  EXPECT_EQ(stats->logical_bytes, 5u * 7u * 4u);
  EXPECT_EQ(ParseIndexLocation("start").value(), ZarrIndexLocation::kStart);
  EXPECT_EQ(ParseIndexLocation("middle").status().code(), StatusCode::kInvalidArgument);
}

// A batch of chunks through an array made from its metadata text, as
// zarr-python's codec pipeline does: boxes of two shards written from one
// buffer, read back by region and by batch (a shard never written gives the
// fill value and says so), the shards' keys, and a transfer outside the grid
// or a format that is not zarr refused.
TEST(ZarrApi, ChunkBatchesWriteAndReadBoxesOfShards) {
  Context context({.threads = 2});
  auto created = CreateZarrArray(context, "memory://batch", Sharded16());
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto store = OpenStore(context, "memory://batch");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto array =
      ZarrArrayFromMetadata(context, *store, "", ZarrMetadataJson(*created), std::nullopt, 3);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_EQ(array->metadata().chunk_shape, (core::Shape{4, 6}));

  const std::vector<ZarrChunkTransfer> write = {
      {.chunk = {0, 0}, .box = core::Region({0, 0}, {4, 6}), .buffer_origin = {0, 0}},
      {.chunk = {0, 1}, .box = core::Region({0, 0}, {4, 6}), .buffer_origin = {0, 6}}};
  ASSERT_TRUE(WriteZarrChunks(*array, write, Ramp16(48, 1), {4, 12}).ok());
  auto rows = ReadRegion(context, *created, core::Region({0, 0}, {4, 12}));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, Ramp16(48, 1));

  const std::vector<ZarrChunkTransfer> read = {
      {.chunk = {0, 1}, .box = core::Region({1, 0}, {2, 6}), .buffer_origin = {0, 0}},
      {.chunk = {1, 1}, .box = core::Region({0, 0}, {1, 6}), .buffer_origin = {1, 0}}};
  Bytes out(2 * 6 * 2);
  auto stored = ReadZarrChunks(*array, read, out.data(), {2, 6});
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(*stored, (std::vector<bool>{true, false}));
  EXPECT_EQ(At16(out, 0), 1 + 12 + 6);  // Row 1, column 6 of the ramp.
  EXPECT_EQ(At16(out, 5), 1 + 12 + 11);
  EXPECT_EQ(At16(out, 6), 7);  // The fill value.
  EXPECT_EQ(ZarrChunkKey(*array, core::Coord{0, 1}), "c/0/1");

  const std::vector<ZarrChunkTransfer> outside = {
      {.chunk = {2, 0}, .box = core::Region({0, 0}, {1, 1}), .buffer_origin = {0, 0}}};
  EXPECT_EQ(ReadZarrChunks(*array, outside, out.data(), {2, 6}).status().code(),
            StatusCode::kInvalidArgument);
  auto copy = ZarrArrayFromMetadata(context, *store, "", *array);
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  EXPECT_EQ(copy->metadata().shape, (core::Shape{8, 12}));
  const Status format = ZarrArrayFromMetadata(context, *store, "", "{}", std::nullopt, 4).status();
  EXPECT_EQ(format.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(format.ToString(), HasSubstr("zarr_format must be 2 or 3"));
}

TEST(ZarrApi, ArraysBorrowTheContextsBuffers) {
  Context context({.threads = 2});
  Context other({.threads = 2});
  auto created = CreateZarrArray(context, "memory://a", Sharded16());
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ASSERT_TRUE(WriteRegion(context, *created, core::Region({0, 0}, {8, 12}), Ramp16(96, 1)).ok());
  ASSERT_TRUE(ReadRegion(context, *created, core::Region({1, 1}, {7, 11})).ok());
  EXPECT_GT(context.buffers()->idle_count(), 0u);
  EXPECT_EQ(other.buffers()->idle_count(), 0u);
  EXPECT_NE(context.buffers(), other.buffers());
}

}  // namespace
}  // namespace chunkwise
