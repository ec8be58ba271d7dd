#include "distributed/csrc/process_group.h"

#include <gloo/allgather.h>
#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>
#include <unistd.h>

#include <cstring>
#include <numeric>
#include <stdexcept>

#include "distributed/csrc/comm_error.h"

namespace oneflow {
namespace distributed {
namespace {

using Clock = std::chrono::steady_clock;

// Slot prefixes of point-to-point messages and their size headers; gloo's
// collectives use 0x01..0x08.
constexpr uint8_t kP2PSlotPrefix = 0x40;
constexpr uint8_t kP2PHeaderSlotPrefix = 0x41;

// A disagreement in arguments that every rank detected at the same step: it
// is reported as a ValueError and leaves the group usable.
class ArgumentMismatch : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// gloo wants a real address even for empty buffers.
char empty_buffer[1];

void* NonNull(void* p) { return p != nullptr ? p : empty_buffer; }
void* NonNull(const void* p) { return NonNull(const_cast<void*>(p)); }

double Seconds(std::chrono::milliseconds d) { return static_cast<double>(d.count()) / 1000.0; }

std::vector<char> Bytes(const std::string& s) { return std::vector<char>(s.begin(), s.end()); }

std::string JoinRanks(const std::vector<int>& ranks) {
  std::string s = "[";
  for (size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s + "]";
}

// gloo's messages start with "[/build/path/file.cc:123] "; the path helps nobody here.
std::string GlooMessage(const std::string& what) {
  if (!what.empty() && what[0] == '[') {
    size_t end = what.find("] ");
    if (end != std::string::npos) return what.substr(end + 2);
  }
  return what;
}

// gloo's typed setters only use sizeof(T); any type of the element's size will do.
template <typename Options>
void SetOutput(Options& opts, void* data, size_t count, size_t element_size) {
  switch (element_size) {
    case 1:
      return opts.template setOutput<uint8_t>(static_cast<uint8_t*>(data), count);
    case 2:
      return opts.template setOutput<uint16_t>(static_cast<uint16_t*>(data), count);
    case 4:
      return opts.template setOutput<uint32_t>(static_cast<uint32_t*>(data), count);
    default:
      return opts.template setOutput<uint64_t>(static_cast<uint64_t*>(data), count);
  }
}

std::vector<int64_t> ToBytes(const std::vector<size_t>& counts, size_t element_size) {
  std::vector<int64_t> bytes(counts.size());
  for (size_t i = 0; i < counts.size(); ++i)
    bytes[i] = static_cast<int64_t>(counts[i] * element_size);
  return bytes;
}

size_t Total(const std::vector<size_t>& counts) {
  return std::accumulate(counts.begin(), counts.end(), size_t{0});
}

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h ^ (h >> 32);
}

std::string CountList(const std::vector<size_t>& counts) {
  std::string s = "[";
  for (size_t i = 0; i < counts.size(); ++i) s += (i ? ", " : "") + std::to_string(counts[i]);
  return s + "]";
}

}  // namespace

ProcessGroup::ProcessGroup(std::shared_ptr<TcpStore> store, GroupOptions options)
    : store_(std::move(store)), options_(std::move(options)), owner_pid_(::getpid()) {
  const int n = size();
  if (n < 1 || options_.rank < 0 || options_.rank >= n) {
    throw std::invalid_argument(StrCat("process group '", options_.name, "': rank ", options_.rank,
                                       " is outside a group of ", n, " ranks"));
  }
  // Our own join records, to name the members that never showed up.
  store_->set(StrCat(options_.name, "/joined/", options_.rank), Bytes("1"));
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = options_.hostname;
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(options_.rank, n);
    context->setTimeout(options_.timeout);
    gloo::rendezvous::PrefixStore prefixed(options_.name, *store_);
    context->connectFullMesh(prefixed, device);
    context_ = std::move(context);
  } catch (const std::exception& e) {
    std::vector<int> missing;
    try {
      for (int r = 0; r < n; ++r) {
        if (!store_->Check({StrCat(options_.name, "/joined/", r)})) {
          missing.push_back(options_.global_ranks[r]);
        }
      }
    } catch (const std::exception&) {
    }
    std::string msg = StrCat("setting up the process group of ranks ", RankList(), " failed");
    if (!missing.empty()) msg += StrCat(": ranks ", JoinRanks(missing), " never joined");
    msg += StrCat(" (timeout ", Seconds(options_.timeout), " s; ", GlooMessage(e.what()), ")");
    if (dynamic_cast<const CommTimeoutError*>(&e) != nullptr || !missing.empty()) {
      throw CommTimeoutError(msg);
    }
    throw CommError(msg);
  }
}

ProcessGroup::~ProcessGroup() {
  // In a forked child the gloo device's thread does not exist and the sockets are the
  // parent's: tearing the context down would wait for that thread or disturb the parent.
  if (::getpid() != owner_pid_ && context_ != nullptr) {
    new std::shared_ptr<gloo::Context>(std::move(context_));  // leaked on purpose
  }
}

void ProcessGroup::set_timeout(std::chrono::milliseconds timeout) {
  std::lock_guard<std::mutex> lock(mu_);
  options_.timeout = timeout;
  context_->setTimeout(timeout);
}

std::string ProcessGroup::RankList() const { return JoinRanks(options_.global_ranks); }

std::string ProcessGroup::ArrivedKey(int group_rank) const {
  return StrCat(options_.name, "/arrived/", group_rank);
}

void ProcessGroup::CheckUsable(const std::string& what) const {
  if (!broken_.empty()) {
    throw CommError(StrCat(what, ": the process group of ranks ", RankList(),
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

void ProcessGroup::Failed(const std::string& what, const std::string& cause, bool timed_out) {
  broken_ = what;
  const std::string msg = StrCat(what, " [", cause, "]");
  if (timed_out) throw CommTimeoutError(msg);
  throw CommError(msg);
}

template <typename Fn>
void ProcessGroup::RunCollective(const char* name, const std::string& args, Fn&& fn) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckUsable(name);
  const uint64_t seq = ++seq_;
  const std::string signature = StrCat(name, "(", args, ")");
  store_->SetNoReply(ArrivedKey(rank()), Bytes(StrCat(seq, " ", signature)));
  // The tag hashes the call's sequence number and arguments, so ranks whose
  // calls disagree (another collective, other sizes, dtype, op or root) never
  // match each other's messages: they time out and Diagnose names the
  // difference, instead of gloo aborting the process on a size mismatch or
  // silently mixing data. The low byte stays 0 for the slot offsets gloo adds.
  const uint32_t tag = (Fnv1a(StrCat(seq, " ", signature)) & 0xffffffu) << 8;
  const auto start = Clock::now();
  try {
    fn(tag);
  } catch (const ArgumentMismatch&) {
    throw;  // every rank found it and stopped at the same point: the group stays usable
  } catch (const std::exception& e) {
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    const std::string cause = GlooMessage(e.what());
    const bool timed_out =
        cause.find("imed out") != std::string::npos || elapsed >= options_.timeout;
    const std::string head =
        timed_out ? StrCat(name, " timed out after ", Seconds(options_.timeout), " s")
                  : StrCat(name, " failed after ", Seconds(elapsed), " s");
    Failed(StrCat(head, " on the group of ranks ", RankList(), " (rank ",
                  options_.global_ranks[rank()], ", collective #", seq,
                  " of the group): ", Diagnose(signature, seq)),
           cause, timed_out);
  }
}

void ProcessGroup::AllReduce(void* data, size_t count, DType dtype, ReduceOp op) {
  CheckReduceOp("all_reduce", dtype, op);
  const DType compute = ComputeDType(dtype);
  const ReduceFn fn = GetReduceFn(compute, op);
  const std::string args = StrCat(DTypeName(dtype), ", ", count, " elements, ", ReduceOpName(op));
  RunCollective("all_reduce", args, [&](uint32_t tag) {
    if (count == 0) return;
    std::vector<float> wide;
    void* buf = data;
    if (compute != dtype) {
      wide.resize(count);
      WidenToFloat(data, dtype, wide.data(), count);
      buf = wide.data();
    }
    if (size() > 1) {
      gloo::AllreduceOptions opts(context_);
      SetOutput(opts, buf, count, ElementSize(compute));
      opts.setReduceFunction(fn);
      opts.setTag(tag);
      opts.setTimeout(options_.timeout);
      gloo::allreduce(opts);
    }
    if (op == ReduceOp::kAvg) DivideBy(buf, count, compute, size());
    if (compute != dtype) NarrowFromFloat(wide.data(), data, dtype, count);
  });
}

void ProcessGroup::Reduce(void* data, size_t count, DType dtype, ReduceOp op, int root) {
  CheckRank("reduce", "dst", root);
  CheckReduceOp("reduce", dtype, op);
  const DType compute = ComputeDType(dtype);
  const ReduceFn fn = GetReduceFn(compute, op);
  const std::string args =
      StrCat(DTypeName(dtype), ", ", count, " elements, ", ReduceOpName(op), ", dst ", root);
  RunCollective("reduce", args, [&](uint32_t tag) {
    if (count == 0) return;
    const bool is_root = rank() == root;
    const size_t esize = ElementSize(compute);
    // gloo reduces in its output buffer on every rank; only the root keeps the result.
    std::vector<char> scratch;
    void* buf = data;
    if (compute != dtype) {
      scratch.resize(count * esize);
      WidenToFloat(data, dtype, reinterpret_cast<float*>(scratch.data()), count);
      buf = scratch.data();
    } else if (!is_root) {
      scratch.assign(static_cast<char*>(data), static_cast<char*>(data) + count * esize);
      buf = scratch.data();
    }
    if (size() > 1) {
      gloo::ReduceOptions opts(context_);
      SetOutput(opts, buf, count, esize);
      opts.setRoot(root);
      opts.setReduceFunction(fn);
      opts.setTag(tag);
      opts.setTimeout(options_.timeout);
      gloo::reduce(opts);
    }
    if (!is_root) return;
    if (op == ReduceOp::kAvg) DivideBy(buf, count, compute, size());
    if (compute != dtype) NarrowFromFloat(reinterpret_cast<float*>(buf), data, dtype, count);
  });
}

void ProcessGroup::Broadcast(void* data, size_t count, DType dtype, int root) {
  CheckRank("broadcast", "src", root);
  const size_t bytes = count * ElementSize(dtype);
  const std::string args = StrCat(bytes, " bytes, src ", root);
  RunCollective("broadcast", args, [&](uint32_t tag) {
    if (bytes == 0 || size() == 1) return;
    gloo::BroadcastOptions opts(context_);
    opts.setOutput<uint8_t>(static_cast<uint8_t*>(data), bytes);
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(options_.timeout);
    gloo::broadcast(opts);
  });
}

void ProcessGroup::AllGather(const void* in, void* out, const std::vector<size_t>& counts,
                             DType dtype) {
  CheckCounts("all_gather", "counts", counts);
  const size_t esize = ElementSize(dtype);
  const size_t total = Total(counts);
  const std::string args = StrCat(esize, "-byte elements, counts ", CountList(counts));
  RunCollective("all_gather", args, [&](uint32_t tag) {
    if (total == 0) return;
    if (size() == 1) {
      std::memcpy(out, in, counts[0] * esize);
      return;
    }
    std::vector<size_t> bytes(counts.size());
    for (size_t i = 0; i < counts.size(); ++i) bytes[i] = counts[i] * esize;
    gloo::AllgathervOptions opts(context_);
    opts.setInput<uint8_t>(static_cast<uint8_t*>(NonNull(in)), bytes[rank()]);
    opts.setOutput<uint8_t>(static_cast<uint8_t*>(out), bytes);
    opts.setTag(tag);
    opts.setTimeout(options_.timeout);
    gloo::allgatherv(opts);
  });
}

void ProcessGroup::Gather(const void* in, void* out, size_t count, DType dtype, int root) {
  CheckRank("gather", "dst", root);
  const size_t bytes = count * ElementSize(dtype);
  const std::string args = StrCat(bytes, " bytes per rank, dst ", root);
  RunCollective("gather", args, [&](uint32_t tag) {
    if (bytes == 0) return;
    if (size() == 1) {
      std::memcpy(out, in, bytes);
      return;
    }
    gloo::GatherOptions opts(context_);
    opts.setInput<uint8_t>(static_cast<uint8_t*>(NonNull(in)), bytes);
    if (rank() == root) opts.setOutput<uint8_t>(static_cast<uint8_t*>(out), bytes * size());
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(options_.timeout);
    gloo::gather(opts);
  });
}

void ProcessGroup::Scatter(const void* in, void* out, size_t count, DType dtype, int root) {
  CheckRank("scatter", "src", root);
  const size_t bytes = count * ElementSize(dtype);
  const std::string args = StrCat(bytes, " bytes per rank, src ", root);
  RunCollective("scatter", args, [&](uint32_t tag) {
    if (bytes == 0) return;
    if (size() == 1) {
      std::memcpy(out, in, bytes);
      return;
    }
    gloo::ScatterOptions opts(context_);
    if (rank() == root) {
      std::vector<uint8_t*> blocks(size());
      for (int i = 0; i < size(); ++i) {
        blocks[i] = static_cast<uint8_t*>(const_cast<void*>(in)) + i * bytes;
      }
      opts.setInputs<uint8_t>(blocks, bytes);
    }
    opts.setOutput<uint8_t>(static_cast<uint8_t*>(out), bytes);
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(options_.timeout);
    gloo::scatter(opts);
  });
}

void ProcessGroup::ReduceScatter(const void* in, void* out, const std::vector<size_t>& counts,
                                 DType dtype, ReduceOp op) {
  CheckCounts("reduce_scatter", "counts", counts);
  CheckReduceOp("reduce_scatter", dtype, op);
  const DType compute = ComputeDType(dtype);
  const ReduceFn fn = GetReduceFn(compute, op);
  const size_t esize = ElementSize(dtype);
  const size_t mine = counts[rank()];
  const std::string args =
      StrCat(DTypeName(dtype), ", counts ", CountList(counts), ", ", ReduceOpName(op));
  RunCollective("reduce_scatter", args, [&](uint32_t tag) {
    if (Total(counts) == 0) return;
    // An all-to-all sends block j to rank j (each rank moves (n-1)/n of its
    // input, as a ring reduce-scatter does), then each rank reduces the n
    // blocks it received in rank order.
    std::vector<char> blocks(size() * mine * esize);
    if (size() == 1) {
      std::memcpy(blocks.data(), in, mine * esize);
    } else {
      gloo::AlltoallvOptions opts(context_);
      opts.setInput<uint8_t>(static_cast<uint8_t*>(NonNull(in)), ToBytes(counts, esize));
      opts.setOutput<uint8_t>(reinterpret_cast<uint8_t*>(NonNull(blocks.data())),
                              std::vector<int64_t>(size(), static_cast<int64_t>(mine * esize)));
      opts.setTag(tag);
      opts.setTimeout(options_.timeout);
      gloo::alltoallv(opts);
    }
    if (mine == 0) return;
    if (compute != dtype) {
      std::vector<float> acc(mine), next(mine);
      WidenToFloat(blocks.data(), dtype, acc.data(), mine);
      for (int i = 1; i < size(); ++i) {
        WidenToFloat(blocks.data() + i * mine * esize, dtype, next.data(), mine);
        fn(acc.data(), acc.data(), next.data(), mine);
      }
      if (op == ReduceOp::kAvg) DivideBy(acc.data(), mine, compute, size());
      NarrowFromFloat(acc.data(), out, dtype, mine);
      return;
    }
    std::memcpy(out, blocks.data(), mine * esize);
    for (int i = 1; i < size(); ++i) fn(out, out, blocks.data() + i * mine * esize, mine);
    if (op == ReduceOp::kAvg) DivideBy(out, mine, compute, size());
  });
}

void ProcessGroup::AllToAll(const void* in, const std::vector<size_t>& in_counts, void* out,
                            const std::vector<size_t>& out_counts, DType dtype) {
  CheckCounts("all_to_all", "input split sizes", in_counts);
  CheckCounts("all_to_all", "output split sizes", out_counts);
  const size_t esize = ElementSize(dtype);
  const size_t in_total = Total(in_counts);
  if (in_counts[rank()] != out_counts[rank()]) {
    throw std::invalid_argument(StrCat("all_to_all: this rank sends itself ", in_counts[rank()],
                                       " elements but expects to receive ", out_counts[rank()]));
  }
  // Split sizes differ between ranks legitimately, so the signature leaves them out.
  const std::string args = StrCat(esize, "-byte elements");
  RunCollective("all_to_all", args, [&](uint32_t tag) {
    if (size() == 1) {
      if (in_total > 0) std::memcpy(out, in, in_total * esize);
      return;
    }
    // Everyone's split sizes first (2n integers per rank), so that every rank
    // finds a disagreement between a sender and its receiver and raises the
    // same error, where gloo would abort the receiving process.
    const int n = size();
    std::vector<int64_t> mine(2 * n), all(2 * n * n);
    for (int i = 0; i < n; ++i) {
      mine[i] = static_cast<int64_t>(in_counts[i]);
      mine[n + i] = static_cast<int64_t>(out_counts[i]);
    }
    gloo::AllgatherOptions sizes(context_);
    sizes.setInput<int64_t>(mine.data(), mine.size());
    sizes.setOutput<int64_t>(all.data(), all.size());
    sizes.setTag(tag);
    sizes.setTimeout(options_.timeout);
    gloo::allgather(sizes);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        const int64_t sent = all[2 * n * i + j], expected = all[2 * n * j + n + i];
        if (sent != expected) {
          throw ArgumentMismatch(StrCat(
              "all_to_all: rank ", options_.global_ranks[i], " sends ", sent, " elements to rank ",
              options_.global_ranks[j], ", which expects ", expected,
              " from it (each rank's output split sizes must equal what the others send it)"));
        }
      }
    }
    // Skip only when nobody moves anything: every rank knows all the counts, so
    // they agree; a rank with nothing of its own must still take part.
    bool anything = false;
    for (int64_t c : all) anything = anything || c != 0;
    if (!anything) return;
    gloo::AlltoallvOptions opts(context_);
    opts.setInput<uint8_t>(static_cast<uint8_t*>(NonNull(in)), ToBytes(in_counts, esize));
    opts.setOutput<uint8_t>(static_cast<uint8_t*>(NonNull(out)), ToBytes(out_counts, esize));
    opts.setTag(tag);
    opts.setTimeout(options_.timeout);
    gloo::alltoallv(opts);
  });
}

void ProcessGroup::Barrier() {
  RunCollective("barrier", "", [&](uint32_t tag) {
    if (size() == 1) return;
    gloo::BarrierOptions opts(context_);
    opts.setTag(tag);
    opts.setTimeout(options_.timeout);
    gloo::barrier(opts);
  });
}

void ProcessGroup::Send(const void* data, size_t count, DType dtype, int dst, uint32_t tag) {
  CheckRank("send", "dst", dst);
  if (dst == rank()) throw std::invalid_argument("send: a rank cannot send to itself");
  std::lock_guard<std::mutex> lock(mu_);
  CheckUsable("send");
  uint64_t bytes = count * ElementSize(dtype);
  try {
    // A header with the size goes first, so a receiver expecting another size
    // raises an error instead of gloo aborting it.
    auto header = context_->createUnboundBuffer(&bytes, sizeof(bytes));
    auto payload = context_->createUnboundBuffer(NonNull(data), bytes);
    header->send(dst, gloo::Slot::build(kP2PHeaderSlotPrefix, tag));
    payload->send(dst, gloo::Slot::build(kP2PSlotPrefix, tag));
    header->waitSend(options_.timeout);
    payload->waitSend(options_.timeout);
  } catch (const std::exception& e) {
    const std::string cause = GlooMessage(e.what());
    const bool timed_out = cause.find("imed out") != std::string::npos;
    const int peer = options_.global_ranks[dst];
    std::string what = StrCat("send of ", bytes, " bytes from rank ", options_.global_ranks[rank()],
                              " to rank ", peer, " (tag ", tag, ") ",
                              timed_out ? StrCat("timed out after ", Seconds(options_.timeout),
                                                 " s: rank ", peer, " never posted a matching recv")
                                        : "failed");
    try {
      std::string exited = ExitedRanks({dst});
      if (!exited.empty()) what += "; " + exited;
    } catch (const std::exception&) {
    }
    Failed(what, cause, timed_out);
  }
}

int ProcessGroup::Recv(void* data, size_t count, DType dtype, int src, uint32_t tag) {
  if (src != -1) CheckRank("recv", "src", src);
  if (src == rank()) throw std::invalid_argument("recv: a rank cannot receive from itself");
  std::lock_guard<std::mutex> lock(mu_);
  CheckUsable("recv");
  const uint64_t bytes = count * ElementSize(dtype);
  uint64_t sent = 0;
  int from = src;
  try {
    auto header = context_->createUnboundBuffer(&sent, sizeof(sent));
    const uint64_t header_slot = gloo::Slot::build(kP2PHeaderSlotPrefix, tag);
    if (src >= 0) {
      header->recv(src, header_slot);
    } else {
      std::vector<int> peers;
      for (int r = 0; r < size(); ++r) {
        if (r != rank()) peers.push_back(r);
      }
      header->recv(peers, header_slot);
    }
    header->waitRecv(&from, options_.timeout);
    // On a size mismatch the message still arrives (into scratch), so both
    // sides stay in step and the group remains usable.
    std::vector<char> scratch(sent == bytes ? 0 : sent);
    auto payload = context_->createUnboundBuffer(
        sent == bytes ? NonNull(data) : NonNull(scratch.data()), sent);
    payload->recv(from, gloo::Slot::build(kP2PSlotPrefix, tag));
    payload->waitRecv(options_.timeout);
  } catch (const std::exception& e) {
    const std::string cause = GlooMessage(e.what());
    const bool timed_out = cause.find("imed out") != std::string::npos;
    const std::string peer =
        from >= 0 ? StrCat("rank ", options_.global_ranks[from]) : std::string("any rank");
    std::string what = StrCat("recv of ", bytes, " bytes on rank ", options_.global_ranks[rank()],
                              " from ", peer, " (tag ", tag, ") ",
                              timed_out ? StrCat("timed out after ", Seconds(options_.timeout),
                                                 " s: ", peer, " never sent a matching message")
                                        : "failed");
    try {
      std::vector<int> peers;
      for (int r = 0; r < size(); ++r) {
        if (r != rank() && (from < 0 || r == from)) peers.push_back(r);
      }
      std::string exited = ExitedRanks(peers);
      if (!exited.empty()) what += "; " + exited;
    } catch (const std::exception&) {
    }
    Failed(what, cause, timed_out);
  }
  if (sent != bytes) {
    throw std::invalid_argument(StrCat("recv: rank ", options_.global_ranks[from], " sent ", sent,
                                       " bytes (tag ", tag, ") but this recv expects ", bytes,
                                       " bytes; the tensors' sizes and dtypes must match"));
  }
  return from;
}

}  // namespace distributed
}  // namespace oneflow
