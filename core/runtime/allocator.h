// Device memory allocators: the registry by device type, and the CPU caching
// allocator with its statistics and controls (oneflow.cpu in Python).

#ifndef CORE_RUNTIME_ALLOCATOR_H_
#define CORE_RUNTIME_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

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

// Requests above this size come from the CPU allocator's arenas; smaller ones
// go to glibc's arenas, which keep small blocks themselves. It sits below
// glibc's smallest mmap threshold (128 KiB), which would otherwise map and
// unmap (and page-fault) a block on every allocation, and its top-of-heap trim.
inline constexpr size_t kCpuSmallBlock = 64 * 1024;

// Large blocks are whole pages: the unit in which cached memory is returned to
// the OS.
inline constexpr size_t kCpuPageSize = 4096;

// The number of bytes the CPU allocator reserves (and counts) for a request of
// `nbytes`: a multiple of 64 (at least 64) up to kCpuSmallBlock; above it, a
// multiple of kCpuPageSize.
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
  uint64_t num_allocs = 0;         // Allocate calls
  uint64_t num_frees = 0;          // Deallocate calls
  uint64_t num_cache_hits = 0;     // large allocations served from cached memory alone
  uint64_t num_device_alloc = 0;   // commits of fresh memory (and glibc blocks)
  uint64_t num_device_free = 0;    // returns of memory to the OS (and glibc blocks)
  uint64_t num_alloc_retries = 0;  // allocations that failed, flushed the cache and retried
  uint64_t num_ooms = 0;           // allocations that failed even after the retry
  size_t cache_limit = 0;          // bytes the cache may hold (ONEFLOW_CPU_CACHE_LIMIT_MB)
  size_t arena_bytes = 0;          // address space reserved for large blocks
  size_t num_arenas = 0;
};

// The CPU caching allocator. Large blocks are carved out of arenas: ranges of
// address space reserved without memory, of which the allocator commits only
// what blocks occupy. A request takes the smallest cached (freed, still
// committed) range that fits and splits it; freed blocks merge with free
// neighbours. Only when no cached range fits does it commit fresh memory,
// extending a cached range that borders uncommitted space where it can, so
// that memory freed by one size of tensor serves the next size instead of
// sitting idle beside new memory. The process-wide instance serves
// DeviceType::kCPU; tests make their own.
class CpuCachingAllocator final : public Allocator {
 public:
  struct Options {
    size_t arena_bytes = size_t{64} << 30;  // address space reserved at a time
    size_t cache_limit = size_t{8} << 30;
    bool huge_pages = true;  // madvise(MADV_HUGEPAGE) on the arenas
  };
  explicit CpuCachingAllocator(const Options& options);
  // Unmaps the arenas: every block must have been freed.
  ~CpuCachingAllocator() override;
  CpuCachingAllocator(const CpuCachingAllocator&) = delete;
  CpuCachingAllocator& operator=(const CpuCachingAllocator&) = delete;

  void* Allocate(size_t nbytes, int device_index) override;
  // Aborts on a large block it did not hand out, a second free or a wrong
  // size, which would otherwise corrupt the arenas.
  void Deallocate(void* ptr, size_t nbytes, int device_index) override;

  CpuMemoryStats Stats() const;
  void ResetPeak();
  void ResetAccumulated();
  // Returns every cached range to the OS.
  void ReleaseCached();
  // Bounds the bytes the cache may hold; cached ranges beyond it are returned
  // at once (largest first), and a freed block that does not fit is returned
  // instead of cached.
  void SetCacheLimit(size_t nbytes);
  // For tests: "" when the arenas are consistent (blocks tile every arena,
  // free neighbours are merged, the indexes and counters agree), else what is
  // inconsistent.
  std::string CheckInvariants() const;

 private:
  class Arenas;
  std::unique_ptr<Arenas> arenas_;
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
