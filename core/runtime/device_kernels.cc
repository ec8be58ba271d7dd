#include "core/runtime/device_kernels.h"

#include <array>

#include "core/runtime/error.h"

namespace oneflow {
namespace {

std::array<const DeviceKernels*, 2>& Registry() {
  static std::array<const DeviceKernels*, 2> registry{};
  return registry;
}

std::array<const DeviceRuntime*, 2>& Runtimes() {
  static std::array<const DeviceRuntime*, 2> registry{};
  return registry;
}

}  // namespace

DeviceRuntimeRegistrar::DeviceRuntimeRegistrar(DeviceType type, const DeviceRuntime* runtime) {
  Runtimes()[static_cast<int>(type)] = runtime;
}

const DeviceRuntime* GetDeviceRuntime(DeviceType type) {
  return Runtimes()[static_cast<int>(type)];
}

DeviceKernelsRegistrar::DeviceKernelsRegistrar(DeviceType type, const DeviceKernels* kernels) {
  Registry()[static_cast<int>(type)] = kernels;
}

const DeviceKernels& GetDeviceKernels(DeviceType type) {
  const DeviceKernels* k = Registry()[static_cast<int>(type)];
  OF_CHECK(k != nullptr, RuntimeError, "no kernels for device type ",
           type == DeviceType::kCUDA ? "cuda" : "cpu",
           " in this build of oneflow (CUDA needs a build with --config=cuda)");
  return *k;
}

}  // namespace oneflow
