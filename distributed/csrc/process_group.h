#ifndef DISTRIBUTED_CSRC_PROCESS_GROUP_H_
#define DISTRIBUTED_CSRC_PROCESS_GROUP_H_

// A process group: the collectives among a set of ranks, one interface over two
// backends: gloo over TCP for CPU buffers (gloo_process_group.h) and NCCL for
// the buffers of this rank's GPU (nccl_process_group.h, --config=cuda builds).
// The Python binding knows this class only; NewProcessGroup makes a group of
// a backend by name.
//
// Setup. Every group of the job shares one TCP store; a group keeps its keys
// under its own name, so subgroups (new_group) never mix with the world.
//
// Faults. Every operation has a timeout. Before entering one, a rank records
// "<seq> <name>(<arguments>)" under "<group>/arrived/<rank>" in the store (a set
// that does not wait for an answer). When the backend fails (timeout, or a
// peer's connection closed), the rank reads the other ranks' records and the
// store's exit markers, and raises CommTimeoutError / CommError (comm_error.h)
// naming the operation, the group's ranks, the ranks that never arrived, the
// ones that entered a different operation or other arguments, and the ones that
// exited. A failed group is unusable afterwards: later calls raise at once.
// Bad arguments raise std::invalid_argument before anything is sent, and an
// operation the backend lacks raises CommUnsupportedError; both leave the group
// usable.
//
// Buffers are raw pointers with element counts and a core dtype: the caller
// (the Python layer) passes contiguous tensors of the backend's device, so this
// library does not link the core runtime. Counts and ranks are within the
// group; messages show ranks as world ranks. Calls block until the data is in
// place.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "distributed/csrc/reduce_ops.h"
#include "distributed/csrc/tcp_store.h"

namespace oneflow {
namespace distributed {

struct GroupOptions {
  // Unique within the job; the store prefix of the group's keys.
  std::string name;
  // This process's rank within the group.
  int rank = 0;
  // The world rank of each group rank.
  std::vector<int> global_ranks;
  // gloo: the address this process's device listens on (reachable by the peers).
  std::string hostname = "127.0.0.1";
  // nccl: the GPU of this process; -1 for the CPU backends.
  int device = -1;
  std::chrono::milliseconds timeout{300000};
};

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  // "gloo" or "nccl".
  virtual const char* backend() const = 0;
  int rank() const { return options_.rank; }
  int size() const { return static_cast<int>(options_.global_ranks.size()); }
  int device() const { return options_.device; }
  const std::vector<int>& global_ranks() const { return options_.global_ranks; }
  const std::string& name() const { return options_.name; }
  std::chrono::milliseconds timeout() const { return options_.timeout; }
  virtual void set_timeout(std::chrono::milliseconds timeout);

  // The collectives. A backend overrides those it runs; the others (reduce, gather,
  // scatter, send and recv, which NCCL lacks) raise CommUnsupportedError, pointing
  // at a gloo group.
  //
  // In place on `count` elements; every rank gets the reduction.
  virtual void AllReduce(void* data, size_t count, DType dtype, ReduceOp op) = 0;
  // In place; only `root` is guaranteed the result (the others keep their input).
  virtual void Reduce(void* data, size_t count, DType dtype, ReduceOp op, int root);
  virtual void Broadcast(void* data, size_t count, DType dtype, int root) = 0;
  // `out` holds the ranks' inputs one after another; rank i contributes counts[i] elements.
  virtual void AllGather(const void* in, void* out, const std::vector<size_t>& counts,
                         DType dtype) = 0;
  // Equal counts; `out` (size() * count elements) matters on `root` only.
  virtual void Gather(const void* in, void* out, size_t count, DType dtype, int root);
  // Equal counts; `in` (size() * count elements) matters on `root` only.
  virtual void Scatter(const void* in, void* out, size_t count, DType dtype, int root);
  // `in` holds size() blocks, block i of counts[i] elements; rank i receives the
  // reduction of everyone's block i (counts[rank()] elements) in `out`.
  virtual void ReduceScatter(const void* in, void* out, const std::vector<size_t>& counts,
                             DType dtype, ReduceOp op) = 0;
  // Rank r sends in_counts[j] elements (in order) to rank j, and receives
  // out_counts[i] elements from rank i, laid out in order in `out`.
  virtual void AllToAll(const void* in, const std::vector<size_t>& in_counts, void* out,
                        const std::vector<size_t>& out_counts, DType dtype) = 0;
  virtual void Barrier() = 0;
  // Point to point, matched by (peer, tag). Recv from src = -1 takes any rank;
  // it returns the sender.
  virtual void Send(const void* data, size_t count, DType dtype, int dst, uint32_t tag);
  virtual int Recv(void* data, size_t count, DType dtype, int src, uint32_t tag);

 protected:
  // Checks the rank against the group's size; `what` names the group in the message.
  ProcessGroup(std::shared_ptr<TcpStore> store, GroupOptions options, const char* what);

  // Records that this rank joined; SetupFailed names the members that did not.
  void MarkJoined();
  [[noreturn]] void SetupFailed(const std::string& where, const std::string& cause, bool timed_out);

  // What a backend's step of a collective reports: an empty `error` when it completed.
  struct StepResult {
    std::string error;
    bool timed_out = false;
  };
  // The backend's part of one collective, given the operation's number and signature.
  using Step = std::function<StepResult(uint64_t seq, const std::string& signature)>;
  // Runs `step` as the group's next collective "name(args)", the fault handling every
  // backend shares: one operation at a time (mu_), failing at once on a broken group,
  // numbered and recorded as this rank's arrival; a step that fails (or outlasts the
  // timeout) makes the group unusable and raises with the diagnosis of the ranks at fault.
  void RunCollective(const char* name, const std::string& args, const Step& step);
  // Explains a failure of operation number `seq` ("name(args)") from the store's records.
  std::string Diagnose(const std::string& signature, uint64_t seq);
  // "ranks [..] exited" for those of `group_ranks` that are gone, or "".
  std::string ExitedRanks(const std::vector<int>& group_ranks);
  // Makes the group unusable and throws "what [cause]".
  [[noreturn]] void Fail(const std::string& what, const std::string& cause, bool timed_out);
  // Tears the backend's connections down after a failure (Fail calls it).
  virtual void Abort() {}

  bool InForkedChild() const;
  std::string RankList() const;
  void CheckUsable(const std::string& what) const;
  void CheckRank(const char* what, const char* arg, int rank) const;
  void CheckCounts(const char* what, const char* arg, const std::vector<size_t>& counts) const;
  void CheckAllToAllCounts(const std::vector<size_t>& in_counts,
                           const std::vector<size_t>& out_counts) const;

  std::shared_ptr<TcpStore> store_;
  GroupOptions options_;
  std::mutex mu_;       // one operation at a time, so every rank numbers them alike
  uint64_t seq_ = 0;    // operations run so far
  std::string broken_;  // the failure that made the group unusable, if any

 private:
  // With mu_ held: fails at once on a broken group, numbers the operation and
  // records its signature ("name(args)") as this rank's arrival; returns the number.
  uint64_t Arrive(const char* name, const std::string& signature);
  // The message of operation `seq` that failed after `elapsed` (or timed out), with the diagnosis.
  std::string OperationFailure(const char* name, const std::string& signature, uint64_t seq,
                               std::chrono::milliseconds elapsed, bool timed_out);
  std::string JoinedKey(int group_rank) const;
  std::string ArrivedKey(int group_rank) const;

  int owner_pid_;  // a forked child must not tear down its parent's connections
};

// Makes a group of one backend; blocks until every member has joined or the timeout passes.
using ProcessGroupFactory = std::shared_ptr<ProcessGroup> (*)(std::shared_ptr<TcpStore> store,
                                                              GroupOptions options);

// The factory of a backend class constructible from (store, options).
template <typename Group>
std::shared_ptr<ProcessGroup> MakeProcessGroup(std::shared_ptr<TcpStore> store,
                                               GroupOptions options) {
  return std::make_shared<Group>(std::move(store), std::move(options));
}

// Each backend registers itself with a registrar constant at the end of its file
// (its target is alwayslink), so a build without NCCL simply has no "nccl":
//   const ProcessGroupRegistrar registrar("gloo", &MakeProcessGroup<GlooProcessGroup>);
struct ProcessGroupRegistrar {
  ProcessGroupRegistrar(const char* backend, ProcessGroupFactory factory);
};

// The registered backends' names, sorted.
std::vector<std::string> ProcessGroupBackends();
// A group of `backend`; std::invalid_argument naming the registered ones when it is not one.
std::shared_ptr<ProcessGroup> NewProcessGroup(const std::string& backend,
                                              std::shared_ptr<TcpStore> store,
                                              GroupOptions options);

}  // namespace distributed
}  // namespace oneflow

#endif  // DISTRIBUTED_CSRC_PROCESS_GROUP_H_
