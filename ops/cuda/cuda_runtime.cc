// The CUDA runtime of oneflow: the current device (per thread), one stream per
// device, a caching device allocator, copies between host and device, and
// the core's memory kernels on CUDA. Everything registers itself with the core
// at load time (core/runtime/allocator.h, device_kernels.h).

#include "ops/cuda/cuda_runtime.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/runtime/allocator.h"
#include "core/runtime/device_kernels.h"
#include "core/runtime/error.h"
#include "ops/cuda/launch.h"

namespace oneflow {
namespace cuda {

void ThrowCudaError(cudaError_t err, const char* what, const char* file, int line) {
  if (err == cudaErrorMemoryAllocation) cudaGetLastError();  // clear it: the caller may retry
  OF_THROW(RuntimeError, "CUDA error: ", cudaGetErrorString(err), " (", what, " at ", file, ":",
           line, ")");
}

namespace {

thread_local int tls_device = -1;

int CountDevices() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

void CheckIndex(int index) {
  const int count = CountDevices();
  OF_CHECK(count > 0, RuntimeError,
           "CUDA is not available: no CUDA GPU is visible to this process (the build has CUDA)");
  OF_CHECK(index >= 0 && index < count, RuntimeError,
           "CUDA error: invalid device ordinal cuda:", index, " (this process sees ", count,
           " device(s))");
}

struct Streams {
  std::mutex mu;
  std::vector<cudaStream_t> per_device;
};

Streams& AllStreams() {
  static Streams* s = new Streams();  // never destroyed: streams outlive static teardown
  return *s;
}

}  // namespace

int CurrentDevice() { return tls_device < 0 ? 0 : tls_device; }

void SetDevice(int index) {
  CheckIndex(index);
  if (tls_device != index) {
    OF_CUDA_CHECK(cudaSetDevice(index));
    tls_device = index;
  }
}

DeviceGuard::DeviceGuard(int index) : previous_(CurrentDevice()) {
  SetDevice(index < 0 ? previous_ : index);
}
DeviceGuard::~DeviceGuard() {
  if (tls_device != previous_) {
    cudaSetDevice(previous_);
    tls_device = previous_;
  }
}

cudaStream_t StreamOf(int index) {
  Streams& s = AllStreams();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.per_device.empty()) s.per_device.assign(std::max(CountDevices(), 1), nullptr);
  cudaStream_t& stream = s.per_device.at(index);
  if (stream == nullptr) {
    DeviceGuard guard(index);
    OF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  return stream;
}

cudaStream_t CurrentStream() { return StreamOf(CurrentDevice()); }

namespace {

// ---- caching allocator -------------------------------------------------------

// Sizes are rounded (512 B below 1 MiB, 128 KiB above); freed blocks are kept
// per device and size and handed out again to a request of at most twice
// less. One stream per device orders every use, so a freed block is safe to
// reuse at once. When cudaMalloc fails, the cache is returned and it retries.
class CudaCachingAllocator final : public Allocator {
 public:
  void* Allocate(size_t nbytes, int device_index) override {
    const int dev = device_index < 0 ? CurrentDevice() : device_index;
    const size_t size = RoundUp(std::max<size_t>(nbytes, 1));
    std::lock_guard<std::mutex> lock(mu_);
    PerDevice& d = Device(dev);
    ++d.stats.num_allocs;
    auto it = d.free.lower_bound(size);
    void* ptr = nullptr;
    size_t got = size;
    if (it != d.free.end() && it->first <= 2 * size) {
      got = it->first;
      ptr = it->second;
      d.free.erase(it);
    } else {
      DeviceGuard guard(dev);
      cudaError_t err = cudaMalloc(&ptr, size);
      if (err == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        ReleaseCachedLocked(dev);
        err = cudaMalloc(&ptr, size);
      }
      if (err != cudaSuccess) {
        cudaGetLastError();
        ++d.stats.num_ooms;
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        OF_THROW(RuntimeError, "CUDA out of memory. Tried to allocate ", size,
                 " bytes on cuda:", dev, " (", free_b, " of ", total_b, " bytes free; ",
                 d.stats.allocated, " allocated and ", d.stats.reserved, " reserved by oneflow)");
      }
      ++d.stats.num_device_alloc;
      d.stats.reserved += static_cast<int64_t>(size);
      d.stats.peak_reserved = std::max(d.stats.peak_reserved, d.stats.reserved);
    }
    d.live[ptr] = got;
    d.stats.allocated += static_cast<int64_t>(got);
    d.stats.peak_allocated = std::max(d.stats.peak_allocated, d.stats.allocated);
    return ptr;
  }

  void Deallocate(void* ptr, size_t, int device_index) override {
    if (ptr == nullptr) return;
    std::lock_guard<std::mutex> lock(mu_);
    const int dev = device_index < 0 ? CurrentDevice() : device_index;
    PerDevice& d = Device(dev);
    auto it = d.live.find(ptr);
    if (it == d.live.end()) return;  // not ours (cannot happen); never free twice
    ++d.stats.num_frees;
    d.stats.allocated -= static_cast<int64_t>(it->second);
    d.free.emplace(it->second, ptr);
    d.live.erase(it);
  }

  DeviceMemoryStats Stats(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    return Device(dev).stats;
  }
  void ResetPeak(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    PerDevice& d = Device(dev);
    d.stats.peak_allocated = d.stats.allocated;
    d.stats.peak_reserved = d.stats.reserved;
  }
  void ReleaseCached() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [dev, d] : devices_) ReleaseCachedLocked(dev);
  }

 private:
  struct PerDevice {
    std::multimap<size_t, void*> free;
    std::unordered_map<void*, size_t> live;
    DeviceMemoryStats stats;
  };

  static size_t RoundUp(size_t n) {
    const size_t unit = n < (size_t{1} << 20) ? 512 : (size_t{128} << 10);
    return (n + unit - 1) / unit * unit;
  }

  PerDevice& Device(int dev) { return devices_[dev]; }

  void ReleaseCachedLocked(int dev) {
    PerDevice& d = Device(dev);
    if (d.free.empty()) return;
    DeviceGuard guard(dev);
    cudaStreamSynchronize(StreamOf(dev));
    for (auto& [size, ptr] : d.free) {
      cudaFree(ptr);
      ++d.stats.num_device_free;
      d.stats.reserved -= static_cast<int64_t>(size);
    }
    d.free.clear();
  }

  std::mutex mu_;
  std::map<int, PerDevice> devices_;
};

CudaCachingAllocator& TheAllocator() {
  static CudaCachingAllocator* a = new CudaCachingAllocator();  // outlives static tensors
  return *a;
}

const AllocatorRegistrar allocator_registrar(DeviceType::kCUDA, &TheAllocator());

// ---- runtime hooks -------------------------------------------------------------

void Synchronize(int index) {
  const int dev = index < 0 ? CurrentDevice() : index;
  CheckIndex(dev);
  DeviceGuard guard(dev);
  OF_CUDA_CHECK(cudaStreamSynchronize(StreamOf(dev)));
}

void Memcpy(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  if (nbytes == 0) return;
  const bool to_host = dst_device.type == DeviceType::kCPU;
  const bool from_host = src_device.type == DeviceType::kCPU;
  const int dev = from_host ? dst_device.index : src_device.index;
  DeviceGuard guard(dev < 0 ? 0 : dev);
  cudaStream_t stream = CurrentStream();
  if (!to_host && !from_host && dst_device.index != src_device.index) {
    // Between GPUs: the source's work must be done, then a peer copy on the source's stream.
    OF_CUDA_CHECK(
        cudaMemcpyPeerAsync(dst, dst_device.index, src, src_device.index, nbytes, stream));
    OF_CUDA_CHECK(cudaStreamSynchronize(stream));
    return;
  }
  const cudaMemcpyKind kind = to_host     ? cudaMemcpyDeviceToHost
                              : from_host ? cudaMemcpyHostToDevice
                                          : cudaMemcpyDeviceToDevice;
  OF_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, kind, stream));
  // Host memory must hold the bytes (to host) or may be reused (from pageable host memory).
  if (to_host || from_host) OF_CUDA_CHECK(cudaStreamSynchronize(stream));
}

DeviceMemoryStats MemoryStats(int index) {
  return TheAllocator().Stats(index < 0 ? CurrentDevice() : index);
}
void ResetPeak(int index) { TheAllocator().ResetPeak(index < 0 ? CurrentDevice() : index); }
void EmptyCache() { TheAllocator().ReleaseCached(); }

const DeviceRuntime kRuntime = {
    &CountDevices, &CurrentDevice, &SetDevice, &Synchronize,
    &Memcpy,       &MemoryStats,   &ResetPeak, &EmptyCache,
};
const DeviceRuntimeRegistrar runtime_registrar(DeviceType::kCUDA, &kRuntime);

// ---- the core's memory kernels -------------------------------------------------------

void CopyKernel(const TensorImpl& src, TensorImpl& dst) {
  DeviceGuard guard(dst.device().index);
  ElemArgs a = MakeElemArgs(dst.shape(), "copy");
  SetOperand(a, 0, dst);
  SetOperand(a, 1, src);
  Coalesce(a);
  LaunchCopy(a);
}

void FillKernel(TensorImpl& dst, const Scalar& value) {
  DeviceGuard guard(dst.device().index);
  ElemArgs a = MakeElemArgs(dst.shape(), "fill_");
  SetOperand(a, 0, dst);
  Coalesce(a);
  const bool is_int = value.kind != Scalar::Kind::kFloat;
  LaunchFill(a, value.d, value.i, is_int);
}

void ArangeKernel(TensorImpl& dst, const Scalar& start, const Scalar& step) {
  DeviceGuard guard(dst.device().index);
  const bool is_int = !IsFloatingPoint(dst.dtype());
  LaunchArange(dst.data(), dst.dtype(), dst.numel(), start.d, step.d, start.i, step.i, is_int);
}

void LinspaceKernel(TensorImpl& dst, double start, double end) {
  DeviceGuard guard(dst.device().index);
  LaunchLinspace(dst.data(), dst.dtype(), dst.numel(), start, end);
}

const DeviceKernels kKernels = {&CopyKernel, &FillKernel, &ArangeKernel, &LinspaceKernel};
const DeviceKernelsRegistrar kernels_registrar(DeviceType::kCUDA, &kKernels);

}  // namespace

// ---- elementwise arguments --------------------------------------------------------

ElemArgs MakeElemArgs(const DimVector& shape, const char* op) {
  OF_CHECK(static_cast<int>(shape.size()) <= kMaxDims, RuntimeError, op,
           "(): CUDA kernels take tensors of at most ", kMaxDims, " dims, got ",
           ShapeToString(shape));
  ElemArgs a;
  a.ndim = static_cast<int>(shape.size());
  a.numel = 1;
  for (int d = 0; d < a.ndim; ++d) {
    a.size[d] = shape[d];
    a.numel *= shape[d];
  }
  return a;
}

void SetOperand(ElemArgs& a, int k, const TensorImpl& t) {
  Operand& o = a.op[k];
  a.num_operands = std::max(a.num_operands, k + 1);
  o.dtype = t.dtype();
  if (t.device().type == DeviceType::kCPU) {
    // A number from the host (a 0-d CPU tensor): read it here.
    OF_CHECK(t.numel() == 1, RuntimeError,
             "Expected all tensors to be on the same device, but found a CPU tensor of shape ",
             ShapeToString(t.shape()), " in a CUDA op");
    o.is_scalar = true;
    DispatchDType(t.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T v = *reinterpret_cast<const T*>(t.data());
      if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
        o.scalar = static_cast<double>(static_cast<float>(v));
      } else {
        o.scalar = static_cast<double>(v);
      }
    });
    return;
  }
  o.data = t.data();
  // Broadcast: align t's dims to the right of the iteration shape; missing or size-1 dims get 0.
  const int off = a.ndim - static_cast<int>(t.ndim());
  OF_CHECK(off >= 0, RuntimeError, "CUDA elementwise: operand of shape ", ShapeToString(t.shape()),
           " has more dims than the output");
  for (int d = 0; d < a.ndim; ++d) {
    const int td = d - off;
    o.stride[d] = (td < 0 || t.shape()[td] == 1) ? 0 : t.stride()[td];
  }
}

void Coalesce(ElemArgs& a) {
  if (a.ndim <= 1) return;
  // Merge dim d into d+1 (inner) where every operand steps through them as one dim.
  int out = 0;
  ElemArgs r = a;
  r.ndim = 0;
  for (int d = 0; d < a.ndim; ++d) {
    if (a.size[d] == 1) continue;
    if (out > 0) {
      const int prev = out - 1;
      bool merge = true;
      for (int k = 0; k < a.num_operands && merge; ++k) {
        if (a.op[k].is_scalar) continue;
        merge = r.op[k].stride[prev] == a.op[k].stride[d] * a.size[d];
      }
      if (merge) {
        r.size[prev] *= a.size[d];
        for (int k = 0; k < a.num_operands; ++k) r.op[k].stride[prev] = a.op[k].stride[d];
        continue;
      }
    }
    r.size[out] = a.size[d];
    for (int k = 0; k < a.num_operands; ++k) r.op[k].stride[out] = a.op[k].stride[d];
    ++out;
  }
  r.ndim = out;
  a = r;
}

}  // namespace cuda
}  // namespace oneflow
