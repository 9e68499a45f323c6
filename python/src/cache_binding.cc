// The module Context's chunk cache (ContextOptions::cache_bytes): its limit
// and its counters, for chunkwise.set_cache_bytes and chunkwise.cache_stats;
// and how its sharded reads coalesce (ContextOptions::read_coalescing), for
// chunkwise.set_read_coalescing and chunkwise.read_coalescing.
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
  module.def(
      "set_read_coalescing",
      [](bool remote, bool local, std::uint64_t max_gap, double max_waste,
         std::uint64_t max_request, std::uint64_t small_gap) {
        ModuleContext().SetReadCoalescing(
            {remote, local, {max_gap, max_waste, max_request, small_gap}});
      },
      nb::arg("remote"), nb::arg("local"), nb::arg("max_gap"), nb::arg("max_waste"),
      nb::arg("max_request"), nb::arg("small_gap"));
  module.def("read_coalescing", [] {
    const store::ReadCoalescing coalescing = ModuleContext().read_coalescing();
    nb::dict settings;
    settings["remote"] = coalescing.remote;
    settings["local"] = coalescing.local;
    settings["max_gap"] = coalescing.limits.max_gap;
    settings["max_waste"] = coalescing.limits.max_waste;
    settings["max_request"] = coalescing.limits.max_request;
    settings["small_gap"] = coalescing.limits.small_gap;
    return settings;
  });
}

}  // namespace chunkwise::python
