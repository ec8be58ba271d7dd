#ifndef DISTRIBUTED_CSRC_NCCL_PROCESS_GROUP_H_
#define DISTRIBUTED_CSRC_NCCL_PROCESS_GROUP_H_

// A process group over NCCL, for buffers in the memory of this rank's GPU.
//
// Compiled only under --config=cuda when NCCL is found (the nccl_comm target of
// distributed/BUILD then defines OF_WITH_NCCL); nccl.h and cuda_runtime.h stay
// out of this header, so the binding includes it without the CUDA headers.
//
// Setup goes through the same TCP store as the gloo groups: rank 0 of the
// group makes the NCCL unique id and publishes it under "<group>/nccl_id", the
// others read it there. The communicator is non-blocking: every call enqueues
// its NCCL operation on the group's own CUDA stream, then waits for it by
// polling, up to the group's timeout. An operation that cannot complete (a peer
// never arrives or died) aborts the communicator and raises CommTimeoutError or
// CommError naming the operation, the group's ranks and the ranks that never
// arrived (from "<group>/arrived/<rank>" records in the store, as the gloo
// groups keep them); the group is unusable afterwards.
//
// all_to_all is a group of ncclSend/ncclRecv (NCCL has no all-to-all); the
// barrier is an all-reduce of one int on the device. Calls block until the GPU
// work is done, as the gloo backend's do.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "distributed/csrc/process_group.h"
#include "distributed/csrc/reduce_ops.h"
#include "distributed/csrc/tcp_store.h"

namespace oneflow {
namespace distributed {

class NcclProcessGroup {
 public:
  // Connects the group's ranks on GPU `device` of this process; blocks until all
  // have joined or the timeout passes.
  NcclProcessGroup(std::shared_ptr<TcpStore> store, GroupOptions options, int device);
  ~NcclProcessGroup();
  NcclProcessGroup(const NcclProcessGroup&) = delete;
  NcclProcessGroup& operator=(const NcclProcessGroup&) = delete;

  int rank() const { return options_.rank; }
  int size() const { return static_cast<int>(options_.global_ranks.size()); }
  int device() const { return device_; }
  const std::vector<int>& global_ranks() const { return options_.global_ranks; }

  // In place on `count` elements.
  void AllReduce(void* data, size_t count, DType dtype, ReduceOp op);
  void Broadcast(void* data, size_t count, DType dtype, int root);
  // Equal counts: `out` holds size() * count elements, rank i's at i * count.
  void AllGather(const void* in, void* out, size_t count, DType dtype);
  // `in` holds size() blocks of `count` elements; rank i gets the reduction of block i.
  void ReduceScatter(const void* in, void* out, size_t count, DType dtype, ReduceOp op);
  // Rank r sends in_counts[j] elements (in order) to rank j and receives
  // out_counts[i] elements from rank i, laid out in order in `out`.
  void AllToAll(const void* in, const std::vector<size_t>& in_counts, void* out,
                const std::vector<size_t>& out_counts, DType dtype);
  void Barrier();

 private:
  struct State;  // the communicator, the stream and the barrier's scratch int

  // Runs enqueue(comm, stream) as the group's next operation and waits for it.
  template <typename Fn>
  void Run(const char* name, const std::string& args, Fn&& enqueue);
  // Waits for the communicator and the stream; returns an empty string when done.
  std::string WaitDone(std::chrono::steady_clock::time_point deadline, bool* timed_out);
  [[noreturn]] void Failed(const std::string& what, bool timed_out);
  std::string MissingRanks(uint64_t seq);
  std::string RankList() const;

  std::shared_ptr<TcpStore> store_;
  GroupOptions options_;
  int device_;
  std::unique_ptr<State> state_;
  int owner_pid_;       // a forked child must not tear down its parent's communicator
  std::mutex mu_;       // one operation at a time, so every rank numbers them alike
  uint64_t seq_ = 0;    // operations run so far
  std::string broken_;  // the failure that made the group unusable, if any
};

}  // namespace distributed
}  // namespace oneflow

#endif  // DISTRIBUTED_CSRC_NCCL_PROCESS_GROUP_H_
