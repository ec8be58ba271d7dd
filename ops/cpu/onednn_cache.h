#ifndef OPS_CPU_ONEDNN_CACHE_H_
#define OPS_CPU_ONEDNN_CACHE_H_

// Shared plumbing for CPU kernels built on oneDNN primitives.
//
// Creating a primitive is expensive (descriptor checks, implementation search,
// JIT code generation: tens to hundreds of microseconds), running it again is
// not. Kernels therefore keep what they build in a PrimitiveCache: a small,
// thread-safe LRU keyed by everything that went into the descriptors (a
// CacheKey of integers: primitive kind, shapes, strides of the user tensors,
// attributes). An entry is any type the kernel family defines (typically a
// primitive plus the reorders between the user's layout and the one the
// primitive picked); it is built once, never changed afterwards, and handed
// out as shared_ptr<const Entry>, so an entry evicted while another thread
// runs it stays alive until that run ends.
//
// Everything is inline: the kernel libraries glob only `*_kernels.cc` sources,
// and each family includes this header.

#include <cstdint>
#include <cstdlib>
#include <dnnl.hpp>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/runtime/dtype.h"
#include "core/runtime/shape.h"
#include "core/runtime/tensor_impl.h"

namespace oneflow {
namespace cpu {
namespace onednn {

// The CPU engine all primitives run on.
inline const dnnl::engine& Engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// A stream per calling thread (streams are not meant to be shared between
// threads that submit concurrently).
inline dnnl::stream& Stream() {
  thread_local dnnl::stream stream(Engine());
  return stream;
}

// oneDNN's data type for `d`, or undef where oneDNN has none we use (64-bit
// floats and ints, 16-bit ints).
inline dnnl::memory::data_type ToDnnl(DType d) {
  using dt = dnnl::memory::data_type;
  switch (d) {
    case DType::kFloat32:
      return dt::f32;
    case DType::kBFloat16:
      return dt::bf16;
    case DType::kFloat16:
      return dt::f16;
    case DType::kInt32:
      return dt::s32;
    case DType::kInt8:
      return dt::s8;
    case DType::kUInt8:
      return dt::u8;
    default:
      return dt::undef;
  }
}

// A sequence of integers identifying a primitive: append everything that went
// into its descriptors. Equal keys must mean interchangeable primitives.
class CacheKey {
 public:
  CacheKey& Add(int64_t v) {
    words_.push_back(v);
    // FNV-1a style mixing of each word.
    hash_ = (hash_ ^ static_cast<uint64_t>(v)) * 0x100000001b3ULL;
    hash_ ^= hash_ >> 29;
    return *this;
  }
  // A list is added with its length, so [1, 2] + [3] differs from [1] + [2, 3].
  CacheKey& Add(const DimVector& v) {
    Add(static_cast<int64_t>(v.size()));
    for (int64_t x : v) Add(x);
    return *this;
  }
  bool operator==(const CacheKey& other) const {
    return hash_ == other.hash_ && words_ == other.words_;
  }
  size_t hash() const { return static_cast<size_t>(hash_); }

 private:
  std::vector<int64_t> words_;
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

struct CacheKeyHash {
  size_t operator()(const CacheKey& k) const { return k.hash(); }
};

// How many entries each cache keeps when ONEFLOW_ONEDNN_CACHE_CAPACITY does
// not say otherwise (0 disables caching).
inline size_t DefaultCacheCapacity() {
  static const size_t capacity = [] {
    const char* env = std::getenv("ONEFLOW_ONEDNN_CACHE_CAPACITY");
    return env ? static_cast<size_t>(std::strtoull(env, nullptr, 10)) : size_t{512};
  }();
  return capacity;
}

// A least-recently-used map from CacheKey to immutable entries.
template <typename Entry>
class PrimitiveCache {
 public:
  explicit PrimitiveCache(size_t capacity = DefaultCacheCapacity()) : capacity_(capacity) {}
  PrimitiveCache(const PrimitiveCache&) = delete;
  PrimitiveCache& operator=(const PrimitiveCache&) = delete;

  // The entry for `key`; on a miss, make() builds it (outside the lock, so a
  // slow JIT compile does not block other kernels; when two threads miss the
  // same key at once, the first to finish is kept).
  template <typename Make>
  std::shared_ptr<const Entry> GetOrCreate(const CacheKey& key, Make&& make) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = index_.find(key);
      if (it != index_.end()) {
        lru_.splice(lru_.begin(), lru_, it->second);
        ++hits_;
        return it->second->second;
      }
      ++misses_;
    }
    auto entry = std::make_shared<const Entry>(make());
    if (capacity_ == 0) return entry;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it != index_.end()) return it->second->second;
    lru_.emplace_front(key, entry);
    index_.emplace(key, lru_.begin());
    while (lru_.size() > capacity_) {
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
    return entry;
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lru_.size();
  }
  int64_t hits() const {
    std::lock_guard<std::mutex> lock(mu_);
    return hits_;
  }
  int64_t misses() const {
    std::lock_guard<std::mutex> lock(mu_);
    return misses_;
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    index_.clear();
    lru_.clear();
  }

 private:
  using Item = std::pair<CacheKey, std::shared_ptr<const Entry>>;
  mutable std::mutex mu_;
  std::list<Item> lru_;  // most recently used first
  std::unordered_map<CacheKey, typename std::list<Item>::iterator, CacheKeyHash> index_;
  size_t capacity_;
  int64_t hits_ = 0, misses_ = 0;
};

// ---- user tensors as oneDNN memory -------------------------------------------

inline dnnl::memory::dims ToDims(const DimVector& v) {
  return dnnl::memory::dims(v.begin(), v.end());
}

// The descriptor of a strided tensor (kernels pass other dims than the
// tensor's to view e.g. a weight as grouped). oneDNN's reorders read any
// strides, zero included; a size-1 dim's stride, which addresses nothing, is
// made the row-major one so that a contiguous tensor always matches a plain
// primitive layout.
inline DimVector CanonicalStrides(const DimVector& dims, const DimVector& strides) {
  DimVector s = strides;
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
    if (dims[i] != 1) continue;
    s[i] = i + 1 < static_cast<int64_t>(dims.size()) ? s[i + 1] * dims[i + 1] : 1;
  }
  return s;
}
inline dnnl::memory::desc UserDesc(const DimVector& dims, const DimVector& strides,
                                   dnnl::memory::data_type dt) {
  return dnnl::memory::desc(ToDims(dims), dt, ToDims(CanonicalStrides(dims, strides)));
}

// Adds a layout (dims and strides) to a key.
inline void AddLayout(CacheKey& key, const DimVector& dims, const DimVector& strides) {
  key.Add(dims).Add(strides);
}

// ---- execution ------------------------------------------------------------------
//
// Primitives are created with a user-managed scratchpad (UserScratchpad()):
// oneDNN's own "library" scratchpad is shared between primitives, so two
// threads running cached primitives at once would trample it. Each execution
// instead gets its scratchpad, like every other temporary buffer here, from
// the framework's caching allocator (whose pages are already mapped; oneDNN's
// own allocations would fault in megabytes per call).

inline dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

// Uninitialized memory with descriptor `desc`; `holder` keeps it alive.
inline dnnl::memory Scratch(const dnnl::memory::desc& desc, TensorImplPtr* holder) {
  *holder = TensorImpl::Empty({static_cast<int64_t>(desc.get_size())}, DType::kUInt8, Device{});
  return dnnl::memory(desc, Engine(), (*holder)->data());
}

// Runs a primitive created with UserScratchpad(); `scratchpad` is its primitive
// descriptor's scratchpad_desc().
inline void Execute(const dnnl::primitive& prim, const dnnl::memory::desc& scratchpad,
                    std::unordered_map<int, dnnl::memory> args) {
  TensorImplPtr holder;
  if (scratchpad.get_size() > 0) args[DNNL_ARG_SCRATCHPAD] = Scratch(scratchpad, &holder);
  prim.execute(Stream(), args);
}

// A reorder between two layouts, or none when they are the same.
struct Reorder {
  dnnl::memory::desc from, to;
  dnnl::reorder prim;  // empty when from == to
  dnnl::memory::desc scratchpad;
  bool needed() const { return static_cast<bool>(prim); }

  Reorder() = default;
  Reorder(const dnnl::memory::desc& src, const dnnl::memory::desc& dst) : from(src), to(dst) {
    if (src == dst) return;
    dnnl::reorder::primitive_desc pd(Engine(), src, Engine(), dst, UserScratchpad());
    prim = dnnl::reorder(pd);
    scratchpad = pd.scratchpad_desc();
  }
  void Run(const dnnl::memory& src, const dnnl::memory& dst) const {
    Execute(prim, scratchpad, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
  }
};

// Memory for one primitive argument: the user's buffer when the primitive
// takes the user's layout, else scratch memory in the primitive's layout
// (filled from the user's buffer for inputs by In(), copied back to it for
// outputs by Out()).
class ArgMemory {
 public:
  // `r`: the reorder user -> primitive layout (inputs) or primitive -> user
  // layout (outputs).
  ArgMemory(const Reorder& r, void* user_data, bool is_input) : reorder_(&r), input_(is_input) {
    user_ = dnnl::memory(is_input ? r.from : r.to, Engine(), user_data);
    prim_ = r.needed() ? Scratch(is_input ? r.to : r.from, &scratch_) : user_;
  }
  // An input already in the primitive's layout at `prim_data` (a packed
  // weight, see packed_weights.h): In() and Out() do nothing.
  struct Ready {};
  ArgMemory(const Reorder& r, const void* prim_data, Ready) : reorder_(nullptr), input_(true) {
    prim_ = dnnl::memory(r.to, Engine(), const_cast<void*>(prim_data));
  }
  // Reorders an input into the primitive's layout (no-op when not needed).
  void In() {
    if (reorder_ && input_ && reorder_->needed()) reorder_->Run(user_, prim_);
  }
  // Reorders an output back into the user's buffer (no-op when not needed).
  void Out() {
    if (reorder_ && !input_ && reorder_->needed()) reorder_->Run(prim_, user_);
  }
  const dnnl::memory& mem() const { return prim_; }

 private:
  const Reorder* reorder_;
  bool input_;
  TensorImplPtr scratch_;
  dnnl::memory user_, prim_;
};

}  // namespace onednn
}  // namespace cpu
}  // namespace oneflow

#endif  // OPS_CPU_ONEDNN_CACHE_H_
