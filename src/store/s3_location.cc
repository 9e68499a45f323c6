#include "store/s3_location.h"

#include "store/key.h"

namespace chunkwise::store {
namespace {

Status CheckBucket(std::string_view bucket, bool gcs, std::string_view url) {
  const std::size_t max_length = gcs ? 222 : 63;
  auto fault = [&](std::string_view what) {
    return Status::InvalidArgument("bucket \"" + std::string(bucket) + "\" in " + std::string(url) +
                                   ": " + std::string(what));
  };
  if (bucket.size() < 3 || bucket.size() > max_length) {
    return fault("a bucket name has 3 to " + std::to_string(max_length) + " characters");
  }
  for (char c : bucket) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
                         (gcs && c == '_');
    if (!allowed) return fault("a bucket name has only lowercase letters, digits, \".\" and \"-\"");
  }
  const char first = bucket.front(), last = bucket.back();
  if (first == '.' || first == '-' || last == '.' || last == '-') {
    return fault("a bucket name starts and ends with a letter or digit");
  }
  return Status::Ok();
}

}  // namespace

std::string S3Location::Url(std::string_view key) const {
  return scheme + "://" + bucket + "/" + prefix + std::string(key);
}

Result<S3Location> ParseS3Url(std::string_view url) {
  S3Location location;
  std::string_view rest;
  if (url.starts_with("s3://")) {
    rest = url.substr(5);
  } else if (url.starts_with("gs://")) {
    location.scheme = "gs";
    rest = url.substr(5);
  } else {
    return Status::InvalidArgument(std::string(url) + " is not an s3:// or gs:// URL");
  }
  const std::size_t slash = rest.find('/');
  location.bucket = std::string(rest.substr(0, slash));
  CHUNKWISE_RETURN_IF_ERROR(CheckBucket(location.bucket, location.scheme == "gs", url));
  if (slash != std::string_view::npos) {
    std::string prefix(rest.substr(slash + 1));
    if (!prefix.empty() && prefix.back() != '/') prefix += '/';
    if (Status status = ValidatePrefix(prefix); !status.ok()) {
      return Status::InvalidArgument("the key prefix of " + std::string(url) + ": " +
                                     std::string(status.message()));
    }
    location.prefix = std::move(prefix);
  }
  return location;
}

}  // namespace chunkwise::store
