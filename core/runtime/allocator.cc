#include "core/runtime/allocator.h"

#include <sys/mman.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/runtime/error.h"

namespace oneflow {
namespace {

std::array<Allocator*, 2>& Registry() {
  static std::array<Allocator*, 2> registry{};
  return registry;
}

constexpr auto kRelaxed = std::memory_order_relaxed;

void RaiseTo(std::atomic<size_t>& peak, size_t value) {
  size_t seen = peak.load(kRelaxed);
  while (value > seen && !peak.compare_exchange_weak(seen, value, kRelaxed)) {
  }
}

// Large blocks come straight from mmap and are cached by size class instead of
// being unmapped on free: an unmapped block makes the next tensor of that size
// page-fault all its memory in again (1-5 us per 4 KiB page here). Mapping
// them ourselves (rather than through glibc, whose mmap threshold moves)
// makes empty_cache() really return memory to the OS. Small blocks go to
// glibc, whose arenas already keep them. Counters are relaxed atomics, so the
// small-block path takes no lock; the free lists have a mutex.
class CpuAllocator final : public Allocator {
 public:
  void* Allocate(size_t nbytes, int /*device_index*/) override {
    size_t size = CpuAllocationSize(nbytes);
    num_allocs_.fetch_add(1, kRelaxed);
    void* p = size > kCpuSmallBlock ? AllocateLarge(size, nbytes) : AllocateSmall(size, nbytes);
    size_t now = allocated_.fetch_add(size, kRelaxed) + size;
    RaiseTo(peak_, now);
    allocated_total_.fetch_add(size, kRelaxed);
    RaiseTo(num_allocations_peak_, num_allocations_.fetch_add(1, kRelaxed) + 1);
    return p;
  }

  void Deallocate(void* ptr, size_t nbytes, int /*device_index*/) override {
    size_t size = CpuAllocationSize(nbytes);
    allocated_.fetch_sub(size, kRelaxed);
    freed_total_.fetch_add(size, kRelaxed);
    num_allocations_.fetch_sub(1, kRelaxed);
    num_frees_.fetch_add(1, kRelaxed);
    if (size <= kCpuSmallBlock) {
      std::free(ptr);
      Released(size);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cached_.load(kRelaxed) + size <= cache_limit_.load(kRelaxed)) {
        free_[size].push_back(ptr);
        cached_.fetch_add(size, kRelaxed);
        return;
      }
    }
    Unmap(ptr, size);
  }

  void ReleaseCached() { TrimCacheTo(0); }

  void SetCacheLimit(size_t nbytes) {
    cache_limit_.store(nbytes, kRelaxed);
    TrimCacheTo(nbytes);
  }

  CpuMemoryStats Stats() const {
    CpuMemoryStats s;
    s.allocated = allocated_.load(kRelaxed);
    s.peak = peak_.load(kRelaxed);
    s.cached = cached_.load(kRelaxed);
    s.reserved = reserved_.load(kRelaxed);
    s.reserved_peak = reserved_peak_.load(kRelaxed);
    s.allocated_total = allocated_total_.load(kRelaxed);
    s.freed_total = freed_total_.load(kRelaxed);
    s.reserved_total = reserved_total_.load(kRelaxed);
    s.released_total = released_total_.load(kRelaxed);
    s.num_allocations = num_allocations_.load(kRelaxed);
    s.num_allocations_peak = num_allocations_peak_.load(kRelaxed);
    s.num_allocs = num_allocs_.load(kRelaxed);
    s.num_frees = num_frees_.load(kRelaxed);
    s.num_cache_hits = num_cache_hits_.load(kRelaxed);
    s.num_device_alloc = num_device_alloc_.load(kRelaxed);
    s.num_device_free = num_device_free_.load(kRelaxed);
    s.num_alloc_retries = num_alloc_retries_.load(kRelaxed);
    s.num_ooms = num_ooms_.load(kRelaxed);
    s.cache_limit = cache_limit_.load(kRelaxed);
    return s;
  }

  void ResetPeak() {
    peak_.store(allocated_.load(kRelaxed), kRelaxed);
    reserved_peak_.store(reserved_.load(kRelaxed), kRelaxed);
    num_allocations_peak_.store(num_allocations_.load(kRelaxed), kRelaxed);
  }

  void ResetAccumulated() {
    for (auto* counter : {&allocated_total_, &freed_total_, &reserved_total_, &released_total_,
                          &num_allocs_, &num_frees_, &num_cache_hits_, &num_device_alloc_,
                          &num_device_free_, &num_alloc_retries_, &num_ooms_}) {
      counter->store(0, kRelaxed);
    }
  }

 private:
  void* AllocateSmall(size_t size, size_t nbytes) {
    void* p = std::aligned_alloc(kCpuAlignment, size);
    if (p == nullptr) {
      num_alloc_retries_.fetch_add(1, kRelaxed);
      ReleaseCached();
      p = std::aligned_alloc(kCpuAlignment, size);
    }
    if (p == nullptr) OutOfMemory(nbytes);
    Reserved(size);
    return p;
  }

  void* AllocateLarge(size_t size, size_t nbytes) {
    void* carved = nullptr;
    size_t carved_size = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = free_.find(size);
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        cached_.fetch_sub(size, kRelaxed);
        num_cache_hits_.fetch_add(1, kRelaxed);
        return p;
      }
      // No block of this class: the smallest cached one of up to twice the
      // size gives its head (already faulted in) and returns its tail to the
      // OS, instead of mapping new memory next to cached memory nobody uses.
      for (auto& [block, blocks] : free_) {
        if (block > size && block <= 2 * size && !blocks.empty() &&
            (carved_size == 0 || block < carved_size)) {
          carved_size = block;
        }
      }
      if (carved_size != 0) {
        std::vector<void*>& blocks = free_[carved_size];
        carved = blocks.back();
        blocks.pop_back();
        cached_.fetch_sub(carved_size, kRelaxed);
        num_cache_hits_.fetch_add(1, kRelaxed);
      }
    }
    if (carved != nullptr) {
      // Sizes above kCpuSmallBlock are whole pages, so the tail is too.
      Unmap(static_cast<char*>(carved) + size, carved_size - size);
      return carved;
    }
    void* p = Map(size);
    if (p == nullptr) {
      num_alloc_retries_.fetch_add(1, kRelaxed);
      ReleaseCached();  // give the cache back to the OS and try once more
      p = Map(size);
    }
    if (p == nullptr) OutOfMemory(nbytes);
    Reserved(size);
    return p;
  }

  [[noreturn]] void OutOfMemory(size_t nbytes) {
    num_ooms_.fetch_add(1, kRelaxed);
    OF_THROW(RuntimeError, "CPU out of memory: tried to allocate ", nbytes, " bytes (",
             allocated_.load(kRelaxed), " bytes allocated, ", cached_.load(kRelaxed),
             " bytes cached)");
  }

  static void* Map(size_t size) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    // Transparent huge pages (where the system leaves them to madvise): one
    // fault per 2 MiB instead of per 4 KiB when the block is first touched.
    if (size >= (size_t{2} << 20)) madvise(p, size, MADV_HUGEPAGE);
    return p;
  }

  void Unmap(void* p, size_t size) {
    munmap(p, size);
    Released(size);
  }

  void Reserved(size_t size) {
    RaiseTo(reserved_peak_, reserved_.fetch_add(size, kRelaxed) + size);
    reserved_total_.fetch_add(size, kRelaxed);
    num_device_alloc_.fetch_add(1, kRelaxed);
  }

  void Released(size_t size) {
    reserved_.fetch_sub(size, kRelaxed);
    released_total_.fetch_add(size, kRelaxed);
    num_device_free_.fetch_add(1, kRelaxed);
  }

  // Unmaps cached blocks until at most `limit` bytes stay cached.
  void TrimCacheTo(size_t limit) {
    std::vector<std::pair<void*, size_t>> victims;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [size, blocks] : free_) {
        while (!blocks.empty() && cached_.load(kRelaxed) > limit) {
          victims.emplace_back(blocks.back(), size);
          blocks.pop_back();
          cached_.fetch_sub(size, kRelaxed);
        }
      }
    }
    for (auto& [p, size] : victims) Unmap(p, size);
  }

  static size_t CacheLimitFromEnv() {
    const char* env = std::getenv("ONEFLOW_CPU_CACHE_LIMIT_MB");
    if (env == nullptr || *env == '\0') return size_t{8} << 30;  // 8 GiB
    return static_cast<size_t>(std::strtoull(env, nullptr, 10)) << 20;
  }

  std::mutex mu_;  // guards free_
  std::unordered_map<size_t, std::vector<void*>> free_;
  std::atomic<size_t> cache_limit_{CacheLimitFromEnv()};
  std::atomic<size_t> cached_{0};
  std::atomic<size_t> allocated_{0};
  std::atomic<size_t> peak_{0};
  std::atomic<size_t> reserved_{0};
  std::atomic<size_t> reserved_peak_{0};
  std::atomic<size_t> num_allocations_{0};
  std::atomic<size_t> num_allocations_peak_{0};
  std::atomic<uint64_t> allocated_total_{0};
  std::atomic<uint64_t> freed_total_{0};
  std::atomic<uint64_t> reserved_total_{0};
  std::atomic<uint64_t> released_total_{0};
  std::atomic<uint64_t> num_allocs_{0};
  std::atomic<uint64_t> num_frees_{0};
  std::atomic<uint64_t> num_cache_hits_{0};
  std::atomic<uint64_t> num_device_alloc_{0};
  std::atomic<uint64_t> num_device_free_{0};
  std::atomic<uint64_t> num_alloc_retries_{0};
  std::atomic<uint64_t> num_ooms_{0};
};

CpuAllocator cpu_allocator;
const AllocatorRegistrar cpu_registrar(DeviceType::kCPU, &cpu_allocator);

}  // namespace

size_t CpuAllocationSize(size_t nbytes) {
  size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
  if (rounded == 0) rounded = kCpuAlignment;
  if (rounded <= kCpuSmallBlock) return rounded;
  size_t pow2 = size_t{1} << (63 - __builtin_clzll(rounded - 1));  // <= rounded - 1
  size_t step = pow2 / 4;
  return (rounded + step - 1) / step * step;
}

AllocatorRegistrar::AllocatorRegistrar(DeviceType type, Allocator* allocator) {
  Registry()[static_cast<int>(type)] = allocator;
}

CpuMemoryStats GetCpuMemoryStats() { return cpu_allocator.Stats(); }
void ResetCpuPeakMemory() { cpu_allocator.ResetPeak(); }
void ResetCpuAccumulatedMemoryStats() { cpu_allocator.ResetAccumulated(); }
void ReleaseCpuCachedMemory() { cpu_allocator.ReleaseCached(); }
void SetCpuCacheLimit(size_t nbytes) { cpu_allocator.SetCacheLimit(nbytes); }

Allocator* GetAllocator(DeviceType type) {
  Allocator* a = Registry()[static_cast<int>(type)];
  OF_CHECK(a != nullptr, RuntimeError, "Cannot allocate memory on ",
           type == DeviceType::kCUDA ? "cuda" : "cpu",
           ": this build of oneflow has no support for that device type",
           type == DeviceType::kCUDA ? " (build with --config=cuda on a machine with CUDA)" : "");
  return a;
}

}  // namespace oneflow
