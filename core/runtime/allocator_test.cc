#include "core/runtime/allocator.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace oneflow
