// S3Store through a proxy that makes the server fail: 503, SlowDown and 500
// replies, connections reset before or after the server acted, bodies cut
// short, transfers that stall. Writes still complete; reads return the right
// bytes or fail with an error naming the object and the last status, never
// short or wrong bytes; an upload that fails or whose writer is killed
// leaves no object. The proxy is shared, so these tests hold its lock.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>

#include "store/s3_store.h"
#include "unit/store/s3_test_server.h"

namespace chunkwise::store {
namespace {

using test::FaultProxy;
using test::TestS3Options;
using test::TestS3Servers;
using ::testing::HasSubstr;

Bytes Pattern(std::size_t size, unsigned seed) {
  Bytes bytes(size);
  std::uint32_t state = seed * 2654435761u + 1;
  for (std::size_t i = 0; i < size; ++i) {
    state = state * 1664525u + 1013904223u;
    bytes[i] = static_cast<std::uint8_t>(state >> 24);
  }
  return bytes;
}

nlohmann::json Rule(const std::string& op, const std::string& action, int times = 1) {
  return {{"op", op}, {"action", action}, {"times", times}};
}

class S3FaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    servers_ = TestS3Servers();
    ASSERT_NE(servers_, nullptr);
    proxy_ = std::make_unique<FaultProxy>(servers_->proxy);
    proxy_->Reset();
    Open(Options());
  }
  void TearDown() override {
    if (proxy_ != nullptr) proxy_->Reset();
  }
  S3StoreOptions Options() const {
    S3StoreOptions options = TestS3Options(*servers_, "chunkwise-test", servers_->proxy);
    options.http.stall_timeout = std::chrono::seconds(1);
    return options;
  }
  void Open(S3StoreOptions options) {
    store_ = test::OpenTestS3Store(std::move(options));
    ASSERT_NE(store_, nullptr);
  }

  const test::S3TestServers* servers_ = nullptr;
  std::unique_ptr<FaultProxy> proxy_;
  std::shared_ptr<S3Store> store_;
};

TEST_F(S3FaultTest, PutCompletesThroughSlowDownAndServerErrors) {
  proxy_->SetFaults(
      {Rule("PutObject", "slowdown", 2), Rule("PutObject", "503"), Rule("PutObject", "500")});
  const Bytes value = Pattern(300000, 1);
  const Status status = store_->Set("k", value);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(proxy_->Count("PutObject"), 5);
  EXPECT_EQ(store_->stats().http.retries, 4u);
  EXPECT_EQ(*store_->Get("k"), value);
}

// Resets before the server saw the request and after it acted (the reply is
// lost): a PUT, an UploadPart and CompleteMultipartUpload are all safe to repeat.
TEST_F(S3FaultTest, MultipartUploadCompletesThroughResetsAndErrors) {
  proxy_->SetFaults({Rule("CreateMultipartUpload", "503"), Rule("UploadPart", "500", 2),
                     Rule("UploadPart", "reset"), Rule("UploadPart", "reset-after"),
                     Rule("CompleteMultipartUpload", "reset-after"), Rule("PutObject", "reset")});
  const Bytes value = Pattern((std::size_t{17} << 20) + 5, 2);
  const Status status = store_->Set("big", value);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(proxy_->Count("CompleteMultipartUpload"), 2);
  EXPECT_EQ(*store_->Get("big"), value);
  ASSERT_TRUE(store_->Set("small", AsBytes("v")).ok());
  EXPECT_EQ(**store_->Get("small"), Bytes({'v'}));
}

TEST_F(S3FaultTest, ReadsRetryResetsCutBodiesAndStalls) {
  const Bytes value = Pattern(std::size_t{3} << 20, 3);
  ASSERT_TRUE(store_->Set("v", value).ok());
  nlohmann::json stall = Rule("GetObject", "stall");
  stall["seconds"] = 3;
  proxy_->SetFaults({Rule("GetObject", "reset"), Rule("GetObject", "truncate", 2), stall,
                     Rule("HeadObject", "503")});
  Result<std::optional<Bytes>> whole = store_->Get("v");
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(**whole, value);
  EXPECT_EQ(proxy_->Count("GetObject"), 5);
  Result<std::optional<std::uint64_t>> size = store_->Size("v");
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(**size, value.size());
}

TEST_F(S3FaultTest, ExhaustedRetriesNameTheObjectAndTheLastStatus) {
  S3StoreOptions options = Options();
  options.http.retry.max_attempts = 4;
  Open(options);
  ASSERT_TRUE(store_->Set("k", AsBytes("value")).ok());
  proxy_->SetFaults({Rule("GetObject", "slowdown", 100)});
  Result<std::optional<Bytes>> got = store_->Get("k");
  EXPECT_EQ(got.status().code(), StatusCode::kIOError);
  const std::string message(got.status().message());
  EXPECT_THAT(message, HasSubstr(store_->Describe("k")));
  EXPECT_THAT(message, HasSubstr("HTTP 503 (SlowDown"));
  EXPECT_THAT(message, HasSubstr("4 attempts"));
  EXPECT_EQ(proxy_->Count("GetObject"), 4);
}

// Under random faults and few retries, every read is right or an IOError
// naming the object: never short, never wrong.
TEST_F(S3FaultTest, ReadsAreRightOrFailClearly) {
  S3StoreOptions options = Options();
  options.http.retry.max_attempts = 2;
  options.transfer.reads.piece_size = std::uint64_t{256} << 10;
  Open(options);
  const Bytes value = Pattern(std::size_t{2} << 20, 4);
  ASSERT_TRUE(store_->Set("v", value).ok());
  nlohmann::json rules = nlohmann::json::array();
  for (const char* action : {"truncate", "reset", "503"}) {
    nlohmann::json rule = Rule("GetObject", action, 1000);
    rule["probability"] = 0.15;
    rules.push_back(rule);
  }
  proxy_->SetFaults(rules);
  std::mt19937 random(5);
  int right = 0, failed = 0;
  for (int i = 0; i < 60; ++i) {
    const std::uint64_t offset = random() % value.size();
    const std::uint64_t length =
        1 + random() % std::min<std::uint64_t>(value.size() - offset, 700000);
    Result<std::optional<Bytes>> got = store_->GetRange("v", ByteRange::Span(offset, length));
    if (got.ok()) {
      ASSERT_TRUE(got->has_value());
      ASSERT_EQ((*got)->size(), length);
      ASSERT_TRUE(std::equal((*got)->begin(), (*got)->end(), value.begin() + offset)) << i;
      ++right;
    } else {
      EXPECT_EQ(got.status().code(), StatusCode::kIOError);
      EXPECT_THAT(std::string(got.status().message()), HasSubstr(store_->Describe("v")));
      ++failed;
    }
  }
  EXPECT_GT(right, 0);
  EXPECT_GT(proxy_->Stats()["faults"].get<int>(), 0);
  RecordProperty("failed_reads", failed);
}

TEST_F(S3FaultTest, AFailedUploadIsAbortedAndLeavesNoObject) {
  proxy_->SetFaults({Rule("UploadPart", "500", 1000)});
  Result<std::unique_ptr<ValueWriter>> writer = store_->OpenWriter("never");
  ASSERT_TRUE(writer.ok());
  Status status = (*writer)->Append(Pattern(std::size_t{16} << 20, 5));
  if (status.ok()) status = (*writer)->Commit();
  EXPECT_EQ(status.code(), StatusCode::kIOError);
  EXPECT_THAT(std::string(status.message()), HasSubstr(store_->Describe("never")));
  writer->reset();
  EXPECT_EQ(proxy_->Count("AbortMultipartUpload"), 1);
  proxy_->Reset();
  EXPECT_EQ(*store_->Size("never"), std::nullopt);
  EXPECT_TRUE(store_->List("")->empty());
}

// A process killed mid-upload: the parts it sent are not an object.
TEST_F(S3FaultTest, AKilledWriterLeavesNoObject) {
#if defined(__SANITIZE_THREAD__)
  // The child starts threads after fork, which ThreadSanitizer does not support.
  GTEST_SKIP() << "fork() of a threaded process under ThreadSanitizer";
#endif
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const S3StoreOptions options = store_->options();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    S3StoreOptions one_at_a_time = options;
    one_at_a_time.transfer.parts_in_flight = 1;
    Result<std::shared_ptr<S3Store>> store = S3Store::Open(one_at_a_time);
    if (!store.ok()) ::_exit(2);
    Result<std::unique_ptr<ValueWriter>> writer = (*store)->OpenWriter("killed");
    // Parts 2 and 3 go out; with one in flight, part 2 is done once part 3 is sent.
    if (!writer.ok() || !(*writer)->Append(Pattern((std::size_t{20} << 20) + 1, 6)).ok())
      ::_exit(3);
    const char byte = 1;
    if (::write(ready[1], &byte, 1) != 1) ::_exit(4);
    ::pause();
    ::_exit(0);
  }
  ::close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int wait_status = 0;
  ASSERT_EQ(::waitpid(child, &wait_status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(wait_status));
  EXPECT_GE(proxy_->Count("UploadPart"), 1);
  EXPECT_EQ(proxy_->Count("CompleteMultipartUpload"), 0);
  EXPECT_EQ(*store_->Size("killed"), std::nullopt);
  EXPECT_TRUE(store_->List("")->empty());
}

TEST_F(S3FaultTest, ConnectionsAreReusedAcrossRequests) {
  ASSERT_TRUE(store_->Set("k", AsBytes("value")).ok());
  proxy_->Reset();
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(store_->Get("k").ok());
  EXPECT_EQ(proxy_->Count("GetObject"), 40);
  EXPECT_LE(proxy_->Stats()["connections"].get<int>(), 2);  // One, and the control client's.
}

TEST_F(S3FaultTest, FollowsABucketsRegion) {
  proxy_->SetFaults({{{"op", "PutObject"}, {"action", "region"}, {"region", "eu-west-1"}}});
  ASSERT_TRUE(store_->Set("k", AsBytes("v")).ok());
  ASSERT_TRUE(store_->Get("k").ok());
  const nlohmann::json stats = proxy_->Stats();
  EXPECT_EQ(stats["regions"].value("us-east-1", 0), 1);  // The request sent away.
  EXPECT_EQ(stats["regions"].value("eu-west-1", 0), 2);  // The PUT again, and the GET.
}

}  // namespace
}  // namespace chunkwise::store
