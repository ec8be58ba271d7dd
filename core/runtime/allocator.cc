// The device allocator registry and the CPU caching allocator.
//
// Large CPU blocks live in arenas of reserved address space (see
// CpuCachingAllocator in allocator.h). Every byte of an arena belongs to one
// block, which is allocated (in a tensor), cached (free, its memory committed
// and probably resident) or uncommitted (free, PROT_NONE, no memory). Keeping
// freed memory committed is what avoids page faults: a block returned to the
// OS makes the next tensor there fault all its pages in again (1-5 us per
// 4 KiB page here). Splitting and merging inside one address space is what
// keeps the cache small: the activations freed during the backward pass
// become the gradients' memory, whatever their sizes, where a cache of
// fixed-size blocks would keep them idle and map new memory beside them.

#include "core/runtime/allocator.h"

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
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
// Arenas start on a transparent-huge-page boundary, so that the huge pages
// madvise asks for line up with the arena's own 2 MiB steps.
constexpr size_t kHugePage = size_t{2} << 20;
// Larger requests cannot be met on any machine; they fail without arithmetic
// overflow in the rounding below.
constexpr size_t kMaxRequest = size_t{1} << 56;

void RaiseTo(std::atomic<size_t>& peak, size_t value) {
  size_t seen = peak.load(kRelaxed);
  while (value > seen && !peak.compare_exchange_weak(seen, value, kRelaxed)) {
  }
}

size_t RoundUp(size_t n, size_t unit) { return (n + unit - 1) / unit * unit; }

}  // namespace

// The arenas and the counters. Counters are relaxed atomics, so that the
// small-block path (glibc) and Stats() take no lock; the block map has a mutex,
// held across the (rare) mprotect/madvise calls so that no other thread can
// take a range while its protection changes.
class CpuCachingAllocator::Arenas {
 public:
  explicit Arenas(const Options& options)
      : arena_bytes_(RoundUp(std::max(options.arena_bytes, kHugePage), kHugePage)),
        huge_pages_(options.huge_pages),
        cache_limit_(options.cache_limit) {}

  ~Arenas() {
    for (const Arena& a : arenas_) munmap(reinterpret_cast<void*>(a.base), a.size);
  }

  void* Allocate(size_t nbytes) {
    size_t size = CpuAllocationSize(nbytes);
    num_allocs_.fetch_add(1, kRelaxed);
    void* p = size > kCpuSmallBlock ? AllocateLarge(size, nbytes) : AllocateSmall(size, nbytes);
    size_t now = allocated_.fetch_add(size, kRelaxed) + size;
    RaiseTo(peak_, now);
    allocated_total_.fetch_add(size, kRelaxed);
    RaiseTo(num_allocations_peak_, num_allocations_.fetch_add(1, kRelaxed) + 1);
    return p;
  }

  void Deallocate(void* ptr, size_t nbytes) {
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
    std::lock_guard<std::mutex> lock(mu_);
    auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
    // A pointer we did not hand out, a double free or a wrong size would
    // corrupt the arenas: stop here rather than later.
    if (it == blocks_.end() || it->second.state != kAllocated || it->second.size != size) {
      std::abort();
    }
    large_allocated_ -= size;
    if (cached_.load(kRelaxed) + size <= cache_limit_.load(kRelaxed)) {
      it->second.state = kCached;
      Index(it);
      cached_.fetch_add(size, kRelaxed);
      Coalesce(it);
    } else {
      Decommit(it);
    }
  }

  void ReleaseCached() {
    std::lock_guard<std::mutex> lock(mu_);
    TrimCacheTo(0);
  }

  void SetCacheLimit(size_t nbytes) {
    std::lock_guard<std::mutex> lock(mu_);
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
    s.arena_bytes = arena_total_.load(kRelaxed);
    s.num_arenas = num_arenas_.load(kRelaxed);
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

  std::string CheckInvariants() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::ostringstream err;
    size_t allocated = 0, cached = 0, committed = 0, num_cached = 0, num_uncommitted = 0;
    std::vector<uint32_t> order(arenas_.size());  // arenas by address, as blocks_ is
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return arenas_[a].base < arenas_[b].base; });
    auto it = blocks_.begin();
    for (uint32_t i : order) {
      uintptr_t at = arenas_[i].base;
      uintptr_t end = at + arenas_[i].size;
      uint8_t prev_state = kAllocated;
      for (; it != blocks_.end() && it->second.arena == i; ++it) {
        const Block& b = it->second;
        if (it->first != at) err << "arena " << i << ": a gap or overlap at " << it->first << "; ";
        if (b.size == 0 || b.size % kCpuPageSize != 0) err << "block of " << b.size << " bytes; ";
        if (b.state != kAllocated && b.state == prev_state) err << "unmerged neighbours; ";
        prev_state = b.state;
        at = it->first + b.size;
        if (b.state == kAllocated) {
          allocated += b.size;
        } else if (b.state == kCached) {
          cached += b.size;
          ++num_cached;
          if (cached_by_size_.count({b.size, it->first}) == 0) err << "cached block unindexed; ";
        } else {
          ++num_uncommitted;
          if (uncommitted_by_size_.count({b.size, it->first}) == 0) err << "free range unindexed; ";
        }
        if (b.state != kUncommitted) committed += b.size;
      }
      if (at != end) err << "arena " << i << " is not covered to its end; ";
    }
    if (it != blocks_.end()) err << "blocks outside the arenas; ";
    if (num_cached != cached_by_size_.size()) err << "stale cached index entries; ";
    if (num_uncommitted != uncommitted_by_size_.size()) err << "stale free index entries; ";
    if (allocated != large_allocated_) err << "allocated " << allocated << " != counted; ";
    if (cached != cached_.load(kRelaxed)) err << "cached " << cached << " != counted; ";
    if (committed != large_reserved_) err << "committed " << committed << " != counted; ";
    return err.str();
  }

 private:
  enum State : uint8_t { kAllocated, kCached, kUncommitted };
  struct Block {
    size_t size;
    uint32_t arena;
    uint8_t state;
  };
  using BlockMap = std::map<uintptr_t, Block>;
  using It = BlockMap::iterator;
  using SizeIndex = std::set<std::pair<size_t, uintptr_t>>;  // (size, address): best fit
  struct Arena {
    uintptr_t base;
    size_t size;
  };
  // Where a miss puts its block: [addr, addr + size), of which
  // [commit_addr, commit_addr + commit_len) is uncommitted and the rest cached;
  // the uncommitted part lies in the free range [free_begin, free_end).
  struct Placement {
    uintptr_t addr = 0;
    uintptr_t commit_addr = 0;
    size_t commit_len = 0;
    uintptr_t free_begin = 0;
    uintptr_t free_end = 0;
  };

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
    std::lock_guard<std::mutex> lock(mu_);
    // The smallest cached range that fits (the lowest address among equals).
    auto fit = cached_by_size_.lower_bound({size, 0});
    if (fit != cached_by_size_.end()) {
      uintptr_t addr = fit->second;
      Carve(addr, size);
      num_cache_hits_.fetch_add(1, kRelaxed);
      return reinterpret_cast<void*>(addr);
    }
    Placement at;
    bool placed = Place(size, &at) && Commit(at);
    if (!placed) {
      num_alloc_retries_.fetch_add(1, kRelaxed);
      TrimCacheTo(0);  // give the cache back to the OS and try once more
      placed = Place(size, &at) && Commit(at);
    }
    if (!placed) OutOfMemory(nbytes);
    Carve(at.addr, size);
    return reinterpret_cast<void*>(at.addr);
  }

  // Chooses where a request no cached range fits goes, committing as little
  // as possible: a cached range grown into the uncommitted space next to it
  // (the largest such range, which leaves the least to commit), else the
  // smallest uncommitted range that fits, in a new arena if none does.
  bool Place(size_t size, Placement* at) {
    for (auto c = cached_by_size_.rbegin(); c != cached_by_size_.rend(); ++c) {
      It it = blocks_.find(c->second);
      const Block& b = it->second;  // smaller than `size`, or it would have been a hit
      auto next = std::next(it);
      if (next != blocks_.end() && next->second.arena == b.arena &&
          next->second.state == kUncommitted && b.size + next->second.size >= size) {
        *at = {it->first, next->first, size - b.size, next->first, next->first + next->second.size};
        return true;
      }
      if (it != blocks_.begin()) {
        auto prev = std::prev(it);
        if (prev->second.arena == b.arena && prev->second.state == kUncommitted &&
            prev->second.size + b.size >= size) {
          uintptr_t addr = it->first + b.size - size;
          *at = {addr, addr, size - b.size, prev->first, it->first};
          return true;
        }
      }
    }
    auto u = uncommitted_by_size_.lower_bound({size, 0});
    if (u == uncommitted_by_size_.end()) {
      if (!Reserve(size)) return false;
      u = uncommitted_by_size_.lower_bound({size, 0});
    }
    *at = {u->second, u->second, size, u->second, u->second + u->first};
    return true;
  }

  // Reserves a new arena of address space (no memory) that holds `size`.
  bool Reserve(size_t size) {
    if (size > kMaxRequest) return false;
    size_t needed = RoundUp(size, kHugePage);
    for (size_t bytes : {std::max(arena_bytes_, needed), needed}) {
      // Mapped with a huge page to spare, so that the arena can start on a
      // huge-page boundary; the unaligned ends are unmapped again.
      size_t span = bytes + kHugePage;
      void* p = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) continue;  // address space limited (ulimit -v): try just `needed`
      uintptr_t raw = reinterpret_cast<uintptr_t>(p);
      uintptr_t base = RoundUp(raw, kHugePage);
      if (base > raw) munmap(p, base - raw);
      if (raw + span > base + bytes) {
        munmap(reinterpret_cast<void*>(base + bytes), raw + span - base - bytes);
      }
      if (huge_pages_) madvise(reinterpret_cast<void*>(base), bytes, MADV_HUGEPAGE);
      arenas_.push_back({base, bytes});
      Insert(base, {bytes, static_cast<uint32_t>(arenas_.size() - 1), kUncommitted});
      arena_total_.fetch_add(bytes, kRelaxed);
      num_arenas_.fetch_add(1, kRelaxed);
      return true;
    }
    return false;
  }

  // Makes the uncommitted part of a placement usable.
  // The kernel checks the memory against its overcommit policy here (the
  // arenas are mapped without MAP_NORESERVE for this), so that an impossible
  // request fails as it would with mmap, rather than at the first touch.
  bool Commit(const Placement& at) {
    // Made writable out to huge-page boundaries (as far as the free range
    // goes): the kernel backs a 2 MiB step with a huge page only where all of
    // it is writable, so exact ends would leave 4 KiB pages at every edge.
    // The extra free bytes stay uncommitted in the books and untouched.
    uintptr_t begin = at.commit_addr / kHugePage * kHugePage;
    uintptr_t end = RoundUp(at.commit_addr + at.commit_len, kHugePage);
    begin = std::max(begin, at.free_begin);
    end = std::min(end, at.free_end);
    if (mprotect(reinterpret_cast<void*>(begin), end - begin, PROT_READ | PROT_WRITE) != 0) {
      return false;  // over the commit limit, or out of memory-map entries
    }
    large_reserved_ += at.commit_len;
    Reserved(at.commit_len);
    return true;
  }

  // Turns [addr, addr + size), which lies in free blocks (cached, or
  // uncommitted that Commit made usable), into one allocated block.
  void Carve(uintptr_t addr, size_t size) {
    It it = std::prev(blocks_.upper_bound(addr));
    uint32_t arena = it->second.arena;
    if (it->first < addr) it = Split(it, addr - it->first);
    uintptr_t end = addr + size;
    size_t from_cache = 0;
    while (it != blocks_.end() && it->first < end) {
      if (it->first + it->second.size > end) Split(it, end - it->first);
      if (it->second.state == kCached) from_cache += it->second.size;
      it = Erase(it);
    }
    Insert(addr, {size, arena, kAllocated});
    cached_.fetch_sub(from_cache, kRelaxed);
    large_allocated_ += size;
  }

  // Returns an allocated or cached block's memory to the OS.
  void Decommit(It it) {
    size_t size = it->second.size;
    // With the uncommitted neighbours' bytes out to huge-page boundaries,
    // which Commit may have made writable and a huge page resident.
    uintptr_t begin = it->first;
    uintptr_t end = begin + size;
    if (it != blocks_.begin()) {
      auto prev = std::prev(it);
      if (prev->second.arena == it->second.arena && prev->second.state == kUncommitted) {
        begin = std::max(prev->first, begin / kHugePage * kHugePage);
      }
    }
    auto next = std::next(it);
    if (next != blocks_.end() && next->second.arena == it->second.arena &&
        next->second.state == kUncommitted) {
      end = std::min(next->first + next->second.size, RoundUp(end, kHugePage));
    }
    void* p = reinterpret_cast<void*>(begin);
    // A fresh inaccessible mapping in its place drops the pages and the
    // kernel's commit charge at once.
    if (mmap(p, end - begin, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
        MAP_FAILED) {
      if (huge_pages_) madvise(p, end - begin, MADV_HUGEPAGE);  // as the rest of the arena
    } else {  // out of memory-map entries: at least the pages go
      madvise(p, end - begin, MADV_DONTNEED);
      mprotect(p, end - begin, PROT_NONE);
    }
    if (it->second.state == kCached) {
      Unindex(it);
      cached_.fetch_sub(size, kRelaxed);
    }
    it->second.state = kUncommitted;
    Index(it);
    large_reserved_ -= size;
    Released(size);
    Coalesce(it);
  }

  // Decommits cached ranges, largest first, until at most `limit` bytes stay.
  void TrimCacheTo(size_t limit) {
    while (cached_.load(kRelaxed) > limit && !cached_by_size_.empty()) {
      Decommit(blocks_.find(std::prev(cached_by_size_.end())->second));
    }
  }

  // Splits a free block after `head` bytes; returns the tail.
  It Split(It it, size_t head) {
    Block tail = it->second;
    tail.size -= head;
    Unindex(it);
    it->second.size = head;
    Index(it);
    return Insert(it->first + head, tail);
  }

  // Merges a free block with free neighbours in the same state.
  void Coalesce(It it) {
    auto next = std::next(it);
    if (next != blocks_.end() && next->second.arena == it->second.arena &&
        next->second.state == it->second.state) {
      size_t extra = next->second.size;
      Erase(next);
      Unindex(it);
      it->second.size += extra;
      Index(it);
    }
    if (it != blocks_.begin()) {
      auto prev = std::prev(it);
      if (prev->second.arena == it->second.arena && prev->second.state == it->second.state) {
        size_t extra = it->second.size;
        Erase(it);
        Unindex(prev);
        prev->second.size += extra;
        Index(prev);
      }
    }
  }

  It Insert(uintptr_t addr, const Block& b) {
    It it = blocks_.emplace(addr, b).first;
    Index(it);
    return it;
  }

  It Erase(It it) {
    Unindex(it);
    return blocks_.erase(it);
  }

  SizeIndex* IndexOf(const Block& b) {
    if (b.state == kCached) return &cached_by_size_;
    if (b.state == kUncommitted) return &uncommitted_by_size_;
    return nullptr;
  }
  void Index(It it) {
    if (SizeIndex* index = IndexOf(it->second)) index->insert({it->second.size, it->first});
  }
  void Unindex(It it) {
    if (SizeIndex* index = IndexOf(it->second)) index->erase({it->second.size, it->first});
  }

  [[noreturn]] void OutOfMemory(size_t nbytes) {
    num_ooms_.fetch_add(1, kRelaxed);
    OF_THROW(RuntimeError, "CPU out of memory: tried to allocate ", nbytes, " bytes (",
             allocated_.load(kRelaxed), " bytes allocated, ", cached_.load(kRelaxed),
             " bytes cached)");
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

  const size_t arena_bytes_;
  const bool huge_pages_;

  mutable std::mutex mu_;  // guards the members up to large_reserved_
  std::vector<Arena> arenas_;
  BlockMap blocks_;
  SizeIndex cached_by_size_;
  SizeIndex uncommitted_by_size_;
  size_t large_allocated_ = 0;
  size_t large_reserved_ = 0;

  std::atomic<size_t> cache_limit_;
  std::atomic<size_t> cached_{0};
  std::atomic<size_t> allocated_{0};
  std::atomic<size_t> peak_{0};
  std::atomic<size_t> reserved_{0};
  std::atomic<size_t> reserved_peak_{0};
  std::atomic<size_t> num_allocations_{0};
  std::atomic<size_t> num_allocations_peak_{0};
  std::atomic<size_t> arena_total_{0};
  std::atomic<size_t> num_arenas_{0};
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

CpuCachingAllocator::CpuCachingAllocator(const Options& options)
    : arenas_(std::make_unique<Arenas>(options)) {}
CpuCachingAllocator::~CpuCachingAllocator() = default;

void* CpuCachingAllocator::Allocate(size_t nbytes, int /*device_index*/) {
  return arenas_->Allocate(nbytes);
}
void CpuCachingAllocator::Deallocate(void* ptr, size_t nbytes, int /*device_index*/) {
  arenas_->Deallocate(ptr, nbytes);
}
CpuMemoryStats CpuCachingAllocator::Stats() const { return arenas_->Stats(); }
void CpuCachingAllocator::ResetPeak() { arenas_->ResetPeak(); }
void CpuCachingAllocator::ResetAccumulated() { arenas_->ResetAccumulated(); }
void CpuCachingAllocator::ReleaseCached() { arenas_->ReleaseCached(); }
void CpuCachingAllocator::SetCacheLimit(size_t nbytes) { arenas_->SetCacheLimit(nbytes); }
std::string CpuCachingAllocator::CheckInvariants() const { return arenas_->CheckInvariants(); }

namespace {

CpuCachingAllocator::Options OptionsFromEnv() {
  CpuCachingAllocator::Options options;
  const char* env = std::getenv("ONEFLOW_CPU_CACHE_LIMIT_MB");
  if (env != nullptr && *env != '\0') {
    options.cache_limit = static_cast<size_t>(std::strtoull(env, nullptr, 10)) << 20;
  }
  return options;
}

// Never destroyed: tensors freed while the process exits still come back here.
CpuCachingAllocator& CpuAllocator() {
  static CpuCachingAllocator* allocator = new CpuCachingAllocator(OptionsFromEnv());
  return *allocator;
}

const AllocatorRegistrar cpu_registrar(DeviceType::kCPU, &CpuAllocator());

}  // namespace

size_t CpuAllocationSize(size_t nbytes) {
  if (nbytes > kMaxRequest) return nbytes;  // fails in Allocate; no overflow here
  size_t rounded = RoundUp(std::max<size_t>(nbytes, 1), kCpuAlignment);
  return rounded <= kCpuSmallBlock ? rounded : RoundUp(rounded, kCpuPageSize);
}

AllocatorRegistrar::AllocatorRegistrar(DeviceType type, Allocator* allocator) {
  Registry()[static_cast<int>(type)] = allocator;
}

CpuMemoryStats GetCpuMemoryStats() { return CpuAllocator().Stats(); }
void ResetCpuPeakMemory() { CpuAllocator().ResetPeak(); }
void ResetCpuAccumulatedMemoryStats() { CpuAllocator().ResetAccumulated(); }
void ReleaseCpuCachedMemory() { CpuAllocator().ReleaseCached(); }
void SetCpuCacheLimit(size_t nbytes) { CpuAllocator().SetCacheLimit(nbytes); }

Allocator* GetAllocator(DeviceType type) {
  Allocator* a = Registry()[static_cast<int>(type)];
  OF_CHECK(a != nullptr, RuntimeError, "Cannot allocate memory on ",
           type == DeviceType::kCUDA ? "cuda" : "cpu",
           ": this build of oneflow has no support for that device type",
           type == DeviceType::kCUDA ? " (build with --config=cuda on a machine with CUDA)" : "");
  return a;
}

}  // namespace oneflow
