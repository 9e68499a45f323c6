// One value named by a URL ("/data/spec.json", "s3://bucket/refs.json"): the
// store over the URL's parent and the last segment as the key.
#ifndef CHUNKWISE_FACADE_URL_VALUE_H_
#define CHUNKWISE_FACADE_URL_VALUE_H_

#include <memory>
#include <string>
#include <string_view>

#include "chunkwise/facade/context.h"

namespace chunkwise {

struct UrlValue {
  std::shared_ptr<store::Store> store;
  std::string key;
};

// The store over the parent of `url` (created when `create`) and the value's
// key. InvalidArgument naming the URL when it names no value ("s3://bucket",
// "/", "memory://x").
Result<UrlValue> LocateUrlValue(const Context& context, std::string_view url, bool create);

// Where `url` is a local directory (an output of several values about to be
// written again), removes the temporary files its killed writers left.
Status RemoveDeadTemporariesAt(std::string_view url);

// The bytes at `url`; NotFound naming it when absent.
Result<Bytes> ReadUrl(const Context& context, std::string_view url);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_URL_VALUE_H_
