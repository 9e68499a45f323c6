#include "store/http_server.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "store/http_request.h"
#include "store/memory_store.h"

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

}  // namespace
}  // namespace chunkwise::store
