#ifndef DISTRIBUTED_CSRC_GLOO_PROCESS_GROUP_H_
#define DISTRIBUTED_CSRC_GLOO_PROCESS_GROUP_H_

// The "gloo" backend of ProcessGroup: CPU buffers over gloo's TCP transport.
//
// Each group owns a gloo context whose full mesh of TCP connections is set up
// through the store under the group's own key prefix, so subgroups are
// independent contexts.
//
// Mismatched calls. gloo aborts a process that receives more bytes than it
// posted. So a collective's gloo tag hashes its sequence number and arguments
// (ranks that disagree never exchange data: they time out with a diagnosis);
// all_to_all first gathers everyone's split sizes and raises a ValueError on
// every rank when a sender and its receiver disagree; send prefixes the
// payload with its size and a recv of another size raises a ValueError. Those
// ValueErrors leave the group usable.
//
// float16 and bfloat16 reduce in float32 (convert, reduce, round once), so a
// sum over ranks equals the float32 sum rounded to the 16-bit type, whatever
// the ring order.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distributed/csrc/process_group.h"

namespace gloo {
class Context;
}  // namespace gloo

namespace oneflow {
namespace distributed {

class GlooProcessGroup final : public ProcessGroup {
 public:
  // Connects to every other member; blocks until all have joined or the timeout passes.
  GlooProcessGroup(std::shared_ptr<TcpStore> store, GroupOptions options);
  ~GlooProcessGroup() override;

  const char* backend() const override { return "gloo"; }
  void set_timeout(std::chrono::milliseconds timeout) override;

  void AllReduce(void* data, size_t count, DType dtype, ReduceOp op) override;
  void Reduce(void* data, size_t count, DType dtype, ReduceOp op, int root) override;
  void Broadcast(void* data, size_t count, DType dtype, int root) override;
  void AllGather(const void* in, void* out, const std::vector<size_t>& counts,
                 DType dtype) override;
  void Gather(const void* in, void* out, size_t count, DType dtype, int root) override;
  void Scatter(const void* in, void* out, size_t count, DType dtype, int root) override;
  void ReduceScatter(const void* in, void* out, const std::vector<size_t>& counts, DType dtype,
                     ReduceOp op) override;
  void AllToAll(const void* in, const std::vector<size_t>& in_counts, void* out,
                const std::vector<size_t>& out_counts, DType dtype) override;
  void Barrier() override;
  void Send(const void* data, size_t count, DType dtype, int dst, uint32_t tag) override;
  int Recv(void* data, size_t count, DType dtype, int src, uint32_t tag) override;

 private:
  // Runs fn(tag) as this group's next collective (ProcessGroup::RunCollective); the tag
  // keeps ranks whose calls disagree apart.
  template <typename Fn>
  void Run(const char* name, const std::string& args, Fn&& fn);
  // Sets the tag and the timeout of `opts` and runs the gloo collective.
  template <typename Options, typename Collective>
  void Launch(Options& opts, uint32_t tag, Collective collective);
  // gather and scatter: equal blocks of `bytes` to or from `root` (named `root_arg`);
  // set_blocks(opts, is_root) gives gloo the buffers.
  template <typename Options, typename SetBlocks>
  void RunRooted(const char* name, const char* root_arg, const void* in, void* out, size_t bytes,
                 int root, void (*collective)(Options&), SetBlocks&& set_blocks);
  // A failed send or recv with `peers` (group ranks): the message names those that exited.
  [[noreturn]] void PointToPointFailed(std::string what, const std::vector<int>& peers,
                                       const std::string& cause, bool timed_out);

  std::shared_ptr<gloo::Context> context_;
};

}  // namespace distributed
}  // namespace oneflow

#endif  // DISTRIBUTED_CSRC_GLOO_PROCESS_GROUP_H_
