#include <gtest/gtest.h>

#include <vector>

#ifdef OF_WITH_CUDA
#include "ops/cuda/fill_kernel.h"
#endif

namespace {

TEST(CudaFillKernelTest, FillsOnDevice) {
#ifndef OF_WITH_CUDA
  GTEST_SKIP() << "needs a CUDA build (--config=cuda) and a GPU";
#else
  if (oneflow::cuda::DeviceCount() == 0) GTEST_SKIP() << "needs a GPU: no CUDA device visible";
  std::vector<float> host(100000, 0.0f);
  EXPECT_EQ(oneflow::cuda::FillOnDevice(host.data(), host.size(), 2.5f), "");
  for (float v : host) ASSERT_EQ(v, 2.5f);
#endif
}

}  // namespace
