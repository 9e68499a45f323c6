#include "store/http_listing.h"

#include <nlohmann/json.hpp>

#include "store/key.h"

namespace chunkwise::store {
namespace {

using nlohmann::json;

Result<std::optional<json>> ReadJson(const Store& store, const std::string& key) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> bytes, store.Get(key));
  if (!bytes) return std::optional<json>();
  json document = json::parse(bytes->begin(), bytes->end(), nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    return Status::Corruption(store.Describe(key) + " is not a JSON object");
  }
  return std::optional<json>(std::move(document));
}

// Adds `root` + `member` + `document` when it makes a valid key.
void AddKey(const std::string& root, const std::string& member, std::string_view document,
            std::vector<std::string>* keys) {
  std::string key = root + member;
  if (!member.empty() && key.back() != '/') key += '/';
  key += document;
  if (ValidateKey(key).ok()) keys->push_back(std::move(key));
}

}  // namespace

Result<std::vector<std::string>> ZarrMetadataLister::ListKeys(const Store& store) const {
  std::vector<std::string> keys;
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<json> v3, ReadJson(store, root_ + "zarr.json"));
  if (v3) {
    keys.push_back(root_ + "zarr.json");
    const json* members = nullptr;
    if (auto consolidated = v3->find("consolidated_metadata");
        consolidated != v3->end() && consolidated->is_object()) {
      if (auto metadata = consolidated->find("metadata");
          metadata != consolidated->end() && metadata->is_object()) {
        members = &*metadata;
      }
    }
    if (members != nullptr) {
      for (const auto& [member, document] : members->items()) {
        AddKey(root_, member, "zarr.json", &keys);
      }
    }
    return keys;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<json> v2, ReadJson(store, root_ + ".zmetadata"));
  if (!v2) {
    return Status::NotFound(store.Describe(root_ + "zarr.json") + " and " +
                            store.Describe(root_ + ".zmetadata") +
                            " are missing: no zarr metadata says what the store holds");
  }
  keys.push_back(root_ + ".zmetadata");
  auto metadata = v2->find("metadata");
  if (metadata == v2->end() || !metadata->is_object()) {
    return Status::Corruption(store.Describe(root_ + ".zmetadata") + " has no \"metadata\" object");
  }
  for (const auto& [document, value] : metadata->items()) AddKey(root_, "", document, &keys);
  return keys;
}

}  // namespace chunkwise::store
