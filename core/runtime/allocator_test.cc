// Tests of the CPU caching allocator: size rounding, splitting, merging, growing cached ranges,
// the cache limit, statistics, and that no byte is ever handed out twice. Most tests use their
// own CpuCachingAllocator with small arenas, so that block addresses are predictable; the last
// ones go through the process-wide allocator.

#include "core/runtime/allocator.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "core/runtime/error.h"

namespace oneflow {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

CpuCachingAllocator::Options SmallArenas(size_t arena_bytes = 64 * kMiB) {
  CpuCachingAllocator::Options options;
  options.arena_bytes = arena_bytes;
  return options;
}

char* At(void* p, size_t offset = 0) { return static_cast<char*>(p) + offset; }

TEST(CpuAllocationSizeTest, SmallBlocksBy64BytesLargeOnesByPages) {
  EXPECT_EQ(CpuAllocationSize(0), 64u);
  EXPECT_EQ(CpuAllocationSize(1), 64u);
  EXPECT_EQ(CpuAllocationSize(65), 128u);
  EXPECT_EQ(CpuAllocationSize(kCpuSmallBlock), kCpuSmallBlock);
  EXPECT_EQ(CpuAllocationSize(kCpuSmallBlock + 1), kCpuSmallBlock + kCpuPageSize);
  EXPECT_EQ(CpuAllocationSize(3 * kMiB + 5), 3 * kMiB + kCpuPageSize);
  EXPECT_EQ(CpuAllocationSize(3 * kMiB), 3 * kMiB);
}

TEST(CpuCachingAllocatorTest, ACachedBlockIsSplitForSmallerRequests) {
  CpuCachingAllocator a(SmallArenas());
  void* p = a.Allocate(3 * kMiB, 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kCpuAlignment, 0u);
  a.Deallocate(p, 3 * kMiB, 0);
  CpuMemoryStats before = a.Stats();
  EXPECT_EQ(before.cached, 3 * kMiB);
  // Both halves come from the cached block, head first: no new memory.
  void* q = a.Allocate(kMiB, 0);
  void* r = a.Allocate(kMiB, 0);
  EXPECT_EQ(q, p);
  EXPECT_EQ(r, At(p, kMiB));
  CpuMemoryStats after = a.Stats();
  EXPECT_EQ(after.num_cache_hits, before.num_cache_hits + 2);
  EXPECT_EQ(after.num_device_alloc, before.num_device_alloc);
  EXPECT_EQ(after.reserved, before.reserved);
  EXPECT_EQ(after.cached, kMiB);
  EXPECT_EQ(after.allocated, 2 * kMiB);
  EXPECT_EQ(a.CheckInvariants(), "");
  a.Deallocate(q, kMiB, 0);
  a.Deallocate(r, kMiB, 0);
  EXPECT_EQ(a.Stats().cached, 3 * kMiB);
  EXPECT_EQ(a.CheckInvariants(), "");
}

TEST(CpuCachingAllocatorTest, FreedNeighboursMergeIntoOneRange) {
  CpuCachingAllocator a(SmallArenas());
  void* x = a.Allocate(kMiB, 0);
  void* y = a.Allocate(kMiB, 0);
  void* z = a.Allocate(kMiB, 0);
  void* guard = a.Allocate(kMiB, 0);  // keeps z from bordering uncommitted space
  ASSERT_EQ(y, At(x, kMiB));
  ASSERT_EQ(z, At(x, 2 * kMiB));
  a.Deallocate(x, kMiB, 0);
  a.Deallocate(z, kMiB, 0);
  // Two separate 1 MiB ranges: 2 MiB fits in neither and is committed anew.
  CpuMemoryStats before = a.Stats();
  void* w = a.Allocate(2 * kMiB, 0);
  EXPECT_NE(w, x);
  EXPECT_EQ(a.Stats().num_device_alloc, before.num_device_alloc + 1);
  a.Deallocate(w, 2 * kMiB, 0);
  // Freeing y joins x, y and z: 3 MiB at x serves a 3 MiB request without new memory.
  a.Deallocate(y, kMiB, 0);
  EXPECT_EQ(a.CheckInvariants(), "");
  before = a.Stats();
  void* v = a.Allocate(3 * kMiB, 0);
  EXPECT_EQ(v, x);
  EXPECT_EQ(a.Stats().num_device_alloc, before.num_device_alloc);
  EXPECT_EQ(a.Stats().num_cache_hits, before.num_cache_hits + 1);
  a.Deallocate(v, 3 * kMiB, 0);
  a.Deallocate(guard, kMiB, 0);
  EXPECT_EQ(a.CheckInvariants(), "");
  EXPECT_EQ(a.Stats().allocated, 0u);
  EXPECT_EQ(a.Stats().reserved, a.Stats().cached);
}

TEST(CpuCachingAllocatorTest, AMissGrowsACachedRangeIntoUncommittedSpace) {
  CpuCachingAllocator a(SmallArenas());
  void* p = a.Allocate(kMiB, 0);
  std::memset(p, 7, kMiB);
  a.Deallocate(p, kMiB, 0);
  CpuMemoryStats before = a.Stats();
  // The cached 1 MiB borders the arena's uncommitted rest: 4 MiB there commits only 3 MiB.
  void* q = a.Allocate(4 * kMiB, 0);
  EXPECT_EQ(q, p);
  CpuMemoryStats after = a.Stats();
  EXPECT_EQ(after.reserved, before.reserved + 3 * kMiB);
  EXPECT_EQ(after.reserved_total, before.reserved_total + 3 * kMiB);
  EXPECT_EQ(after.cached, 0u);
  EXPECT_EQ(after.num_device_alloc, before.num_device_alloc + 1);
  EXPECT_EQ(after.num_cache_hits, before.num_cache_hits);
  std::memset(q, 1, 4 * kMiB);  // all of it is writable
  EXPECT_EQ(*At(q, 4 * kMiB - 1), 1);
  EXPECT_EQ(a.CheckInvariants(), "");
  a.Deallocate(q, 4 * kMiB, 0);
}

TEST(CpuCachingAllocatorTest, AMissGrowsACachedRangeBackwards) {
  CpuCachingAllocator a(SmallArenas());
  void* x = a.Allocate(2 * kMiB, 0);
  void* y = a.Allocate(kMiB, 0);
  void* guard = a.Allocate(kMiB, 0);
  a.SetCacheLimit(0);
  a.Deallocate(x, 2 * kMiB, 0);  // returned to the OS: uncommitted before y
  a.SetCacheLimit(size_t{1} << 30);
  a.Deallocate(y, kMiB, 0);  // cached, with uncommitted space in front of it
  CpuMemoryStats before = a.Stats();
  void* z = a.Allocate(3 * kMiB, 0);  // ends where y ends, commits only x's 2 MiB
  EXPECT_EQ(z, x);
  EXPECT_EQ(a.Stats().reserved, before.reserved + 2 * kMiB);
  EXPECT_EQ(a.Stats().cached, 0u);
  std::memset(z, 3, 3 * kMiB);
  EXPECT_EQ(a.CheckInvariants(), "");
  a.Deallocate(z, 3 * kMiB, 0);
  a.Deallocate(guard, kMiB, 0);
}

TEST(CpuCachingAllocatorTest, ReservedIsAllocatedPlusCached) {
  CpuCachingAllocator a(SmallArenas());
  const size_t n = 5 * kMiB;
  void* p = a.Allocate(n, 0);
  void* small = a.Allocate(1000, 0);
  CpuMemoryStats live = a.Stats();
  EXPECT_EQ(live.allocated, n + 1024);
  EXPECT_EQ(live.reserved, n + 1024);
  EXPECT_EQ(live.num_allocations, 2u);
  EXPECT_EQ(live.num_device_alloc, 2u);
  EXPECT_EQ(live.num_arenas, 1u);
  EXPECT_EQ(live.arena_bytes, 64 * kMiB);
  a.Deallocate(p, n, 0);
  a.Deallocate(small, 1000, 0);
  CpuMemoryStats freed = a.Stats();
  EXPECT_EQ(freed.allocated, 0u);
  EXPECT_EQ(freed.cached, n);
  EXPECT_EQ(freed.reserved, n);  // the large block stays, the small one went back to glibc
  EXPECT_EQ(freed.freed_total, n + 1024);
  EXPECT_EQ(freed.peak, n + 1024);
  a.ReleaseCached();
  CpuMemoryStats released = a.Stats();
  EXPECT_EQ(released.reserved, 0u);
  EXPECT_EQ(released.cached, 0u);
  EXPECT_EQ(released.released_total, n + 1024);
  EXPECT_EQ(released.num_device_free, 2u);
  EXPECT_EQ(a.CheckInvariants(), "");
}

TEST(CpuCachingAllocatorTest, ReleasedMemoryLeavesResidenceAndComesBackUsable) {
  CpuCachingAllocator a(SmallArenas());
  const size_t n = 8 * kMiB;
  void* p = a.Allocate(n, 0);
  std::memset(p, 0x5a, n);
  a.Deallocate(p, n, 0);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident(n / page);
  ASSERT_EQ(mincore(p, n, resident.data()), 0);
  size_t count = 0;
  for (unsigned char r : resident) count += r & 1;
  EXPECT_EQ(count, n / page);  // cached: still in memory
  a.ReleaseCached();
  ASSERT_EQ(mincore(p, n, resident.data()), 0);
  count = 0;
  for (unsigned char r : resident) count += r & 1;
  EXPECT_EQ(count, 0u);
  void* q = a.Allocate(n, 0);  // committed again
  EXPECT_EQ(q, p);
  std::memset(q, 1, n);
  EXPECT_EQ(*At(q, n - 1), 1);
  a.Deallocate(q, n, 0);
}

size_t ResidentPages(void* p, size_t n) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident(n / page);
  if (mincore(p, n, resident.data()) != 0) return ~size_t{0};
  size_t count = 0;
  for (unsigned char r : resident) count += r & 1;
  return count;
}

TEST(CpuCachingAllocatorTest, ReleasingASmallBlockReleasesItsHugePage) {
  // A 68 KiB block at the start of an arena; the commit makes its whole 2 MiB writable, so its
  // first touch may bring in a huge page. Releasing it must not leave the rest resident.
  CpuCachingAllocator a(SmallArenas());
  const size_t n = kCpuSmallBlock + kCpuPageSize;
  void* p = a.Allocate(n, 0);
  std::memset(p, 1, n);
  a.Deallocate(p, n, 0);
  a.ReleaseCached();
  EXPECT_EQ(ResidentPages(p, 2 * kMiB), 0u);
  EXPECT_EQ(a.Stats().reserved, 0u);
  EXPECT_EQ(a.CheckInvariants(), "");
}

TEST(CpuCachingAllocatorTest, MoreThanTheMachineHasFailsAtOnce) {
  // Under the kernel's default overcommit heuristic a private writable mapping larger than RAM
  // plus swap is refused; the allocator must see that refusal (as mmap would) instead of handing
  // out address space that faults later.
  FILE* f = std::fopen("/proc/sys/vm/overcommit_memory", "r");
  int mode = -1;
  if (f != nullptr) {
    if (std::fscanf(f, "%d", &mode) != 1) mode = -1;
    std::fclose(f);
  }
  if (mode != 0) GTEST_SKIP() << "vm.overcommit_memory is " << mode << ", not 0";
  CpuCachingAllocator a(SmallArenas());
  const size_t huge = size_t{1} << 42;  // 4 TiB: address space exists, memory does not
  EXPECT_THROW(a.Allocate(huge, 0), RuntimeError);
  EXPECT_EQ(a.Stats().num_ooms, 1u);
  EXPECT_EQ(a.Stats().reserved, 0u);
  EXPECT_EQ(a.CheckInvariants(), "");
  void* p = a.Allocate(kMiB, 0);  // and the allocator still works
  std::memset(p, 1, kMiB);
  a.Deallocate(p, kMiB, 0);
}

TEST(CpuCachingAllocatorTest, CacheLimitBoundsTheCache) {
  CpuCachingAllocator a(SmallArenas());
  const size_t n = 4 * kMiB;
  void* p = a.Allocate(n, 0);
  void* guard = a.Allocate(n, 0);  // keeps p and q apart
  void* q = a.Allocate(n, 0);
  a.Deallocate(p, n, 0);
  a.Deallocate(q, n, 0);
  EXPECT_EQ(a.Stats().cached, 2 * n);
  a.SetCacheLimit(n);  // trims at once
  EXPECT_EQ(a.Stats().cached, n);
  EXPECT_EQ(a.Stats().cache_limit, n);
  a.SetCacheLimit(0);
  EXPECT_EQ(a.Stats().cached, 0u);
  p = a.Allocate(n, 0);
  a.Deallocate(p, n, 0);  // over the limit: returned, not cached
  EXPECT_EQ(a.Stats().cached, 0u);
  EXPECT_EQ(a.Stats().reserved, n);  // the guard alone
  a.Deallocate(guard, n, 0);
  EXPECT_EQ(a.Stats().reserved, 0u);
  EXPECT_EQ(a.CheckInvariants(), "");
}

TEST(CpuCachingAllocatorTest, FullArenasGetCompany) {
  CpuCachingAllocator a(SmallArenas(8 * kMiB));
  void* p = a.Allocate(6 * kMiB, 0);
  void* q = a.Allocate(6 * kMiB, 0);     // does not fit beside p
  void* big = a.Allocate(20 * kMiB, 0);  // larger than an arena: one of its own size
  CpuMemoryStats s = a.Stats();
  EXPECT_EQ(s.num_arenas, 3u);
  EXPECT_EQ(s.arena_bytes, 8 * kMiB + 8 * kMiB + 20 * kMiB);
  std::memset(p, 1, 6 * kMiB);
  std::memset(q, 2, 6 * kMiB);
  std::memset(big, 3, 20 * kMiB);
  EXPECT_EQ(*At(p, 6 * kMiB - 1), 1);
  EXPECT_EQ(*At(q, 0), 2);
  EXPECT_EQ(a.CheckInvariants(), "");
  a.Deallocate(p, 6 * kMiB, 0);
  a.Deallocate(q, 6 * kMiB, 0);
  a.Deallocate(big, 20 * kMiB, 0);
  EXPECT_EQ(a.Stats().cached, 32 * kMiB);
  EXPECT_EQ(a.CheckInvariants(), "");
}

TEST(CpuCachingAllocatorTest, OutOfMemoryCountsAndThrows) {
  CpuCachingAllocator a(SmallArenas());
  void* p = a.Allocate(kMiB, 0);
  a.Deallocate(p, kMiB, 0);
  EXPECT_THROW(a.Allocate(size_t{1} << 50, 0), RuntimeError);
  CpuMemoryStats s = a.Stats();
  EXPECT_EQ(s.num_ooms, 1u);
  EXPECT_EQ(s.num_alloc_retries, 1u);
  EXPECT_EQ(s.allocated, 0u);
  EXPECT_EQ(s.cached, 0u);  // the retry emptied the cache
  EXPECT_EQ(a.CheckInvariants(), "");
}

TEST(CpuCachingAllocatorTest, RepeatedStepsReachASteadyStateWithoutNewMemory) {
  // A training step's pattern: the forward pass keeps activations of one set of sizes, the
  // backward pass frees them in reverse while making gradients of other sizes; the gradients
  // outlive the step until the next one replaces them.
  CpuCachingAllocator a(SmallArenas(256 * kMiB));
  const std::vector<size_t> act = {3 * kMiB, 12 * kMiB, 5 * kMiB + 4096, 700 * 1024, 9 * kMiB};
  const std::vector<size_t> grad = {2 * kMiB + 8192, 7 * kMiB, 4 * kMiB, 11 * kMiB};
  std::vector<void*> grads;
  CpuMemoryStats after_warmup;
  for (int step = 0; step < 6; ++step) {
    if (step == 2) after_warmup = a.Stats();
    for (size_t i = 0; i < grads.size(); ++i) a.Deallocate(grads[i], grad[i], 0);
    grads.clear();
    std::vector<void*> acts;
    for (size_t n : act) acts.push_back(a.Allocate(n, 0));
    for (size_t i = act.size(); i-- > 0;) {
      if (i < grad.size()) grads.push_back(a.Allocate(grad[grads.size()], 0));
      a.Deallocate(acts[i], act[i], 0);
    }
  }
  CpuMemoryStats s = a.Stats();
  EXPECT_EQ(s.num_device_alloc, after_warmup.num_device_alloc);
  EXPECT_EQ(s.reserved_total, after_warmup.reserved_total);
  // Freed activations became the gradients' memory: the high-water mark of reserved memory
  // stays near that of allocated memory.
  EXPECT_LE(s.reserved_peak, s.peak + 8 * kMiB);
  for (size_t i = 0; i < grads.size(); ++i) a.Deallocate(grads[i], grad[i], 0);
  EXPECT_EQ(a.CheckInvariants(), "");
}

// Fills each live block with its own byte and checks it on free: a byte handed out twice
// would be overwritten by the other block's owner.
TEST(CpuCachingAllocatorTest, RandomTrafficNeverHandsOutAByteTwice) {
  CpuCachingAllocator a(SmallArenas(32 * kMiB));
  std::mt19937_64 rng(42);
  struct Live {
    size_t nbytes;
    unsigned char tag;
  };
  std::map<uintptr_t, Live> live;
  size_t expected_allocated = 0;
  auto free_one = [&](std::map<uintptr_t, Live>::iterator it) {
    char* p = reinterpret_cast<char*>(it->first);
    const Live& l = it->second;
    for (size_t off : {size_t{0}, l.nbytes / 2, l.nbytes - 1}) {
      ASSERT_EQ(static_cast<unsigned char>(p[off]), l.tag) << "block at " << it->first;
    }
    a.Deallocate(p, l.nbytes, 0);
    expected_allocated -= CpuAllocationSize(l.nbytes);
    live.erase(it);
  };
  for (int i = 0; i < 4000; ++i) {
    if (i == 2000) a.SetCacheLimit(6 * kMiB);  // decommits in the mix from here on
    if (!live.empty() && (rng() % 100 < 45 || live.size() > 60)) {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      free_one(it);
      if (HasFatalFailure()) return;
    } else {
      size_t nbytes =
          rng() % 8 == 0 ? 1 + rng() % kCpuSmallBlock : kCpuSmallBlock + rng() % (6 * kMiB);
      char* p = static_cast<char*>(a.Allocate(nbytes, 0));
      uintptr_t addr = reinterpret_cast<uintptr_t>(p);
      // No overlap with the live neighbours on either side.
      auto next = live.lower_bound(addr);
      if (next != live.end()) {
        ASSERT_LE(addr + nbytes, next->first);
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second.nbytes, addr);
      }
      unsigned char tag = static_cast<unsigned char>(1 + i % 251);
      std::memset(p, tag, nbytes);
      live[addr] = {nbytes, tag};
      expected_allocated += CpuAllocationSize(nbytes);
    }
    CpuMemoryStats s = a.Stats();
    ASSERT_EQ(s.allocated, expected_allocated);
    ASSERT_EQ(s.num_allocations, live.size());
    if (i % 97 == 0) {
      ASSERT_EQ(a.CheckInvariants(), "") << "after operation " << i;
      ASSERT_EQ(s.reserved, s.allocated + s.cached);
      if (i >= 2000) {
        ASSERT_LE(s.cached, 6 * kMiB);
      }
    }
  }
  while (!live.empty()) {
    free_one(live.begin());
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(a.CheckInvariants(), "");
  EXPECT_EQ(a.Stats().allocated, 0u);
  a.ReleaseCached();
  EXPECT_EQ(a.Stats().reserved, 0u);
}

TEST(CpuCachingAllocatorTest, ThreadsKeepTheArenasConsistent) {
  CpuCachingAllocator a(SmallArenas(32 * kMiB));
  auto work = [&a](unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<std::pair<char*, size_t>> mine;
    for (int i = 0; i < 500; ++i) {
      if (!mine.empty() && rng() % 2 == 0) {
        auto [p, n] = mine.back();
        mine.pop_back();
        ASSERT_EQ(p[0], static_cast<char>(seed));
        ASSERT_EQ(p[n - 1], static_cast<char>(seed));
        a.Deallocate(p, n, 0);
      } else {
        size_t n = kCpuSmallBlock / 2 + rng() % (2 * kMiB);
        char* p = static_cast<char*>(a.Allocate(n, 0));
        std::memset(p, static_cast<char>(seed), n);
        mine.emplace_back(p, n);
      }
    }
    for (auto [p, n] : mine) a.Deallocate(p, n, 0);
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t <= 4; ++t) threads.emplace_back(work, t);
  for (auto& t : threads) t.join();
  CpuMemoryStats s = a.Stats();
  EXPECT_EQ(s.allocated, 0u);
  EXPECT_EQ(s.num_allocations, 0u);
  EXPECT_EQ(s.reserved, s.cached);
  EXPECT_EQ(a.CheckInvariants(), "");
}

TEST(CpuCachingAllocatorDeathTest, FreeingTwiceAborts) {
  CpuCachingAllocator a(SmallArenas());
  void* p = a.Allocate(kMiB, 0);
  a.Deallocate(p, kMiB, 0);
  EXPECT_DEATH(a.Deallocate(p, kMiB, 0), "");
}

// The process-wide allocator behind GetAllocator(kCPU) and the Get/Reset/Release functions.
TEST(CpuAllocatorTest, LargeBlocksAreReusedNotReturned) {
  Allocator* a = GetAllocator(DeviceType::kCPU);
  const size_t n = 3 * kMiB;
  void* p = a->Allocate(n, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kCpuAlignment, 0u);
  EXPECT_GE(GetCpuMemoryStats().allocated, n);
  a->Deallocate(p, n, 0);
  EXPECT_GE(GetCpuMemoryStats().cached, n);
  void* q = a->Allocate(n - 1000, 0);  // a smaller request gets the block back
  EXPECT_EQ(q, p);
  a->Deallocate(q, n - 1000, 0);
  ReleaseCpuCachedMemory();
  EXPECT_EQ(GetCpuMemoryStats().cached, 0u);
}

TEST(CpuAllocatorTest, PeakTracksTheMaximum) {
  Allocator* a = GetAllocator(DeviceType::kCPU);
  ResetCpuPeakMemory();
  size_t base = GetCpuMemoryStats().allocated;
  void* p = a->Allocate(kMiB, 0);
  void* q = a->Allocate(kMiB, 0);
  a->Deallocate(p, kMiB, 0);
  a->Deallocate(q, kMiB, 0);
  EXPECT_EQ(GetCpuMemoryStats().peak, base + 2 * kMiB);
  EXPECT_EQ(GetCpuMemoryStats().allocated, base);
}

TEST(CpuAllocatorTest, ZeroBytesGetsAUniquePointer) {
  Allocator* a = GetAllocator(DeviceType::kCPU);
  void* p = a->Allocate(0, 0);
  void* q = a->Allocate(0, 0);
  EXPECT_NE(p, nullptr);
  EXPECT_NE(p, q);
  a->Deallocate(p, 0, 0);
  a->Deallocate(q, 0, 0);
}

TEST(CpuAllocatorTest, CacheLimitAndAccumulatedResets) {
  Allocator* a = GetAllocator(DeviceType::kCPU);
  const size_t saved = GetCpuMemoryStats().cache_limit;
  SetCpuCacheLimit(0);
  EXPECT_EQ(GetCpuMemoryStats().cached, 0u);
  void* p = a->Allocate(4 * kMiB, 0);
  a->Deallocate(p, 4 * kMiB, 0);
  EXPECT_EQ(GetCpuMemoryStats().cached, 0u);
  SetCpuCacheLimit(saved);
  ResetCpuAccumulatedMemoryStats();
  CpuMemoryStats s = GetCpuMemoryStats();
  EXPECT_EQ(s.allocated_total, 0u);
  EXPECT_EQ(s.num_allocs, 0u);
  EXPECT_EQ(s.reserved, s.allocated + s.cached);
}

}  // namespace
}  // namespace oneflow
