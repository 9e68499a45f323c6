// S3Store against moto's S3 server on loopback: the store suite in both
// addressing styles and on a versioned bucket, then what only object storage
// has (multipart uploads, coalesced reads, conditional creation, listing
// pages, batched deletes) and signatures checked by a second server.
#include "store/s3_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>

#include "chunkwise/core/thread_pool.h"
#include "store/batched_gets.h"
#include "store/batched_puts.h"
#include "store/remote_store_url.h"
#include "unit/store/s3_test_server.h"
#include "unit/store/store_suite.h"

namespace chunkwise::store {
namespace {

using suite::StoreFactory;
using suite::StoreSuite;
using test::OpenTestS3Store;
using test::TestS3Options;
using test::TestS3Servers;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::shared_ptr<Store> PathStyleStore() {
  const test::S3TestServers* servers = TestS3Servers();
  return servers == nullptr ? nullptr : OpenTestS3Store(TestS3Options(*servers));
}

// http://chunkwise-test.localhost:PORT/key: libcurl resolves *.localhost to loopback.
std::shared_ptr<Store> VirtualHostedStore() {
  const test::S3TestServers* servers = TestS3Servers();
  if (servers == nullptr) return nullptr;
  std::string endpoint = servers->endpoint;
  endpoint.replace(endpoint.find("127.0.0.1"), 9, "localhost");
  S3StoreOptions options = TestS3Options(*servers, "chunkwise-test", endpoint);
  options.addressing = S3AddressingStyle::kVirtual;
  return OpenTestS3Store(std::move(options));
}

std::shared_ptr<Store> VersionedStore() {
  const test::S3TestServers* servers = TestS3Servers();
  return servers == nullptr ? nullptr
                            : OpenTestS3Store(TestS3Options(*servers, "chunkwise-versioned"));
}

INSTANTIATE_TEST_SUITE_P(S3, StoreSuite,
                         ::testing::Values(StoreFactory{"path_style", PathStyleStore},
                                           StoreFactory{"virtual_hosted", VirtualHostedStore},
                                           StoreFactory{"versioned_bucket", VersionedStore}),
                         suite::StoreFactoryName);

Bytes Pattern(std::size_t size, unsigned seed) {
  Bytes bytes(size);
  std::uint32_t state = seed * 2654435761u + 1;
  for (std::size_t i = 0; i < size; ++i) {
    state = state * 1664525u + 1013904223u;
    bytes[i] = static_cast<std::uint8_t>(state >> 24);
  }
  return bytes;
}

class S3StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    servers_ = TestS3Servers();
    ASSERT_NE(servers_, nullptr);
    Open(TestS3Options(*servers_));
  }
  void Open(S3StoreOptions options) {
    store_ = OpenTestS3Store(std::move(options));
    ASSERT_NE(store_, nullptr);
  }
  std::optional<Bytes> Get(std::string_view key) {
    Result<std::optional<Bytes>> value = store_->Get(key);
    EXPECT_TRUE(value.ok()) << value.status().ToString();
    return value.ok() ? *value : std::nullopt;
  }

  const test::S3TestServers* servers_ = nullptr;
  std::shared_ptr<S3Store> store_;
};

TEST_F(S3StoreTest, LargeValueIsAMultipartUploadAndReadsBack) {
  const Bytes value = Pattern((std::size_t{12} << 20) + 3, 1);  // Parts of 5, 5 and 2 MiB.
  ASSERT_TRUE(store_->Set("big", value).ok());
  const S3StoreStats stats = store_->stats();
  EXPECT_EQ(stats.parts, 3u);
  EXPECT_EQ(stats.puts, 0u);
  EXPECT_EQ(Get("big"), value);
  Result<std::optional<std::uint64_t>> size = store_->Size("big");
  ASSERT_TRUE(size.ok() && size->has_value());
  EXPECT_EQ(**size, value.size());
}

TEST_F(S3StoreTest, ValueUpToTheThresholdIsOnePut) {
  const Bytes value = Pattern(std::size_t{10} << 20, 2);
  ASSERT_TRUE(store_->Set("ten", value).ok());
  Result<std::unique_ptr<ValueWriter>> writer = store_->OpenWriter("small");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(AsBytes("tiny")).ok());
  ASSERT_TRUE((*writer)->Commit().ok());
  EXPECT_EQ(store_->stats().puts, 2u);
  EXPECT_EQ(store_->stats().parts, 0u);
  EXPECT_EQ(Get("ten"), value);
  EXPECT_EQ(Get("small"), suite::B("tiny"));
}

// A shard written as the stream writer does: room for the index first, the
// chunks streamed, the index written over its room last.
TEST_F(S3StoreTest, WriterStreamsPartsAndFillsInTheStartLast) {
  Result<std::unique_ptr<ValueWriter>> opened = store_->OpenWriter("shard");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  ValueWriter& writer = **opened;
  Bytes expected(4096, 0);
  ASSERT_TRUE(writer.Append(expected).ok());
  for (unsigned i = 0; i < 13; ++i) {
    const Bytes piece = Pattern(std::size_t{1} << 20, 10 + i);
    ASSERT_TRUE(writer.Append(piece).ok());
    AppendBytes(expected, piece);
  }
  EXPECT_EQ(store_->Size("shard")->has_value(), false);
  const Bytes index = Pattern(4096, 99);
  ASSERT_TRUE(writer.Overwrite(0, index).ok());
  std::copy(index.begin(), index.end(), expected.begin());
  const Status uploaded = writer.Overwrite(std::uint64_t{6} << 20, AsBytes("x"));
  EXPECT_EQ(uploaded.code(), StatusCode::kUnsupported);
  EXPECT_THAT(std::string(uploaded.message()), HasSubstr(store_->Describe("shard")));
  ASSERT_TRUE(writer.Commit().ok());
  EXPECT_EQ(store_->stats().parts, 3u);
  EXPECT_EQ(Get("shard"), expected);
}

TEST_F(S3StoreTest, DroppedMultipartWriterAbortsAndLeavesNothing) {
  {
    Result<std::unique_ptr<ValueWriter>> writer = store_->OpenWriter("dropped");
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Append(Pattern(std::size_t{16} << 20, 3)).ok());
  }
  EXPECT_EQ(Get("dropped"), std::nullopt);
  EXPECT_TRUE(store_->List("")->empty());
  EXPECT_GE(store_->stats().other, 2u);  // CreateMultipartUpload and AbortMultipartUpload.
}

TEST_F(S3StoreTest, CreateIfAbsentRefusesAnExistingKey) {
  ASSERT_TRUE(store_->CreateIfAbsent("once", AsBytes("first")).ok());
  const Status again = store_->CreateIfAbsent("once", AsBytes("second")).status();
  EXPECT_EQ(again.code(), StatusCode::kConflict);
  EXPECT_THAT(std::string(again.message()), HasSubstr(store_->Describe("once")));
  EXPECT_THAT(std::string(again.message()), HasSubstr("already exists"));
  EXPECT_EQ(Get("once"), suite::B("first"));
  Result<std::unique_ptr<ValueWriter>> writer = store_->OpenWriter("once", S3WriteMode::kIfAbsent);
  EXPECT_EQ(writer.status().code(), StatusCode::kConflict);
}

// Another writer lands between OpenWriter and Commit: If-None-Match on
// CompleteMultipartUpload refuses ours, and theirs stays.
TEST_F(S3StoreTest, ConditionalMultipartCommitLosesToAnEarlierWriter) {
  Result<std::unique_ptr<ValueWriter>> writer = store_->OpenWriter("race", S3WriteMode::kIfAbsent);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->Append(Pattern(std::size_t{11} << 20, 4)).ok());
  ASSERT_TRUE(store_->Set("race", AsBytes("theirs")).ok());
  const Status commit = (*writer)->Commit();
  EXPECT_EQ(commit.code(), StatusCode::kConflict);
  EXPECT_THAT(std::string(commit.message()), HasSubstr("already exists"));
  EXPECT_EQ(Get("race"), suite::B("theirs"));
}

TEST_F(S3StoreTest, NearbyRangesAreOneRequestDistantOnesAreNot) {
  const Bytes value = Pattern(std::size_t{4} << 20, 5);
  ASSERT_TRUE(store_->Set("v", value).ok());
  std::vector<ByteRange> near;
  for (std::uint64_t i = 0; i < 10; ++i) near.push_back(ByteRange::Span(i * 5000, 100));
  const std::uint64_t before = store_->stats().gets;
  Bytes out(1000);
  ASSERT_TRUE(*store_->GetRangesInto("v", near, out));
  EXPECT_EQ(store_->stats().gets - before, 1u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_TRUE(
        std::equal(out.begin() + i * 100, out.begin() + (i + 1) * 100, value.begin() + i * 5000));
  }
  // 3 MiB apart: more than the 1 MiB gap, so two requests.
  const ByteRange far[] = {ByteRange::Span(10, 20), ByteRange::Span(std::uint64_t{3} << 20, 20)};
  Bytes two(40);
  ASSERT_TRUE(*store_->GetRangesInto("v", far, two));
  EXPECT_EQ(store_->stats().gets - before, 3u);
  EXPECT_TRUE(std::equal(two.begin() + 20, two.end(), value.begin() + (3 << 20)));
}

TEST_F(S3StoreTest, ReaderBringsTheTailWithTheSize) {
  const Bytes value = Pattern(std::size_t{1} << 20, 6);
  ASSERT_TRUE(store_->Set("shard", value).ok());
  const std::uint64_t before = store_->stats().requests();
  Result<std::unique_ptr<ValueReader>> reader = store_->OpenReader("shard");
  ASSERT_TRUE(reader.ok() && *reader != nullptr);
  EXPECT_EQ((*reader)->size(), value.size());
  const ByteRange index[] = {ByteRange::Suffix(16 * 1024)};
  Bytes tail(16 * 1024);
  ASSERT_TRUE((*reader)->ReadInto(index, tail).ok());
  EXPECT_EQ(store_->stats().requests() - before, 1u);  // The index came with the open.
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), value.end() - tail.size()));
  const ByteRange chunks[] = {ByteRange::Span(1000, 10), ByteRange::Span(9000, 10)};
  Bytes out(20);
  ASSERT_TRUE((*reader)->ReadInto(chunks, out).ok());
  EXPECT_EQ(store_->stats().requests() - before, 2u);
  EXPECT_TRUE(std::equal(out.begin(), out.begin() + 10, value.begin() + 1000));
}

TEST_F(S3StoreTest, LargeGetIsFetchedInPiecesAtOnce) {
  S3StoreOptions options = TestS3Options(*servers_);
  options.transfer.reads.piece_size = std::uint64_t{1} << 20;
  Open(options);
  const Bytes value = Pattern((std::size_t{11} << 19) + 7, 7);  // 5.5 MiB
  ASSERT_TRUE(store_->Set("v", value).ok());
  const std::uint64_t before = store_->stats().gets;
  EXPECT_EQ(Get("v"), value);
  EXPECT_EQ(store_->stats().gets - before, 6u);
  Result<std::optional<Bytes>> range = store_->GetRange("v", ByteRange::Span(100, 3 << 20));
  ASSERT_TRUE(range.ok() && range->has_value());
  EXPECT_TRUE(std::equal((*range)->begin(), (*range)->end(), value.begin() + 100));
}

TEST_F(S3StoreTest, ReaderFailsRatherThanMixTwoVersions) {
  ASSERT_TRUE(store_->Set("v", Pattern(std::size_t{1} << 20, 8)).ok());
  Result<std::unique_ptr<ValueReader>> reader = store_->OpenReader("v");
  ASSERT_TRUE(reader.ok() && *reader != nullptr);
  EXPECT_FALSE((*reader)->pinned());
  ASSERT_TRUE(store_->Set("v", Pattern(std::size_t{1} << 20, 9)).ok());
  const ByteRange start[] = {ByteRange::Span(0, 100)};
  Bytes out(100);
  const Status read = (*reader)->ReadInto(start, out);
  EXPECT_EQ(read.code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(read.message()), HasSubstr(store_->Describe("v")));
  EXPECT_THAT(std::string(read.message()), HasSubstr("changed"));
}

TEST_F(S3StoreTest, ReaderOnAVersionedBucketKeepsItsVersion) {
  Open(TestS3Options(*servers_, "chunkwise-versioned"));
  const Bytes first = Pattern(std::size_t{1} << 20, 10);
  ASSERT_TRUE(store_->Set("v", first).ok());
  Result<std::unique_ptr<ValueReader>> reader = store_->OpenReader("v");
  ASSERT_TRUE(reader.ok() && *reader != nullptr);
  EXPECT_TRUE((*reader)->pinned());
  ASSERT_TRUE(store_->Set("v", Pattern(std::size_t{1} << 20, 11)).ok());
  ASSERT_TRUE(store_->Erase("v").ok());
  const ByteRange start[] = {ByteRange::Span(0, 4096)};
  Bytes out(4096);
  ASSERT_TRUE((*reader)->ReadInto(start, out).ok());
  EXPECT_TRUE(std::equal(out.begin(), out.end(), first.begin()));
}

TEST_F(S3StoreTest, ListingFollowsContinuationTokens) {
  S3StoreOptions options = TestS3Options(*servers_);
  options.transfer.list_page_size = 7;
  Open(options);
  std::vector<std::string> expected;
  for (int i = 0; i < 20; ++i) expected.push_back("k/" + std::to_string(100 + i));
  for (const std::string& key : expected) ASSERT_TRUE(store_->Set(key, AsBytes(key)).ok());
  Result<std::vector<std::string>> keys = store_->List("k/");
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(*keys, expected);
  EXPECT_EQ(store_->stats().lists, 3u);
}

TEST_F(S3StoreTest, DelimitedListingGivesKeysAndDirectories) {
  for (const char* key : {"a/1", "a/b/2", "a/b/3", "c"})
    ASSERT_TRUE(store_->Set(key, AsBytes("x")).ok());
  Result<S3Store::DelimitedListing> top = store_->ListDelimited("");
  ASSERT_TRUE(top.ok()) << top.status().ToString();
  EXPECT_THAT(top->keys, ElementsAre("c"));
  EXPECT_THAT(top->prefixes, ElementsAre("a/"));
  Result<S3Store::DelimitedListing> inner = store_->ListDelimited("a/");
  ASSERT_TRUE(inner.ok());
  EXPECT_THAT(inner->keys, ElementsAre("a/1"));
  EXPECT_THAT(inner->prefixes, ElementsAre("a/b/"));
}

TEST_F(S3StoreTest, EraseKeysDeletesInBatchesOfAThousand) {
  std::vector<std::string> keys;
  for (int i = 0; i < 1005; ++i) keys.push_back("c/" + std::to_string(i));
  core::ThreadPool pool(8);
  ASSERT_TRUE(pool.ParallelFor(keys.size(),
                               [&](std::size_t i) { return store_->Set(keys[i], AsBytes("x")); })
                  .ok());
  ASSERT_TRUE(store_->Set("keep", AsBytes("y")).ok());
  const std::uint64_t before = store_->stats().deletes;
  ASSERT_TRUE(store_->ErasePrefix("c/").ok());
  EXPECT_EQ(store_->stats().deletes - before, 2u);
  EXPECT_THAT(*store_->List(""), ElementsAre("keep"));
}

TEST_F(S3StoreTest, KeysWithSpacesPlusAndUnicodeRoundTrip) {
  const std::vector<std::string> keys = {"dir with space/a+b=c&d", "\xc3\xbcn\xc3\xaf/\xe2\x98\x83",
                                         "q?x#y%z"};
  for (const std::string& key : keys) ASSERT_TRUE(store_->Set(key, AsBytes(key)).ok()) << key;
  for (const std::string& key : keys) EXPECT_EQ(Get(key), suite::B(key)) << key;
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(*store_->List(""), sorted);
  EXPECT_THAT(*store_->List("dir with"), ElementsAre("dir with space/a+b=c&d"));
}

TEST_F(S3StoreTest, MissingBucketIsNotFoundNotAnAbsentKey) {
  Open(TestS3Options(*servers_, "no-such-bucket-here"));
  Result<std::optional<Bytes>> got = store_->Get("k");
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(got.status().message()), HasSubstr("no-such-bucket-here"));
  Result<std::optional<std::uint64_t>> size = store_->Size("k");
  EXPECT_EQ(size.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(size.status().message()), HasSubstr("does not exist"));
}

// GetMany (store/batched_gets.h): every key's GET in one batch, a value
// larger than a piece read whole, an absent key nullopt, an invalid one an
// error of its own; a missing bucket is NotFound for each key.
TEST_F(S3StoreTest, GetManyReadsEveryKeyAsGetDoes) {
  S3StoreOptions options = TestS3Options(*servers_);
  options.transfer.reads.piece_size = 1000;
  Open(options);
  const Bytes large = Pattern(2500, 7);
  ASSERT_TRUE(store_->Set("many/a", AsBytes("first")).ok());
  ASSERT_TRUE(store_->Set("many/large", large).ok());
  ASSERT_TRUE(store_->Set("many/empty", {}).ok());
  EXPECT_TRUE(BatchesGets(*store_));
  const std::vector<std::string> keys = {"many/a", "many/large", "many/missing", "many/empty",
                                         "../bad"};
  const std::vector<Result<std::optional<Bytes>>> values = GetMany(*store_, keys);
  ASSERT_EQ(values.size(), keys.size());
  for (std::size_t i = 0; i < 4; ++i) ASSERT_TRUE(values[i].ok()) << values[i].status().ToString();
  EXPECT_EQ(*values[0], Bytes(AsBytes("first").begin(), AsBytes("first").end()));
  EXPECT_EQ(*values[1], large);
  EXPECT_EQ(*values[2], std::nullopt);
  EXPECT_EQ(*values[3], Bytes());
  EXPECT_EQ(values[4].status().code(), StatusCode::kInvalidArgument);

  Open(TestS3Options(*servers_, "no-such-bucket-here"));
  const std::vector<Result<std::optional<Bytes>>> missing = GetMany(*store_, keys);
  EXPECT_EQ(missing[0].status().code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing[0].status().message()), HasSubstr("no-such-bucket-here"));
}

// PutMany writes each item as Set, Erase, SetPartsIf or EraseIf would: the
// small ones in one batch, a value past the multipart threshold alone.
TEST_F(S3StoreTest, PutManyWritesEveryItemAsASingleWriteDoes) {
  ASSERT_TRUE(store_->Set("many/gone", AsBytes("old")).ok());
  ASSERT_TRUE(store_->Set("many/there", AsBytes("old")).ok());
  Result<Generation> there = store_->GetGeneration("many/there");
  ASSERT_TRUE(there.ok()) << there.status().ToString();
  EXPECT_TRUE(BatchesPuts(*store_));
  const Bytes small = Pattern(100, 1);
  const Bytes large = Pattern((std::size_t{10} << 20) + 1, 2);  // Past the test's threshold.
  const std::vector<PutItem> items = {
      {"many/a", ByteView(small), {}},
      {"many/large", ByteView(large), {}},
      {"many/gone", std::nullopt, {}},
      {"many/missing", std::nullopt, {}},
      {"many/there", ByteView(small), Generation::Absent()},
      {"many/new", ByteView(small), Generation::Absent()},
      {"many/there", ByteView(small), Generation::Of("\"0123\"")},
      {"../bad", ByteView(small), {}},
  };
  std::vector<Status> statuses = PutMany(*store_, items);
  ASSERT_EQ(statuses.size(), items.size());
  for (std::size_t i : {0, 1, 2, 3, 5}) EXPECT_TRUE(statuses[i].ok()) << statuses[i].ToString();
  EXPECT_EQ(statuses[4].code(), StatusCode::kConflict) << statuses[4].ToString();
  EXPECT_THAT(std::string(statuses[4].message()), HasSubstr(store_->Describe("many/there")));
  EXPECT_EQ(statuses[6].code(), StatusCode::kConflict) << statuses[6].ToString();
  EXPECT_EQ(statuses[7].code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Get("many/a"), small);
  EXPECT_EQ(Get("many/large"), large);
  EXPECT_EQ(Get("many/gone"), std::nullopt);
  EXPECT_EQ(Get("many/new"), small);
  EXPECT_EQ(Get("many/there"), suite::B("old"));
  EXPECT_EQ(store_->stats().parts, 3u);  // The large one, as a multipart upload.

  // At the generation it holds, a write and then an erase go ahead.
  statuses = PutMany(*store_, std::vector<PutItem>{{"many/there", ByteView(small), *there}});
  ASSERT_TRUE(statuses[0].ok()) << statuses[0].ToString();
  Result<Generation> now = store_->GetGeneration("many/there");
  ASSERT_TRUE(now.ok());
  statuses = PutMany(*store_, std::vector<PutItem>{{"many/there", std::nullopt, *there}});
  EXPECT_EQ(statuses[0].code(), StatusCode::kConflict) << statuses[0].ToString();
  EXPECT_EQ(Get("many/there"), small);
  statuses = PutMany(*store_, std::vector<PutItem>{{"many/there", std::nullopt, *now}});
  EXPECT_TRUE(statuses[0].ok()) << statuses[0].ToString();
  EXPECT_EQ(Get("many/there"), std::nullopt);
}

TEST_F(S3StoreTest, GetRangeManyReadsEveryRangeAsGetRangeDoes) {
  S3StoreOptions options = TestS3Options(*servers_);
  options.transfer.reads.piece_size = 1000;
  Open(options);
  const Bytes large = Pattern(2500, 9);
  ASSERT_TRUE(store_->Set("ranges/large", large).ok());
  const std::vector<RangedKey> reads = {
      {"ranges/large", ByteRange::Span(10, 20), std::nullopt},  // One GET of the batch.
      {"ranges/large", ByteRange::Span(100, 1500),
       std::nullopt},                                        // Larger than a piece: read after.
      {"ranges/large", ByteRange::Suffix(5), std::nullopt},  // A suffix: read after.
      {"ranges/missing", ByteRange::Span(0, 4), std::nullopt},
      {"ranges/large", ByteRange::Span(2490, 20), std::nullopt},  // Past the end.
  };
  const std::vector<Result<std::optional<Bytes>>> values = GetRangeMany(*store_, reads);
  ASSERT_EQ(values.size(), reads.size());
  for (std::size_t i = 0; i < 4; ++i) ASSERT_TRUE(values[i].ok()) << values[i].status().ToString();
  EXPECT_EQ(*values[0], Bytes(large.begin() + 10, large.begin() + 30));
  EXPECT_EQ(*values[1], Bytes(large.begin() + 100, large.begin() + 1600));
  EXPECT_EQ(*values[2], Bytes(large.end() - 5, large.end()));
  EXPECT_EQ(*values[3], std::nullopt);
  EXPECT_EQ(values[4].status().code(), StatusCode::kOutOfRange) << values[4].status().ToString();
}

// Every kind of request we send, checked by botocore's Signature V4 in a
// second moto that refuses requests it cannot verify.
TEST_F(S3StoreTest, SignaturesAreAcceptedForEveryRequestKind) {
  S3StoreOptions options =
      TestS3Options(*servers_, servers_->signing_bucket, servers_->signing_endpoint);
  options.credentials.access_key_id = servers_->signing_key_id;
  options.credentials.secret_access_key = servers_->signing_secret;
  Open(options);
  const std::string key = "dir with space/\xc3\xbc+=&.bin";
  const Bytes big = Pattern((std::size_t{10} << 20) + 1, 12);
  ASSERT_TRUE(store_->Set(key, AsBytes("small")).ok());
  Status multipart = store_->Set("big", big);
  ASSERT_TRUE(multipart.ok()) << multipart.ToString();
  EXPECT_EQ(Get(key), suite::B("small"));
  EXPECT_EQ(Get("big"), big);
  Result<std::optional<Bytes>> suffix = store_->GetRange("big", ByteRange::Suffix(10));
  ASSERT_TRUE(suffix.ok()) << suffix.status().ToString();
  EXPECT_TRUE(std::equal((*suffix)->begin(), (*suffix)->end(), big.end() - 10));
  Result<std::vector<std::string>> listed = store_->List("dir with");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_THAT(*listed, ElementsAre(key));
  EXPECT_TRUE(store_->CreateIfAbsent("created", AsBytes("x")).ok());
  const std::vector<std::string> doomed = {key, "big", "created"};
  Status erased = store_->EraseKeys(doomed);
  ASSERT_TRUE(erased.ok()) << erased.ToString();
  EXPECT_TRUE(store_->List("")->empty());
}

TEST_F(S3StoreTest, AWrongSecretIsRefusedWithTheServersWords) {
  S3StoreOptions options =
      TestS3Options(*servers_, servers_->signing_bucket, servers_->signing_endpoint);
  options.credentials.access_key_id = servers_->signing_key_id;
  options.credentials.secret_access_key = "not-the-secret";
  Open(options);
  const Status status = store_->Set("k", AsBytes("v"));
  EXPECT_EQ(status.code(), StatusCode::kIOError);
  EXPECT_THAT(std::string(status.message()), HasSubstr("403"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("SignatureDoesNotMatch"));
  EXPECT_THAT(std::string(status.message()), HasSubstr(store_->Describe("k")));
}

// Without credentials requests go unsigned: a public bucket reads and lists,
// a private object is refused with a message that says why.
TEST_F(S3StoreTest, AnonymousRequestsReadPublicBucketsAndSaySoWhenRefused) {
  S3StoreOptions options = TestS3Options(*servers_, "chunkwise-public");
  options.location.prefix = "public/";
  options.credentials = AwsCredentials();
  Open(options);
  EXPECT_EQ(Get("hello.txt"), suite::B("hello, anonymous reader\n"));
  Result<std::vector<std::string>> keys = store_->List("");
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_THAT(*keys, ::testing::Contains("hello.txt"));
  // moto, unlike S3, lets anonymous requests write, so only reads are refused here.
  options = TestS3Options(*servers_);
  Open(options);
  ASSERT_TRUE(store_->Set("k", AsBytes("private")).ok());
  options.credentials = AwsCredentials();
  Open(options);
  Result<std::optional<Bytes>> got = store_->Get("k");
  EXPECT_EQ(got.status().code(), StatusCode::kIOError);
  EXPECT_THAT(std::string(got.status().message()), HasSubstr(store_->Describe("k")));
  EXPECT_THAT(std::string(got.status().message()), HasSubstr("unsigned"));
}

// s3:// with the endpoint and keys from the environment, as the AWS CLI reads them.
TEST_F(S3StoreTest, OpenRemoteStoreReadsTheEnvironment) {
  const std::string prefix = test::FreshS3Prefix("url");
  RemoteStoreOptions options;
  options.environment =
      AwsEnvironment::FromMap({{"AWS_ENDPOINT_URL_S3", servers_->endpoint},
                               {"AWS_ACCESS_KEY_ID", servers_->access_key_id},
                               {"AWS_SECRET_ACCESS_KEY", servers_->secret_access_key},
                               {"AWS_REGION", servers_->region},
                               {"HOME", "/nonexistent"}});
  Result<std::shared_ptr<Store>> store =
      OpenRemoteStore("s3://chunkwise-test/" + prefix + "data.zarr", options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Set("zarr.json", AsBytes("{}")).ok());
  EXPECT_EQ((*store)->Describe("zarr.json"),
            "s3://chunkwise-test/" + prefix + "data.zarr/zarr.json");
  // The same object through a path-style store of the whole bucket.
  S3StoreOptions whole = TestS3Options(*servers_);
  whole.location.prefix = "";
  Open(whole);
  EXPECT_EQ(Get(prefix + "data.zarr/zarr.json"), suite::B("{}"));
  EXPECT_EQ(OpenRemoteStore("ftp://x/y", options).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(IsRemoteStoreUrl("/local/path"));
  EXPECT_TRUE(IsRemoteStoreUrl("gs://bucket/x"));
  Result<std::shared_ptr<Store>> http = OpenRemoteStore(servers_->http + "/x", options);
  ASSERT_TRUE(http.ok());
  EXPECT_FALSE((*http)->capabilities().writable);
}

TEST(S3StoreOptions, ForUrlTakesTheSettings) {
  AwsSettings settings;
  settings.profile = "dev";
  settings.region = "eu-central-1";
  settings.s3_endpoint_url = "http://127.0.0.1:9000";
  settings.s3_addressing_style = "virtual";
  settings.credentials.access_key_id = "AKID";
  settings.credentials.secret_access_key = "SECRET";
  Result<S3StoreOptions> options = S3StoreOptions::ForUrl("s3://my-bucket/data/vol.zarr", settings);
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->location.bucket, "my-bucket");
  EXPECT_EQ(options->location.prefix, "data/vol.zarr/");
  EXPECT_EQ(options->endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(options->region, "eu-central-1");
  EXPECT_EQ(options->addressing, S3AddressingStyle::kVirtual);
  EXPECT_EQ(options->dialect, S3Dialect::kAws);
  EXPECT_EQ(options->credentials.access_key_id, "AKID");
  settings.s3_addressing_style = "sideways";
  EXPECT_EQ(S3StoreOptions::ForUrl("s3://my-bucket", settings).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(S3StoreOptions, GsIsGoogleCloudStoragesXmlApi) {
  AwsSettings settings;
  settings.s3_endpoint_url = "http://127.0.0.1:9000";  // For s3:// only.
  Result<S3StoreOptions> options = S3StoreOptions::ForUrl("gs://my_bucket/x", settings);
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->endpoint, "https://storage.googleapis.com");
  EXPECT_EQ(options->region, "auto");
  EXPECT_EQ(options->dialect, S3Dialect::kGcs);
  EXPECT_EQ(options->addressing, S3AddressingStyle::kPath);
  EXPECT_EQ(options->location.Url("k"), "gs://my_bucket/x/k");
}

TEST(S3StoreOptions, OpenRefusesBadEndpointsAndPartSizes) {
  S3StoreOptions options;
  options.location.bucket = "bucket";
  options.endpoint = "ftp://example.com";
  EXPECT_EQ(S3Store::Open(options).status().code(), StatusCode::kInvalidArgument);
  options.endpoint = "";
  options.transfer.part_size = 1 << 20;
  Result<std::shared_ptr<S3Store>> small = S3Store::Open(options);
  EXPECT_EQ(small.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(small.status().message()), HasSubstr("5 MiB"));
}

TEST(S3Location, ParsesBucketAndPrefix) {
  Result<S3Location> location = ParseS3Url("s3://bucket-1.example/a/b/");
  ASSERT_TRUE(location.ok());
  EXPECT_EQ(location->bucket, "bucket-1.example");
  EXPECT_EQ(location->prefix, "a/b/");
  EXPECT_EQ(ParseS3Url("s3://bucket")->prefix, "");
  for (const char* bad : {"s3://", "s3://ab", "s3://Bucket", "s3://-bucket", "s3://bucket/a//b",
                          "s3://bucket/../x", "http://bucket/x", "s3://under_score"}) {
    SCOPED_TRACE(bad);
    Result<S3Location> parsed = ParseS3Url(bad);
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(bad));
  }
  EXPECT_TRUE(ParseS3Url("gs://under_score").ok());
}

}  // namespace
}  // namespace chunkwise::store
