#ifndef DISTRIBUTED_CSRC_PROCESS_GROUP_H_
#define DISTRIBUTED_CSRC_PROCESS_GROUP_H_

// A process group: CPU collectives among a set of ranks over gloo's TCP transport.
//
// Each group owns a gloo context whose full mesh of TCP connections is set up
// through the store under the group's own key prefix, so subgroups
// (new_group) are independent contexts and never mix messages with the world.
//
// Faults. Every collective has a timeout. Before entering one, a rank records
// "<seq> <name>(<arguments>)" under "<group>/arrived/<rank>" in the store (a set that
// does not wait for an answer). When gloo fails (timeout, or a peer's
// connection closed), the rank reads the other ranks' records and the store's
// exit markers, and raises CommTimeoutError / CommError naming the collective,
// the group's ranks, the ranks that never arrived, the ones that entered a
// different collective or other arguments, and the ones that exited. A failed
// group is unusable afterwards (its TCP pairs are in an error state): later
// calls raise at once.
//
// Mismatched calls. gloo aborts a process that receives more bytes than it
// posted. So a collective's gloo tag hashes its sequence number and arguments
// (ranks that disagree never exchange data: they time out with a diagnosis);
// all_to_all first gathers everyone's split sizes and raises a ValueError on
// every rank when a sender and its receiver disagree; send prefixes the
// payload with its size and a recv of another size raises a ValueError. Those
// ValueErrors leave the group usable.
//
// Buffers are raw pointers with element counts and a dtype: the caller (the
// Python layer) passes contiguous CPU tensors, so this library does not link
// the core runtime. Counts and ranks are within the group; messages show ranks
// as world ranks.

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "distributed/csrc/reduce_ops.h"
#include "distributed/csrc/tcp_store.h"

namespace gloo {
class Context;
}  // namespace gloo

namespace oneflow {
namespace distributed {

struct GroupOptions {
  // Unique within the job; the store prefix of the group's keys.
  std::string name;
  // This process's rank within the group.
  int rank = 0;
  // The world rank of each group rank.
  std::vector<int> global_ranks;
  // The address this process's gloo device listens on (reachable by the peers).
  std::string hostname = "127.0.0.1";
  std::chrono::milliseconds timeout{300000};
};

class ProcessGroup {
 public:
  // Connects to every other member; blocks until all have joined or the timeout passes.
  ProcessGroup(std::shared_ptr<TcpStore> store, GroupOptions options);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return options_.rank; }
  int size() const { return static_cast<int>(options_.global_ranks.size()); }
  const std::vector<int>& global_ranks() const { return options_.global_ranks; }
  const std::string& name() const { return options_.name; }
  std::chrono::milliseconds timeout() const { return options_.timeout; }
  void set_timeout(std::chrono::milliseconds timeout);

  // In place on `count` elements; every rank gets the reduction.
  void AllReduce(void* data, size_t count, DType dtype, ReduceOp op);
  // In place; only `root` is guaranteed the result (the others keep their input).
  void Reduce(void* data, size_t count, DType dtype, ReduceOp op, int root);
  void Broadcast(void* data, size_t count, DType dtype, int root);
  // `out` holds the ranks' inputs one after another; rank i contributes counts[i] elements.
  void AllGather(const void* in, void* out, const std::vector<size_t>& counts, DType dtype);
  // Equal counts; `out` (size() * count elements) matters on `root` only.
  void Gather(const void* in, void* out, size_t count, DType dtype, int root);
  // Equal counts; `in` (size() * count elements) matters on `root` only.
  void Scatter(const void* in, void* out, size_t count, DType dtype, int root);
  // `in` holds size() blocks, block i of counts[i] elements; rank i receives the
  // reduction of everyone's block i (counts[rank()] elements) in `out`.
  void ReduceScatter(const void* in, void* out, const std::vector<size_t>& counts, DType dtype,
                     ReduceOp op);
  // Rank r sends in_counts[j] elements (in order) to rank j, and receives
  // out_counts[i] elements from rank i, laid out in order in `out`.
  void AllToAll(const void* in, const std::vector<size_t>& in_counts, void* out,
                const std::vector<size_t>& out_counts, DType dtype);
  void Barrier();
  // Point to point, matched by (peer, tag). Recv from src = -1 takes any rank;
  // it returns the sender.
  void Send(const void* data, size_t count, DType dtype, int dst, uint32_t tag);
  int Recv(void* data, size_t count, DType dtype, int src, uint32_t tag);

 private:
  // Runs fn(tag) as this group's next collective, under its fault handling.
  template <typename Fn>
  void RunCollective(const char* name, const std::string& args, Fn&& fn);
  [[noreturn]] void Failed(const std::string& what, const std::string& cause, bool timed_out);
  // Explains a failure of collective number `seq` ("name(args)") from the store's records.
  std::string Diagnose(const std::string& signature, uint64_t seq);
  std::string ExitedRanks(const std::vector<int>& group_ranks);
  std::string ArrivedKey(int group_rank) const;
  std::string RankList() const;
  void CheckUsable(const std::string& what) const;
  void CheckRank(const char* what, const char* arg, int rank) const;
  void CheckCounts(const char* what, const char* arg, const std::vector<size_t>& counts) const;

  std::shared_ptr<TcpStore> store_;
  GroupOptions options_;
  std::shared_ptr<gloo::Context> context_;
  int owner_pid_;       // see the destructor
  std::mutex mu_;       // one operation at a time, so every rank numbers them alike
  uint64_t seq_ = 0;    // collectives run so far
  std::string broken_;  // the failure that made the group unusable, if any
};

}  // namespace distributed
}  // namespace oneflow

#endif  // DISTRIBUTED_CSRC_PROCESS_GROUP_H_
