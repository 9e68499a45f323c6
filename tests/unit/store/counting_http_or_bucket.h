// A CountingServer's files read over plain HTTP or as S3 bucket "bkt"
// (counting_bucket.h), for the tests that read the same files both ways
// (the shard read tests in tests/unit/formats).
#ifndef CHUNKWISE_TESTS_UNIT_STORE_COUNTING_HTTP_OR_BUCKET_H_
#define CHUNKWISE_TESTS_UNIT_STORE_COUNTING_HTTP_OR_BUCKET_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "store/http_store.h"
#include "store/range_read_options.h"
#include "unit/store/counting_bucket.h"
#include "unit/store/counting_http_server.h"

namespace chunkwise::test {

// The server's files as bucket "bkt" (`as_bucket`) or at its root over
// HTTP, with one retry; a reader's opening fetches the last
// `reader_tail_bytes` of a value with its size.
inline std::shared_ptr<store::Store> OpenHttpOrBucket(
    const CountingServer& server, bool as_bucket,
    std::uint64_t reader_tail_bytes = store::RangeReadOptions{}.reader_tail_bytes) {
  if (as_bucket) return OpenBucket(server, reader_tail_bytes);
  store::HttpStoreOptions options;
  options.base_url = server.Url("");
  options.reads.reader_tail_bytes = reader_tail_bytes;
  options.http.retry = OneQuickRetry();
  Result<std::shared_ptr<store::HttpStore>> store = store::HttpStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? *store : nullptr;
}

}  // namespace chunkwise::test

#endif  // CHUNKWISE_TESTS_UNIT_STORE_COUNTING_HTTP_OR_BUCKET_H_
