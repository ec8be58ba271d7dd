// The CUDA kernels of the registry's ops other than the elementwise ones
// (elementwise_kernels.cc): reductions, matrix products, softmax, layer norm,
// embedding, cross entropy, cat, random numbers and Adam. The host side, which
// reads each op call and launches the kernels of ops/cuda/*.cu on the current
// device's stream; registered at load time like the CPU kernels (ops/cpu).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/framework/generator.h"
#include "core/runtime/device_kernels.h"
#include "core/runtime/view_ops.h"
#include "ops/cuda/cuda_runtime.h"
#include "ops/cuda/launch.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cuda {
namespace {

constexpr DeviceType kCUDA = DeviceType::kCUDA;
constexpr ArgRef<TensorImplPtr> kSelf = arg::abs::self;

const Device kHost{DeviceType::kCPU, -1};

// ---- reductions ------------------------------------------------------------------

// Reduces x over `dims` (empty: all) into out, whose elements are the kept
// dims in order: the reduced dims are moved last, so each output is one row.
void ReduceInto(const char* op, const TensorImplPtr& x_in, const DimVector& dims,
                const TensorImplPtr& out, double p = 0) {
  DeviceGuard guard(out->device().index);
  TensorImplPtr x = x_in;
  const int64_t nd = x->ndim();
  std::vector<bool> reduced(nd, dims.empty());
  for (int64_t d : dims) reduced[d < 0 ? d + nd : d] = true;
  DimVector perm;
  for (int64_t d = 0; d < nd; ++d) {
    if (!reduced[d]) perm.push_back(d);
  }
  int64_t inner = 1;
  for (int64_t d = 0; d < nd; ++d) {
    if (reduced[d]) {
      perm.push_back(d);
      inner *= x->shape()[d];
    }
  }
  const int64_t outer = out->numel();
  // Sums over the leading dims of a contiguous tensor (bias gradients): column sums, no copy.
  const std::string name = op;
  int64_t lead = 0;
  while (lead < nd && reduced[lead]) ++lead;
  bool leading_only = lead > 0 && lead < nd;
  for (int64_t d = lead; d < nd; ++d) leading_only = leading_only && !reduced[d];
  if ((name == "sum" || name == "mean") && leading_only && x->is_contiguous() &&
      out->is_contiguous() && x->dtype() == out->dtype() && inner > 0) {
    auto workspace =
        TensorImpl::Empty({ColumnChunks(inner) * outer}, DType::kFloat32, out->device());
    if (LaunchSumColumns(x->data(), out->data(), x->dtype(), inner, outer, name == "mean",
                         reinterpret_cast<float*>(workspace->data()))) {
      return;
    }
  }
  const bool bool_out = out->dtype() == DType::kBool;
  const bool widen = out->dtype() == DType::kInt64 && !IsFloatingPoint(x->dtype());
  if (!bool_out && !widen && x->dtype() != out->dtype()) x = ToDType(x, out->dtype(), false);
  x = Contiguous(Permute(x, perm));
  TensorImplPtr dst =
      out->is_contiguous() ? out : TensorImpl::Empty(out->shape(), out->dtype(), out->device());
  if (inner == 0) {
    // An empty reduction: the identity (sum 0, prod 1); max/min raise on the host side.
    GetDeviceKernels(kCUDA).fill(
        *dst, Scalar::Int(std::string(op) == "prod" || std::string(op) == "all"));
  } else {
    OF_CHECK(
        LaunchReduceRows(op, x->data(), x->dtype(), dst->data(), dst->dtype(), outer, inner, p),
        NotImplementedError, op, "(): CUDA reduction from ", DTypeName(x->dtype()), " to ",
        DTypeName(dst->dtype()), " is not implemented");
  }
  if (dst != out) CopyInto(dst, out);
}

DimVector DimsOf(const std::optional<DimVector>& dims) { return dims.value_or(DimVector{}); }

void SumKernel(OpCall& c) { ReduceInto("sum", c.tensor(arg::sum::self), {}, c.outputs[0]); }
void SumDimKernel(OpCall& c) {
  ReduceInto("sum", c.tensor(arg::sum_dim::self), DimsOf(c.get(arg::sum_dim::dim)), c.outputs[0]);
}
void MeanKernel(OpCall& c) { ReduceInto("mean", c.tensor(arg::mean::self), {}, c.outputs[0]); }
void MeanDimKernel(OpCall& c) {
  ReduceInto("mean", c.tensor(arg::mean_dim::self), DimsOf(c.get(arg::mean_dim::dim)),
             c.outputs[0]);
}
void AmaxKernel(OpCall& c) {
  const std::string name = c.name();
  OF_CHECK(c.tensor(arg::amax::self)->numel() > 0, RuntimeError, name,
           "(): Expected reduction dim to be specified for input.numel() == 0");
  ReduceInto(name.c_str(), c.tensor(arg::amax::self), c.get(arg::amax::dim), c.outputs[0]);
}
void MaxAllKernel(OpCall& c) {
  const std::string name = c.name();
  OF_CHECK(c.tensor(kSelf)->numel() > 0, RuntimeError, name,
           "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
           "reduction dim with the 'dim' argument.");
  ReduceInto(name == "max" ? "amax" : "amin", c.tensor(kSelf), {}, c.outputs[0]);
}
void NormKernel(OpCall& c) {
  const std::optional<Scalar> p = c.get(arg::norm::p);
  ReduceInto("norm", c.tensor(arg::norm::self), DimsOf(c.get(arg::norm::dim)), c.outputs[0],
             p ? p->d : 2.0);
}
void AnyAllKernel(OpCall& c) {
  const std::string name = c.name();
  const bool all = name.rfind("all", 0) == 0;
  DimVector dims;
  if (name == "any.dim" || name == "all.dim") dims = {c.get(arg::any_dim::dim)};
  if (name == "any.dims" || name == "all.dims") dims = DimsOf(c.get(arg::any_dims::dim));
  ReduceInto(all ? "all" : "any", c.tensor(kSelf), dims, c.outputs[0]);
}

// ---- matrix products (cuBLAS, ops/cuda/blas.cc) -------------------------------------

}  // namespace

// out = alpha * a @ b + beta * out over a batch (blas.cc).
void Gemm(const TensorImplPtr& a, const TensorImplPtr& b, const TensorImplPtr& out, double alpha,
          double beta, const char* op);

namespace {

void MmKernel(OpCall& c) {
  Gemm(c.tensor(arg::mm::self), c.tensor(arg::mm::mat2), c.outputs[0], 1, 0, "mm");
}
void BmmKernel(OpCall& c) {
  Gemm(c.tensor(arg::bmm::self), c.tensor(arg::bmm::mat2), c.outputs[0], 1, 0, "bmm");
}

// matmul: NumPy's rules (1-d operands gain and lose a dim; batch dims broadcast).
void MatmulKernel(OpCall& c) {
  TensorImplPtr a = c.tensor(arg::matmul::self), b = c.tensor(arg::matmul::other);
  const TensorImplPtr& out = c.outputs[0];
  const bool a1 = a->ndim() == 1, b1 = b->ndim() == 1;
  if (a1) a = Unsqueeze(a, 0);
  if (b1) b = Unsqueeze(b, 1);
  DimVector batch;
  const int64_t ba = a->ndim() - 2, bb = b->ndim() - 2;
  const int64_t nb = std::max(ba, bb);
  for (int64_t i = 0; i < nb; ++i) {
    const int64_t da = i - (nb - ba), db = i - (nb - bb);
    const int64_t sa = da >= 0 ? a->shape()[da] : 1, sb = db >= 0 ? b->shape()[db] : 1;
    batch.push_back(std::max(sa, sb));
  }
  int64_t nbatch = 1;
  for (int64_t s : batch) nbatch *= s;
  // (batch..., r, c) as (nbatch, r, c): a view where the batch dims merge (Reshape copies
  // only where they do not); Gemm reads either inner layout in place.
  auto flat = [&](TensorImplPtr t) {
    DimVector shape = batch;
    const int64_t r = t->shape()[t->ndim() - 2], cols = t->shape()[t->ndim() - 1];
    shape.push_back(r);
    shape.push_back(cols);
    t = Expand(t, shape);
    if (batch.empty()) return Unsqueeze(t, 0);
    // The batch dims of size above 1 merge when each steps over the next whole.
    bool merges = true;
    int64_t bstride = 0, prev = -1;
    for (int64_t i = 0; i < nb; ++i) {
      if (batch[i] == 1) continue;
      if (prev >= 0) merges = merges && t->stride()[prev] == t->stride()[i] * batch[i];
      prev = i;
      bstride = t->stride()[i];
    }
    if (merges) {
      return t->AsStrided({nbatch, r, cols}, {bstride, t->stride()[nb], t->stride()[nb + 1]},
                          t->storage_offset());
    }
    return Reshape(Contiguous(t), DimVector{nbatch, r, cols});
  };
  TensorImplPtr a3 = flat(a), b3 = flat(b);
  const DimVector o3_shape = {nbatch, a3->shape()[1], b3->shape()[2]};
  if (out->is_contiguous()) {
    Gemm(a3, b3, Reshape(out, o3_shape), 1, 0, "matmul");
    return;
  }
  auto o3 = TensorImpl::Empty(o3_shape, out->dtype(), out->device());
  Gemm(a3, b3, o3, 1, 0, "matmul");
  CopyInto(Reshape(o3, out->shape()), out);
}

void AddmmKernel(OpCall& c) {
  const TensorImplPtr& out = c.outputs[0];
  const double beta = c.get(arg::addmm::beta).d, alpha = c.get(arg::addmm::alpha).d;
  const TensorImplPtr& self = c.tensor(arg::addmm::self);
  if (beta != 0) {
    if (self.get() != out.get()) CopyInto(Expand(self, out->shape()), out);
  }
  Gemm(c.tensor(arg::addmm::mat1), c.tensor(arg::addmm::mat2), out, alpha, beta, "addmm");
}

// ---- softmax --------------------------------------------------------------------

struct Rows3 {
  int64_t outer = 1, n = 1, inner = 1;
};
Rows3 Split(const DimVector& shape, int64_t dim) {
  Rows3 r;
  const int64_t nd = static_cast<int64_t>(shape.size());
  if (nd == 0) return r;
  if (dim < 0) dim += nd;
  for (int64_t d = 0; d < nd; ++d) {
    if (d < dim) r.outer *= shape[d];
    if (d == dim) r.n = shape[d];
    if (d > dim) r.inner *= shape[d];
  }
  return r;
}

TensorImplPtr Dense(const TensorImplPtr& t, const TensorImplPtr& out) {
  return out->is_contiguous() ? out : TensorImpl::Empty(t->shape(), out->dtype(), out->device());
}

void SoftmaxKernel(OpCall& c) {
  const bool log = c.name() == "log_softmax";
  TensorImplPtr x = c.tensor(arg::softmax::self);
  const TensorImplPtr& out = c.outputs[0];
  DeviceGuard guard(out->device().index);
  if (x->dtype() != out->dtype()) x = ToDType(x, out->dtype(), false);
  x = Contiguous(x);
  const Rows3 r = Split(x->shape(), c.get(arg::softmax::dim));
  TensorImplPtr dst = Dense(x, out);
  LaunchSoftmax(x->data(), dst->data(), x->dtype(), r.outer, r.n, r.inner, log);
  if (dst != out) CopyInto(dst, out);
}

void SoftmaxBackwardKernel(OpCall& c) {
  const bool log = c.name() == "_log_softmax_backward";
  namespace a = arg::_softmax_backward;
  const TensorImplPtr g = Contiguous(c.tensor(a::grad_output));
  const TensorImplPtr y = Contiguous(c.tensor(a::output));
  const TensorImplPtr& out = c.outputs[0];
  DeviceGuard guard(out->device().index);
  const Rows3 r = Split(y->shape(), c.get(a::dim));
  TensorImplPtr dst = Dense(y, out);
  LaunchSoftmaxBackward(g->data(), y->data(), dst->data(), y->dtype(), r.outer, r.n, r.inner, log);
  if (dst != out) CopyInto(dst, out);
}

// ---- layer norm ---------------------------------------------------------------------

TensorImplPtr OptionalDense(const TensorImplPtr& t) { return t ? Contiguous(t) : nullptr; }
const void* DataOrNull(const TensorImplPtr& t) { return t ? t->data() : nullptr; }

void LayerNormKernel(OpCall& c) {
  namespace a = arg::native_layer_norm;
  const TensorImplPtr x = Contiguous(c.tensor(a::input));
  const TensorImplPtr w = OptionalDense(c.get(a::weight)), b = OptionalDense(c.get(a::bias));
  DeviceGuard guard(x->device().index);
  int64_t n = 1;
  for (int64_t s : c.get(a::normalized_shape)) n *= s;
  const int64_t rows = n == 0 ? 0 : x->numel() / n;
  TensorImplPtr y = Dense(x, c.outputs[0]);
  const TensorImplPtr& mean = c.outputs[1];
  const TensorImplPtr& rstd = c.outputs[2];
  OF_CHECK(mean->is_contiguous() && rstd->is_contiguous(), RuntimeError,
           "native_layer_norm: statistics outputs must be contiguous");
  LaunchLayerNorm(x->data(), DataOrNull(w), DataOrNull(b), y->data(), mean->data(), rstd->data(),
                  x->dtype(), mean->dtype(), rows, n, c.get(a::eps));
  if (y != c.outputs[0]) CopyInto(y, c.outputs[0]);
}

void LayerNormBackwardKernel(OpCall& c) {
  namespace a = arg::native_layer_norm_backward;
  const TensorImplPtr g = Contiguous(c.tensor(a::grad_out));
  const TensorImplPtr x = Contiguous(c.tensor(a::input));
  const TensorImplPtr mean = Contiguous(c.tensor(a::mean)), rstd = Contiguous(c.tensor(a::rstd));
  const TensorImplPtr w = OptionalDense(c.get(a::weight));
  const DimVector mask = c.get(a::output_mask);
  DeviceGuard guard(x->device().index);
  int64_t n = 1;
  for (int64_t s : c.get(a::normalized_shape)) n *= s;
  const int64_t rows = n == 0 ? 0 : x->numel() / n;
  // Outputs the mask leaves out may be absent (or empty) in c.outputs.
  auto out_at = [&](size_t i) -> TensorImplPtr {
    if (i >= c.outputs.size() || !c.outputs[i] || mask.size() <= i || mask[i] == 0) return nullptr;
    return c.outputs[i];
  };
  TensorImplPtr gx = out_at(0), gw = out_at(1), gb = out_at(2);
  if (!w) gw = nullptr;
  TensorImplPtr gx_d = gx ? Dense(x, gx) : nullptr;
  TensorImplPtr gw_d = gw ? Dense(gw, gw) : nullptr, gb_d = gb ? Dense(gb, gb) : nullptr;
  auto workspace = TensorImpl::Empty({2 * ColumnChunks(rows) * n}, DType::kFloat32, x->device());
  LaunchLayerNormBackward(g->data(), x->data(), mean->data(), rstd->data(), DataOrNull(w),
                          gx_d ? gx_d->data() : nullptr, gw_d ? gw_d->data() : nullptr,
                          gb_d ? gb_d->data() : nullptr, x->dtype(), mean->dtype(), rows, n,
                          reinterpret_cast<float*>(workspace->data()));
  if (gx_d && gx_d != gx) CopyInto(gx_d, gx);
  if (gw_d && gw_d != gw) CopyInto(gw_d, gw);
  if (gb_d && gb_d != gb) CopyInto(gb_d, gb);
}

// ---- embedding ----------------------------------------------------------------------

// Checks that every index lies in [0, n) (one small copy to the host).
void CheckIndices(const TensorImplPtr& idx, int64_t n, const char* op) {
  if (idx->numel() == 0) return;
  TensorImplPtr host = ToDevice(ToDType(idx, DType::kInt64, false), kHost);
  host = Contiguous(host);
  const int64_t* p = reinterpret_cast<const int64_t*>(host->data());
  for (int64_t i = 0; i < host->numel(); ++i) {
    OF_CHECK(p[i] >= 0 && p[i] < n, IndexError, op, "(): index ", p[i],
             " is out of range for a table of ", n, " rows");
  }
}

void EmbeddingKernel(OpCall& c) {
  namespace a = arg::embedding;
  const TensorImplPtr w = Contiguous(c.tensor(a::weight));
  TensorImplPtr idx = c.tensor(a::indices);
  DeviceGuard guard(w->device().index);
  OF_CHECK(idx->dtype() == DType::kInt64 || idx->dtype() == DType::kInt32, RuntimeError,
           "embedding(): Expected tensor for argument #1 'indices' to have one of the following "
           "scalar types: Long, Int; but got ",
           DTypeName(idx->dtype()));
  idx = Contiguous(idx);
  CheckIndices(idx, w->shape()[0], "embedding");
  const TensorImplPtr& out = c.outputs[0];
  TensorImplPtr dst = Dense(out, out);
  LaunchEmbedding(w->data(), idx->data(), idx->dtype(), dst->data(), w->dtype(), idx->numel(),
                  w->shape()[1], w->shape()[0]);
  if (dst != out) CopyInto(dst, out);
}

void EmbeddingBackwardKernel(OpCall& c) {
  namespace a = arg::embedding_backward;
  const TensorImplPtr g = Contiguous(c.tensor(a::grad));
  const TensorImplPtr idx = Contiguous(c.tensor(a::indices));
  const int64_t num_weights = c.get(a::num_weights);
  const TensorImplPtr& out = c.outputs[0];
  DeviceGuard guard(out->device().index);
  const int64_t dim = out->shape()[1];
  auto acc = Full({num_weights, dim}, Scalar::Int(0), DType::kFloat32, out->device());
  TensorImplPtr counts;
  if (c.get(a::scale_grad_by_freq)) {
    counts = Full({num_weights}, Scalar::Int(0), DType::kInt32, out->device());
    LaunchCountIndices(idx->data(), idx->dtype(), reinterpret_cast<int32_t*>(counts->data()),
                       idx->numel());
  }
  LaunchEmbeddingBackward(g->data(), g->dtype(), idx->data(), idx->dtype(),
                          reinterpret_cast<float*>(acc->data()), idx->numel(), dim,
                          c.get(a::padding_idx),
                          counts ? reinterpret_cast<const int32_t*>(counts->data()) : nullptr);
  CopyInto(acc, out);
}

// ---- cross entropy ----------------------------------------------------------------

TensorImplPtr CheckedTargets(const TensorImplPtr& target, int64_t classes, int64_t ignore,
                             const Device& device) {
  TensorImplPtr host = Contiguous(ToDevice(ToDType(target, DType::kInt64, false), kHost));
  const int64_t* p = reinterpret_cast<const int64_t*>(host->data());
  for (int64_t i = 0; i < host->numel(); ++i) {
    OF_CHECK(p[i] == ignore || (p[i] >= 0 && p[i] < classes), IndexError,
             "cross_entropy(): Target ", p[i], " is out of bounds (", classes, " classes)");
  }
  return ToDevice(host, device);
}

double WeightSum(const TensorImplPtr& w, int64_t classes) {
  if (!w) return static_cast<double>(classes);
  TensorImplPtr host = Contiguous(ToDevice(ToDType(w, DType::kFloat64, false), kHost));
  double s = 0;
  const double* p = reinterpret_cast<const double*>(host->data());
  for (int64_t i = 0; i < host->numel(); ++i) s += p[i];
  return s;
}

void CrossEntropyKernel(OpCall& c) {
  namespace a = arg::_softmax_cross_entropy;
  const TensorImplPtr x = Contiguous(c.tensor(a::input));
  DeviceGuard guard(x->device().index);
  const int64_t rows = x->shape()[0], classes = x->shape()[1];
  const std::string reduction = c.args[a::reduction].str();
  const int64_t ignore = c.get(a::ignore_index);
  const TensorImplPtr target = CheckedTargets(c.tensor(a::target), classes, ignore, x->device());
  const TensorImplPtr w = OptionalDense(c.get(a::weight));
  auto loss = TensorImpl::Empty({rows}, DType::kFloat64, x->device());
  auto lse = TensorImpl::Empty({rows}, DType::kFloat64, x->device());
  auto wrow = TensorImpl::Empty({rows}, DType::kFloat64, x->device());
  LaunchSoftmaxCrossEntropy(
      x->data(), reinterpret_cast<const int64_t*>(target->data()), DataOrNull(w), x->dtype(), rows,
      classes, ignore, c.get(a::label_smoothing), reinterpret_cast<double*>(loss->data()),
      reinterpret_cast<double*>(lse->data()), reinterpret_cast<double*>(wrow->data()));
  CopyInto(lse, c.outputs[1]);
  auto total = TensorImpl::Empty({}, DType::kFloat64, x->device());
  ReduceInto("sum", wrow, {}, total);
  CopyInto(total, c.outputs[2]);
  if (reduction == "none") {
    CopyInto(loss, c.outputs[0]);
    return;
  }
  auto sum = TensorImpl::Empty({}, DType::kFloat64, x->device());
  ReduceInto("sum", loss, {}, sum);
  CopyInto(reduction == "mean" ? ops::div(sum, total) : sum, c.outputs[0]);
}

void CrossEntropyBackwardKernel(OpCall& c) {
  namespace a = arg::_softmax_cross_entropy_backward;
  const TensorImplPtr x = Contiguous(c.tensor(a::input));
  DeviceGuard guard(x->device().index);
  const int64_t rows = x->shape()[0], classes = x->shape()[1];
  const std::string reduction = c.args[a::reduction].str();
  const int64_t ignore = c.get(a::ignore_index);
  const TensorImplPtr target = CheckedTargets(c.tensor(a::target), classes, ignore, x->device());
  const TensorImplPtr w = OptionalDense(c.get(a::weight));
  TensorImplPtr g = ToDType(c.tensor(a::grad_output), DType::kFloat64, false);
  if (reduction == "mean")
    g = ops::div(g, ToDType(c.tensor(a::total_weight), DType::kFloat64, false));
  g = Contiguous(Expand(g, {rows}));
  const TensorImplPtr lse = Contiguous(ToDType(c.tensor(a::lse), DType::kFloat64, false));
  TensorImplPtr dst = Dense(x, c.outputs[0]);
  LaunchSoftmaxCrossEntropyBackward(reinterpret_cast<const double*>(g->data()), x->data(),
                                    reinterpret_cast<const int64_t*>(target->data()), DataOrNull(w),
                                    reinterpret_cast<const double*>(lse->data()), x->dtype(), rows,
                                    classes, ignore, c.get(a::label_smoothing),
                                    WeightSum(w, classes), dst->data());
  if (dst != c.outputs[0]) CopyInto(dst, c.outputs[0]);
}

// ---- cat ------------------------------------------------------------------------------

void CatKernel(OpCall& c) {
  const TensorList& ts = c.args[arg::_cat::tensors].tensors();
  const TensorImplPtr& out = c.outputs[0];
  DeviceGuard guard(out->device().index);
  int64_t dim = c.get(arg::_cat::dim);
  if (dim < 0) dim += out->ndim();
  TensorImplPtr dst = Dense(out, out);
  const Rows3 r = Split(out->shape(), dim);
  int64_t at = 0;
  for (const TensorImplPtr& t0 : ts) {
    if (t0->numel() == 0 && t0->ndim() == 1) continue;  // legacy empty tensors
    TensorImplPtr t =
        Contiguous(t0->dtype() == out->dtype() ? t0 : ToDType(t0, out->dtype(), false));
    const int64_t n_i = t->shape()[dim];
    LaunchCatPiece(t->data(), dst->data(), out->itemsize(), r.outer, n_i, r.n, at, r.inner);
    at += n_i;
  }
  if (dst != out) CopyInto(dst, out);
}

// ---- random ---------------------------------------------------------------------------

struct Draw {
  uint64_t seed, offset;
};
// Takes `counters` Philox counters from the call's generator (argument
// gen_arg; the device's default generator when gen_arg < 0).
Draw Reserve(OpCall& c, int gen_arg, uint64_t counters) {
  std::shared_ptr<Generator> gen = gen_arg < 0
                                       ? DefaultGenerator(c.device.type)
                                       : GeneratorFor(c.args[gen_arg], c.device, c.name().c_str());
  Draw d{gen->initial_seed(), gen->offset()};
  gen->Reserve(counters);
  return d;
}

template <typename F>
void IntoDense(const TensorImplPtr& out, F&& fill) {
  TensorImplPtr dst = Dense(out, out);
  fill(dst);
  if (dst != out) CopyInto(dst, out);
}

// uniform_ and normal_ (same argument indices: self, two numbers, generator).
void RandomFillKernel(OpCall& c) {
  const bool normal = c.name() == "normal_";
  const TensorImplPtr& out = c.outputs[0];
  DeviceGuard guard(out->device().index);
  const Draw d =
      Reserve(c, arg::uniform_::generator.index, CountersFor(out->numel(), normal ? 2 : 1));
  const double a = c.get(arg::uniform_::from), b = c.get(arg::uniform_::to);
  IntoDense(out, [&](const TensorImplPtr& t) {
    (normal ? LaunchNormal : LaunchUniform)(t->data(), t->dtype(), t->numel(), d.seed, d.offset, a,
                                            b);
  });
}

// random_ and friends: drawn on the host generator's CPU kernel, then copied
// (integers from a range; used for initialisation, not in hot loops).
void RandomOnHostKernel(OpCall& c) {
  const TensorImplPtr& out = c.outputs[0];
  auto host = TensorImpl::Empty(out->shape(), out->dtype(), kHost);
  std::vector<Value> args = c.args;
  args[0] = Value(host);
  Dispatch(*c.op, std::move(args));
  CopyInto(host, out);
}

void DropoutKernel(OpCall& c) {
  namespace a = arg::native_dropout;
  const TensorImplPtr x = Contiguous(c.tensor(a::input));
  DeviceGuard guard(x->device().index);
  const double p = c.get(a::p);
  const std::optional<bool> train = c.get(a::train);
  const TensorImplPtr& y = c.outputs[0];
  const TensorImplPtr& mask = c.outputs[1];
  if (train.has_value() && !*train) {
    CopyInto(x, y);
    GetDeviceKernels(kCUDA).fill(*mask, Scalar::Int(1));
    return;
  }
  OF_CHECK(p >= 0 && p <= 1, RuntimeError,
           "dropout probability has to be between 0 and 1, but got ", p);
  const Draw d = Reserve(c, -1, CountersFor(x->numel(), 1));
  TensorImplPtr yd = Dense(x, y), md = Dense(mask, mask);
  LaunchDropout(x->data(), yd->data(), reinterpret_cast<bool*>(md->data()), x->dtype(), x->numel(),
                p, d.seed, d.offset);
  if (yd != y) CopyInto(yd, y);
  if (md != mask) CopyInto(md, mask);
}

void DropoutBackwardKernel(OpCall& c) {
  namespace a = arg::native_dropout_backward;
  const TensorImplPtr g = Contiguous(c.tensor(a::grad_output));
  const TensorImplPtr mask = Contiguous(c.tensor(a::mask));
  DeviceGuard guard(g->device().index);
  TensorImplPtr dst = Dense(g, c.outputs[0]);
  LaunchMaskScale(g->data(), reinterpret_cast<const bool*>(mask->data()), dst->data(), g->dtype(),
                  g->numel(), c.get(a::scale));
  if (dst != c.outputs[0]) CopyInto(dst, c.outputs[0]);
}

// ---- fused Adam / AdamW ------------------------------------------------------------------

double StepOf(const TensorImplPtr& t) {
  TensorImplPtr host = ToDevice(ToDType(t, DType::kFloat64, false), kHost);
  return *reinterpret_cast<const double*>(host->data());
}

void FusedAdamKernel(OpCall& c) {
  namespace a = arg::_fused_adam_;
  const bool decoupled = c.name() == "_fused_adamw_";
  const TensorList& params = c.args[a::params].tensors();
  const TensorList& grads = c.args[a::grads].tensors();
  const TensorList& m = c.args[a::exp_avgs].tensors();
  const TensorList& v = c.args[a::exp_avg_sqs].tensors();
  const TensorList& vmax = c.args[a::max_exp_avg_sqs].tensors();
  const TensorList& steps = c.args[a::state_steps].tensors();
  const bool amsgrad = c.get(a::amsgrad);
  OF_CHECK(grads.size() == params.size() && m.size() == params.size() &&
               v.size() == params.size() && steps.size() == params.size() &&
               (!amsgrad || vmax.size() == params.size()),
           RuntimeError, c.name(), ": every tensor list must have one entry per parameter");
  for (size_t i = 0; i < params.size(); ++i) {
    const TensorImplPtr& p = params[i];
    OF_CHECK(p->is_contiguous() && m[i]->is_contiguous() && v[i]->is_contiguous(), RuntimeError,
             c.name(), ": parameters and state must be contiguous");
    DeviceGuard guard(p->device().index);
    const TensorImplPtr g = Contiguous(grads[i]);
    LaunchAdam(p->data(), g->data(), m[i]->data(), v[i]->data(),
               amsgrad ? vmax[i]->data() : nullptr, p->dtype(), p->numel(), c.get(a::lr),
               c.get(a::beta1), c.get(a::beta2), c.get(a::weight_decay), c.get(a::eps), amsgrad,
               c.get(a::maximize), decoupled, StepOf(steps[i]));
    p->BumpVersion();
    m[i]->BumpVersion();
    v[i]->BumpVersion();
  }
}

// ---- registration -------------------------------------------------------------------------

struct Registrations {
  Registrations() {
    Register("sum", kAllDTypes, &SumKernel, false);
    Register("sum.dim", kAllDTypes, &SumDimKernel, false);
    Register("mean", kFloatingDTypes, &MeanKernel, false);
    Register("mean.dim", kFloatingDTypes, &MeanDimKernel, false);
    Register("amax", kNumericDTypes, &AmaxKernel, false);
    Register("amin", kNumericDTypes, &AmaxKernel, false);
    Register("max", kNumericDTypes, &MaxAllKernel, false);
    Register("min", kNumericDTypes, &MaxAllKernel, false);
    Register("norm", kFloatingDTypes, &NormKernel, false);
    for (const char* op : {"any", "any.dim", "any.dims", "all", "all.dim", "all.dims"}) {
      Register(op, kAllDTypes, &AnyAllKernel, false);
    }
    const DTypeSet gemm = kFloatingDTypes;
    Register("mm", gemm, &MmKernel, false);
    Register("bmm", gemm, &BmmKernel, false);
    Register("matmul", gemm, &MatmulKernel, false);
    Register("addmm", gemm, &AddmmKernel, true);
    Register("softmax", kFloatingDTypes, &SoftmaxKernel, false);
    Register("log_softmax", kFloatingDTypes, &SoftmaxKernel, false);
    Register("_softmax_backward", kFloatingDTypes, &SoftmaxBackwardKernel, false);
    Register("_log_softmax_backward", kFloatingDTypes, &SoftmaxBackwardKernel, false);
    Register("native_layer_norm", kFloatingDTypes, &LayerNormKernel, false);
    Register("native_layer_norm_backward", kFloatingDTypes, &LayerNormBackwardKernel, false);
    Register("embedding", kAllDTypes, &EmbeddingKernel, false);
    Register("embedding_backward", kFloatingDTypes, &EmbeddingBackwardKernel, false);
    Register("_softmax_cross_entropy", kFloatingDTypes, &CrossEntropyKernel, false);
    Register("_softmax_cross_entropy_backward", kFloatingDTypes, &CrossEntropyBackwardKernel,
             false);
    Register("_cat", kAllDTypes, &CatKernel, false);
    Register("uniform_", kFloatingDTypes, &RandomFillKernel, false);
    Register("normal_", kFloatingDTypes, &RandomFillKernel, false);
    for (const char* op : {"random_", "random_.to", "random_.from"}) {
      Register(op, kAllDTypes, &RandomOnHostKernel, false);
    }
    Register("native_dropout", kFloatingDTypes, &DropoutKernel, false);
    Register("native_dropout_backward", kFloatingDTypes, &DropoutBackwardKernel, false);
    Register("_fused_adam_", kFloatingDTypes, &FusedAdamKernel, false);
    Register("_fused_adamw_", kFloatingDTypes, &FusedAdamKernel, false);
  }
};
const Registrations registrations;

}  // namespace
}  // namespace cuda
}  // namespace oneflow
