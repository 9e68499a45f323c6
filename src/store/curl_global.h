// libcurl's process-wide initialisation, done once before the first handle.
#ifndef CHUNKWISE_SRC_STORE_CURL_GLOBAL_H_
#define CHUNKWISE_SRC_STORE_CURL_GLOBAL_H_

namespace chunkwise::store {

// curl_global_init is not thread-safe; every user of libcurl calls this first.
void InitCurlOnce();

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_CURL_GLOBAL_H_
