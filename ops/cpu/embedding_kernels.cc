// CPU kernels of embedding, embedding_backward, embedding_renorm_ and one_hot
// (ops/defs/embedding.cc).
//
// Lookups copy whole rows (memcpy), split over threads. The gradient is a zero
// [num_weights, D] tensor into which each position's gradient row is added:
// positions are split over threads by destination row (each thread owns the
// rows whose index falls in its range, so no two threads add into one row).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/runtime/tensor_ops.h"
#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// The indices as int64 (contiguous), each checked against [0, num).
std::vector<int64_t> Indices(const TensorImplPtr& t, int64_t num, const char* op,
                             const DimVector& weight_shape) {
  TensorImplPtr c = Contiguous(ToDType(t, DType::kInt64, false));
  const int64_t* p = reinterpret_cast<const int64_t*>(c->data());
  std::vector<int64_t> v(p, p + c->numel());
  for (int64_t i : v) {
    OF_CHECK(i >= 0 && i < num, IndexError, op, "(): index ", i,
             " is out of range for a weight of size ", ShapeToString(weight_shape),
             " (index out of range in self)");
  }
  return v;
}

void EmbeddingKernel(OpCall& c) {
  TensorImplPtr w = Contiguous(c.tensor(arg::embedding::weight));
  const int64_t num = w->shape()[0], d = w->shape()[1];
  std::vector<int64_t> idx =
      Indices(c.tensor(arg::embedding::indices), num, "embedding", w->shape());
  const int64_t row_bytes = d * w->itemsize();
  const char* src = w->data();
  char* dst = c.outputs[0]->data();
  const int64_t n = static_cast<int64_t>(idx.size());
  ParallelFor(n, std::max<int64_t>(1, 262144 / std::max<int64_t>(row_bytes, 1)),
              [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) {
                  std::memcpy(dst + i * row_bytes, src + idx[i] * row_bytes, row_bytes);
                }
              });
}
OF_KERNEL("embedding", kCPU, kAllDTypes, &EmbeddingKernel);

void EmbeddingBackwardKernel(OpCall& c) {
  TensorImplPtr g = Contiguous(c.tensor(arg::embedding_backward::grad));
  TensorImplPtr& out = c.outputs[0];
  const int64_t num = out->shape()[0], d = out->shape()[1];
  const int64_t padding = c.get(arg::embedding_backward::padding_idx);
  const bool by_freq = c.get(arg::embedding_backward::scale_grad_by_freq);
  std::vector<int64_t> idx =
      Indices(c.tensor(arg::embedding_backward::indices), num, "embedding_backward", out->shape());
  const int64_t n = static_cast<int64_t>(idx.size());
  std::vector<int64_t> count;
  if (by_freq) {
    count.assign(num, 0);
    for (int64_t i : idx) ++count[i];
  }
  // The positions sorted by destination row: a thread takes a range of rows.
  std::vector<int64_t> order(n);
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return idx[a] < idx[b]; });
  DispatchFloating(g->dtype(), "embedding_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    T* po = reinterpret_cast<T*>(out->data());
    const T* pg = reinterpret_cast<const T*>(g->data());
    // Zero the gradient in parallel (it is usually much larger than the lookups).
    ParallelFor(num * d, int64_t{1} << 18, [&](int64_t b, int64_t e) {
      std::memset(static_cast<void*>(po + b), 0, (e - b) * sizeof(T));
    });
    ParallelFor(n, 64, [&](int64_t b, int64_t e) {
      // Start and end on row boundaries, so each row belongs to one chunk.
      while (b > 0 && b < n && idx[order[b]] == idx[order[b - 1]]) ++b;
      while (e < n && idx[order[e]] == idx[order[e - 1]]) ++e;
      std::vector<A> acc(d);
      for (int64_t s = b; s < e;) {
        const int64_t row = idx[order[s]];
        int64_t t = s;
        std::fill(acc.begin(), acc.end(), A(0));
        for (; t < e && idx[order[t]] == row; ++t) {
          const T* gr = pg + order[t] * d;
#pragma omp simd
          for (int64_t j = 0; j < d; ++j) acc[j] += static_cast<A>(gr[j]);
        }
        if (row != padding) {
          const A scale = by_freq ? A(1) / static_cast<A>(count[row]) : A(1);
          T* orow = po + row * d;
          for (int64_t j = 0; j < d; ++j) orow[j] = static_cast<T>(acc[j] * scale);
        }
        s = t;
      }
    });
  });
}
OF_KERNEL("embedding_backward", kCPU, kFloatingDTypes, &EmbeddingBackwardKernel);

// Rows are rescaled once each, however often their index occurs.
void EmbeddingRenormKernel(OpCall& c) {
  TensorImplPtr w = c.outputs[0];
  const int64_t num = w->shape()[0], d = w->shape()[1];
  std::vector<int64_t> idx =
      Indices(c.tensor(arg::embedding_renorm_::indices), num, "embedding_renorm_", w->shape());
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  const double max_norm = c.get(arg::embedding_renorm_::max_norm),
               norm_type = c.get(arg::embedding_renorm_::norm_type);
  const int64_t rs = w->stride()[0], cs = w->stride()[1];
  DispatchFloating(w->dtype(), "embedding_renorm_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = reinterpret_cast<T*>(w->data());
    for (int64_t row : idx) {
      T* r = p + row * rs;
      double norm = 0;
      if (norm_type == 1.0) {
        for (int64_t j = 0; j < d; ++j) norm += std::abs(static_cast<double>(r[j * cs]));
      } else if (norm_type == 2.0) {
        for (int64_t j = 0; j < d; ++j) {
          const double v = static_cast<double>(r[j * cs]);
          norm += v * v;
        }
        norm = std::sqrt(norm);
      } else if (std::isinf(norm_type)) {
        for (int64_t j = 0; j < d; ++j) {
          const double v = std::abs(static_cast<double>(r[j * cs]));
          norm = norm_type > 0 ? std::max(norm, v) : (j == 0 ? v : std::min(norm, v));
        }
      } else {
        for (int64_t j = 0; j < d; ++j) {
          norm += std::pow(std::abs(static_cast<double>(r[j * cs])), norm_type);
        }
        norm = std::pow(norm, 1.0 / norm_type);
      }
      if (norm > max_norm) {
        const double scale = max_norm / (norm + 1e-7);
        for (int64_t j = 0; j < d; ++j) {
          r[j * cs] = static_cast<T>(static_cast<double>(r[j * cs]) * scale);
        }
      }
    }
  });
}
OF_KERNEL("embedding_renorm_", kCPU, kFloatingDTypes, &EmbeddingRenormKernel);

void OneHotKernel(OpCall& c) {
  TensorImplPtr x = Contiguous(c.tensor(arg::one_hot::self));
  const int64_t* p = reinterpret_cast<const int64_t*>(x->data());
  const int64_t n = x->numel();
  int64_t classes = c.get(arg::one_hot::num_classes);
  if (classes == -1) {
    OF_CHECK(n > 0, RuntimeError,
             "one_hot: Can not infer total number of classes from empty tensor (tensor of size ",
             ShapeToString(x->shape()), ").");
    classes = *std::max_element(p, p + n) + 1;
  }
  for (int64_t i = 0; i < n; ++i) {
    OF_CHECK(p[i] >= 0, RuntimeError, "one_hot: Class values must be non-negative (got ", p[i],
             " in a tensor of size ", ShapeToString(x->shape()), ").");
    OF_CHECK(p[i] < classes, RuntimeError,
             "one_hot: Class values must be smaller than num_classes (got ", p[i],
             " with num_classes=", classes, ").");
  }
  OF_CHECK(classes >= 0, RuntimeError, "one_hot: num_classes must be -1 or non-negative, but got ",
           classes);
  DimVector shape = x->shape();
  shape.push_back(classes);
  TensorImplPtr out = Full(shape, Scalar::Int(0), DType::kInt64, c.device);
  int64_t* o = reinterpret_cast<int64_t*>(out->data());
  for (int64_t i = 0; i < n; ++i) o[i * classes + p[i]] = 1;
  c.outputs = {out};
}
OF_KERNEL("one_hot", kCPU, DTypeBit(DType::kInt64), &OneHotKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
