#include "distributed/csrc/gloo_process_group.h"

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

#include <cstring>
#include <numeric>
#include <stdexcept>

#include "distributed/csrc/comm_error.h"

namespace oneflow {
namespace distributed {
namespace {

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

// gloo says "Timed out" or "timed out".
bool TimedOut(const std::string& cause) { return cause.find("imed out") != std::string::npos; }

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

GlooProcessGroup::GlooProcessGroup(std::shared_ptr<TcpStore> store, GroupOptions options)
    : ProcessGroup(std::move(store), std::move(options), "process group") {
  // Our own join records, to name the members that never showed up.
  MarkJoined();
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = options_.hostname;
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(options_.rank, size());
    context->setTimeout(options_.timeout);
    gloo::rendezvous::PrefixStore prefixed(options_.name, *store_);
    context->connectFullMesh(prefixed, device);
    context_ = std::move(context);
  } catch (const std::exception& e) {
    SetupFailed(StrCat("setting up the process group of ranks ", RankList()), GlooMessage(e.what()),
                dynamic_cast<const CommTimeoutError*>(&e) != nullptr);
  }
}

GlooProcessGroup::~GlooProcessGroup() {
  // In a forked child the gloo device's thread does not exist and the sockets are the
  // parent's: tearing the context down would wait for that thread or disturb the parent.
  if (InForkedChild() && context_ != nullptr) {
    new std::shared_ptr<gloo::Context>(std::move(context_));  // leaked on purpose
  }
}

void GlooProcessGroup::set_timeout(std::chrono::milliseconds timeout) {
  ProcessGroup::set_timeout(timeout);
  std::lock_guard<std::mutex> lock(mu_);
  context_->setTimeout(timeout);
}

template <typename Fn>
void GlooProcessGroup::Run(const char* name, const std::string& args, Fn&& fn) {
  RunCollective(name, args, [&](uint64_t seq, const std::string& signature) {
    // The tag hashes the call's sequence number and arguments, so ranks whose
    // calls disagree (another collective, other sizes, dtype, op or root) never
    // match each other's messages: they time out and the diagnosis names the
    // difference, instead of gloo aborting the process on a size mismatch or
    // silently mixing data. The low byte stays 0 for the slot offsets gloo adds.
    const uint32_t tag = (Fnv1a(StrCat(seq, " ", signature)) & 0xffffffu) << 8;
    StepResult result;
    try {
      fn(tag);
    } catch (const ArgumentMismatch&) {
      throw;  // every rank found it and stopped at the same point: the group stays usable
    } catch (const std::exception& e) {
      result.error = GlooMessage(e.what());
      result.timed_out = TimedOut(result.error);
    }
    return result;
  });
}

template <typename Options, typename Collective>
void GlooProcessGroup::Launch(Options& opts, uint32_t tag, Collective collective) {
  opts.setTag(tag);
  opts.setTimeout(options_.timeout);
  collective(opts);
}

template <typename Options, typename SetBlocks>
void GlooProcessGroup::RunRooted(const char* name, const char* root_arg, const void* in, void* out,
                                 size_t bytes, int root, void (*collective)(Options&),
                                 SetBlocks&& set_blocks) {
  CheckRank(name, root_arg, root);
  Run(name, StrCat(bytes, " bytes per rank, ", root_arg, " ", root), [&](uint32_t tag) {
    if (bytes == 0) return;
    if (size() == 1) {
      std::memcpy(out, in, bytes);
      return;
    }
    Options opts(context_);
    set_blocks(opts, rank() == root);
    opts.setRoot(root);
    Launch(opts, tag, collective);
  });
}

void GlooProcessGroup::PointToPointFailed(std::string what, const std::vector<int>& peers,
                                          const std::string& cause, bool timed_out) {
  try {
    std::string exited = ExitedRanks(peers);
    if (!exited.empty()) what += "; " + exited;
  } catch (const std::exception&) {
  }
  Fail(what, cause, timed_out);
}

void GlooProcessGroup::AllReduce(void* data, size_t count, DType dtype, ReduceOp op) {
  CheckReduceOp("all_reduce", dtype, op);
  const DType compute = ComputeDType(dtype);
  const ReduceFn fn = GetReduceFn(compute, op);
  const std::string args = StrCat(DTypeName(dtype), ", ", count, " elements, ", ReduceOpName(op));
  Run("all_reduce", args, [&](uint32_t tag) {
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
      SetOutput(opts, buf, count, ItemSize(compute));
      opts.setReduceFunction(fn);
      Launch(opts, tag, gloo::allreduce);
    }
    if (op == ReduceOp::kAvg) DivideBy(buf, count, compute, size());
    if (compute != dtype) NarrowFromFloat(wide.data(), data, dtype, count);
  });
}

void GlooProcessGroup::Reduce(void* data, size_t count, DType dtype, ReduceOp op, int root) {
  CheckRank("reduce", "dst", root);
  CheckReduceOp("reduce", dtype, op);
  const DType compute = ComputeDType(dtype);
  const ReduceFn fn = GetReduceFn(compute, op);
  const std::string args =
      StrCat(DTypeName(dtype), ", ", count, " elements, ", ReduceOpName(op), ", dst ", root);
  Run("reduce", args, [&](uint32_t tag) {
    if (count == 0) return;
    const bool is_root = rank() == root;
    const size_t esize = ItemSize(compute);
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
      Launch(opts, tag, gloo::reduce);
    }
    if (!is_root) return;
    if (op == ReduceOp::kAvg) DivideBy(buf, count, compute, size());
    if (compute != dtype) NarrowFromFloat(reinterpret_cast<float*>(buf), data, dtype, count);
  });
}

void GlooProcessGroup::Broadcast(void* data, size_t count, DType dtype, int root) {
  CheckRank("broadcast", "src", root);
  const size_t bytes = count * ItemSize(dtype);
  const std::string args = StrCat(bytes, " bytes, src ", root);
  Run("broadcast", args, [&](uint32_t tag) {
    if (bytes == 0 || size() == 1) return;
    gloo::BroadcastOptions opts(context_);
    opts.setOutput<uint8_t>(static_cast<uint8_t*>(data), bytes);
    opts.setRoot(root);
    Launch(opts, tag, gloo::broadcast);
  });
}

void GlooProcessGroup::AllGather(const void* in, void* out, const std::vector<size_t>& counts,
                                 DType dtype) {
  CheckCounts("all_gather", "counts", counts);
  const size_t esize = ItemSize(dtype);
  const size_t total = Total(counts);
  const std::string args = StrCat(esize, "-byte elements, counts ", CountList(counts));
  Run("all_gather", args, [&](uint32_t tag) {
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
    Launch(opts, tag, gloo::allgatherv);
  });
}

void GlooProcessGroup::Gather(const void* in, void* out, size_t count, DType dtype, int root) {
  const size_t bytes = count * ItemSize(dtype);
  RunRooted<gloo::GatherOptions>(
      "gather", "dst", in, out, bytes, root, gloo::gather, [&](auto& opts, bool is_root) {
        opts.template setInput<uint8_t>(static_cast<uint8_t*>(NonNull(in)), bytes);
        if (is_root) opts.template setOutput<uint8_t>(static_cast<uint8_t*>(out), bytes * size());
      });
}

void GlooProcessGroup::Scatter(const void* in, void* out, size_t count, DType dtype, int root) {
  const size_t bytes = count * ItemSize(dtype);
  RunRooted<gloo::ScatterOptions>(
      "scatter", "src", in, out, bytes, root, gloo::scatter, [&](auto& opts, bool is_root) {
        if (is_root) {
          std::vector<uint8_t*> blocks(size());
          for (int i = 0; i < size(); ++i) {
            blocks[i] = static_cast<uint8_t*>(const_cast<void*>(in)) + i * bytes;
          }
          opts.template setInputs<uint8_t>(blocks, bytes);
        }
        opts.template setOutput<uint8_t>(static_cast<uint8_t*>(out), bytes);
      });
}

void GlooProcessGroup::ReduceScatter(const void* in, void* out, const std::vector<size_t>& counts,
                                     DType dtype, ReduceOp op) {
  CheckCounts("reduce_scatter", "counts", counts);
  CheckReduceOp("reduce_scatter", dtype, op);
  const DType compute = ComputeDType(dtype);
  const ReduceFn fn = GetReduceFn(compute, op);
  const size_t esize = ItemSize(dtype);
  const size_t mine = counts[rank()];
  const std::string args =
      StrCat(DTypeName(dtype), ", counts ", CountList(counts), ", ", ReduceOpName(op));
  Run("reduce_scatter", args, [&](uint32_t tag) {
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
      Launch(opts, tag, gloo::alltoallv);
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

void GlooProcessGroup::AllToAll(const void* in, const std::vector<size_t>& in_counts, void* out,
                                const std::vector<size_t>& out_counts, DType dtype) {
  CheckAllToAllCounts(in_counts, out_counts);
  const size_t esize = ItemSize(dtype);
  const size_t in_total = Total(in_counts);
  // Split sizes differ between ranks legitimately, so the signature leaves them out.
  const std::string args = StrCat(esize, "-byte elements");
  Run("all_to_all", args, [&](uint32_t tag) {
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
    Launch(sizes, tag, gloo::allgather);
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
    Launch(opts, tag, gloo::alltoallv);
  });
}

void GlooProcessGroup::Barrier() {
  Run("barrier", "", [&](uint32_t tag) {
    if (size() == 1) return;
    gloo::BarrierOptions opts(context_);
    Launch(opts, tag, gloo::barrier);
  });
}

void GlooProcessGroup::Send(const void* data, size_t count, DType dtype, int dst, uint32_t tag) {
  CheckRank("send", "dst", dst);
  if (dst == rank()) throw std::invalid_argument("send: a rank cannot send to itself");
  std::lock_guard<std::mutex> lock(mu_);
  CheckUsable("send");
  uint64_t bytes = count * ItemSize(dtype);
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
    const bool timed_out = TimedOut(cause);
    const int peer = options_.global_ranks[dst];
    std::string what = StrCat("send of ", bytes, " bytes from rank ", options_.global_ranks[rank()],
                              " to rank ", peer, " (tag ", tag, ") ",
                              timed_out ? StrCat("timed out after ", Seconds(options_.timeout),
                                                 " s: rank ", peer, " never posted a matching recv")
                                        : "failed");
    PointToPointFailed(std::move(what), {dst}, cause, timed_out);
  }
}

int GlooProcessGroup::Recv(void* data, size_t count, DType dtype, int src, uint32_t tag) {
  if (src != -1) CheckRank("recv", "src", src);
  if (src == rank()) throw std::invalid_argument("recv: a rank cannot receive from itself");
  std::lock_guard<std::mutex> lock(mu_);
  CheckUsable("recv");
  const uint64_t bytes = count * ItemSize(dtype);
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
    const bool timed_out = TimedOut(cause);
    const std::string peer =
        from >= 0 ? StrCat("rank ", options_.global_ranks[from]) : std::string("any rank");
    std::string what = StrCat("recv of ", bytes, " bytes on rank ", options_.global_ranks[rank()],
                              " from ", peer, " (tag ", tag, ") ",
                              timed_out ? StrCat("timed out after ", Seconds(options_.timeout),
                                                 " s: ", peer, " never sent a matching message")
                                        : "failed");
    std::vector<int> peers;
    for (int r = 0; r < size(); ++r) {
      if (r != rank() && (from < 0 || r == from)) peers.push_back(r);
    }
    PointToPointFailed(std::move(what), peers, cause, timed_out);
  }
  if (sent != bytes) {
    throw std::invalid_argument(StrCat("recv: rank ", options_.global_ranks[from], " sent ", sent,
                                       " bytes (tag ", tag, ") but this recv expects ", bytes,
                                       " bytes; the tensors' sizes and dtypes must match"));
  }
  return from;
}

const ProcessGroupRegistrar gloo_registrar("gloo", &MakeProcessGroup<GlooProcessGroup>);

}  // namespace distributed
}  // namespace oneflow
