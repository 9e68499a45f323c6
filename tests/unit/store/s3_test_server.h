// The S3-protocol servers (and the HTTP file server) the remote store tests talk to.
//
// Under CTest the fixture "s3_server" has started them (moto, a fault proxy
// in front of it, and a moto that checks signatures; see
// tests/support/s3_test_server.py) and CHUNKWISE_TEST_S3_STATE names the file
// that says where. A test program run by hand starts its own, once. Without
// them the test fails: the server is the peer these tests need.
#ifndef CHUNKWISE_TESTS_UNIT_STORE_S3_TEST_SERVER_H_
#define CHUNKWISE_TESTS_UNIT_STORE_S3_TEST_SERVER_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>

#include "store/http_transport.h"
#include "store/s3_store.h"

namespace chunkwise::test {

struct S3TestServers {
  std::string endpoint;  // moto
  std::string proxy;     // the fault proxy in front of it
  std::string region;
  std::string access_key_id, secret_access_key;
  std::string signing_endpoint, signing_bucket, signing_key_id, signing_secret;
  std::string http;  // A file server with Range support, for the files under http_root.
  std::string http_root;
};

namespace internal {

inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::filesystem::path StartOwnServers() {
  const std::filesystem::path state =
      std::filesystem::temp_directory_path() /
      ("chunkwise_s3_state." + std::to_string(::getpid()) + ".json");
  const std::string source = CHUNKWISE_SOURCE_DIR;
  const std::string command = source + "/.venv/bin/python " + source +
                              "/tests/support/s3_test_server.py start --state " + state.string() +
                              " > /dev/null";
  if (std::system(command.c_str()) != 0) return {};  // NOLINT(cert-env33-c): test setup
  static std::string stop_command;
  stop_command = source + "/.venv/bin/python " + source +
                 "/tests/support/s3_test_server.py stop --state " + state.string();
  std::atexit([] { (void)std::system(stop_command.c_str()); });  // NOLINT(cert-env33-c)
  return state;
}

}  // namespace internal

// The servers, or null after failing the current test with the reason.
inline const S3TestServers* TestS3Servers() {
  static const std::unique_ptr<S3TestServers> servers = []() -> std::unique_ptr<S3TestServers> {
    std::filesystem::path state;
    if (const char* from_ctest = std::getenv("CHUNKWISE_TEST_S3_STATE")) state = from_ctest;
    if (state.empty() || !std::filesystem::exists(state)) state = internal::StartOwnServers();
    if (state.empty() || !std::filesystem::exists(state)) return nullptr;
    const nlohmann::json json = nlohmann::json::parse(internal::ReadText(state), nullptr, false);
    if (json.is_discarded()) return nullptr;
    auto result = std::make_unique<S3TestServers>();
    result->endpoint = json.at("endpoint");
    result->proxy = json.at("proxy");
    result->region = json.at("region");
    result->access_key_id = json.at("access_key_id");
    result->secret_access_key = json.at("secret_access_key");
    result->signing_endpoint = json.at("signing").at("endpoint");
    result->signing_bucket = json.at("signing").at("bucket");
    result->signing_key_id = json.at("signing").at("key_id");
    result->signing_secret = json.at("signing").at("secret");
    result->http = json.at("http");
    result->http_root = json.at("http_root");
    return result;
  }();
  if (servers == nullptr) {
    ADD_FAILURE() << "the S3 test servers are not running and could not be started "
                     "(tests/support/s3_test_server.py with .venv's python, moto[server])";
  }
  return servers.get();
}

// A prefix no other store of any test process uses: "t<pid>-<n>-<random>/".
inline std::string FreshS3Prefix(std::string_view name = "t") {
  static std::atomic<int> counter{0};
  static const unsigned salt = std::random_device{}();
  return std::string(name) + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
         std::to_string(salt % 100000) + "/";
}

// Options for a fresh prefix of `bucket` at `endpoint` (moto's by default),
// with the servers' keys, 5 MiB parts, multipart above 10 MiB and quick retries.
inline store::S3StoreOptions TestS3Options(const S3TestServers& servers,
                                           std::string bucket = "chunkwise-test",
                                           std::string endpoint = "") {
  store::S3StoreOptions options;
  options.location.bucket = std::move(bucket);
  options.location.prefix = FreshS3Prefix();
  options.endpoint = endpoint.empty() ? servers.endpoint : std::move(endpoint);
  options.region = servers.region;
  options.addressing = store::S3AddressingStyle::kPath;
  options.credentials.access_key_id = servers.access_key_id;
  options.credentials.secret_access_key = servers.secret_access_key;
  options.credentials.source = "the test servers";
  options.transfer.part_size = std::uint64_t{5} << 20;
  options.transfer.multipart_threshold = std::uint64_t{10} << 20;  // Multipart uploads stay small.
  options.http.retry.initial_backoff = std::chrono::milliseconds(1);
  options.http.retry.max_backoff = std::chrono::milliseconds(20);
  return options;
}

inline std::shared_ptr<store::S3Store> OpenTestS3Store(store::S3StoreOptions options) {
  Result<std::shared_ptr<store::S3Store>> opened = store::S3Store::Open(std::move(options));
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
  return opened.ok() ? *opened : nullptr;
}

// The fault proxy's control endpoints (tests/support/s3_test_server.py).
class FaultProxy {
 public:
  explicit FaultProxy(std::string base) : base_(std::move(base)) {}

  // `rules`: an array of rules, or one rule (a brace list of one rule is its object).
  void SetFaults(const nlohmann::json& rules) const {
    const nlohmann::json list = rules.is_array() ? rules : nlohmann::json::array({rules});
    Send("POST", "/__proxy__/faults", list.dump());
  }
  void Reset() const { Send("POST", "/__proxy__/reset", ""); }
  nlohmann::json Stats() const {
    return nlohmann::json::parse(Send("GET", "/__proxy__/stats", ""), nullptr, false);
  }
  // Requests of operation `op` ("GetObject", "UploadPart", ...) since the last Reset.
  int Count(const std::string& op) const {
    const nlohmann::json stats = Stats();
    return stats.is_object() && stats["ops"].contains(op) ? stats["ops"][op].get<int>() : 0;
  }

 private:
  std::string Send(const std::string& method, const std::string& path,
                   const std::string& body) const {
    store::HttpRequest request;
    request.method = method;
    request.url = base_ + path;
    const ByteView parts[] = {AsBytes(body)};
    if (method == "POST") {
      request.body = parts;
      request.has_body = true;
    }
    Result<store::HttpResponse> response =
        transport_.Send(request, store::BodyTarget::Collect(1 << 20), "proxy " + path);
    EXPECT_TRUE(response.ok() && response->status == 200)
        << (response.ok() ? std::to_string(response->status) : response.status().ToString());
    if (!response.ok()) return "";
    return std::string(reinterpret_cast<const char*>(response->body.data()), response->body.size());
  }

  std::string base_;
  store::HttpTransport transport_;
};

}  // namespace chunkwise::test

#endif  // CHUNKWISE_TESTS_UNIT_STORE_S3_TEST_SERVER_H_
