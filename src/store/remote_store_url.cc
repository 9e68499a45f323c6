#include "store/remote_store_url.h"

namespace chunkwise::store {

bool IsRemoteStoreUrl(std::string_view url) {
  return url.starts_with("s3://") || url.starts_with("gs://") || url.starts_with("http://") ||
         url.starts_with("https://");
}

Result<std::shared_ptr<Store>> OpenRemoteStore(std::string_view url,
                                               const RemoteStoreOptions& options) {
  if (url.starts_with("http://") || url.starts_with("https://")) {
    HttpStoreOptions http;
    http.base_url = std::string(url);
    http.http = options.http;
    http.reads = options.http_reads;
    http.lister = options.http_lister;
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<HttpStore> store, HttpStore::Open(std::move(http)));
    return std::shared_ptr<Store>(std::move(store));
  }
  if (!url.starts_with("s3://") && !url.starts_with("gs://")) {
    return Status::InvalidArgument(std::string(url) +
                                   " is not an s3://, gs://, http:// or https:// URL");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(AwsSettings settings,
                             LoadAwsSettings(options.environment, options.profile));
  CHUNKWISE_ASSIGN_OR_RETURN(S3StoreOptions s3, S3StoreOptions::ForUrl(url, settings));
  const std::string ca_bundle = s3.http.ca_bundle;
  s3.http = options.http;
  if (!ca_bundle.empty()) s3.http.ca_bundle = ca_bundle;
  s3.transfer = options.s3_transfer;
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<S3Store> store, S3Store::Open(std::move(s3)));
  return std::shared_ptr<Store>(std::move(store));
}

}  // namespace chunkwise::store
