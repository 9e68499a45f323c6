#include "store/mount_store.h"

#include <algorithm>

namespace chunkwise::store {

std::pair<const Mount*, std::string_view> MountStore::Route(std::string_view key) const {
  for (const Mount& mount : mounts_) {
    if (key.starts_with(mount.folder) && key.size() > mount.folder.size()) {
      return {&mount, key.substr(mount.folder.size())};
    }
  }
  return {nullptr, {}};
}

ForwardedKey MountStore::RouteGet(std::string_view key) const {
  const auto [mount, inner] = Route(key);
  if (mount == nullptr) return {};
  return {mount->store.get(), std::string(inner)};
}

bool MountStore::ForwardsToBatches() const {
  return std::any_of(mounts_.begin(), mounts_.end(),
                     [](const Mount& mount) { return BatchesGets(*mount.store); });
}

Result<std::optional<Bytes>> MountStore::Get(std::string_view key) const {
  const auto [mount, inner] = Route(key);
  if (mount == nullptr) return std::optional<Bytes>();
  return mount->store->Get(inner);
}

Result<std::optional<Bytes>> MountStore::GetRange(std::string_view key, ByteRange range) const {
  const auto [mount, inner] = Route(key);
  if (mount == nullptr) return std::optional<Bytes>();
  return mount->store->GetRange(inner, range);
}

Result<bool> MountStore::GetRangesInto(std::string_view key, std::span<const ByteRange> ranges,
                                       MutableByteView out) const {
  const auto [mount, inner] = Route(key);
  if (mount == nullptr) return false;
  return mount->store->GetRangesInto(inner, ranges, out);
}

Result<std::unique_ptr<ValueReader>> MountStore::OpenReader(std::string_view key) const {
  const auto [mount, inner] = Route(key);
  if (mount == nullptr) return std::unique_ptr<ValueReader>();
  return mount->store->OpenReader(inner);
}

Status MountStore::Set(std::string_view key, ByteView) {
  return Status::Unsupported(Describe(key) + ": the viewer's store is read-only");
}

Status MountStore::Erase(std::string_view key) {
  return Status::Unsupported(Describe(key) + ": the viewer's store is read-only");
}

Result<std::vector<std::string>> MountStore::List(std::string_view prefix) const {
  std::vector<std::string> keys;
  for (const Mount& mount : mounts_) {
    std::string_view inner;
    if (prefix.starts_with(mount.folder)) {
      inner = prefix.substr(mount.folder.size());
    } else if (!mount.folder.starts_with(prefix)) {
      continue;
    }
    CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> found, mount.store->List(inner));
    for (const std::string& key : found) keys.push_back(mount.folder + key);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

Result<std::optional<std::uint64_t>> MountStore::Size(std::string_view key) const {
  const auto [mount, inner] = Route(key);
  if (mount == nullptr) return std::optional<std::uint64_t>();
  return mount->store->Size(inner);
}

StoreCapabilities MountStore::capabilities() const {
  StoreCapabilities all{.listable = true, .efficient_ranges = true, .local = true};
  for (const Mount& mount : mounts_) {
    const StoreCapabilities one = mount.store->capabilities();
    all.listable = all.listable && one.listable;
    all.efficient_ranges = all.efficient_ranges && one.efficient_ranges;
    all.local = all.local && one.local;
  }
  return all;
}

std::string MountStore::Describe(std::string_view key) const {
  const auto [mount, inner] = Route(key);
  if (mount == nullptr) return "mount:" + std::string(key);
  return mount->store->Describe(inner);
}

}  // namespace chunkwise::store
