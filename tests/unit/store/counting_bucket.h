// A CountingServer (counting_http_server.h) reached as S3 bucket "bkt", for
// the tests of batched puts and read-modify-writes over S3
// (http_batched_puts_test.cc, batched_updates_test.cc).
#ifndef CHUNKWISE_TESTS_UNIT_STORE_COUNTING_BUCKET_H_
#define CHUNKWISE_TESTS_UNIT_STORE_COUNTING_BUCKET_H_

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>

#include "store/s3_store.h"
#include "unit/store/counting_http_server.h"

namespace chunkwise::test {

// One retry after at most 2 ms: the test's server answers at once or never.
inline store::RetryPolicy OneQuickRetry() {
  return {.max_attempts = 2,
          .initial_backoff = std::chrono::milliseconds(1),
          .max_backoff = std::chrono::milliseconds(2)};
}

// The server's files as bucket "bkt": requests go unsigned, path-style, with
// one retry; a reader's opening fetches the last `reader_tail_bytes` of a
// value with its size.
inline std::shared_ptr<store::S3Store> OpenBucket(
    const CountingServer& server,
    std::uint64_t reader_tail_bytes = store::RangeReadOptions{}.reader_tail_bytes) {
  store::S3StoreOptions options;
  options.location.bucket = "bkt";
  options.endpoint = server.Url("");
  options.addressing = store::S3AddressingStyle::kPath;
  options.transfer.reads.reader_tail_bytes = reader_tail_bytes;
  options.http.retry = OneQuickRetry();
  Result<std::shared_ptr<store::S3Store>> store = store::S3Store::Open(options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? *store : nullptr;
}

// A server holding only the bucket itself, so that it stores what is put.
inline std::unique_ptr<CountingServer> BucketServer() {
  auto server = std::make_unique<CountingServer>(Bytes{});
  server->AddFile("/bkt", {});
  return server;
}

}  // namespace chunkwise::test

#endif  // CHUNKWISE_TESTS_UNIT_STORE_COUNTING_BUCKET_H_
