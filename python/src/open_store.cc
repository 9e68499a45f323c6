#include "open_store.h"

#include "chunkwise/chunkwise.h"
#include "operation.h"

namespace chunkwise::python {

Result<std::shared_ptr<store::Store>> OpenStoreForUrl(std::string_view url, bool create) {
  if (url.empty()) return Status::InvalidArgument("an empty path names no store");
  // The module Context's registry holds the memory:// stores, so "memory://NAME"
  // is the same store on every call, as in one CLI run.
  const Context& context = ModuleContext();
  return OpenStore(context, url, context.store_options(create));
}

}  // namespace chunkwise::python
