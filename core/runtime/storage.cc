#include "core/runtime/storage.h"

#include "core/runtime/allocator.h"

namespace oneflow {

std::shared_ptr<Storage> Storage::Allocate(size_t nbytes, Device device) {
  Allocator* allocator = GetAllocator(device.type);
  void* data = allocator->Allocate(nbytes, device.index);
  return std::shared_ptr<Storage>(new Storage(
      data, nbytes, device,
      [allocator, data, nbytes, device] { allocator->Deallocate(data, nbytes, device.index); }));
}

std::shared_ptr<Storage> Storage::Wrap(void* data, size_t nbytes, Device device,
                                       std::function<void()> release) {
  std::shared_ptr<Storage> storage(new Storage(data, nbytes, device, std::move(release)));
  storage->MarkExternal();
  return storage;
}

Storage::~Storage() {
  if (release_) release_();
}

}  // namespace oneflow
