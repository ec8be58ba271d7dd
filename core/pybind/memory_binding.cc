// oneflow.cpu memory statistics and control: the CPU caching allocator's
// counters as a dict, peak resets, empty_cache and the cache limit. The
// Python-facing names live in oneflow/cpu.py.

#include <cstddef>

#include "core/pybind/binding_registry.h"
#include "core/runtime/allocator.h"

namespace py = pybind11;

namespace oneflow {
namespace {

// Keys in torch.cuda.memory_stats()' style ("<stat>.all.<current|peak|allocated|freed>");
// the oneflow-specific ones (cache hits, cached bytes, the limit) follow the same scheme.
py::dict StatsDict() {
  CpuMemoryStats s = GetCpuMemoryStats();
  py::dict d;
  d["allocated_bytes.all.current"] = s.allocated;
  d["allocated_bytes.all.peak"] = s.peak;
  d["allocated_bytes.all.allocated"] = s.allocated_total;
  d["allocated_bytes.all.freed"] = s.freed_total;
  d["reserved_bytes.all.current"] = s.reserved;
  d["reserved_bytes.all.peak"] = s.reserved_peak;
  d["reserved_bytes.all.allocated"] = s.reserved_total;
  d["reserved_bytes.all.freed"] = s.released_total;
  d["cached_bytes.all.current"] = s.cached;
  d["allocation.all.current"] = s.num_allocations;
  d["allocation.all.peak"] = s.num_allocations_peak;
  d["allocation.all.allocated"] = s.num_allocs;
  d["allocation.all.freed"] = s.num_frees;
  d["num_cache_hits"] = s.num_cache_hits;
  d["num_device_alloc"] = s.num_device_alloc;
  d["num_device_free"] = s.num_device_free;
  d["num_alloc_retries"] = s.num_alloc_retries;
  d["num_ooms"] = s.num_ooms;
  d["cache_limit_bytes"] = s.cache_limit;
  return d;
}

void BindMemory(py::module_& m) {
  m.def("_cpu_memory_stats", &StatsDict,
        "_cpu_memory_stats() -> dict\n\nThe CPU caching allocator's counters.");
  m.def("_cpu_memory_allocated", [] { return GetCpuMemoryStats().allocated; });
  m.def("_cpu_reset_peak_memory_stats", &ResetCpuPeakMemory);
  m.def("_cpu_reset_accumulated_memory_stats", &ResetCpuAccumulatedMemoryStats);
  m.def("_cpu_empty_cache", &ReleaseCpuCachedMemory, py::call_guard<py::gil_scoped_release>());
  m.def("_cpu_set_cache_limit", &SetCpuCacheLimit, py::arg("nbytes"),
        py::call_guard<py::gil_scoped_release>());
  m.def("_cpu_allocation_size", &CpuAllocationSize, py::arg("nbytes"));
}

const BindingRegistrar registrar(2, &BindMemory);

}  // namespace
}  // namespace oneflow
