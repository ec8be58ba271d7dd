#ifndef CORE_RUNTIME_STORAGE_H_
#define CORE_RUNTIME_STORAGE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "core/runtime/device.h"

namespace oneflow {

// A reference-counted block of device memory that tensors view. Views share
// one Storage through shared_ptr; the memory is freed with the last reference.
class Storage {
 public:
  // Fresh memory from the device's allocator.
  static std::shared_ptr<Storage> Allocate(size_t nbytes, Device device);
  // Memory owned by someone else (a NumPy array); `release` runs when the last
  // tensor viewing it dies.
  static std::shared_ptr<Storage> Wrap(void* data, size_t nbytes, Device device,
                                       std::function<void()> release);

  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  const Device& device() const { return device_; }

  // Writes through oneflow's ops: every in-place change of any tensor viewing
  // this storage counts one (TensorImpl::BumpVersion), whatever version
  // counter that tensor has (Tensor.data has its own). Caches of data derived
  // from a storage (packed GEMM weights) compare it to know they are current.
  int64_t writes() const { return writes_.load(std::memory_order_acquire); }
  void NoteWrite() { writes_.fetch_add(1, std::memory_order_acq_rel); }
  // True while the memory is reachable without going through oneflow's ops:
  // always for wrapped memory (a NumPy array's) and after a raw pointer was
  // handed out (MarkExternal), and while a NumPy view of it lives (exports).
  // Writes there are not counted, so nothing derived from it may be cached.
  bool external() const {
    return external_.load(std::memory_order_acquire) ||
           exports_.load(std::memory_order_acquire) > 0;
  }
  void MarkExternal() { external_.store(true, std::memory_order_release); }
  // A view of the memory was handed out (AddExport) or has died
  // (ReleaseExport, which counts as a write: the view may have written).
  void AddExport() { exports_.fetch_add(1, std::memory_order_acq_rel); }
  void ReleaseExport() {
    NoteWrite();
    exports_.fetch_sub(1, std::memory_order_acq_rel);
  }

 private:
  Storage(void* data, size_t nbytes, Device device, std::function<void()> release)
      : data_(data), nbytes_(nbytes), device_(device), release_(std::move(release)) {}

  void* data_;
  size_t nbytes_;
  Device device_;
  std::function<void()> release_;
  std::atomic<int64_t> writes_{0};
  std::atomic<bool> external_{false};
  std::atomic<int64_t> exports_{0};
};

}  // namespace oneflow

#endif  // CORE_RUNTIME_STORAGE_H_
