// Hostile clients against HttpServer (#44), on 127.0.0.1 only: traversal
// forms, links out of the root, dot-files, what error bodies say, clients
// that send or read slowly, too many connections, oversized heads and
// absurd options. Every wait is bounded (socket timeouts, counted loops), so
// a server that hangs fails the test instead of hanging it.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "chunkwise/store/file_store.h"
#include "store/http_server.h"
#include "store/memory_store.h"
#include "unit/scratch_directory.h"

namespace chunkwise::store {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// A client socket connected to the server, with a receive timeout so that
// no read waits forever; -1 if it cannot connect.
int Connect(int port, int receive_timeout_s = 10) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  timeval timeout{receive_timeout_s, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool SendText(int fd, const std::string& text) {
  return ::send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
}

// Everything the server sends until it closes, or until the timeout: what
// came by then.
std::string ReadToEnd(int fd) {
  std::string answer;
  char buffer[64 * 1024];
  ssize_t got;
  while ((got = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) answer.append(buffer, got);
  return answer;
}

// One request on a fresh connection (Connection: close); the whole answer.
std::string Exchange(int port, const std::string& request) {
  const int fd = Connect(port);
  if (fd < 0) return "(no connection)";
  std::string answer = SendText(fd, request) ? ReadToEnd(fd) : "(send failed)";
  ::close(fd);
  return answer;
}

std::string Get(int port, const std::string& target, const std::string& method = "GET") {
  return Exchange(port,
                  method + " " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
}

std::string Body(const std::string& answer) {
  const std::size_t end = answer.find("\r\n\r\n");
  return end == std::string::npos ? "" : answer.substr(end + 4);
}

void WriteFile(const fs::path& path, std::string_view text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A directory served as neuroglancer would read it, with links and
// dot-files a probe would look for, and a secret beside it.
class HostileFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = test::FreshScratchDirectory("hostile");
    root_ = base_ / "served";
    WriteFile(base_ / "secret.txt", "the secret");
    WriteFile(root_ / "vol" / "info", "{\"a\": 1}");
    WriteFile(root_ / "vol" / ".zattrs", "{}");
    WriteFile(root_ / "vol" / ".env", "TOKEN=1");
    WriteFile(root_ / ".git" / "config", "[core]");
    fs::create_symlink(base_ / "secret.txt", root_ / "vol" / "leak");
    fs::create_directory_symlink(base_, root_ / "up");
    fs::create_symlink(root_ / "vol" / "info", root_ / "vol" / "alias");
    Start({});
  }
  void Start(HttpServerOptions options) {
    server_.reset();
    Result<std::shared_ptr<FileStore>> store = FileStore::Open(root_, {.create_root = false});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    options.threads = 2;
    Result<std::unique_ptr<HttpServer>> server = HttpServer::Start(*store, options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }
  int port() const { return server_->port(); }

  fs::path base_;
  fs::path root_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HostileFilesTest, LinksOutOfTheRootAnswer404AsAbsentKeys) {
  for (const auto& [target, key] : std::vector<std::pair<std::string, std::string>>{
           {"/vol/leak", "vol/leak"}, {"/up/secret.txt", "up/secret.txt"}}) {
    const std::string answer = Get(port(), target);
    EXPECT_THAT(answer, StartsWith("HTTP/1.1 404 Not Found\r\n")) << target;
    EXPECT_EQ(Body(answer), "not found: \"" + key + "\"\n") << target;
    EXPECT_THAT(answer, Not(HasSubstr("the secret")));
  }
  // Exactly what an absent key answers: nothing tells a link was there.
  EXPECT_EQ(Body(Get(port(), "/vol/missing")), "not found: \"vol/missing\"\n");
  // A link that stays inside is served.
  const std::string alias = Get(port(), "/vol/alias");
  EXPECT_THAT(alias, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_EQ(Body(alias), "{\"a\": 1}");
}

TEST_F(HostileFilesTest, DotFilesAnswer404ButZarrV2MetadataIsServed) {
  for (const auto& [target, key] :
       std::vector<std::pair<std::string, std::string>>{{"/.git/config", ".git/config"},
                                                        {"/vol/.env", "vol/.env"},
                                                        {"/vol/%2eenv", "vol/.env"},
                                                        {"/.zattrs/x", ".zattrs/x"}}) {
    const std::string answer = Get(port(), target);
    EXPECT_THAT(answer, StartsWith("HTTP/1.1 404 Not Found\r\n")) << target;
    EXPECT_EQ(Body(answer), "not found: \"" + key + "\"\n") << target;
  }
  const std::string zattrs = Get(port(), "/vol/.zattrs");
  EXPECT_THAT(zattrs, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_EQ(Body(zattrs), "{}");
  // Asked for, they are served.
  Start({.serve_dot_files = true});
  EXPECT_EQ(Body(Get(port(), "/.git/config")), "[core]");
}

TEST_F(HostileFilesTest, TraversalFormsAnswer404Or400) {
  const std::vector<std::pair<std::string, std::string>> not_found = {
      {"/../secret.txt", "../secret.txt"},
      {"/vol/../../secret.txt", "vol/../../secret.txt"},
      {"/%2e%2e/secret.txt", "../secret.txt"},
      {"/%2E%2E%2Fsecret.txt", "../secret.txt"},
      {"/vol/..%2f..%2fsecret.txt", "vol/../../secret.txt"},
      {"/vol/.%2e/.%2e/secret.txt", "vol/../../secret.txt"},
      {"/vol/./info", "vol/./info"},
      {"/..\\secret.txt", "..\\x5csecret.txt"},
      {"/%5c..%5csecret.txt", "\\x5c..\\x5csecret.txt"},
  };
  for (const auto& [target, quoted] : not_found) {
    const std::string answer = Get(port(), target);
    EXPECT_THAT(answer, StartsWith("HTTP/1.1 404 Not Found\r\n")) << target;
    EXPECT_EQ(Body(answer), "not found: \"" + quoted + "\"\n") << target;
    EXPECT_THAT(answer, Not(HasSubstr("the secret"))) << target;
  }
  // "//" collapses, so an absolute path names a key under the root.
  EXPECT_THAT(Get(port(), "/%2f" + base_.string().substr(1) + "/secret.txt"),
              StartsWith("HTTP/1.1 404 Not Found\r\n"));
  for (const std::string& target :
       {std::string("http://x/../secret.txt"), std::string("/vol/info%00"), std::string("*"),
        std::string("/%zz")}) {
    const std::string answer = Get(port(), target);
    EXPECT_THAT(answer, StartsWith("HTTP/1.1 400 Bad Request\r\n")) << target;
    EXPECT_THAT(answer, Not(HasSubstr("the secret"))) << target;
  }
}

TEST_F(HostileFilesTest, ErrorBodiesNameTheKeyNeverAServerPath) {
  fs::create_directories(root_ / "vol" / "dir");
  const std::string answer = Get(port(), "/vol/dir");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 500 Internal Server Error\r\n"));
  EXPECT_EQ(Body(answer), "cannot read \"vol/dir\"\n");
  for (const std::string& target : {std::string("/vol/dir"), std::string("/vol/missing"),
                                    std::string("/vol/leak"), std::string("/%zz")}) {
    EXPECT_THAT(Get(port(), target), Not(HasSubstr(base_.string()))) << target;
  }
}

// The operator's log has the store's message; a client cannot add lines to it.
TEST_F(HostileFilesTest, TheLogHasTheDetailAndOneLinePerRequest) {
  std::FILE* log = std::tmpfile();
  ASSERT_NE(log, nullptr);
  Start({.log = log});
  fs::create_directories(root_ / "vol" / "dir");
  EXPECT_THAT(Get(port(), "/vol/dir"), StartsWith("HTTP/1.1 500"));
  EXPECT_THAT(Get(port(), "/x%0aGET%20/forged%20200%200"), StartsWith("HTTP/1.1 404"));
  server_.reset();  // Joins the threads: every line is written.
  std::rewind(log);
  std::string text;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), log) != nullptr) text += buffer;
  std::fclose(log);
  EXPECT_THAT(text, HasSubstr("GET /vol/dir 500 "));
  EXPECT_THAT(text, HasSubstr((root_ / "vol" / "dir").string()));
  EXPECT_THAT(text, HasSubstr("GET /x\\x0aGET /forged 200 0 404 "));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
}

// A store whose values are big enough that a client that stops reading
// leaves the server with bytes it cannot send.
class HostileClientsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = MemoryStore::Create();
    ASSERT_TRUE(store_->Set("vol/info", AsBytes("{\"a\": 1}")).ok());
    ASSERT_TRUE(store_->Set("vol/big", Bytes(kBigBytes, std::uint8_t{7})).ok());
  }
  void Start(HttpServerOptions options) {
    Result<std::unique_ptr<HttpServer>> server = HttpServer::Start(store_, options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }
  void TearDown() override {
    for (const int fd : held_) ::close(fd);
  }
  // Opens `count` connections that send part of a request head and stop.
  void HoldHalfHeads(int count) {
    for (int i = 0; i < count; ++i) {
      const int fd = Connect(server_->port());
      ASSERT_GE(fd, 0);
      ASSERT_TRUE(SendText(fd, "GET /vol/info HTTP/1.1\r\nHo"));
      held_.push_back(fd);
    }
  }
  // Opens `count` connections that ask for the big value and never read it.
  void HoldNonReaders(int count) {
    for (int i = 0; i < count; ++i) {
      const int fd = Connect(server_->port());
      ASSERT_GE(fd, 0);
      ASSERT_TRUE(SendText(fd, "GET /vol/big HTTP/1.1\r\nHost: x\r\n\r\n"));
      held_.push_back(fd);
    }
  }

  static constexpr std::size_t kBigBytes = 48 << 20;
  std::shared_ptr<MemoryStore> store_;
  std::unique_ptr<HttpServer> server_;
  std::vector<int> held_;
};

// The old server gave each connection a worker until it closed: two such
// clients per worker kept every other client waiting for their timeouts
// (a minute here). The bound below is generous; the answer comes at once.
TEST_F(HostileClientsTest, SlowClientsDoNotKeepOthersWaiting) {
  Start({.threads = 2, .idle_timeout_s = 60, .send_timeout_s = 60});
  HoldHalfHeads(4);
  HoldNonReaders(4);
  for (int round = 0; round < 3; ++round) {
    const int fd = Connect(server_->port(), /*receive_timeout_s=*/10);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(SendText(fd, "GET /vol/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    const std::string answer = ReadToEnd(fd);
    ::close(fd);
    EXPECT_THAT(answer, StartsWith("HTTP/1.1 200 OK\r\n")) << "round " << round;
    EXPECT_EQ(Body(answer), "{\"a\": 1}");
  }
}

// A head sent a byte at a time is cut off at the deadline for the whole
// head, though each byte comes well within it.
TEST_F(HostileClientsTest, ATricklingHeadIsClosedAtItsDeadline) {
  Start({.threads = 1, .idle_timeout_s = 1});
  const int fd = Connect(server_->port(), /*receive_timeout_s=*/1);
  ASSERT_GE(fd, 0);
  const std::string head = "GET /vol/info HTTP/1.1\r\nX-Slow: " + std::string(200, 'a');
  bool closed = false;
  // At most 200 bytes, 50 ms apart: 10 s, ten times the deadline.
  for (std::size_t i = 0; i < head.size() && !closed; ++i) {
    if (!SendText(fd, head.substr(i, 1))) closed = true;
    char byte;
    const ssize_t got = ::recv(fd, &byte, 1, MSG_DONTWAIT);
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) closed = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::close(fd);
  EXPECT_TRUE(closed);
}

// A client that stops reading is dropped once it has taken nothing for
// send_timeout_s: it gets less than it asked for, and then the end.
TEST_F(HostileClientsTest, AClientThatStopsReadingIsDropped) {
  Start({.threads = 1, .send_timeout_s = 1});
  const int fd = Connect(server_->port(), /*receive_timeout_s=*/20);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendText(fd, "GET /vol/big HTTP/1.1\r\nHost: x\r\n\r\n"));
  std::this_thread::sleep_for(std::chrono::seconds(4));
  const std::string answer = ReadToEnd(fd);  // Ends at the server's close (or 20 s).
  ::close(fd);
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_LT(answer.size(), kBigBytes);
}

TEST_F(HostileClientsTest, ConnectionsPastTheLimitAnswer503) {
  Start({.threads = 1, .max_connections = 3, .idle_timeout_s = 60});
  HoldHalfHeads(3);
  // The busy answer comes unasked (a request sent before it might turn the
  // server's close into a reset).
  const int fd = Connect(server_->port());
  ASSERT_GE(fd, 0);
  const std::string busy = ReadToEnd(fd);
  ::close(fd);
  EXPECT_THAT(busy, StartsWith("HTTP/1.1 503 Service Unavailable\r\n"));
  EXPECT_EQ(Body(busy), "server busy\r\n");
  // A slot given back is taken again (the close reaches the loop soon; at
  // most 50 tries 100 ms apart).
  ::close(held_.back());
  held_.pop_back();
  std::string answer;
  for (int attempt = 0; attempt < 50; ++attempt) {
    answer = Get(server_->port(), "/vol/info");
    if (answer.starts_with("HTTP/1.1 200")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 200 OK\r\n"));
}

TEST_F(HostileClientsTest, MalformedAndOversizedHeads) {
  Start({.threads = 1});
  const std::string huge =
      "GET /vol/info HTTP/1.1\r\nX-Big: " + std::string(70 * 1024, 'a') + "\r\n\r\n";
  EXPECT_THAT(Exchange(server_->port(), huge),
              StartsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
  EXPECT_THAT(Exchange(server_->port(), "garbage\r\n\r\n"), StartsWith("HTTP/1.1 400"));
  EXPECT_THAT(Exchange(server_->port(), "GET /vol/info HTTP/9.9\r\n\r\n"),
              StartsWith("HTTP/1.1 400"));
  EXPECT_THAT(Exchange(server_->port(), "GET /vol/info HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"),
              StartsWith("HTTP/1.1 400"));
  // A client that sends its request and half-closes still gets the answer.
  const int fd = Connect(server_->port());
  ASSERT_TRUE(SendText(fd, "GET /vol/info HTTP/1.1\r\nHost: x\r\n\r\n"));
  ::shutdown(fd, SHUT_WR);
  const std::string answer = ReadToEnd(fd);
  ::close(fd);
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_EQ(Body(answer), "{\"a\": 1}");
}

// HEAD answers carry no body, errors included, so a kept-alive connection
// stays in step.
TEST_F(HostileClientsTest, HeadErrorsHaveNoBody) {
  Start({.threads = 1});
  const std::string answer =
      Exchange(server_->port(),
               "HEAD /vol/missing HTTP/1.1\r\nHost: x\r\n\r\n"
               "GET /vol/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 404 Not Found\r\n"));
  const std::size_t second = answer.find("\r\n\r\n") + 4;
  EXPECT_THAT(answer.substr(second), StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_EQ(Body(answer.substr(second)), "{\"a\": 1}");
}

TEST_F(HostileClientsTest, AbsurdOptionsAreRefused) {
  for (const std::size_t threads : {std::size_t{1025}, std::size_t{1} << 40}) {
    Result<std::unique_ptr<HttpServer>> server = HttpServer::Start(store_, {.threads = threads});
    EXPECT_EQ(server.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(server.status().message()),
                HasSubstr("http server: threads " + std::to_string(threads) +
                          " is over the limit of 1024"));
  }
  EXPECT_EQ(HttpServer::Start(store_, {.max_connections = 0}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(HttpServer::Start(store_, {.idle_timeout_s = 0}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(HttpServer::Start(store_, {.threads = 1024}).ok());
}

// Stop ends held connections at once: their clients see the end.
TEST_F(HostileClientsTest, StopEndsHeldConnections) {
  Start({.threads = 1, .idle_timeout_s = 60, .send_timeout_s = 60});
  HoldHalfHeads(2);
  HoldNonReaders(1);
  server_.reset();
  for (const int fd : held_) {
    const std::string rest = ReadToEnd(fd);  // 10 s timeout: returns at the close.
    char byte;
    EXPECT_EQ(::recv(fd, &byte, 1, MSG_DONTWAIT), 0) << "fd " << fd << " still open";
    (void)rest;
  }
}

}  // namespace
}  // namespace chunkwise::store
