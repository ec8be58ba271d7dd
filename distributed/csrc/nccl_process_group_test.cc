// The NCCL backend of ProcessGroup on one rank and one GPU: every collective moves the right
// bytes.
// Tagged "gpu": it skips, naming what is missing, without a CUDA+NCCL build or without a GPU.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#ifdef OF_WITH_NCCL
#include <cuda_runtime.h>

#include "distributed/csrc/comm_error.h"
#include "distributed/csrc/process_group.h"
#include "distributed/csrc/tcp_store.h"
#endif

namespace oneflow {
namespace distributed {
namespace {

#ifdef OF_WITH_NCCL
// A device buffer holding `host`; Get() copies it back.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(const std::vector<T>& host) : n_(host.size()) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&ptr_), std::max<size_t>(n_, 1) * sizeof(T)),
              cudaSuccess);
    EXPECT_EQ(cudaMemcpy(ptr_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  T* get() { return ptr_; }
  std::vector<T> Get() const {
    std::vector<T> host(n_);
    EXPECT_EQ(cudaMemcpy(host.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }

 private:
  size_t n_;
  T* ptr_ = nullptr;
};

std::shared_ptr<ProcessGroup> OneRankGroup(std::shared_ptr<TcpStore> store) {
  GroupOptions o;
  o.name = "nccl_test";
  o.rank = 0;
  o.global_ranks = {0};
  o.device = 0;
  o.timeout = std::chrono::milliseconds(30000);
  return NewProcessGroup("nccl", std::move(store), o);
}
#endif

TEST(NcclProcessGroupTest, OneRankCollectives) {
#ifndef OF_WITH_NCCL
  GTEST_SKIP() << "needs a CUDA build with NCCL (--config=cuda, with the nvidia-nccl wheel in the "
                  "project virtualenv)";
#else
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    GTEST_SKIP() << "needs a GPU: no CUDA device visible";
  }
  TcpStoreServer server(0);
  auto store =
      std::make_shared<TcpStore>("127.0.0.1", server.port(), 0, std::chrono::milliseconds(30000));
  auto pg = OneRankGroup(store);
  EXPECT_EQ(pg->size(), 1);
  EXPECT_STREQ(pg->backend(), "nccl");
  EXPECT_EQ(pg->device(), 0);

  DeviceBuffer<float> x({1.5f, -2.0f, 3.0f});
  pg->AllReduce(x.get(), 3, DType::kFloat32, ReduceOp::kSum);
  EXPECT_EQ(x.Get(), (std::vector<float>{1.5f, -2.0f, 3.0f}));
  pg->AllReduce(x.get(), 3, DType::kFloat32, ReduceOp::kAvg);
  EXPECT_EQ(x.Get(), (std::vector<float>{1.5f, -2.0f, 3.0f}));

  DeviceBuffer<int64_t> b({7, 8});
  pg->Broadcast(b.get(), 2, DType::kInt64, 0);
  EXPECT_EQ(b.Get(), (std::vector<int64_t>{7, 8}));

  DeviceBuffer<int32_t> in({1, 2, 3, 4}), out({0, 0, 0, 0});
  pg->AllGather(in.get(), out.get(), {4}, DType::kInt32);
  EXPECT_EQ(out.Get(), (std::vector<int32_t>{1, 2, 3, 4}));

  DeviceBuffer<double> rs_in({0.5, 0.25}), rs_out({0, 0});
  pg->ReduceScatter(rs_in.get(), rs_out.get(), {2}, DType::kFloat64, ReduceOp::kMax);
  EXPECT_EQ(rs_out.Get(), (std::vector<double>{0.5, 0.25}));

  DeviceBuffer<uint8_t> a_in({1, 2, 3}), a_out({0, 0, 0});
  pg->AllToAll(a_in.get(), {3}, a_out.get(), {3}, DType::kUInt8);
  EXPECT_EQ(a_out.Get(), (std::vector<uint8_t>{1, 2, 3}));

  pg->Barrier();
  // Bad input raises at once and leaves the group usable.
  EXPECT_THROW(pg->AllReduce(x.get(), 3, DType::kInt16, ReduceOp::kSum), std::invalid_argument);
  EXPECT_THROW(pg->AllReduce(x.get(), 3, DType::kFloat32, ReduceOp::kBxor), std::invalid_argument);
  EXPECT_THROW(pg->Broadcast(x.get(), 3, DType::kFloat32, 1), std::invalid_argument);
  EXPECT_THROW(pg->AllToAll(a_in.get(), {3}, a_out.get(), {2}, DType::kUInt8),
               std::invalid_argument);
  EXPECT_THROW(pg->AllGather(in.get(), out.get(), {4, 2}, DType::kInt32), std::invalid_argument);
  // What NCCL lacks runs on the gloo group beside it.
  EXPECT_THROW(pg->Send(x.get(), 3, DType::kFloat32, 0, 0), CommUnsupportedError);
  pg->Barrier();
#endif
}

}  // namespace
}  // namespace distributed
}  // namespace oneflow
