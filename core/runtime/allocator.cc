#include "core/runtime/allocator.h"

#include <array>
#include <cstdlib>
#include <new>

#include "core/runtime/error.h"

namespace oneflow {
namespace {

std::array<Allocator*, 2>& Registry() {
  static std::array<Allocator*, 2> registry{};
  return registry;
}

class CpuAllocator final : public Allocator {
 public:
  void* Allocate(size_t nbytes, int /*device_index*/) override {
    // aligned_alloc needs a multiple of the alignment, and 0 bytes still gets a
    // unique pointer so that empty tensors have a valid data_ptr.
    size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    if (rounded == 0) rounded = kCpuAlignment;
    void* p = std::aligned_alloc(kCpuAlignment, rounded);
    OF_CHECK(p != nullptr, RuntimeError, "CPU out of memory: tried to allocate ", nbytes, " bytes");
    return p;
  }
  void Deallocate(void* ptr, size_t /*nbytes*/, int /*device_index*/) override { std::free(ptr); }
};

CpuAllocator cpu_allocator;
const AllocatorRegistrar cpu_registrar(DeviceType::kCPU, &cpu_allocator);

}  // namespace

AllocatorRegistrar::AllocatorRegistrar(DeviceType type, Allocator* allocator) {
  Registry()[static_cast<int>(type)] = allocator;
}

Allocator* GetAllocator(DeviceType type) {
  Allocator* a = Registry()[static_cast<int>(type)];
  OF_CHECK(a != nullptr, RuntimeError, "Cannot allocate memory on ",
           type == DeviceType::kCUDA ? "cuda" : "cpu",
           ": this build of oneflow has no support for that device type",
           type == DeviceType::kCUDA ? " (build with --config=cuda on a machine with CUDA)" : "");
  return a;
}

}  // namespace oneflow
