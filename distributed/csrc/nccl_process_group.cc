#include "distributed/csrc/nccl_process_group.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <stdexcept>
#include <thread>

#include "distributed/csrc/comm_error.h"

namespace oneflow {
namespace distributed {
namespace {

using Clock = std::chrono::steady_clock;

void CheckCuda(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw CommError(StrCat(what, ": CUDA error: ", cudaGetErrorString(e)));
}

// NCCL's element types. bool travels as uint8 (and reduces with max/min, see NcclOp).
ncclDataType_t NcclType(DType dtype, const char* what) {
  switch (dtype) {
    case DType::kBool:
    case DType::kUInt8:
      return ncclUint8;
    case DType::kInt8:
      return ncclInt8;
    case DType::kInt32:
      return ncclInt32;
    case DType::kInt64:
      return ncclInt64;
    case DType::kFloat16:
      return ncclFloat16;
    case DType::kBFloat16:
      return ncclBfloat16;
    case DType::kFloat32:
      return ncclFloat32;
    case DType::kFloat64:
      return ncclFloat64;
    case DType::kInt16:
      break;
  }
  throw std::invalid_argument(StrCat(what, ": NCCL has no ", DTypeName(dtype),
                                     " type; convert the tensor (to int32, say) first"));
}

// The gloo backend's meanings: on bool, SUM/MAX/BOR are a logical or, PRODUCT/MIN/BAND an and.
ncclRedOp_t NcclOp(DType dtype, ReduceOp op, const char* what) {
  CheckReduceOp(what, dtype, op);
  if (dtype == DType::kBool) {
    if (op == ReduceOp::kSum || op == ReduceOp::kMax || op == ReduceOp::kBor) return ncclMax;
    if (op == ReduceOp::kProduct || op == ReduceOp::kMin || op == ReduceOp::kBand) return ncclMin;
  }
  switch (op) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kProduct:
      return ncclProd;
    case ReduceOp::kMin:
      return ncclMin;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kAvg:
      return ncclAvg;
    default:
      break;
  }
  throw std::invalid_argument(StrCat(what, ": NCCL has no ", ReduceOpName(op), " reduction on ",
                                     DTypeName(dtype), "; use the gloo backend for it"));
}

bool Pending(ncclResult_t r) { return r == ncclSuccess || r == ncclInProgress; }

}  // namespace

struct NcclProcessGroup::State {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  int* scratch = nullptr;
};

NcclProcessGroup::NcclProcessGroup(std::shared_ptr<TcpStore> store, GroupOptions options)
    : ProcessGroup(std::move(store), std::move(options), "NCCL process group"), state_(new State) {
  const std::string where = StrCat("setting up the NCCL process group of ranks ", RankList(),
                                   " on GPU ", options_.device);
  CheckCuda(cudaSetDevice(options_.device), where);
  CheckCuda(cudaStreamCreateWithFlags(&state_->stream, cudaStreamNonBlocking), where);
  CheckCuda(cudaMalloc(reinterpret_cast<void**>(&state_->scratch), sizeof(int)), where);

  ncclUniqueId id;
  const std::string id_key = StrCat(options_.name, "/nccl_id");
  if (options_.rank == 0) {
    ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess) throw CommError(StrCat(where, ": ", ncclGetErrorString(r)));
    const char* bytes = reinterpret_cast<const char*>(&id);
    store_->set(id_key, std::vector<char>(bytes, bytes + sizeof(id)));
  } else {
    auto got = store_->TryGet(id_key, options_.timeout);
    if (!got || got->size() != sizeof(id)) {
      throw CommTimeoutError(StrCat(where, " failed: rank ", options_.global_ranks[0],
                                    " never published the NCCL id (timeout ",
                                    Seconds(options_.timeout), " s)"));
    }
    std::memcpy(&id, got->data(), sizeof(id));
  }
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // so that a rank that never joins makes this time out, not hang
  ncclResult_t r = ncclCommInitRankConfig(&state_->comm, size(), id, options_.rank, &config);
  if (!Pending(r)) throw CommError(StrCat(where, " failed: ", ncclGetErrorString(r)));
  MarkJoined();
  bool timed_out = false;
  std::string error = WaitDone(Clock::now() + options_.timeout, &timed_out);
  if (!error.empty()) {
    Abort();
    SetupFailed(where, error, timed_out);
  }
}

NcclProcessGroup::~NcclProcessGroup() {
  if (InForkedChild()) {
    (void)state_.release();  // a forked child: the communicator and the stream are the parent's
    return;
  }
  cudaSetDevice(options_.device);
  if (state_->comm != nullptr) {
    // A broken group may have operations stuck on the device: abort rather than wait for them.
    if (broken_.empty()) {
      ncclCommDestroy(state_->comm);
    } else {
      ncclCommAbort(state_->comm);
    }
  }
  if (state_->scratch != nullptr) cudaFree(state_->scratch);
  if (state_->stream != nullptr) cudaStreamDestroy(state_->stream);
}

std::string NcclProcessGroup::WaitDone(Clock::time_point deadline, bool* timed_out) {
  *timed_out = false;
  while (true) {
    ncclResult_t state = ncclSuccess;
    ncclResult_t r = ncclCommGetAsyncError(state_->comm, &state);
    if (r != ncclSuccess) return StrCat("NCCL: ", ncclGetErrorString(r));
    if (state != ncclSuccess && state != ncclInProgress) {
      return StrCat("NCCL: ", ncclGetErrorString(state), ": ", ncclGetLastError(state_->comm));
    }
    if (state == ncclSuccess) {
      cudaError_t q = cudaStreamQuery(state_->stream);
      if (q == cudaSuccess) return "";
      if (q != cudaErrorNotReady) return StrCat("CUDA: ", cudaGetErrorString(q));
    }
    if (Clock::now() >= deadline) {
      *timed_out = true;
      return "NCCL operation still running";
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

void NcclProcessGroup::Abort() {
  if (state_->comm != nullptr) {
    ncclCommAbort(state_->comm);
    state_->comm = nullptr;
  }
}

template <typename Fn>
void NcclProcessGroup::Run(const char* name, const std::string& args, Fn&& enqueue) {
  CheckCuda(cudaSetDevice(options_.device), name);
  RunCollective(name, args, [&](uint64_t, const std::string&) {
    const auto start = Clock::now();
    const ncclResult_t r = enqueue(state_->comm, state_->stream);
    StepResult result;
    if (Pending(r)) {
      result.error = WaitDone(start + options_.timeout, &result.timed_out);
    } else {
      result.error = StrCat("NCCL: ", ncclGetErrorString(r), ": ", ncclGetLastError(state_->comm));
    }
    return result;
  });
}

size_t NcclProcessGroup::EqualCount(const char* what, const std::vector<size_t>& counts) const {
  CheckCounts(what, "counts", counts);
  for (size_t c : counts) {
    if (c != counts[0]) {
      throw std::invalid_argument(
          StrCat(what,
                 ": the NCCL backend needs the same size on every rank; use the gloo backend "
                 "(CPU tensors) for uneven sizes"));
    }
  }
  return counts[0];
}

void NcclProcessGroup::AllReduce(void* data, size_t count, DType dtype, ReduceOp op) {
  const ncclDataType_t type = NcclType(dtype, "all_reduce");
  const ncclRedOp_t red = NcclOp(dtype, op, "all_reduce");
  Run("all_reduce", StrCat(DTypeName(dtype), ", ", count, " elements, ", ReduceOpName(op)),
      [&](ncclComm_t comm, cudaStream_t stream) {
        return ncclAllReduce(data, data, count, type, red, comm, stream);
      });
}

void NcclProcessGroup::Broadcast(void* data, size_t count, DType dtype, int root) {
  CheckRank("broadcast", "src", root);
  const ncclDataType_t type = NcclType(dtype, "broadcast");
  Run("broadcast", StrCat(count * ItemSize(dtype), " bytes, src ", root),
      [&](ncclComm_t comm, cudaStream_t stream) {
        return ncclBroadcast(data, data, count, type, root, comm, stream);
      });
}

void NcclProcessGroup::AllGather(const void* in, void* out, const std::vector<size_t>& counts,
                                 DType dtype) {
  const size_t count = EqualCount("all_gather", counts);
  const ncclDataType_t type = NcclType(dtype, "all_gather");
  Run("all_gather", StrCat(count, " elements per rank"), [&](ncclComm_t comm, cudaStream_t stream) {
    return ncclAllGather(in, out, count, type, comm, stream);
  });
}

void NcclProcessGroup::ReduceScatter(const void* in, void* out, const std::vector<size_t>& counts,
                                     DType dtype, ReduceOp op) {
  const size_t count = EqualCount("reduce_scatter", counts);
  const ncclDataType_t type = NcclType(dtype, "reduce_scatter");
  const ncclRedOp_t red = NcclOp(dtype, op, "reduce_scatter");
  Run("reduce_scatter", StrCat(count, " elements per rank"),
      [&](ncclComm_t comm, cudaStream_t stream) {
        return ncclReduceScatter(in, out, count, type, red, comm, stream);
      });
}

void NcclProcessGroup::AllToAll(const void* in, const std::vector<size_t>& in_counts, void* out,
                                const std::vector<size_t>& out_counts, DType dtype) {
  CheckAllToAllCounts(in_counts, out_counts);
  const ncclDataType_t type = NcclType(dtype, "all_to_all");
  const size_t esize = ItemSize(dtype);
  Run("all_to_all", StrCat(esize, "-byte elements"), [&](ncclComm_t comm, cudaStream_t stream) {
    ncclResult_t r = ncclGroupStart();
    if (r != ncclSuccess) return r;
    size_t in_offset = 0, out_offset = 0;
    for (int peer = 0; peer < size(); ++peer) {
      if (in_counts[peer] > 0) {
        const char* src = static_cast<const char*>(in) + in_offset * esize;
        r = ncclSend(src, in_counts[peer], type, peer, comm, stream);
        if (!Pending(r)) break;
      }
      if (out_counts[peer] > 0) {
        char* dst = static_cast<char*>(out) + out_offset * esize;
        r = ncclRecv(dst, out_counts[peer], type, peer, comm, stream);
        if (!Pending(r)) break;
      }
      in_offset += in_counts[peer];
      out_offset += out_counts[peer];
    }
    ncclResult_t end = ncclGroupEnd();
    return Pending(r) ? end : r;
  });
}

void NcclProcessGroup::Barrier() {
  int* scratch = state_->scratch;
  Run("barrier", "", [&](ncclComm_t comm, cudaStream_t stream) {
    return ncclAllReduce(scratch, scratch, 1, ncclInt32, ncclSum, comm, stream);
  });
}

const ProcessGroupRegistrar nccl_registrar("nccl", &MakeProcessGroup<NcclProcessGroup>);

}  // namespace distributed
}  // namespace oneflow
