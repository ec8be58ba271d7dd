#ifndef CORE_RUNTIME_STORAGE_H_
#define CORE_RUNTIME_STORAGE_H_

#include <cstddef>
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

 private:
  Storage(void* data, size_t nbytes, Device device, std::function<void()> release)
      : data_(data), nbytes_(nbytes), device_(device), release_(std::move(release)) {}

  void* data_;
  size_t nbytes_;
  Device device_;
  std::function<void()> release_;
};

}  // namespace oneflow

#endif  // CORE_RUNTIME_STORAGE_H_
