#include "formats/dvid/visible_scan.h"

#include <optional>
#include <string>

#include "formats/dvid/block_key.h"

namespace chunkwise::formats::dvid::detail {
namespace {

// The best entry seen so far for the current key position.
struct Candidate {
  std::string position;
  std::string key;
  Bytes value;
  std::uint32_t distance = 0;
  bool tombstone = false;
  bool found = false;
};

}  // namespace

Status ScanVisible(const store::RocksDbStore& db, std::string_view begin, std::string_view end,
                   const VersionedKeyLayout& layout, const AncestorDistanceMap& distances,
                   const VisibleVisitor& visit) {
  Candidate best;
  bool have_position = false;
  auto flush = [&]() -> Status {
    if (best.found && !best.tombstone) return visit(best.key, best.value);
    return Status::Ok();
  };
  CHUNKWISE_RETURN_IF_ERROR(
      db.ScanBinary(begin, end, [&](const store::KeyValueView& entry) -> Result<bool> {
        if (entry.key.size() != layout.key_size) {
          return Status::Corruption("rocksdb:" + db.path().string() + ": key " + HexKey(entry.key) +
                                    " has " + std::to_string(entry.key.size()) +
                                    " bytes, expected " + std::to_string(layout.key_size));
        }
        const std::string_view position = entry.key.substr(0, layout.position_size);
        if (!have_position || position != best.position) {
          CHUNKWISE_RETURN_IF_ERROR(flush());
          best.position.assign(position);
          best.found = false;
          have_position = true;
        }
        std::uint32_t version = 0;
        for (std::size_t i = 0; i < 4; ++i) {
          version = (version << 8) | static_cast<std::uint8_t>(entry.key[layout.position_size + i]);
        }
        const auto it = distances.find(version);
        if (it == distances.end() || (best.found && it->second >= best.distance)) return true;
        best.found = true;
        best.distance = it->second;
        best.key.assign(entry.key);
        best.tombstone = static_cast<std::uint8_t>(entry.key.back()) ==
                         static_cast<std::uint8_t>(KeyType::kTombstone);
        best.value.assign(entry.value.begin(), entry.value.end());
        return true;
      }));
  return flush();
}

}  // namespace chunkwise::formats::dvid::detail
