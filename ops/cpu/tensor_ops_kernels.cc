// CPU kernels of the ops declared in ops/defs/tensor_ops.cc that are not
// composites: the diagonal and as_strided views and their gradients, the
// index updates (index_add/copy/fill), masked_scatter and nan_to_num. Index
// arithmetic is in element offsets over the operands' strides; elements move
// as bytes and are added in their own type.

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "core/runtime/view_ops.h"
#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

std::string BaseName(const OpCall& c) {
  std::string n = c.name();
  if (!n.empty() && n.back() == '_') n.pop_back();
  return n;
}

// A scalar seen as a 1-element 1-D tensor (index ops treat scalars so).
TensorImplPtr AtLeast1d(const TensorImplPtr& t) {
  return t->ndim() == 0 ? t->AsStrided({1}, {1}, t->storage_offset()) : t;
}

// A copy of `src` when it shares memory with the output being written.
TensorImplPtr Unaliased(const TensorImplPtr& src, const TensorImplPtr& out) {
  return src->storage() == out->storage() ? Clone(src) : src;
}

template <typename T>
inline void AddElem(char* dst, const char* src) {
  if constexpr (std::is_same_v<T, bool>) {
    Store<T>(dst, Load<T>(dst) || Load<T>(src));
  } else {
    Store<T>(dst, Load<T>(dst) + Load<T>(src));
  }
}

// ---- diagonal ------------------------------------------------------------------

TensorImplPtr DiagonalView(const TensorImplPtr& t, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = t->ndim();
  const int64_t d1 = WrapDim(dim1, nd), d2 = WrapDim(dim2, nd);
  OF_CHECK(d1 != d2, RuntimeError, "diagonal(): diagonal dimensions cannot be identical ", dim1,
           ", ", dim2, " (shape ", ShapeToString(t->shape()), ")");
  const int64_t s1 = t->shape()[d1], s2 = t->shape()[d2];
  int64_t len, start = t->storage_offset();
  if (offset >= 0) {
    len = std::max<int64_t>(0, std::min(s1, s2 - offset));
    start += offset * t->stride()[d2];
  } else {
    len = std::max<int64_t>(0, std::min(s1 + offset, s2));
    start -= offset * t->stride()[d1];
  }
  if (len == 0) start = t->storage_offset();
  DimVector shape, stride;
  for (int64_t d = 0; d < nd; ++d) {
    if (d == d1 || d == d2) continue;
    shape.push_back(t->shape()[d]);
    stride.push_back(t->stride()[d]);
  }
  shape.push_back(len);
  stride.push_back(t->stride()[d1] + t->stride()[d2]);
  return t->AsStrided(shape, stride, start);
}

void DiagonalKernel(OpCall& c) {
  namespace P = arg::diagonal;
  c.outputs = {DiagonalView(c.tensor(P::self), c.get(P::offset), c.get(P::dim1), c.get(P::dim2))};
}
OF_KERNEL("diagonal", kCPU, kAllDTypes, &DiagonalKernel);

void DiagonalBackwardKernel(OpCall& c) {
  namespace P = arg::diagonal_backward;
  const TensorImplPtr& out = c.outputs[0];
  const TensorImplPtr& grad = c.tensor(P::grad_output);
  Fill(out, Scalar::Int(0));
  TensorImplPtr diag = DiagonalView(out, c.get(P::offset), c.get(P::dim1), c.get(P::dim2));
  OF_CHECK(diag->shape() == grad->shape(), RuntimeError, "diagonal_backward(): grad of shape ",
           ShapeToString(grad->shape()), " does not fit the diagonal of shape ",
           ShapeToString(diag->shape()));
  CopyInto(grad, diag);
}
OF_KERNEL("diagonal_backward", kCPU, kAllDTypes, &DiagonalBackwardKernel);

// ---- as_strided ---------------------------------------------------------------------

// The highest element offset the geometry touches past `offset` (-1 when it
// touches nothing).
int64_t Span(const DimVector& size, const DimVector& stride) {
  int64_t span = 0;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == 0) return -1;
    span += (size[i] - 1) * stride[i];
  }
  return span;
}

void AsStridedKernel(OpCall& c) {
  namespace P = arg::as_strided;
  const TensorImplPtr& t = c.tensor(P::self);
  const DimVector size = c.get(P::size), stride = c.get(P::stride);
  const int64_t offset = c.get(P::storage_offset).value_or(t->storage_offset());
  OF_CHECK(size.size() == stride.size(), RuntimeError,
           "as_strided(): mismatch in length of strides and shape (size ", ShapeToString(size),
           ", stride ", ShapeToString(stride), ")");
  for (int64_t s : stride) {
    OF_CHECK(s >= 0, RuntimeError,
             "as_strided(): Negative strides are not supported at the moment, got strides: ",
             ShapeToString(stride));
  }
  for (int64_t s : size) {
    OF_CHECK(s >= 0, RuntimeError, "as_strided(): negative size in ", ShapeToString(size));
  }
  OF_CHECK(offset >= 0, RuntimeError, "as_strided(): invalid storage offset ", offset);
  const int64_t span = Span(size, stride);
  const int64_t capacity = static_cast<int64_t>(t->storage()->nbytes()) / t->itemsize();
  const int64_t need = span < 0 ? 0 : offset + span + 1;
  OF_CHECK(need <= capacity, RuntimeError, "as_strided(): setStorage: sizes ", ShapeToString(size),
           ", strides ", ShapeToString(stride), ", storage offset ", offset, ", and itemsize ",
           t->itemsize(), " requiring a storage size of ", need * t->itemsize(),
           " are out of bounds for storage of size ", capacity * t->itemsize(), " (input shape ",
           ShapeToString(t->shape()), ")");
  c.outputs = {t->AsStrided(size, stride, offset)};
}
OF_KERNEL("as_strided", kCPU, kAllDTypes, &AsStridedKernel);

// The gradient of as_strided: the output's gradient summed into a buffer over
// the storage range both geometries touch (overlapping output elements add
// up), read back with the input's geometry.
void AsStridedBackwardKernel(OpCall& c) {
  namespace P = arg::as_strided_backward;
  const TensorImplPtr& g = c.tensor(P::grad);
  const DimVector in_size = c.get(P::input_size), in_stride = c.get(P::input_stride);
  const int64_t in_off = c.get(P::input_offset);
  const DimVector size = c.get(P::size), stride = c.get(P::stride);
  const int64_t off = c.get(P::storage_offset);
  const TensorImplPtr& out = c.outputs[0];
  const int64_t in_span = Span(in_size, in_stride), span = Span(size, stride);
  if (in_span < 0) return;
  const int64_t lo = span < 0 ? in_off : std::min(in_off, off);
  const int64_t hi = std::max(in_off + in_span, span < 0 ? in_off : off + span);
  TensorImplPtr buf = Full({hi - lo + 1}, Scalar::Int(0), g->dtype(), g->device());
  const int64_t is = g->itemsize();
  DispatchFloating(g->dtype(), "as_strided_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    char* b = buf->data() + (off - lo) * is;
    ForEachIndex<2>(size, {g->stride(), stride},
                    [&](const DimVector&, const std::array<int64_t, 2>& o) {
                      AddElem<T>(b + o[1] * is, g->data() + o[0] * is);
                    });
  });
  const char* src = buf->data() + (in_off - lo) * is;
  ForEachIndex<2>(in_size, {out->stride(), in_stride},
                  [&](const DimVector&, const std::array<int64_t, 2>& o) {
                    CopyElem(out->data() + o[0] * is, src + o[1] * is, is);
                  });
}
OF_KERNEL("as_strided_backward", kCPU, kFloatingDTypes, &AsStridedBackwardKernel);

// ---- index_add / index_copy / index_fill ----------------------------------------------------

enum class IndexMode { kAdd, kCopy, kFill };

// The positions of an int32/int64 index vector along a dim of `size`. Negative
// positions count from the end only where `wrap` (index_fill).
DimVector ReadPositions(const TensorImplPtr& index, int64_t size, int64_t dim, IndexMode mode,
                        const std::string& op) {
  TensorImplPtr idx = Contiguous(AtLeast1d(index));
  DimVector pos(idx->numel());
  for (int64_t i = 0; i < idx->numel(); ++i) {
    int64_t v = idx->dtype() == DType::kInt32 ? reinterpret_cast<const int32_t*>(idx->data())[i]
                                              : reinterpret_cast<const int64_t*>(idx->data())[i];
    const bool wrap = mode == IndexMode::kFill;
    if (v >= 0 && v < size) {
      pos[i] = v;
    } else if (wrap && v < 0 && v >= -size) {
      pos[i] = v + size;
    } else if (mode == IndexMode::kAdd) {
      OF_THROW(RuntimeError, op, "(): index ", v, " is out of bounds for dimension ", dim,
               " with size ", size);
    } else {
      OF_THROW(IndexError, op, "(): index ", v, " is out of bounds for dimension ", dim,
               " with size ", size);
    }
  }
  return pos;
}

// index_add, index_copy and index_fill (both overloads) and their in-place
// twins: self, dim, index and source (or value) are arguments 0-3 of each.
template <IndexMode kMode>
void IndexUpdateKernel(OpCall& c) {
  namespace P = arg::index_add;
  const std::string op = BaseName(c) + "_";
  const TensorImplPtr& self = c.tensor(P::self);
  if (c.outputs[0] != self) CopyInto(self, c.outputs[0]);
  TensorImplPtr out = AtLeast1d(c.outputs[0]);
  const int64_t dim = WrapDim(c.get(P::dim), out->ndim());
  const DimVector pos = ReadPositions(c.tensor(P::index), out->shape()[dim], dim, kMode, op);
  DimVector out_stride = out->stride();
  const int64_t dim_stride = out_stride[dim];
  out_stride[dim] = 0;
  const int64_t is = out->itemsize();
  if constexpr (kMode == IndexMode::kFill) {
    // A tensor (index_fill.int_Tensor) or a Scalar (index_fill.int_Scalar).
    TensorImplPtr value =
        c.args[arg::index_fill_int_Tensor::value].is_tensor()
            ? Contiguous(ToDType(c.tensor(arg::index_fill_int_Tensor::value), out->dtype(), false))
            : Full({}, c.get(arg::index_fill_int_Scalar::value), out->dtype(), out->device());
    DimVector shape = out->shape();
    shape[dim] = static_cast<int64_t>(pos.size());
    const char* v = value->data();
    ForEachIndex<1>(shape, {out_stride}, [&](const DimVector& i, const std::array<int64_t, 1>& o) {
      CopyElem(out->data() + (o[0] + pos[i[dim]] * dim_stride) * is, v, is);
    });
  } else {
    TensorImplPtr src = AtLeast1d(Unaliased(c.tensor(P::source), out));
    if (out->is_contiguous()) {
      // Rows of `inner` contiguous elements: out as (outer, size, inner),
      // src as (outer, count, inner).
      src = Contiguous(src);
      int64_t outer = 1, inner = 1;
      for (int64_t d = 0; d < dim; ++d) outer *= out->shape()[d];
      for (int64_t d = dim + 1; d < out->ndim(); ++d) inner *= out->shape()[d];
      const int64_t size = out->shape()[dim], count = static_cast<int64_t>(pos.size());
      DispatchAll(out->dtype(), op.c_str(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* o = reinterpret_cast<T*>(out->data());
        const T* s = reinterpret_cast<const T*>(src->data());
        const Scalar alpha = kMode == IndexMode::kAdd ? c.get(P::alpha) : Scalar::Int(1);
        const T a = alpha.To<T>();
        const bool scaled = alpha.d != 1.0;
        // Outer slices are independent; within one, repeated positions add up in order.
        ParallelFor(outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(count * inner, 1)),
                    [&](int64_t b, int64_t e) {
                      for (int64_t r = b; r < e; ++r) {
                        for (int64_t i = 0; i < count; ++i) {
                          T* dst = o + (r * size + pos[i]) * inner;
                          const T* from = s + (r * count + i) * inner;
                          for (int64_t j = 0; j < inner; ++j) {
                            if constexpr (kMode == IndexMode::kCopy) {
                              dst[j] = from[j];
                            } else if constexpr (std::is_same_v<T, bool>) {
                              dst[j] = dst[j] || (from[j] && a);
                            } else if (scaled) {
                              dst[j] = static_cast<T>(static_cast<AccT<T>>(dst[j]) +
                                                      static_cast<AccT<T>>(from[j]) *
                                                          static_cast<AccT<T>>(a));
                            } else {
                              dst[j] = static_cast<T>(static_cast<AccT<T>>(dst[j]) +
                                                      static_cast<AccT<T>>(from[j]));
                            }
                          }
                        }
                      }
                    });
      });
      return;
    }
    if constexpr (kMode == IndexMode::kAdd) {
      DispatchAll(out->dtype(), op.c_str(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        const Scalar alpha = c.get(P::alpha);
        const bool scaled = alpha.d != 1.0;
        T a = alpha.To<T>();
        ForEachIndex<2>(src->shape(), {src->stride(), out_stride},
                        [&](const DimVector& i, const std::array<int64_t, 2>& o) {
                          char* dst = out->data() + (o[1] + pos[i[dim]] * dim_stride) * is;
                          const char* s = src->data() + o[0] * is;
                          if (!scaled) {
                            AddElem<T>(dst, s);
                          } else if constexpr (std::is_same_v<T, bool>) {
                            Store<T>(dst, Load<T>(dst) || (Load<T>(s) && a));
                          } else {
                            Store<T>(dst, Load<T>(dst) + Load<T>(s) * static_cast<AccT<T>>(a));
                          }
                        });
      });
    } else {
      ForEachIndex<2>(src->shape(), {src->stride(), out_stride},
                      [&](const DimVector& i, const std::array<int64_t, 2>& o) {
                        CopyElem(out->data() + (o[1] + pos[i[dim]] * dim_stride) * is,
                                 src->data() + o[0] * is, is);
                      });
    }
  }
}
OF_KERNEL_WITH_INPLACE("index_add", kCPU, kAllDTypes, &IndexUpdateKernel<IndexMode::kAdd>);
OF_KERNEL_WITH_INPLACE("index_copy", kCPU, kAllDTypes, &IndexUpdateKernel<IndexMode::kCopy>);
OF_KERNEL("index_fill.int_Tensor", kCPU, kAllDTypes, &IndexUpdateKernel<IndexMode::kFill>);
OF_KERNEL("index_fill_.int_Tensor", kCPU, kAllDTypes, &IndexUpdateKernel<IndexMode::kFill>);
OF_KERNEL("index_fill.int_Scalar", kCPU, kAllDTypes, &IndexUpdateKernel<IndexMode::kFill>);
OF_KERNEL("index_fill_.int_Scalar", kCPU, kAllDTypes, &IndexUpdateKernel<IndexMode::kFill>);

// ---- masked_scatter ------------------------------------------------------------------------

void MaskedScatterKernel(OpCall& c) {
  namespace P = arg::masked_scatter;  // also masked_scatter_
  const TensorImplPtr& out = c.outputs[0];
  const TensorImplPtr& self = c.tensor(P::self);
  TensorImplPtr src = Contiguous(Unaliased(c.tensor(P::source), out));
  TensorImplPtr mask = Unaliased(c.tensor(P::mask), out);
  if (out != self) CopyInto(Expand(self, out->shape()), out);
  const int64_t is = out->itemsize();
  const int64_t n = src->numel();
  int64_t taken = 0;
  ForEachIndex<2>(out->shape(), {out->stride(), BroadcastStrides(*mask, out->shape())},
                  [&](const DimVector&, const std::array<int64_t, 2>& o) {
                    if (!*reinterpret_cast<const bool*>(mask->data() + o[1])) return;
                    OF_CHECK(taken < n, RuntimeError, BaseName(c),
                             "(): Number of elements of source < number of ones in mask (source "
                             "has ",
                             n, " elements, mask shape ", ShapeToString(c.tensor(P::mask)->shape()),
                             ")");
                    CopyElem(out->data() + o[0] * is, src->data() + taken * is, is);
                    ++taken;
                  });
}
OF_KERNEL_WITH_INPLACE("masked_scatter", kCPU, kAllDTypes, &MaskedScatterKernel);

// ---- nan_to_num --------------------------------------------------------------------------

template <typename T>
double MaxFinite() {
  if constexpr (std::is_same_v<T, Half>) {
    return 65504.0;
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return 3.3895313892515355e38;
  } else {
    return static_cast<double>(std::numeric_limits<T>::max());
  }
}

void NanToNumKernel(OpCall& c) {
  namespace P = arg::nan_to_num;  // also nan_to_num_
  const TensorImplPtr& x = c.tensor(P::self);
  const std::optional<double> nan_arg = c.get(P::nan), posinf_arg = c.get(P::posinf),
                              neginf_arg = c.get(P::neginf);
  const TensorImplPtr& out = c.outputs[0];
  if (!IsFloatingPoint(x->dtype())) {
    if (out != x) CopyInto(x, out);
    return;
  }
  DispatchFloating(x->dtype(), "nan_to_num", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const A nan = nan_arg ? static_cast<A>(*nan_arg) : A(0);
    const A posinf = static_cast<A>(posinf_arg ? *posinf_arg : MaxFinite<T>());
    const A neginf = static_cast<A>(neginf_arg ? *neginf_arg : -MaxFinite<T>());
    UnaryLoop<T, T>(*x, *out, [=](A v) {
      if (std::isnan(v)) return nan;
      if (std::isinf(v)) return v > 0 ? posinf : neginf;
      return v;
    });
  });
}
OF_KERNEL_WITH_INPLACE("nan_to_num", kCPU, kAllDTypes, &NanToNumKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
