// CPU kernels of ctc_loss (ops/defs/loss.cc), forward and backward.
//
// Over the extended target l' = (blank, l_1, blank, l_2, ..., l_L, blank), in log
// space: alpha_t(s) = lp_t(l'_s) + logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1),
// alpha_{t-1}(s-2) when l'_s is a label differing from l'_{s-2}); beta the same
// from the end. Each sample is independent: samples are split across threads.

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/runtime/view_ops.h"
#include "ops/api/ops.h"
#include "ops/cpu/loops.h"
#include "ops/cpu/loss_common.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// log(exp(a) + exp(b) + exp(c)), -inf when all are.
template <class A>
A LogSumExp3(A a, A b, A c) {
  A m = std::max(a, std::max(b, c));
  if (m == -std::numeric_limits<A>::infinity()) return m;
  return m + std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m));
}

template <class A>
A LogAddExp(A a, A b) {
  return LogSumExp3(a, b, -std::numeric_limits<A>::infinity());
}

// The targets of each sample: padded rows or one concatenated list.
struct CtcTargets {
  std::vector<int64_t> values, offset;
  const int64_t* of(int64_t b) const { return values.data() + offset[b]; }
};

CtcTargets ReadCtcTargets(const TensorImplPtr& targets, const DimVector& lengths, int64_t classes) {
  TensorImplPtr t = Contiguous(targets);
  CtcTargets out;
  out.values.resize(t->numel());
  if (t->dtype() == DType::kInt32) {
    const int32_t* p = reinterpret_cast<const int32_t*>(t->data());
    std::copy(p, p + t->numel(), out.values.begin());
  } else {
    std::memcpy(out.values.data(), t->data(), t->numel() * sizeof(int64_t));
  }
  int64_t at = 0;
  for (size_t b = 0; b < lengths.size(); ++b) {
    out.offset.push_back(t->ndim() == 2 ? static_cast<int64_t>(b) * t->shape()[1] : at);
    at += lengths[b];
    for (int64_t s = 0; s < lengths[b]; ++s) {
      int64_t v = out.values[out.offset[b] + s];
      OF_CHECK(v >= 0 && v < classes, IndexError, "ctc_loss(): target ", v, " is out of range for ",
               classes, " classes (sample ", b, ")");
    }
  }
  return out;
}

// (log_probs (T, N, C), targets, input_lengths, target_lengths, blank, zero_infinity)
void CtcLossKernel(OpCall& c) {
  namespace args = arg::_ctc_loss;
  const TensorImplPtr lp = Contiguous(c.tensor(args::log_probs));
  const int64_t steps = lp->shape()[0], batch = lp->shape()[1], classes = lp->shape()[2];
  const DimVector& in_len = c.args[args::input_lengths].int_list();
  const DimVector& tg_len = c.args[args::target_lengths].int_list();
  const int64_t blank = c.get(args::blank);
  const CtcTargets targets = ReadCtcTargets(c.tensor(args::targets), tg_len, classes);
  const int64_t width = c.outputs[1]->shape()[2];  // 2 max(S) + 1
  DispatchFloating(c.compute_dtype, "ctc_loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const A neg_inf = -std::numeric_limits<A>::infinity();
    const T* p = reinterpret_cast<const T*>(lp->data());
    T* nll = reinterpret_cast<T*>(c.outputs[0]->data());
    T* alpha = reinterpret_cast<T*>(c.outputs[1]->data());
    ParallelFor(batch, 1, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const int64_t len = in_len[b], labels = tg_len[b], ext = 2 * labels + 1;
        const int64_t* tg = targets.of(b);
        auto label = [&](int64_t s) { return s % 2 == 0 ? blank : tg[s / 2]; };
        auto lpv = [&](int64_t t, int64_t cl) {
          return static_cast<A>(p[(t * batch + b) * classes + cl]);
        };
        T* la = alpha + b * steps * width;
        std::fill(la, la + steps * width, static_cast<T>(neg_inf));
        if (len == 0) {
          nll[b] = static_cast<T>(labels == 0 ? A(0) : -neg_inf);
          continue;
        }
        la[0] = static_cast<T>(lpv(0, blank));
        if (labels > 0) la[1] = static_cast<T>(lpv(0, tg[0]));
        for (int64_t t = 1; t < len; ++t) {
          const T* prev = la + (t - 1) * width;
          T* cur = la + t * width;
          for (int64_t s = 0; s < ext; ++s) {
            const int64_t l = label(s);
            A a = prev[s];
            A b1 = s > 0 ? static_cast<A>(prev[s - 1]) : neg_inf;
            A b2 =
                (s > 1 && l != blank && l != label(s - 2)) ? static_cast<A>(prev[s - 2]) : neg_inf;
            A v = LogSumExp3(a, b1, b2);
            cur[s] = static_cast<T>(v == neg_inf ? v : v + lpv(t, l));
          }
        }
        const T* last = la + (len - 1) * width;
        A ll = LogAddExp(static_cast<A>(last[ext - 1]),
                         labels > 0 ? static_cast<A>(last[ext - 2]) : neg_inf);
        nll[b] = static_cast<T>(-ll);
      }
    });
  });
}
OF_KERNEL("_ctc_loss", kCPU, kFloatingDTypes, &CtcLossKernel);

// (grad (N), log_probs, targets, input_lengths, target_lengths, nll, log_alpha, blank,
// zero_infinity) grad_lp[t, b, c] = g_b (exp(lp) - exp(log(sum_{s: l'_s = c} alpha_t(s) beta_t(s))
// + nll - lp)) for t < input_length, else 0.
void CtcLossBackwardKernel(OpCall& c) {
  namespace args = arg::_ctc_loss_backward;
  const TensorImplPtr lp = Contiguous(c.tensor(args::log_probs));
  const int64_t steps = lp->shape()[0], batch = lp->shape()[1], classes = lp->shape()[2];
  const DimVector& in_len = c.args[args::input_lengths].int_list();
  const DimVector& tg_len = c.args[args::target_lengths].int_list();
  const int64_t blank = c.get(args::blank);
  const bool zero_infinity = c.get(args::zero_infinity);
  const CtcTargets targets = ReadCtcTargets(c.tensor(args::targets), tg_len, classes);
  const std::vector<double> grad = ReadDoubles(c.tensor(args::grad), batch);
  const std::vector<double> nll = ReadDoubles(c.tensor(args::neg_log_likelihood), batch);
  const TensorImplPtr alpha_t = Contiguous(c.tensor(args::log_alpha));
  const int64_t width = alpha_t->shape()[2];
  DispatchFloating(c.compute_dtype, "ctc_loss_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const A neg_inf = -std::numeric_limits<A>::infinity();
    const T* p = reinterpret_cast<const T*>(lp->data());
    const T* alpha = reinterpret_cast<const T*>(alpha_t->data());
    T* out = reinterpret_cast<T*>(c.outputs[0]->data());
    ParallelFor(batch, 1, [&](int64_t begin, int64_t end) {
      std::vector<A> beta, lcab(classes);
      for (int64_t b = begin; b < end; ++b) {
        const int64_t len = in_len[b], labels = tg_len[b], ext = 2 * labels + 1;
        const int64_t* tg = targets.of(b);
        auto label = [&](int64_t s) { return s % 2 == 0 ? blank : tg[s / 2]; };
        auto at = [&](int64_t t, int64_t cl) { return (t * batch + b) * classes + cl; };
        const bool zero = zero_infinity && std::isinf(nll[b]);
        for (int64_t t = zero ? 0 : len; t < steps; ++t) {
          std::fill(out + at(t, 0), out + at(t, 0) + classes, static_cast<T>(0.0f));
        }
        if (zero || len == 0) continue;
        beta.assign(len * ext, neg_inf);
        A* lb = beta.data();
        lb[(len - 1) * ext + ext - 1] = static_cast<A>(p[at(len - 1, blank)]);
        if (labels > 0)
          lb[(len - 1) * ext + ext - 2] = static_cast<A>(p[at(len - 1, tg[labels - 1])]);
        for (int64_t t = len - 2; t >= 0; --t) {
          const A* next = lb + (t + 1) * ext;
          A* cur = lb + t * ext;
          for (int64_t s = 0; s < ext; ++s) {
            const int64_t l = label(s);
            A a = next[s];
            A b1 = s + 1 < ext ? next[s + 1] : neg_inf;
            A b2 = (s + 2 < ext && l != blank && l != label(s + 2)) ? next[s + 2] : neg_inf;
            A v = LogSumExp3(a, b1, b2);
            cur[s] = v == neg_inf ? v : v + static_cast<A>(p[at(t, l)]);
          }
        }
        const A g = static_cast<A>(grad[b]), n = static_cast<A>(nll[b]);
        const T* la = alpha + b * steps * width;
        for (int64_t t = 0; t < len; ++t) {
          std::fill(lcab.begin(), lcab.end(), neg_inf);
          for (int64_t s = 0; s < ext; ++s) {
            const int64_t l = label(s);
            lcab[l] = LogAddExp(lcab[l], static_cast<A>(la[t * width + s]) + lb[t * ext + s]);
          }
          for (int64_t cl = 0; cl < classes; ++cl) {
            const A v = static_cast<A>(p[at(t, cl)]);
            out[at(t, cl)] = static_cast<T>((std::exp(v) - std::exp(lcab[cl] + n - v)) * g);
          }
        }
      }
    });
  });
}
OF_KERNEL("_ctc_loss_backward", kCPU, kFloatingDTypes, &CtcLossBackwardKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
