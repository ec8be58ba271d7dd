#ifndef CORE_RUNTIME_ALLOCATOR_H_
#define CORE_RUNTIME_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>

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

// Requests above this size are mapped and cached by the CPU allocator; smaller
// ones go to glibc's arenas, which keep small blocks themselves. It sits below
// glibc's smallest mmap threshold (128 KiB), which would otherwise map and
// unmap (and page-fault) a block on every allocation, and its top-of-heap trim.
inline constexpr size_t kCpuSmallBlock = 64 * 1024;

// The number of bytes the CPU allocator reserves (and counts) for a request of
// `nbytes`: a multiple of 64 (at least 64) up to kCpuSmallBlock; above it, the
// next of four size classes per power of two (at most 25% slack), so a freed
// block fits later requests of nearby sizes.
size_t CpuAllocationSize(size_t nbytes);

// The allocator for `type`; throws RuntimeError when the build has none (for
// example CUDA in a CPU-only build).
Allocator* GetAllocator(DeviceType type);

// The CPU allocator's bookkeeping. Byte counts use CpuAllocationSize. "Reserved"
// is memory the allocator holds: blocks in tensors plus freed blocks cached for
// reuse (reserved == allocated + cached).
struct CpuMemoryStats {
  size_t allocated = 0;  // bytes in live tensors
  size_t peak = 0;       // the maximum of `allocated` since the last peak reset
  size_t cached = 0;     // freed large blocks kept for reuse
  size_t reserved = 0;
  size_t reserved_peak = 0;
  uint64_t allocated_total = 0;  // bytes handed out, summed over every allocation
  uint64_t freed_total = 0;      // bytes given back by tensors
  uint64_t reserved_total = 0;   // bytes obtained from the OS / glibc
  uint64_t released_total = 0;   // bytes returned to the OS / glibc
  size_t num_allocations = 0;    // live blocks
  size_t num_allocations_peak = 0;
  uint64_t num_allocs = 0;  // Allocate calls
  uint64_t num_frees = 0;   // Deallocate calls
  uint64_t num_cache_hits = 0;
  uint64_t num_device_alloc = 0;   // blocks obtained from the OS / glibc
  uint64_t num_device_free = 0;    // blocks returned to the OS / glibc
  uint64_t num_alloc_retries = 0;  // allocations that failed, flushed the cache and retried
  uint64_t num_ooms = 0;           // allocations that failed even after the retry
  size_t cache_limit = 0;          // bytes the cache may hold (ONEFLOW_CPU_CACHE_LIMIT_MB)
};
CpuMemoryStats GetCpuMemoryStats();
// Sets every peak to its current value (oneflow.cpu.reset_peak_memory_stats()).
void ResetCpuPeakMemory();
// Zeroes the cumulative counters (totals, call counts, retries, OOMs).
void ResetCpuAccumulatedMemoryStats();
// Returns the cached blocks to the OS (oneflow.cpu.empty_cache()).
void ReleaseCpuCachedMemory();
// Bounds the bytes the cache may hold; blocks beyond it are released at once.
void SetCpuCacheLimit(size_t nbytes);

struct AllocatorRegistrar {
  AllocatorRegistrar(DeviceType type, Allocator* allocator);
};

}  // namespace oneflow

#endif  // CORE_RUNTIME_ALLOCATOR_H_
