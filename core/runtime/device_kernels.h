#ifndef CORE_RUNTIME_DEVICE_KERNELS_H_
#define CORE_RUNTIME_DEVICE_KERNELS_H_

// The few memory kernels the core itself needs (copy with cast, fill, ramps),
// one table per device type. The tables live in ops/ (ops/cpu, ops/cuda) and
// register themselves, so the core never depends on a kernel library.

#include <cstddef>
#include <cstdint>

#include "core/runtime/device.h"
#include "core/runtime/scalar.h"
#include "core/runtime/tensor_impl.h"

namespace oneflow {

struct DeviceKernels {
  // dst[i] = cast(src[i]) elementwise; equal shapes, any strides and dtypes.
  void (*copy)(const TensorImpl& src, TensorImpl& dst);
  // Every element of dst (any strides) = value cast to dst's dtype.
  void (*fill)(TensorImpl& dst, const Scalar& value);
  // dst is 1-d: dst[i] = start + i * step, computed in dst's type class
  // (integer arithmetic for integer dtypes).
  void (*arange)(TensorImpl& dst, const Scalar& start, const Scalar& step);
  // dst is 1-d with n elements evenly spaced over [start, end].
  void (*linspace)(TensorImpl& dst, double start, double end);
};

// Throws RuntimeError when the build has no kernels for `type`.
const DeviceKernels& GetDeviceKernels(DeviceType type);

struct DeviceKernelsRegistrar {
  DeviceKernelsRegistrar(DeviceType type, const DeviceKernels* kernels);
};

// The runtime of an accelerator (CUDA): devices, streams, copies between host
// and device memory, and the device allocator's statistics. Registered by the
// kernel library (ops/cuda) at load time; the CPU has none.
struct DeviceMemoryStats {
  int64_t allocated = 0;       // bytes in live tensors
  int64_t peak_allocated = 0;  // the maximum of `allocated` since the last peak reset
  int64_t reserved = 0;        // bytes held from the driver (live + cached)
  int64_t peak_reserved = 0;
  int64_t num_allocs = 0;  // Allocate calls
  int64_t num_frees = 0;
  int64_t num_device_alloc = 0;  // cudaMalloc calls
  int64_t num_device_free = 0;   // cudaFree calls
  int64_t num_ooms = 0;
};

struct DeviceRuntime {
  int (*device_count)();  // 0 when no device is visible (never throws)
  int (*current_device)();
  void (*set_device)(int index);
  // Waits for all work queued on device `index` (-1: the current device).
  void (*synchronize)(int index);
  // Copies nbytes of dense memory between the host and a device or between
  // devices; returns when `dst` holds the bytes.
  void (*memcpy)(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes);
  DeviceMemoryStats (*memory_stats)(int index);
  void (*reset_peak_memory_stats)(int index);
  // Returns cached, unused device memory to the driver.
  void (*empty_cache)();
};

// Null when the build (or the process) has no runtime for `type`.
const DeviceRuntime* GetDeviceRuntime(DeviceType type);

struct DeviceRuntimeRegistrar {
  DeviceRuntimeRegistrar(DeviceType type, const DeviceRuntime* runtime);
};

}  // namespace oneflow

#endif  // CORE_RUNTIME_DEVICE_KERNELS_H_
