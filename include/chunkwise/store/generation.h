// Generation: which version of a key's value a reader saw, so that a write
// can go ahead only if the value is still that version (optimistic
// concurrency, as TensorStore does it).
//
// A generation is an opaque token that a store hands out and later compares
// for equality; nothing else may be read into it. Each store makes its own:
// the file store device, inode, size and modification time (made unique per
// conditional write), the memory store a counter, the RocksDB store a hash of
// the value, an object store the object's ETag (so that a conditional write
// is an If-Match, and "create if absent" an If-None-Match: *). The absent
// generation stands for "the key holds no value".
#ifndef CHUNKWISE_STORE_GENERATION_H_
#define CHUNKWISE_STORE_GENERATION_H_

#include <string>
#include <utility>

#include "chunkwise/core/bytes.h"

namespace chunkwise::store {

class Generation {
 public:
  // The absent generation: the key holds no value.
  Generation() = default;
  static Generation Absent() { return {}; }
  // A present value's generation. REQUIRES: `token` is not empty.
  static Generation Of(std::string token) { return Generation(std::move(token)); }

  bool absent() const { return token_.empty(); }
  // The store's token; empty when absent.
  const std::string& token() const { return token_; }
  // For messages: the token, or "absent".
  std::string ToString() const { return absent() ? "absent" : token_; }

  friend bool operator==(const Generation&, const Generation&) = default;

 private:
  explicit Generation(std::string token) : token_(std::move(token)) {}
  std::string token_;
};

// A value read together with the generation it was read at.
struct VersionedValue {
  Bytes value;
  Generation generation;
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_GENERATION_H_
