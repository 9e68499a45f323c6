// Resolves versioned entries during a key scan: of all versions of one key
// (adjacent in key order), the one from the nearest ancestor wins, and a
// winning tombstone hides the key. Private to src/formats/dvid.
#ifndef CHUNKWISE_SRC_FORMATS_DVID_VISIBLE_SCAN_H_
#define CHUNKWISE_SRC_FORMATS_DVID_VISIBLE_SCAN_H_

#include <cstdint>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "store/rocksdb_store.h"

namespace chunkwise::formats::dvid::detail {

// How versioned keys of one kind are laid out: `position_size` bytes name the
// thing, a u32 big-endian version follows, the last byte is the KeyType.
struct VersionedKeyLayout {
  std::size_t position_size;
  std::size_t key_size;
};

// Version id → distance from the version being read.
using AncestorDistanceMap = std::unordered_map<std::uint32_t, std::uint32_t>;

// Called once per visible key with the winning entry's full key and value.
using VisibleVisitor = std::function<Status(std::string_view key, ByteView value)>;

// Scans binary keys in [begin, end) of `db` and calls `visit` for each key
// visible through `distances`. Corruption naming the key for a key of the
// wrong size in the range.
Status ScanVisible(const store::RocksDbStore& db, std::string_view begin, std::string_view end,
                   const VersionedKeyLayout& layout, const AncestorDistanceMap& distances,
                   const VisibleVisitor& visit);

}  // namespace chunkwise::formats::dvid::detail

#endif  // CHUNKWISE_SRC_FORMATS_DVID_VISIBLE_SCAN_H_
