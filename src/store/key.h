// Store keys: the validated "/"-separated relative paths every store accepts.
//
// A key names one value, like a relative POSIX path: segments separated by
// "/", no leading "/", no empty, "." or ".." segments, and no NUL, backslash
// or other control characters. These rules are what let FileStore map a key
// onto a path that can never leave its root, and they keep keys portable
// between stores (zarr v3 spec, "Abstract store interface": keys are
// "/"-separated). A prefix, as passed to Store::List, is a plain string
// prefix of keys: its last segment may be incomplete ("c/0" matches
// "c/0/1" and "c/07").
#ifndef CHUNKWISE_STORE_KEY_H_
#define CHUNKWISE_STORE_KEY_H_

#include <string>
#include <string_view>

#include "chunkwise/core/status.h"

namespace chunkwise::store {

// OK if `key` is a valid key; otherwise InvalidArgument naming the key (with
// unprintable bytes escaped) and the rule it breaks.
Status ValidateKey(std::string_view key);

// OK if `prefix` can begin a valid key: empty, or every complete segment (one
// followed by "/") obeys the key rules and the characters are allowed. A
// trailing "/" is allowed ("a/b/"); "a//", "/a" and "../" are not.
Status ValidatePrefix(std::string_view prefix);

// `key` in double quotes with control bytes, backslashes and quotes escaped
// (\xNN), for error messages.
std::string QuoteKey(std::string_view key);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_KEY_H_
