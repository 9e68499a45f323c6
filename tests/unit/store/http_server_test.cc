#include "store/http_server.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>
#include <string>

#include "chunkwise/store/file_store.h"
#include "store/http_request.h"
#include "store/memory_store.h"
#include "unit/scratch_directory.h"

namespace chunkwise::store {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(HttpRequest, ParsesTheHead) {
  Result<HttpRequest> request = ParseHttpRequestHead(
      "GET /a%20b/info?x=1 HTTP/1.1\r\nHost: h\r\nRange:  bytes=0-9 \r\nConnection: close\r\n\r\n");
  ASSERT_TRUE(request.ok()) << request.status().ToString();
  EXPECT_EQ(request->method, "GET");
  EXPECT_EQ(request->path, "/a b/info");
  EXPECT_EQ(request->Header("range"), "bytes=0-9");
  EXPECT_FALSE(request->KeepAlive());
  EXPECT_TRUE(ParseHttpRequestHead("HEAD / HTTP/1.1\n\n")->KeepAlive());
  EXPECT_FALSE(ParseHttpRequestHead("GET / HTTP/1.0\r\n\r\n")->KeepAlive());
}

TEST(HttpRequest, RefusesMalformedHeads) {
  for (const char* head : {"GET\r\n\r\n", "GET / HTTP/2\r\n\r\n", "GET x HTTP/1.1\r\n\r\n",
                           "GET /%zz HTTP/1.1\r\n\r\n", "GET /%00 HTTP/1.1\r\n\r\n",
                           "GET /%4 HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nno colon\r\n\r\n"}) {
    EXPECT_EQ(ParseHttpRequestHead(head).status().code(), StatusCode::kInvalidArgument) << head;
  }
}

TEST(HttpRequest, FindsTheEndOfTheHead) {
  EXPECT_EQ(HttpHeadLength("GET / HTTP/1.1\r\n\r\nrest"), 18u);
  EXPECT_EQ(HttpHeadLength("GET / HTTP/1.1\n\nrest"), 16u);
  EXPECT_EQ(HttpHeadLength("GET / HTTP/1.1\r\nHost: x\r\n"), 0u);
}

TEST(HttpRange, ResolvesAgainstTheSize) {
  HttpByteRange range;
  EXPECT_EQ(ParseHttpRange("bytes=0-9", 100, &range), RangeOutcome::kPartial);
  EXPECT_EQ(range, (HttpByteRange{0, 9}));
  EXPECT_EQ(ParseHttpRange("bytes=90-", 100, &range), RangeOutcome::kPartial);
  EXPECT_EQ(range, (HttpByteRange{90, 99}));
  EXPECT_EQ(ParseHttpRange("bytes=95-1000", 100, &range), RangeOutcome::kPartial);
  EXPECT_EQ(range, (HttpByteRange{95, 99}));
  EXPECT_EQ(ParseHttpRange("bytes=-30", 100, &range), RangeOutcome::kPartial);
  EXPECT_EQ(range, (HttpByteRange{70, 99}));
  EXPECT_EQ(ParseHttpRange("bytes=-300", 100, &range), RangeOutcome::kPartial);
  EXPECT_EQ(range, (HttpByteRange{0, 99}));
  EXPECT_EQ(ParseHttpRange("bytes=100-", 100, &range), RangeOutcome::kUnsatisfiable);
  EXPECT_EQ(ParseHttpRange("bytes=-0", 100, &range), RangeOutcome::kUnsatisfiable);
  for (const char* ignored : {"bytes=0-1,5-6", "items=0-1", "bytes=9-3", "bytes=a-", "bytes"}) {
    EXPECT_EQ(ParseHttpRange(ignored, 100, &range), RangeOutcome::kWhole) << ignored;
  }
}

// One request on a fresh connection; the whole answer (the server closes).
std::string Exchange(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  EXPECT_EQ(::send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  std::string answer;
  char buffer[4096];
  ssize_t got;
  while ((got = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) answer.append(buffer, got);
  ::close(fd);
  return answer;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = MemoryStore::Create();
    ASSERT_TRUE(store_->Set("vol/info", AsBytes("{\"a\": 1}")).ok());
    ASSERT_TRUE(store_->Set("vol/s0/0.shard", AsBytes("0123456789")).ok());
    auto server = HttpServer::Start(store_, {.threads = 2});
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }
  std::string Get(const std::string& path, const std::string& headers = "",
                  const std::string& method = "GET") {
    return Exchange(server_->port(), method + " " + path + " HTTP/1.1\r\nHost: x\r\n" + headers +
                                         "Connection: close\r\n\r\n");
  }
  std::shared_ptr<MemoryStore> store_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, ServesValuesWithCorsHeaders) {
  const std::string answer = Get("/vol/info");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(answer, HasSubstr("Access-Control-Allow-Origin: *\r\n"));
  EXPECT_THAT(answer, HasSubstr("Content-Type: application/json\r\n"));
  EXPECT_THAT(answer, HasSubstr("Content-Length: 8\r\n"));
  EXPECT_THAT(answer, HasSubstr("\r\n\r\n{\"a\": 1}"));
}

TEST_F(HttpServerTest, AnswersRangesHeadAndPreflight) {
  std::string answer = Get("/vol/s0/0.shard", "Range: bytes=2-4\r\n");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 206 Partial Content\r\n"));
  EXPECT_THAT(answer, HasSubstr("Content-Range: bytes 2-4/10\r\n"));
  EXPECT_THAT(answer, HasSubstr("\r\n\r\n234"));
  EXPECT_EQ(answer.substr(answer.size() - 3), "234");
  answer = Get("/vol/s0/0.shard", "Range: bytes=10-\r\n");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 416"));
  EXPECT_THAT(answer, HasSubstr("Content-Range: bytes */10\r\n"));
  answer = Get("/vol/s0/0.shard", "", "HEAD");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(answer, HasSubstr("Content-Length: 10\r\n"));
  EXPECT_EQ(answer.substr(answer.size() - 4), "\r\n\r\n");
  answer = Get("/vol/info", "Access-Control-Request-Headers: range\r\n", "OPTIONS");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 204"));
  EXPECT_THAT(answer, HasSubstr("Access-Control-Allow-Headers: Range"));
}

TEST_F(HttpServerTest, RefusesWhatItCannotServe) {
  EXPECT_THAT(Get("/vol/missing"), StartsWith("HTTP/1.1 404"));
  EXPECT_THAT(Get("/../etc/passwd"), StartsWith("HTTP/1.1 404"));
  EXPECT_THAT(Get("/vol/"), StartsWith("HTTP/1.1 404"));
  EXPECT_THAT(Get("//vol//info"), StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(Get("/vol/info", "", "PUT"), StartsWith("HTTP/1.1 405"));
  EXPECT_THAT(Exchange(server_->port(), "garbage\r\n\r\n"), StartsWith("HTTP/1.1 400"));
}

TEST_F(HttpServerTest, KeepsConnectionsAlive) {
  const std::string request = "GET /vol/info HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string closing = "GET /vol/s0/0.shard HTTP/1.1\r\nConnection: close\r\n\r\n";
  const std::string answer = Exchange(server_->port(), request + request + closing);
  std::size_t count = 0;
  for (std::size_t at = answer.find("HTTP/1.1 200"); at != std::string::npos;
       at = answer.find("HTTP/1.1 200", at + 1)) {
    ++count;
  }
  EXPECT_EQ(count, 3u);
  EXPECT_EQ(answer.substr(answer.size() - 10), "0123456789");
}

// The body of an answer (after its head).
std::string BodyOf(const std::string& answer) {
  const std::size_t end = answer.find("\r\n\r\n");
  return end == std::string::npos ? "" : answer.substr(end + 4);
}

// A header's value in an answer's head ("" if absent).
std::string HeaderOf(const std::string& answer, const std::string& name) {
  const std::size_t at = answer.find("\r\n" + name + ": ");
  if (at == std::string::npos || at > answer.find("\r\n\r\n")) return "";
  const std::size_t from = at + name.size() + 4;
  return answer.substr(from, answer.find("\r\n", from) - from);
}

// A FileStore's files, sent from the file to the socket (sendfile): whole
// and in ranges, across the pieces of a large file, and with ETags.
class FileAnswersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937 random(42);
    big_.resize(3 * 1024 * 1024 + 123);  // More than 3 pieces of 1 MiB.
    for (char& c : big_) c = static_cast<char>(random());
    auto store = FileStore::Open(test::FreshScratchDirectory("file_answers"), {});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *store;
    ASSERT_TRUE(store_->Set("vol/big", AsBytes(big_)).ok());
    ASSERT_TRUE(store_->Set("vol/info", AsBytes("{\"a\": 1}")).ok());
    auto server = HttpServer::Start(store_, {.threads = 2});
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }
  std::string Get(const std::string& path, const std::string& headers = "") {
    return Exchange(server_->port(), "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + headers +
                                         "Connection: close\r\n\r\n");
  }
  std::string big_;
  std::shared_ptr<FileStore> store_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(FileAnswersTest, FilesAreSentWholeAndInRanges) {
  std::string answer = Get("/vol/big");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_EQ(HeaderOf(answer, "Content-Length"), std::to_string(big_.size()));
  EXPECT_TRUE(BodyOf(answer) == big_) << BodyOf(answer).size() << " bytes";
  // A range across two pieces, and the last bytes.
  answer = Get("/vol/big", "Range: bytes=1048000-2100000\r\n");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 206"));
  EXPECT_EQ(HeaderOf(answer, "Content-Range"),
            "bytes 1048000-2100000/" + std::to_string(big_.size()));
  EXPECT_TRUE(BodyOf(answer) == big_.substr(1048000, 2100001 - 1048000));
  answer = Get("/vol/big", "Range: bytes=-5\r\n");
  EXPECT_EQ(BodyOf(answer), big_.substr(big_.size() - 5));
  // Answers one after another on one connection stay apart.
  const std::string ranged = "GET /vol/big HTTP/1.1\r\nRange: bytes=10-19\r\n\r\n";
  const std::string last = "GET /vol/info HTTP/1.1\r\nConnection: close\r\n\r\n";
  answer = Exchange(server_->port(), ranged + ranged + last);
  const std::size_t second = answer.find("HTTP/1.1 206", 1);
  const std::size_t third = answer.find("HTTP/1.1 200");
  ASSERT_NE(second, std::string::npos);
  ASSERT_NE(third, std::string::npos);
  EXPECT_EQ(BodyOf(answer.substr(0, second)), big_.substr(10, 10));
  EXPECT_EQ(BodyOf(answer.substr(second, third - second)), big_.substr(10, 10));
  EXPECT_EQ(BodyOf(answer.substr(third)), "{\"a\": 1}");
}

TEST_F(FileAnswersTest, IfMatchOfAnotherVersionAnswers412) {
  const std::string etag = HeaderOf(Get("/vol/info"), "ETag");
  ASSERT_EQ(etag.size(), 18u) << etag;  // A quoted hash: no inode, size or time in it.
  std::string answer = Get("/vol/info", "If-Match: " + etag + "\r\nRange: bytes=1-3\r\n");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 206"));
  EXPECT_EQ(BodyOf(answer), "\"a\"");
  ASSERT_TRUE(store_->Set("vol/info", AsBytes("{\"a\": 2}")).ok());  // Another version.
  answer = Get("/vol/info", "If-Match: " + etag + "\r\nRange: bytes=1-3\r\n");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 412 Precondition Failed\r\n"));
  EXPECT_EQ(BodyOf(answer), "changed: \"vol/info\"\n");
  const std::string now = HeaderOf(answer, "ETag");
  EXPECT_NE(now, etag);
  EXPECT_THAT(Get("/vol/info", "If-Match: \"x\", " + now + "\r\n"), StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(Get("/vol/info", "If-Match: *\r\n"), StartsWith("HTTP/1.1 200"));
}

}  // namespace
}  // namespace chunkwise::store
