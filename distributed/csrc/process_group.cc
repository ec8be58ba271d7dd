#include "distributed/csrc/process_group.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

#include "distributed/csrc/comm_error.h"

namespace oneflow {
namespace distributed {
namespace {

std::vector<char> Bytes(const std::string& s) { return std::vector<char>(s.begin(), s.end()); }

std::string JoinRanks(const std::vector<int>& ranks) {
  std::string s = "[";
  for (size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s + "]";
}

// What a backend lacks: the Python layer runs it on the gloo group beside this one.
CommUnsupportedError Unsupported(const char* what, const char* backend) {
  return CommUnsupportedError(StrCat(what, ": the ", backend, " backend has no ", what,
                                     "; use a gloo group (CPU tensors)"));
}

std::map<std::string, ProcessGroupFactory>& Registry() {
  static auto* registry = new std::map<std::string, ProcessGroupFactory>;
  return *registry;
}

}  // namespace

ProcessGroupRegistrar::ProcessGroupRegistrar(const char* backend, ProcessGroupFactory factory) {
  Registry()[backend] = factory;
}

std::vector<std::string> ProcessGroupBackends() {
  std::vector<std::string> names;
  for (const auto& entry : Registry()) names.push_back(entry.first);
  return names;
}

std::shared_ptr<ProcessGroup> NewProcessGroup(const std::string& backend,
                                              std::shared_ptr<TcpStore> store,
                                              GroupOptions options) {
  auto it = Registry().find(backend);
  if (it == Registry().end()) {
    std::string known;
    for (const auto& name : ProcessGroupBackends()) known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument(
        StrCat("unknown process group backend '", backend, "'; this build has: ", known));
  }
  return it->second(std::move(store), std::move(options));
}

ProcessGroup::ProcessGroup(std::shared_ptr<TcpStore> store, GroupOptions options, const char* what)
    : store_(std::move(store)), options_(std::move(options)), owner_pid_(::getpid()) {
  const int n = size();
  if (n < 1 || options_.rank < 0 || options_.rank >= n) {
    throw std::invalid_argument(StrCat(what, " '", options_.name, "': rank ", options_.rank,
                                       " is outside a group of ", n, " ranks"));
  }
}

void ProcessGroup::set_timeout(std::chrono::milliseconds timeout) {
  std::lock_guard<std::mutex> lock(mu_);
  options_.timeout = timeout;
}

bool ProcessGroup::InForkedChild() const { return ::getpid() != owner_pid_; }

std::string ProcessGroup::RankList() const { return JoinRanks(options_.global_ranks); }

std::string ProcessGroup::JoinedKey(int group_rank) const {
  return StrCat(options_.name, "/joined/", group_rank);
}

std::string ProcessGroup::ArrivedKey(int group_rank) const {
  return StrCat(options_.name, "/arrived/", group_rank);
}

void ProcessGroup::MarkJoined() { store_->set(JoinedKey(options_.rank), Bytes("1")); }

void ProcessGroup::SetupFailed(const std::string& where, const std::string& cause, bool timed_out) {
  std::vector<int> missing;
  try {
    for (int r = 0; r < size(); ++r) {
      if (!store_->Check({JoinedKey(r)})) missing.push_back(options_.global_ranks[r]);
    }
  } catch (const std::exception&) {
  }
  std::string msg = StrCat(where, " failed");
  if (!missing.empty()) msg += StrCat(": ranks ", JoinRanks(missing), " never joined");
  msg += StrCat(" (timeout ", Seconds(options_.timeout), " s; ", cause, ")");
  if (timed_out || !missing.empty()) throw CommTimeoutError(msg);
  throw CommError(msg);
}

void ProcessGroup::CheckUsable(const std::string& what) const {
  if (!broken_.empty()) {
    throw CommError(StrCat(what, ": the ", backend(), " process group of ranks ", RankList(),
                           " is unusable after an earlier failure: ", broken_));
  }
}

void ProcessGroup::CheckRank(const char* what, const char* arg, int rank) const {
  if (rank < 0 || rank >= size()) {
    throw std::invalid_argument(StrCat(what, ": ", arg, " must be a rank of the group (0 to ",
                                       size() - 1, "), got ", rank));
  }
}

void ProcessGroup::CheckCounts(const char* what, const char* arg,
                               const std::vector<size_t>& counts) const {
  if (counts.size() != static_cast<size_t>(size())) {
    throw std::invalid_argument(StrCat(what, ": expected ", size(), " ", arg,
                                       " (one per rank of the group), got ", counts.size()));
  }
}

void ProcessGroup::CheckAllToAllCounts(const std::vector<size_t>& in_counts,
                                       const std::vector<size_t>& out_counts) const {
  CheckCounts("all_to_all", "input split sizes", in_counts);
  CheckCounts("all_to_all", "output split sizes", out_counts);
  if (in_counts[rank()] != out_counts[rank()]) {
    throw std::invalid_argument(StrCat("all_to_all: this rank sends itself ", in_counts[rank()],
                                       " elements but expects to receive ", out_counts[rank()]));
  }
}

void ProcessGroup::Reduce(void*, size_t, DType, ReduceOp, int) {
  throw Unsupported("reduce", backend());
}
void ProcessGroup::Gather(const void*, void*, size_t, DType, int) {
  throw Unsupported("gather", backend());
}
void ProcessGroup::Scatter(const void*, void*, size_t, DType, int) {
  throw Unsupported("scatter", backend());
}
void ProcessGroup::Send(const void*, size_t, DType, int, uint32_t) {
  throw Unsupported("send", backend());
}
int ProcessGroup::Recv(void*, size_t, DType, int, uint32_t) {
  throw Unsupported("recv", backend());
}

void ProcessGroup::RunCollective(const char* name, const std::string& args, const Step& step) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string signature = StrCat(name, "(", args, ")");
  const uint64_t seq = Arrive(name, signature);
  const auto start = std::chrono::steady_clock::now();
  const StepResult result = step(seq, signature);
  if (result.error.empty()) return;
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  const bool timed_out = result.timed_out || elapsed >= options_.timeout;
  Fail(OperationFailure(name, signature, seq, elapsed, timed_out), result.error, timed_out);
}

uint64_t ProcessGroup::Arrive(const char* name, const std::string& signature) {
  CheckUsable(name);
  const uint64_t seq = ++seq_;
  store_->SetNoReply(ArrivedKey(rank()), Bytes(StrCat(seq, " ", signature)));
  return seq;
}

std::string ProcessGroup::ExitedRanks(const std::vector<int>& group_ranks) {
  std::vector<int> exited;
  for (int r : group_ranks) {
    const int g = options_.global_ranks[r];
    // ExitedKey: the server saw the rank's connection close without a goodbye (it was killed);
    // "__leaving__/<rank>": its exit handler (oneflow/distributed/env.py) said it is leaving,
    // e.g. after an exception, before closing its connections to the peers.
    if (store_->Check({ExitedKey(g)}) || store_->Check({StrCat("__leaving__/", g)})) {
      exited.push_back(g);
    }
  }
  if (exited.empty()) return "";
  return StrCat("ranks ", JoinRanks(exited), " exited");
}

std::string ProcessGroup::Diagnose(const std::string& signature, uint64_t seq) {
  const std::string name = signature.substr(0, signature.find('('));
  std::vector<std::string> parts;
  try {
    std::vector<int> missing, others;
    std::string details;
    for (int r = 0; r < size(); ++r) {
      if (r == rank()) continue;
      others.push_back(r);
      const int g = options_.global_ranks[r];
      auto record = store_->TryGet(ArrivedKey(r), std::chrono::milliseconds(0));
      uint64_t their_seq = 0;
      std::string theirs = "none";
      if (record) {
        const std::string text(record->begin(), record->end());
        const size_t space = text.find(' ');
        their_seq = std::stoull(text.substr(0, space));
        theirs = text.substr(space + 1);
      }
      const std::string their_name = theirs.substr(0, theirs.find('('));
      if (their_seq < seq) {
        missing.push_back(g);
        details +=
            StrCat(details.empty() ? "" : "; ", "rank ", g, "'s last was ",
                   their_seq == 0 ? std::string("none") : StrCat("#", their_seq, " ", theirs));
      } else if (their_seq == seq && their_name != name) {
        parts.push_back(
            StrCat("rank ", g, " entered ", theirs, " instead of ", name, " as collective #", seq));
      } else if (their_seq == seq && theirs != signature) {
        parts.push_back(StrCat("rank ", g, " called ", theirs, " where this rank called ",
                               signature, " (the arguments must agree on every rank)"));
      } else if (their_seq > seq) {
        parts.push_back(StrCat("rank ", g, " is already at collective #", their_seq, " ", theirs));
      }
    }
    if (!missing.empty()) {
      parts.insert(parts.begin(),
                   StrCat("ranks ", JoinRanks(missing), " never arrived (", details, ")"));
    }
    std::string exited = ExitedRanks(others);
    if (!exited.empty()) parts.push_back(exited);
    if (parts.empty()) {
      parts.push_back(
          "every rank entered it with the same arguments (a peer may have failed in it)");
    }
  } catch (const std::exception& e) {
    parts.push_back(StrCat("the store could not tell which ranks are missing (", e.what(), ")"));
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

std::string ProcessGroup::OperationFailure(const char* name, const std::string& signature,
                                           uint64_t seq, std::chrono::milliseconds elapsed,
                                           bool timed_out) {
  const std::string head = timed_out
                               ? StrCat(name, " timed out after ", Seconds(options_.timeout), " s")
                               : StrCat(name, " failed after ", Seconds(elapsed), " s");
  return StrCat(head, " on the group of ranks ", RankList(), " (rank ",
                options_.global_ranks[rank()], ", collective #", seq, " of the group, ", backend(),
                " backend): ", Diagnose(signature, seq));
}

void ProcessGroup::Fail(const std::string& what, const std::string& cause, bool timed_out) {
  broken_ = what;
  Abort();
  const std::string msg = StrCat(what, " [", cause, "]");
  if (timed_out) throw CommTimeoutError(msg);
  throw CommError(msg);
}

}  // namespace distributed
}  // namespace oneflow
