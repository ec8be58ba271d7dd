#ifndef CORE_RUNTIME_DEVICE_KERNELS_H_
#define CORE_RUNTIME_DEVICE_KERNELS_H_

// The few memory kernels the core itself needs (copy with cast, fill, ramps),
// one table per device type. The tables live in ops/ (ops/cpu, ops/cuda) and
// register themselves, so the core never depends on a kernel library.

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

}  // namespace oneflow

#endif  // CORE_RUNTIME_DEVICE_KERNELS_H_
