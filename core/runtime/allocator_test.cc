#include "core/runtime/allocator.h"

#include <gtest/gtest.h>

#include "core/runtime/error.h"

namespace oneflow {
namespace {

TEST(CpuAllocatorTest, LargeBlocksAreReusedNotReturned) {
  Allocator* a = GetAllocator(DeviceType::kCPU);
  const size_t n = 3 << 20;
  void* p = a->Allocate(n, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kCpuAlignment, 0u);
  CpuMemoryStats live = GetCpuMemoryStats();
  EXPECT_GE(live.allocated, n);
  a->Deallocate(p, n, 0);
  EXPECT_GE(GetCpuMemoryStats().cached, n);
  // A slightly smaller request falls in the same size class and gets the block back.
  void* q = a->Allocate(n - 1000, 0);
  EXPECT_EQ(q, p);
  a->Deallocate(q, n - 1000, 0);
  ReleaseCpuCachedMemory();
  EXPECT_EQ(GetCpuMemoryStats().cached, 0u);
}

TEST(CpuAllocatorTest, PeakTracksTheMaximum) {
  Allocator* a = GetAllocator(DeviceType::kCPU);
  ResetCpuPeakMemory();
  size_t base = GetCpuMemoryStats().allocated;
  void* p = a->Allocate(1 << 20, 0);
  void* q = a->Allocate(1 << 20, 0);
  a->Deallocate(p, 1 << 20, 0);
  a->Deallocate(q, 1 << 20, 0);
  EXPECT_GE(GetCpuMemoryStats().peak, base + (2u << 20));
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

TEST(CpuAllocatorTest, SizeClasses) {
  EXPECT_EQ(CpuAllocationSize(0), 64u);
  EXPECT_EQ(CpuAllocationSize(1), 64u);
  EXPECT_EQ(CpuAllocationSize(65), 128u);
  EXPECT_EQ(CpuAllocationSize(kCpuSmallBlock), kCpuSmallBlock);
  // (64 KiB, 128 KiB] steps by 16 KiB; (1 MiB, 2 MiB] by 256 KiB.
  EXPECT_EQ(CpuAllocationSize(kCpuSmallBlock + 1), kCpuSmallBlock + (16u << 10));
  EXPECT_EQ(CpuAllocationSize((1u << 20) + 1), (1u << 20) + (256u << 10));
  EXPECT_EQ(CpuAllocationSize(2u << 20), 2u << 20);
}

TEST(CpuAllocatorTest, ReservedIsAllocatedPlusCached) {
  Allocator* a = GetAllocator(DeviceType::kCPU);
  ReleaseCpuCachedMemory();
  CpuMemoryStats before = GetCpuMemoryStats();
  EXPECT_EQ(before.reserved, before.allocated + before.cached);
  const size_t n = 5 << 20;
  void* p = a->Allocate(n, 0);
  CpuMemoryStats live = GetCpuMemoryStats();
  EXPECT_EQ(live.allocated, before.allocated + n);
  EXPECT_EQ(live.reserved, before.reserved + n);
  EXPECT_EQ(live.num_device_alloc, before.num_device_alloc + 1);
  a->Deallocate(p, n, 0);
  CpuMemoryStats freed = GetCpuMemoryStats();
  EXPECT_EQ(freed.allocated, before.allocated);
  EXPECT_EQ(freed.reserved, before.reserved + n);  // kept in the cache
  EXPECT_EQ(freed.freed_total, before.freed_total + n);
  ReleaseCpuCachedMemory();
  EXPECT_EQ(GetCpuMemoryStats().reserved, before.reserved);
}

TEST(CpuAllocatorTest, CacheLimitBoundsTheCache) {
  Allocator* a = GetAllocator(DeviceType::kCPU);
  const size_t saved = GetCpuMemoryStats().cache_limit;
  const size_t n = 4 << 20;
  void* p = a->Allocate(n, 0);
  void* q = a->Allocate(n, 0);
  a->Deallocate(p, n, 0);
  a->Deallocate(q, n, 0);
  EXPECT_GE(GetCpuMemoryStats().cached, 2 * n);
  SetCpuCacheLimit(n);  // trims at once
  EXPECT_LE(GetCpuMemoryStats().cached, n);
  SetCpuCacheLimit(0);
  EXPECT_EQ(GetCpuMemoryStats().cached, 0u);
  p = a->Allocate(n, 0);
  a->Deallocate(p, n, 0);  // over the limit: unmapped, not cached
  EXPECT_EQ(GetCpuMemoryStats().cached, 0u);
  SetCpuCacheLimit(saved);
}

TEST(CpuAllocatorTest, OutOfMemoryCountsAndThrows) {
  Allocator* a = GetAllocator(DeviceType::kCPU);
  CpuMemoryStats before = GetCpuMemoryStats();
  EXPECT_THROW(a->Allocate(size_t{1} << 50, 0), RuntimeError);
  CpuMemoryStats after = GetCpuMemoryStats();
  EXPECT_EQ(after.num_ooms, before.num_ooms + 1);
  EXPECT_EQ(after.num_alloc_retries, before.num_alloc_retries + 1);
  EXPECT_EQ(after.allocated, before.allocated);
}

}  // namespace
}  // namespace oneflow
