#ifndef CORE_RUNTIME_ALLOCATOR_H_
#define CORE_RUNTIME_ALLOCATOR_H_

#include <cstddef>

#include "core/runtime/device.h"

namespace oneflow {

// Memory for tensor storage on one device type. Implementations register
// themselves with an AllocatorRegistrar at static-initialization time, so the
// core does not know which devices a build supports.
class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns memory for `nbytes` (never null; nbytes may be 0) or throws RuntimeError.
  virtual void* Allocate(size_t nbytes, int device_index) = 0;
  virtual void Deallocate(void* ptr, size_t nbytes, int device_index) = 0;
};

// CPU allocations are aligned to this many bytes (one cache line, and the
// widest AVX-512 load).
inline constexpr size_t kCpuAlignment = 64;

// The allocator for `type`; throws RuntimeError when the build has none (for
// example CUDA in a CPU-only build).
Allocator* GetAllocator(DeviceType type);

// The CPU allocator's bookkeeping (bytes): live in tensors, the peak of that,
// and freed blocks kept for reuse.
struct CpuMemoryStats {
  size_t allocated = 0;
  size_t peak = 0;
  size_t cached = 0;
};
CpuMemoryStats GetCpuMemoryStats();
void ResetCpuPeakMemory();
// Returns the cached blocks to the OS (oneflow.cpu.empty_cache()).
void ReleaseCpuCachedMemory();

struct AllocatorRegistrar {
  AllocatorRegistrar(DeviceType type, Allocator* allocator);
};

}  // namespace oneflow

#endif  // CORE_RUNTIME_ALLOCATOR_H_
