#include "chunkwise/store/reference_store.h"

#include <system_error>

#include "core/file_io.h"
#include "store/http_client.h"
#include "store/key.h"

namespace chunkwise::store {
namespace {

namespace fs = std::filesystem;

// Bounds the URL cache: a set with millions of distinct files re-resolves.
constexpr std::size_t kMaxCachedTargets = 65536;

std::string Scheme(std::string_view url) {
  const std::size_t colon = url.find("://");
  if (colon == std::string_view::npos) return "";
  return std::string(url.substr(0, colon));
}

bool IsUnder(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (r->empty() && std::next(r) == root.end()) return true;  // root ends in "/".
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

std::string DescribeReference(const Reference& reference) {
  if (reference.kind == Reference::Kind::kWholeFile) return "[\"" + reference.url + "\"]";
  return "[\"" + reference.url + "\", " + std::to_string(reference.offset) + ", " +
         std::to_string(reference.length) + "]";
}

}  // namespace

ReferenceStore::ReferenceStore(std::shared_ptr<const ReferenceIndex> index,
                               ReferenceStoreOptions options, std::vector<fs::path> roots)
    : index_(std::move(index)), options_(std::move(options)), roots_(std::move(roots)) {}

Result<std::shared_ptr<ReferenceStore>> ReferenceStore::Open(
    std::shared_ptr<const ReferenceIndex> index, ReferenceStoreOptions options) {
  if (options.refuse_local_targets) options.allowed_roots.clear();
  if (options.allowed_roots.empty() && !options.refuse_local_targets) {
    options.allowed_roots.push_back(options.base_directory);
  }
  std::vector<fs::path> roots;
  for (const fs::path& root : options.allowed_roots) {
    std::error_code error;
    fs::path canonical = fs::canonical(fs::absolute(root, error), error);
    if (error) {
      return Status::InvalidArgument("allowed root " + root.string() + ": " + error.message());
    }
    roots.push_back(std::move(canonical));
  }
  return std::shared_ptr<ReferenceStore>(
      new ReferenceStore(std::move(index), std::move(options), std::move(roots)));
}

Status ReferenceStore::Fault(std::string_view key, const Reference& reference,
                             const std::string& what) const {
  return Status::InvalidArgument(Describe(key) + ": reference " + DescribeReference(reference) +
                                 ": " + what);
}

Result<ReferenceStore::Target> ReferenceStore::ResolveLocal(std::string_view key,
                                                            const std::string& url,
                                                            fs::path path) const {
  if (path.is_relative()) path = options_.base_directory / path;
  std::error_code error;
  const fs::path canonical = fs::weakly_canonical(fs::absolute(path, error), error);
  if (error) return Status::IOError(Describe(key) + ": " + url + ": " + error.message());
  bool allowed = false;
  for (const fs::path& root : roots_) allowed = allowed || IsUnder(canonical, root);
  if (!allowed) {
    return Status::InvalidArgument(Describe(key) + ": " + url + " resolves to " +
                                   canonical.string() + ", outside the allowed roots")
        .WithField("allowed_roots");
  }
  const std::uint64_t size = fs::file_size(canonical, error);
  if (error) {
    if (error == std::errc::no_such_file_or_directory) {
      return Status::NotFound(Describe(key) + ": " + url + " does not exist (" +
                              canonical.string() + ")");
    }
    return Status::IOError(Describe(key) + ": " + url + ": " + error.message());
  }
  return Target{canonical, "", {}, size};
}

Result<ReferenceStore::Target> ReferenceStore::ResolveTarget(std::string_view key,
                                                             const std::string& url) const {
  {
    std::lock_guard lock(cache_mutex_);
    if (auto found = cache_.find(url); found != cache_.end()) return found->second;
  }
  if (url.empty()) {
    return Status::InvalidArgument(Describe(key) + ": the reference has a null URL, and " +
                                   "default targets are not supported");
  }
  const std::string scheme = Scheme(url);
  Target target;
  if ((scheme.empty() || scheme == "file") && options_.refuse_local_targets) {
    return Status::InvalidArgument(Describe(key) + ": " + url +
                                   " is a local path, and a set read from object storage may not "
                                   "point at this machine's files");
  }
  if (scheme.empty() || scheme == "file") {
    const std::string path = scheme.empty() ? url : url.substr(7);
    CHUNKWISE_ASSIGN_OR_RETURN(target, ResolveLocal(key, url, fs::path(path)));
  } else if (scheme == "http" || scheme == "https") {
    if (!options_.allow_remote) {
      return Status::InvalidArgument(Describe(key) + ": " + url +
                                     " is remote, and remote references are not allowed")
          .WithField("allow_remote");
    }
    target.remote_url = url;
    Result<std::uint64_t> size = HttpSize(url);
    if (!size.ok()) return size.status().WithContext(Describe(key));
    target.size = *size;
  } else if (options_.open_target && !scheme.empty()) {
    if (!options_.allow_remote) {
      return Status::InvalidArgument(Describe(key) + ": " + url +
                                     " is remote, and remote references are not allowed")
          .WithField("allow_remote");
    }
    Result<TargetLocation> location = options_.open_target(url);
    if (!location.ok()) return location.status().WithContext(Describe(key));
    Result<std::optional<std::uint64_t>> size = location->store->Size(location->key);
    if (!size.ok()) return size.status().WithContext(Describe(key));
    if (!size->has_value()) {
      return Status::NotFound(Describe(key) + ": " + url + " does not exist");
    }
    target.remote_url = url;
    target.location = *std::move(location);
    target.size = **size;
  } else {
    return Status::Unsupported(Describe(key) + ": " + url + ": the scheme \"" + scheme +
                               "\" is not supported (local paths, file://, http:// and "
                               "https:// are)");
  }
  std::lock_guard lock(cache_mutex_);
  if (cache_.size() >= kMaxCachedTargets) cache_.clear();
  cache_.emplace(url, target);
  return target;
}

Result<std::optional<ResolvedReference>> ReferenceStore::Resolve(std::string_view key) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Reference> reference, index_->Find(key));
  if (!reference) return std::optional<ResolvedReference>();
  ResolvedReference resolved;
  resolved.reference = std::move(*reference);
  const Reference& ref = resolved.reference;
  if (ref.kind == Reference::Kind::kInline) {
    resolved.target_size = ref.data.size();
    return std::optional<ResolvedReference>(std::move(resolved));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const Target target, ResolveTarget(key, ref.url));
  if (ref.kind == Reference::Kind::kRange &&
      (ref.offset > target.size || ref.length > target.size - ref.offset)) {
    return Status::OutOfRange(Describe(key) + ": reference " + DescribeReference(ref) +
                              " ends at byte " + std::to_string(ref.offset + ref.length) +
                              ", past the end of the " + std::to_string(target.size) +
                              "-byte target");
  }
  resolved.path = target.path;
  resolved.remote_url = target.remote_url;
  resolved.location = target.location;
  resolved.target_size = target.size;
  return std::optional<ResolvedReference>(std::move(resolved));
}

Result<Bytes> ReferenceStore::ReadTarget(const ResolvedReference& resolved, std::uint64_t offset,
                                         std::uint64_t length) const {
  const Reference& ref = resolved.reference;
  if (ref.kind == Reference::Kind::kInline) {
    return CopyToBytes(ByteView(ref.data).subspan(offset, length));
  }
  const std::uint64_t start = (ref.kind == Reference::Kind::kRange ? ref.offset : 0) + offset;
  if (resolved.location.store != nullptr) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        std::optional<Bytes> bytes,
        resolved.location.store->GetRange(resolved.location.key, ByteRange::Span(start, length)));
    if (!bytes || bytes->size() != length) {
      return Status::Corruption(resolved.remote_url + ": " + std::to_string(length) +
                                " bytes from " + std::to_string(start) + " wanted, " +
                                (bytes ? std::to_string(bytes->size()) + " read" : "gone"));
    }
    return std::move(*bytes);
  }
  if (!resolved.remote_url.empty()) return HttpGet(resolved.remote_url, start, length);
  return core::ReadFileRange(resolved.path, start, length);
}

Result<std::optional<Bytes>> ReferenceStore::Get(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<ResolvedReference> resolved, Resolve(key));
  if (!resolved) return std::optional<Bytes>();
  const std::uint64_t length = resolved->reference.kind == Reference::Kind::kRange
                                   ? resolved->reference.length
                                   : resolved->target_size;
  Result<Bytes> bytes = ReadTarget(*resolved, 0, length);
  if (!bytes.ok()) return bytes.status().WithContext(Describe(key));
  return std::optional<Bytes>(std::move(*bytes));
}

Result<std::optional<Bytes>> ReferenceStore::GetRange(std::string_view key, ByteRange range) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<ResolvedReference> resolved, Resolve(key));
  if (!resolved) return std::optional<Bytes>();
  const std::uint64_t size = resolved->reference.kind == Reference::Kind::kRange
                                 ? resolved->reference.length
                                 : resolved->target_size;
  CHUNKWISE_ASSIGN_OR_RETURN(const ByteRange within, range.Resolve(size, Describe(key)));
  Result<Bytes> bytes = ReadTarget(*resolved, within.offset, within.length);
  if (!bytes.ok()) return bytes.status().WithContext(Describe(key));
  return std::optional<Bytes>(std::move(*bytes));
}

Status ReferenceStore::Set(std::string_view key, ByteView) {
  return Status::Unsupported(Describe(key) + ": a reference store is read-only");
}

Status ReferenceStore::Erase(std::string_view key) {
  return Status::Unsupported(Describe(key) + ": a reference store is read-only");
}

Result<std::vector<std::string>> ReferenceStore::List(std::string_view prefix) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidatePrefix(prefix));
  return index_->Keys(prefix);
}

Result<std::optional<std::uint64_t>> ReferenceStore::Size(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<ResolvedReference> resolved, Resolve(key));
  if (!resolved) return std::optional<std::uint64_t>();
  return std::optional<std::uint64_t>(resolved->reference.kind == Reference::Kind::kRange
                                          ? resolved->reference.length
                                          : resolved->target_size);
}

StoreCapabilities ReferenceStore::capabilities() const {
  return {.writable = false,
          .listable = true,
          .lists_every_key = true,
          .efficient_ranges = true,
          .durable = true};
}

std::string ReferenceStore::Describe(std::string_view key) const {
  return options_.name + ":" + std::string(key);
}

}  // namespace chunkwise::store
