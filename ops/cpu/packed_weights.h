#ifndef OPS_CPU_PACKED_WEIGHTS_H_
#define OPS_CPU_PACKED_WEIGHTS_H_
// Packed weights: a weight (a GEMM's B operand, a convolution's filters) that
// is used again with no write to its storage in between is reordered once into
// the layout its oneDNN primitive prefers, and the reordered copy is kept until
// the storage is written (Storage::writes(), counted by every in-place op on
// any view) or dies. Inference with the same weights over and over then skips
// the per-call reorder; training writes the weights every step, so its
// products never pack. Memory exported as NumPy arrays or raw pointers is
// never packed (writes there cannot be seen). ONEFLOW_PACKED_WEIGHTS_MB bounds
// the cache (default 1024; 0 turns packing off). One cache serves every kernel
// file (an inline function's static).

#include <cstdlib>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/runtime/storage.h"
#include "core/runtime/tensor_impl.h"
#include "ops/cpu/onednn_cache.h"

namespace oneflow {
namespace cpu {

inline size_t PackedWeightBudget() {
  static const size_t bytes = [] {
    const char* env = std::getenv("ONEFLOW_PACKED_WEIGHTS_MB");
    return (env ? static_cast<size_t>(std::strtoull(env, nullptr, 10)) : size_t{1024}) << 20;
  }();
  return bytes;
}

class PackedWeights {
 public:
  struct Packed {
    dnnl::memory::desc desc;
    TensorImplPtr buffer;
  };

  // The packed copy of the weight at `data` in `storage`, laid out as `user`
  // (`layout` keys that layout: dims, strides, dtype), in layout `want`; or
  // null when the weight should be used as it is: the first time it is seen
  // at its storage's current write count it is only remembered (most operands
  // are used once); the second time it is packed.
  std::shared_ptr<const Packed> Get(const std::shared_ptr<Storage>& storage, const void* data,
                                    const onednn::CacheKey& layout, const dnnl::memory::desc& user,
                                    const dnnl::memory::desc& want) {
    if (PackedWeightBudget() == 0 || storage->external()) return nullptr;
    const int64_t writes = storage->writes();
    onednn::CacheKey key = layout;
    key.Add(reinterpret_cast<int64_t>(storage.get())).Add(reinterpret_cast<int64_t>(data));
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it != index_.end()) {
      Entry& e = *it->second;
      if (e.storage.lock() == storage && e.writes == writes) {
        lru_.splice(lru_.begin(), lru_, it->second);
        if (e.packed && e.packed->desc == want) return e.packed;
        bytes_ -= e.bytes;
        std::shared_ptr<const Packed> packed = Pack(data, user, want);
        e.packed = packed;
        e.bytes = want.get_size();
        bytes_ += e.bytes;
        Trim();  // may drop `e` itself when one weight exceeds the budget
        return packed;
      }
      Drop(it);  // written since, or another storage at a reused address
    }
    lru_.push_front(Entry{key, storage, writes, nullptr, 0});
    index_.emplace(key, lru_.begin());
    Trim();
    return nullptr;
  }

 private:
  struct Entry {
    onednn::CacheKey key;
    std::weak_ptr<Storage> storage;
    int64_t writes;
    std::shared_ptr<const Packed> packed;
    size_t bytes;
  };
  using List = std::list<Entry>;
  using Index = std::unordered_map<onednn::CacheKey, List::iterator, onednn::CacheKeyHash>;

  static std::shared_ptr<const Packed> Pack(const void* data, const dnnl::memory::desc& user,
                                            const dnnl::memory::desc& want) {
    auto packed = std::make_shared<Packed>();
    packed->desc = want;
    packed->buffer =
        TensorImpl::Empty({static_cast<int64_t>(want.get_size())}, DType::kUInt8, Device{});
    onednn::Reorder reorder(user, want);
    if (reorder.needed()) {
      const auto& eng = onednn::Engine();
      reorder.Run(dnnl::memory(user, eng, const_cast<void*>(data)),
                  dnnl::memory(want, eng, packed->buffer->data()));
    } else {
      std::memcpy(packed->buffer->data(), data, want.get_size());
    }
    return packed;
  }

  void Drop(Index::iterator it) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }

  // Forgets entries whose storage died (their packed copies are freed at
  // once), then keeps the packed bytes within the budget, least recently used
  // first.
  void Trim() {
    for (auto it = lru_.begin(); it != lru_.end();) {
      auto next = std::next(it);
      if (it->storage.expired()) Drop(index_.find(it->key));
      it = next;
    }
    while (!lru_.empty() && (bytes_ > PackedWeightBudget() || lru_.size() > 4096)) {
      Drop(index_.find(lru_.back().key));
    }
  }

  std::mutex mu_;
  List lru_;
  Index index_;
  size_t bytes_ = 0;
};

inline PackedWeights& PackedWeightCache() {
  static auto* cache = new PackedWeights();
  return *cache;
}

}  // namespace cpu
}  // namespace oneflow

#endif  // OPS_CPU_PACKED_WEIGHTS_H_
