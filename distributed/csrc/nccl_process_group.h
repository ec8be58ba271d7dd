#ifndef DISTRIBUTED_CSRC_NCCL_PROCESS_GROUP_H_
#define DISTRIBUTED_CSRC_NCCL_PROCESS_GROUP_H_

// The "nccl" backend of ProcessGroup: buffers in the memory of this rank's GPU
// (GroupOptions::device).
//
// Compiled only under --config=cuda when NCCL is found (the nccl_process_group
// target of distributed/BUILD is otherwise empty, and NewProcessGroup knows no
// "nccl"); nccl.h and cuda_runtime.h stay out of this header.
//
// Setup goes through the same TCP store as the gloo groups: rank 0 of the
// group makes the NCCL unique id and publishes it under "<group>/nccl_id", the
// others read it there. The communicator is non-blocking: every call enqueues
// its NCCL operation on the group's own CUDA stream, then waits for it by
// polling, up to the group's timeout. An operation that cannot complete (a peer
// never arrives or died) aborts the communicator and raises CommTimeoutError or
// CommError with ProcessGroup's diagnosis; the group is unusable afterwards.
//
// NCCL moves equal blocks: all_gather and reduce_scatter take equal counts
// (std::invalid_argument otherwise). all_to_all is a group of ncclSend/ncclRecv
// (NCCL has no all-to-all); the barrier is an all-reduce of one int on the
// device. reduce, gather, scatter, send and recv raise CommUnsupportedError:
// the Python layer runs them on the gloo group beside this one.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distributed/csrc/process_group.h"

namespace oneflow {
namespace distributed {

class NcclProcessGroup final : public ProcessGroup {
 public:
  // Connects the group's ranks on GPU options.device; blocks until all have
  // joined or the timeout passes.
  NcclProcessGroup(std::shared_ptr<TcpStore> store, GroupOptions options);
  ~NcclProcessGroup() override;

  const char* backend() const override { return "nccl"; }

  // The collectives NCCL has; reduce, gather, scatter, send and recv keep
  // ProcessGroup's CommUnsupportedError.
  void AllReduce(void* data, size_t count, DType dtype, ReduceOp op) override;
  void Broadcast(void* data, size_t count, DType dtype, int root) override;
  void AllGather(const void* in, void* out, const std::vector<size_t>& counts,
                 DType dtype) override;
  void ReduceScatter(const void* in, void* out, const std::vector<size_t>& counts, DType dtype,
                     ReduceOp op) override;
  void AllToAll(const void* in, const std::vector<size_t>& in_counts, void* out,
                const std::vector<size_t>& out_counts, DType dtype) override;
  void Barrier() override;

 private:
  struct State;  // the communicator, the stream and the barrier's scratch int

  // Runs enqueue(comm, stream) as the group's next collective (ProcessGroup::RunCollective)
  // and waits for it.
  template <typename Fn>
  void Run(const char* name, const std::string& args, Fn&& enqueue);
  // Waits for the communicator and the stream; returns an empty string when done.
  std::string WaitDone(std::chrono::steady_clock::time_point deadline, bool* timed_out);
  void Abort() override;
  // The one count of an equal-blocks operation.
  size_t EqualCount(const char* what, const std::vector<size_t>& counts) const;

  std::unique_ptr<State> state_;
};

}  // namespace distributed
}  // namespace oneflow

#endif  // DISTRIBUTED_CSRC_NCCL_PROCESS_GROUP_H_
