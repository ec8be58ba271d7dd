// CPU kernels of native_dropout and its gradient (ops/defs/dropout.cc).
//
// Element i keeps its value when the i-th random word of the generator's
// Philox stream (24 bits of it, as a uniform in [0, 1)) is below 1 - p. The
// stream is counter based, so the words of element i can be computed directly
// and the tensor is split over threads: the mask depends only on the
// generator's state and the number of elements, never on the thread count.

#include <algorithm>
#include <cmath>

#include "core/framework/generator.h"
#include "core/runtime/tensor_ops.h"
#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// Elements per thread chunk (a multiple of 4, one Philox block per 4 words).
constexpr int64_t kGrainQuads = 8192;

void NativeDropoutKernel(OpCall& c) {
  TensorImplPtr x = Contiguous(c.tensor(arg::native_dropout::input));
  const double p = c.get(arg::native_dropout::p);
  const bool train = c.get(arg::native_dropout::train).value_or(true);
  const int64_t n = x->numel();
  bool* mask = reinterpret_cast<bool*>(c.outputs[1]->data());
  if (!train || p == 0.0) {
    CopyInto(x, c.outputs[0]);
    std::fill(mask, mask + n, true);
    return;
  }
  // keep <=> (word >> 8) < ceil((1 - p) * 2^24), i.e. u < 1 - p for u = k / 2^24.
  const uint32_t threshold = static_cast<uint32_t>(std::ceil((1.0 - p) * 16777216.0));
  const double scale = p >= 1.0 ? 0.0 : 1.0 / (1.0 - p);
  std::shared_ptr<Generator> gen = GeneratorFor(Value(), c.device, "native_dropout");
  const uint64_t quads = (static_cast<uint64_t>(n) + 3) / 4;
  // Where the stream starts: read around the reservation, which is atomic. If
  // another thread reserved in between, draw sequentially from our own stream.
  const uint64_t seed = gen->initial_seed(), before = gen->offset();
  PhiloxStream own = gen->Reserve(quads);
  const bool known_start = gen->offset() == before + quads && gen->initial_seed() == seed;
  DispatchFloating(x->dtype(), "native_dropout", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const T* px = reinterpret_cast<const T*>(x->data());
    T* py = reinterpret_cast<T*>(c.outputs[0]->data());
    const A s = static_cast<A>(scale);
    auto run = [&](PhiloxStream& st, int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const bool keep = (st.Next32() >> 8) < threshold;
        mask[i] = keep;
        py[i] = static_cast<T>(static_cast<A>(px[i]) * (keep ? s : A(0)));  // NaN * 0 stays NaN
      }
    };
    if (!known_start) {
      run(own, 0, n);
      return;
    }
    ParallelFor(static_cast<int64_t>(quads), kGrainQuads, [&](int64_t qb, int64_t qe) {
      PhiloxStream st(seed, before + static_cast<uint64_t>(qb));
      run(st, qb * 4, std::min(n, qe * 4));
    });
  });
}
OF_KERNEL("native_dropout", kCPU, kFloatingDTypes, &NativeDropoutKernel);

void NativeDropoutBackwardKernel(OpCall& c) {
  TensorImplPtr g = Contiguous(c.tensor(arg::native_dropout_backward::grad_output)),
                m = Contiguous(c.tensor(arg::native_dropout_backward::mask));
  const double scale = c.get(arg::native_dropout_backward::scale);
  const int64_t n = g->numel();
  DispatchFloating(g->dtype(), "native_dropout_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const T* pg = reinterpret_cast<const T*>(g->data());
    const bool* pm = reinterpret_cast<const bool*>(m->data());
    T* po = reinterpret_cast<T*>(c.outputs[0]->data());
    const A s = static_cast<A>(scale);
    ParallelFor(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        po[i] = static_cast<T>(static_cast<A>(pg[i]) * (pm[i] ? s : A(0)));
      }
    });
  });
}
OF_KERNEL("native_dropout_backward", kCPU, kFloatingDTypes, &NativeDropoutBackwardKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
