#include "core/runtime/allocator.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "core/runtime/error.h"

namespace oneflow {
namespace {

std::array<Allocator*, 2>& Registry() {
  static std::array<Allocator*, 2> registry{};
  return registry;
}

// Large blocks are cached by size class instead of being returned to glibc,
// which would hand them back to the OS (munmap) and make the next tensor of
// that size page-fault all its memory in again (1-5 us per 4 KiB page here).
// Small blocks go to glibc, whose arenas already keep them.
class CpuAllocator final : public Allocator {
 public:
  static constexpr size_t kSmall = 256 * 1024;

  void* Allocate(size_t nbytes, int /*device_index*/) override {
    size_t size = RoundUp(nbytes);
    void* p = nullptr;
    if (size > kSmall) {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = free_.find(size);
      if (it != free_.end() && !it->second.empty()) {
        p = it->second.back();
        it->second.pop_back();
        cached_bytes_ -= size;
      }
    }
    if (p == nullptr) p = std::aligned_alloc(kCpuAlignment, size);
    if (p == nullptr && size > kSmall) {
      ReleaseCached();  // give the cache back to the OS and try once more
      p = std::aligned_alloc(kCpuAlignment, size);
    }
    OF_CHECK(p != nullptr, RuntimeError, "CPU out of memory: tried to allocate ", nbytes, " bytes");
    std::lock_guard<std::mutex> lock(mu_);
    allocated_bytes_ += size;
    peak_bytes_ = std::max(peak_bytes_, allocated_bytes_);
    return p;
  }

  void Deallocate(void* ptr, size_t nbytes, int /*device_index*/) override {
    size_t size = RoundUp(nbytes);
    std::lock_guard<std::mutex> lock(mu_);
    allocated_bytes_ -= size;
    if (size > kSmall && cached_bytes_ + size <= cache_limit_) {
      free_[size].push_back(ptr);
      cached_bytes_ += size;
      return;
    }
    std::free(ptr);
  }

  void ReleaseCached() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [size, blocks] : free_) {
      for (void* p : blocks) std::free(p);
      blocks.clear();
    }
    cached_bytes_ = 0;
  }

  CpuMemoryStats Stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return {allocated_bytes_, peak_bytes_, cached_bytes_};
  }
  void ResetPeak() {
    std::lock_guard<std::mutex> lock(mu_);
    peak_bytes_ = allocated_bytes_;
  }

 private:
  // Size classes: 64-byte multiples for small blocks; above kSmall, four
  // classes per power of two (at most 25% slack), so reuse finds a fit.
  static size_t RoundUp(size_t nbytes) {
    size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    if (rounded == 0) rounded = kCpuAlignment;
    if (rounded <= kSmall) return rounded;
    size_t pow2 = size_t{1} << (63 - __builtin_clzll(rounded - 1));  // <= rounded - 1
    size_t step = pow2 / 4;
    return (rounded + step - 1) / step * step;
  }

  static size_t CacheLimitFromEnv() {
    const char* env = std::getenv("ONEFLOW_CPU_CACHE_LIMIT_MB");
    if (env == nullptr) return size_t{8} << 30;  // 8 GiB
    return static_cast<size_t>(std::strtoull(env, nullptr, 10)) << 20;
  }

  std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  size_t cached_bytes_ = 0;
  size_t allocated_bytes_ = 0;
  size_t peak_bytes_ = 0;
  size_t cache_limit_ = CacheLimitFromEnv();
};

CpuAllocator cpu_allocator;
const AllocatorRegistrar cpu_registrar(DeviceType::kCPU, &cpu_allocator);

}  // namespace

AllocatorRegistrar::AllocatorRegistrar(DeviceType type, Allocator* allocator) {
  Registry()[static_cast<int>(type)] = allocator;
}

CpuMemoryStats GetCpuMemoryStats() { return cpu_allocator.Stats(); }
void ResetCpuPeakMemory() { cpu_allocator.ResetPeak(); }
void ReleaseCpuCachedMemory() { cpu_allocator.ReleaseCached(); }

Allocator* GetAllocator(DeviceType type) {
  Allocator* a = Registry()[static_cast<int>(type)];
  OF_CHECK(a != nullptr, RuntimeError, "Cannot allocate memory on ",
           type == DeviceType::kCUDA ? "cuda" : "cpu",
           ": this build of oneflow has no support for that device type",
           type == DeviceType::kCUDA ? " (build with --config=cuda on a machine with CUDA)" : "");
  return a;
}

}  // namespace oneflow
