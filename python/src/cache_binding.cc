// The module Context's chunk cache (ContextOptions::cache_bytes): its limit
// and its counters, for chunkwise.set_cache_bytes and chunkwise.cache_stats.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "operation.h"

namespace nb = nanobind;

namespace chunkwise::python {

void BindCache(nb::module_& module) {
  module.def(
      "set_cache_bytes", [](std::uint64_t bytes) { ModuleContext().SetCacheBytes(bytes); },
      nb::arg("nbytes"));
  module.def("cache_stats", [] {
    const CacheStats stats = ModuleContext().cache_stats();
    nb::dict counts;
    counts["hits"] = stats.hits;
    counts["misses"] = stats.misses;
    counts["insertions"] = stats.insertions;
    counts["evictions"] = stats.evictions;
    counts["invalidations"] = stats.invalidations;
    counts["rejected"] = stats.rejected;
    counts["entries"] = stats.entries;
    counts["bytes"] = stats.bytes;
    counts["limit_bytes"] = stats.limit_bytes;
    return counts;
  });
  module.def("reset_cache_stats", [] { ModuleContext().ResetCacheStats(); });
}

}  // namespace chunkwise::python
