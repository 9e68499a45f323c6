// A store that drops every value: what a format or an array costs without
// any I/O, for the benchmarks that split their time into steps.
#ifndef CHUNKWISE_BENCH_DISCARD_STORE_H_
#define CHUNKWISE_BENCH_DISCARD_STORE_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/store/store.h"

namespace chunkwise::bench {

class DiscardStore final : public store::Store {
 public:
  Result<std::optional<Bytes>> Get(std::string_view) const override {
    return std::optional<Bytes>();
  }
  Result<std::optional<Bytes>> GetRange(std::string_view, store::ByteRange) const override {
    return std::optional<Bytes>();
  }
  Status Set(std::string_view, ByteView) override { return Status::Ok(); }
  Status SetParts(std::string_view, std::span<const ByteView>) override { return Status::Ok(); }
  Status Erase(std::string_view) override { return Status::Ok(); }
  Result<std::vector<std::string>> List(std::string_view) const override {
    return std::vector<std::string>();
  }
  Result<std::optional<std::uint64_t>> Size(std::string_view) const override {
    return std::optional<std::uint64_t>();
  }
  store::StoreCapabilities capabilities() const override { return {.writable = true}; }
  std::string Describe(std::string_view key) const override {
    return "discard:" + std::string(key);
  }
};

}  // namespace chunkwise::bench

#endif  // CHUNKWISE_BENCH_DISCARD_STORE_H_
