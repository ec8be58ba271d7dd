// oneflow.cpu memory statistics and control: the CPU caching allocator's
// counters as a dict, peak resets, empty_cache and the cache limit. The
// Python-facing names live in oneflow/cpu.py.

#include <cstddef>

#include "core/framework/generator.h"
#include "core/pybind/binding_registry.h"
#include "core/runtime/allocator.h"
#include "core/runtime/device_kernels.h"
#include "core/runtime/error.h"

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

// The CUDA runtime, when this build has one (null otherwise).
const DeviceRuntime* Cuda() { return GetDeviceRuntime(DeviceType::kCUDA); }

const DeviceRuntime& CudaOrThrow() {
  const DeviceRuntime* rt = Cuda();
  OF_CHECK(rt != nullptr, RuntimeError,
           "this build of oneflow has no CUDA support (build with --config=cuda)");
  return *rt;
}

py::dict CudaStatsDict(int device) {
  const DeviceMemoryStats s = CudaOrThrow().memory_stats(device);
  py::dict d;
  d["allocated_bytes.all.current"] = s.allocated;
  d["allocated_bytes.all.peak"] = s.peak_allocated;
  d["reserved_bytes.all.current"] = s.reserved;
  d["reserved_bytes.all.peak"] = s.peak_reserved;
  d["allocation.all.allocated"] = s.num_allocs;
  d["allocation.all.freed"] = s.num_frees;
  d["num_device_alloc"] = s.num_device_alloc;
  d["num_device_free"] = s.num_device_free;
  d["num_ooms"] = s.num_ooms;
  return d;
}

void BindCuda(py::module_& m) {
  m.def("_cuda_built", [] { return Cuda() != nullptr; });
  m.def("_cuda_device_count", [] { return Cuda() ? Cuda()->device_count() : 0; });
  m.def("_cuda_current_device", [] { return CudaOrThrow().current_device(); });
  m.def(
      "_cuda_set_device", [](int index) { CudaOrThrow().set_device(index); }, py::arg("index"));
  m.def(
      "_cuda_synchronize", [](int index) { CudaOrThrow().synchronize(index); },
      py::arg("index") = -1, py::call_guard<py::gil_scoped_release>());
  m.def("_cuda_memory_stats", &CudaStatsDict, py::arg("index") = -1);
  m.def(
      "_cuda_reset_peak_memory_stats",
      [](int index) { CudaOrThrow().reset_peak_memory_stats(index); }, py::arg("index") = -1);
  m.def(
      "_cuda_manual_seed",
      [](uint64_t seed) { DefaultGenerator(DeviceType::kCUDA)->ManualSeed(seed); },
      py::arg("seed"));
  m.def(
      "_cuda_empty_cache",
      [] {
        if (Cuda()) Cuda()->empty_cache();
      },
      py::call_guard<py::gil_scoped_release>());
}

void BindMemory(py::module_& m) {
  BindCuda(m);
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
