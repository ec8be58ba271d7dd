// CPU kernels of the indexing ops declared in ops/defs/index.cc. Index
// arithmetic is done in element offsets over the operands' strides; elements
// are moved as bytes (dtype independent) and added in their own type where an
// op accumulates.

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/runtime/view_ops.h"
#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// dst += src for one element of type T.
template <typename T>
inline void AddElem(char* dst, const char* src) {
  if constexpr (std::is_same_v<T, bool>) {
    Store<T>(dst, Load<T>(dst) || Load<T>(src));
  } else {
    Store<T>(dst, Load<T>(dst) + Load<T>(src));
  }
}

// A scalar seen as a 1-element 1-D tensor (gather/scatter/index_select treat
// scalars so).
TensorImplPtr AtLeast1d(const TensorImplPtr& t) {
  return t->ndim() == 0 ? t->AsStrided({1}, {1}, t->storage_offset()) : t;
}

// The value of an int32/int64 index element at `offset` (elements).
inline int64_t IndexAt(const TensorImpl& t, int64_t offset) {
  const char* p = t.data() + offset * t.itemsize();
  if (t.dtype() == DType::kInt32) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  int64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// The op's name without an in-place '_'.
std::string BaseName(const OpCall& c) {
  std::string n = c.name();
  if (!n.empty() && n.back() == '_') n.pop_back();
  return n;
}

// A copy of `src` when it shares memory with the output being written.
TensorImplPtr Unaliased(const TensorImplPtr& src, const TensorImplPtr& out) {
  return src->storage() == out->storage() ? Clone(src) : src;
}

// ---- gather / scatter ------------------------------------------------------

void GatherKernel(OpCall& c) {
  TensorImplPtr self = AtLeast1d(c.tensor(arg::gather::self));
  TensorImplPtr index = AtLeast1d(c.tensor(arg::gather::index));
  TensorImplPtr out = AtLeast1d(c.outputs[0]);
  const int64_t dim = WrapDim(c.get(arg::gather::dim), self->ndim());
  DimVector self_stride = self->stride();
  const int64_t dim_stride = self_stride[dim];
  const int64_t size = self->shape()[dim];
  self_stride[dim] = 0;
  const int64_t is = self->itemsize();
  ForEachIndex<3>(index->shape(), {out->stride(), index->stride(), self_stride},
                  [&](const DimVector&, const std::array<int64_t, 3>& off) {
                    const int64_t v = IndexAt(*index, off[1]);
                    OF_CHECK(v >= 0 && v < size, RuntimeError, "gather(): index ", v,
                             " is out of bounds for dimension ", dim, " with size ", size);
                    CopyElem(out->data() + off[0] * is,
                             self->data() + (off[2] + v * dim_stride) * is, is);
                  });
}
OF_KERNEL("gather", kCPU, kAllDTypes, &GatherKernel);

// A scatter whose index repeats one value along every dim after `dim` (stride 0 there: an
// expanded column, as in a graph network's aggregation), with out and src dense over those dims
// and of the index's sizes there, moves whole rows of `inner` elements: row(offset, dst, src_row,
// inner) for each index element of the leading dims and `dim`, in order. A null `src` (a scalar
// value) passes a null src_row. False when it does not fit.
template <typename Row>
bool ForEachScatterRow(const TensorImpl& out, const TensorImpl& index, const TensorImpl* src,
                       int64_t dim, const char* name, Row&& row) {
  const int64_t nd = out.ndim();
  if (index.ndim() != nd || (src && src->ndim() != nd) || dim == nd - 1) return false;
  int64_t inner = 1;
  for (int64_t k = nd - 1; k > dim; --k) {
    const int64_t n = index.shape()[k];
    if (n != 1 && index.stride()[k] != 0) return false;
    if (out.shape()[k] != n || (src && src->shape()[k] != n)) return false;
    if (n != 1 && (out.stride()[k] != inner || (src && src->stride()[k] != inner))) return false;
    inner *= n;
  }
  const DimVector lead(index.shape().begin(), index.shape().begin() + dim + 1);
  DimVector out_stride(out.stride().begin(), out.stride().begin() + dim + 1);
  const int64_t dim_stride = out_stride[dim];
  out_stride[dim] = 0;
  const DimVector index_stride(index.stride().begin(), index.stride().begin() + dim + 1);
  const DimVector src_stride =
      src ? DimVector(src->stride().begin(), src->stride().begin() + dim + 1)
          : DimVector(dim + 1, 0);
  const int64_t size = out.shape()[dim];
  const int64_t is = out.itemsize();
  ForEachIndex<3>(lead, {out_stride, index_stride, src_stride},
                  [&](const DimVector&, const std::array<int64_t, 3>& off) {
                    const int64_t v = IndexAt(index, off[1]);
                    OF_CHECK(v >= 0 && v < size, RuntimeError, name, "(): index ", v,
                             " is out of bounds for dimension ", dim, " with size ", size);
                    const int64_t o = off[0] + v * dim_stride;
                    row(o, out.data() + o * is, src ? src->data() + off[2] * is : nullptr, inner);
                  });
  return true;
}

// out = self, then out[index[i]][j] along dim = src[i][j] (or += for scatter_add).
// scatter.src, scatter.value, scatter_add and their in-place twins have their
// arguments at the same places: scatter.src's names (value is src).
template <bool kAdd>
void ScatterKernel(OpCall& c) {
  const std::string name = BaseName(c);
  const TensorImplPtr& self = c.tensor(arg::scatter_src::self);
  if (c.outputs[0] != self) CopyInto(self, c.outputs[0]);
  TensorImplPtr out = AtLeast1d(c.outputs[0]);
  TensorImplPtr index = AtLeast1d(c.tensor(arg::scatter_src::index));
  // src: a tensor, or a value read at offset 0 for every element.
  TensorImplPtr src;
  DimVector src_stride(index->ndim(), 0);
  const Value& src_arg = c.args[arg::scatter_src::src];
  if (src_arg.is_tensor()) {
    src = Unaliased(AtLeast1d(src_arg.tensor()), out);
    if (!src_arg.is_wrapped_number()) src_stride = src->stride();
  } else {
    src = Full({}, src_arg.scalar(), out->dtype(), out->device());
  }
  const int64_t dim = WrapDim(c.get(arg::scatter_src::dim), out->ndim());
  DimVector out_stride = out->stride();
  const int64_t dim_stride = out_stride[dim];
  const int64_t size = out->shape()[dim];
  out_stride[dim] = 0;
  const int64_t is = out->itemsize();
  DispatchAll(out->dtype(), name.c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const bool scalar = !src_arg.is_tensor() || src_arg.is_wrapped_number();
    if (ForEachScatterRow(*out, *index, scalar ? nullptr : src.get(), dim, name.c_str(),
                          [&](int64_t, char* dst, const char* s, int64_t n) {
                            if (!s) {  // the one value (read at src's offset 0)
                              for (int64_t k = 0; k < n; ++k) {
                                if constexpr (kAdd) {
                                  AddElem<T>(dst + k * is, src->data());
                                } else {
                                  CopyElem(dst + k * is, src->data(), is);
                                }
                              }
                            } else if constexpr (kAdd) {
                              for (int64_t k = 0; k < n; ++k) AddElem<T>(dst + k * is, s + k * is);
                            } else {
                              std::memcpy(dst, s, n * is);
                            }
                          })) {
      return;
    }
    ForEachIndex<3>(index->shape(), {out_stride, index->stride(), src_stride},
                    [&](const DimVector&, const std::array<int64_t, 3>& off) {
                      const int64_t v = IndexAt(*index, off[1]);
                      OF_CHECK(v >= 0 && v < size, RuntimeError, name, "(): index ", v,
                               " is out of bounds for dimension ", dim, " with size ", size);
                      char* dst = out->data() + (off[0] + v * dim_stride) * is;
                      const char* s = src->data() + off[2] * is;
                      if constexpr (kAdd) {
                        AddElem<T>(dst, s);
                      } else {
                        CopyElem(dst, s, is);
                      }
                    });
  });
}
OF_KERNEL("scatter.src", kCPU, kAllDTypes, &ScatterKernel<false>);
OF_KERNEL("scatter_.src", kCPU, kAllDTypes, &ScatterKernel<false>);
OF_KERNEL("scatter.value", kCPU, kAllDTypes, &ScatterKernel<false>);
OF_KERNEL("scatter_.value", kCPU, kAllDTypes, &ScatterKernel<false>);
OF_KERNEL_WITH_INPLACE("scatter_add", kCPU, kAllDTypes, &ScatterKernel<true>);

// _scatter_reduce: out = self, then out[index][j] along dim combined with src[i][j] by max, min
// or product (a NaN wins max and min, as in PyTorch). Without include_self the first element
// sent to a place replaces what self held there.
void ScatterReduceKernel(OpCall& c) {
  namespace A = arg::_scatter_reduce;
  CopyInto(c.tensor(A::self), c.outputs[0]);
  TensorImplPtr out = AtLeast1d(c.outputs[0]);
  TensorImplPtr index = AtLeast1d(c.tensor(A::index));
  TensorImplPtr src = Unaliased(AtLeast1d(c.tensor(A::src)), out);
  const std::string& reduce = c.args[A::reduce].str();
  const int mode = reduce == "amax" ? 0 : (reduce == "amin" ? 1 : 2);
  const bool include_self = c.get(A::include_self);
  const int64_t dim = WrapDim(c.get(A::dim), out->ndim());
  DimVector out_stride = out->stride();
  const int64_t dim_stride = out_stride[dim];
  const int64_t size = out->shape()[dim];
  out_stride[dim] = 0;
  // Which places something was sent to (by element offset), when self takes no part.
  int64_t extent = 1;
  for (int64_t d = 0; d < out->ndim(); ++d) extent += (out->shape()[d] - 1) * out->stride()[d];
  std::vector<bool> seen(include_self ? 0 : extent, false);
  const int64_t is = out->itemsize();
  DispatchAll(out->dtype(), "scatter_reduce", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = AccT<T>;
    auto combine = [&](char* dst, const char* src_elem) {
      const C s = static_cast<C>(Load<T>(src_elem));
      const C d = static_cast<C>(Load<T>(dst));
      C r;
      if (mode == 2) {
        r = static_cast<C>(d * s);
      } else if (s != s || d != d) {  // NaN (floating types only)
        r = d != d ? d : s;
      } else {
        r = (mode == 0 ? s > d : s < d) ? s : d;
      }
      Store<T>(dst, static_cast<T>(r));
    };
    // A place's first element replaces it when self takes no part (keyed by element offset; in
    // the row path by the row's first element, rows being never split).
    auto first_visit = [&](int64_t o) {
      if (include_self || seen[o]) return false;
      seen[o] = true;
      return true;
    };
    const bool rows = ForEachScatterRow(*out, *index, src.get(), dim, "scatter_reduce",
                                        [&](int64_t o, char* dst, const char* s, int64_t n) {
                                          if (first_visit(o)) {
                                            std::memcpy(dst, s, n * is);
                                            return;
                                          }
                                          for (int64_t k = 0; k < n; ++k) {
                                            combine(dst + k * is, s + k * is);
                                          }
                                        });
    if (rows) return;
    ForEachIndex<3>(index->shape(), {out_stride, index->stride(), src->stride()},
                    [&](const DimVector&, const std::array<int64_t, 3>& off) {
                      const int64_t v = IndexAt(*index, off[1]);
                      OF_CHECK(v >= 0 && v < size, RuntimeError, "scatter_reduce", "(): index ", v,
                               " is out of bounds for dimension ", dim, " with size ", size);
                      const int64_t o = off[0] + v * dim_stride;
                      const char* s = src->data() + off[2] * is;
                      if (first_visit(o)) {
                        CopyElem(out->data() + o * is, s, is);
                        return;
                      }
                      combine(out->data() + o * is, s);
                    });
  });
}
OF_KERNEL("_scatter_reduce", kCPU, kAllDTypes, &ScatterReduceKernel);

// ---- index_select ------------------------------------------------------------

// The selected positions, checked against `size`. Like PyTorch's CPU kernels,
// an index out of range raises IndexError, except along dim 1 of a tensor with
// two or more dims (RuntimeError).
DimVector ReadSelectIndex(const TensorImplPtr& index, int64_t size, int64_t dim, int64_t ndim,
                          const char* op) {
  TensorImplPtr idx = AtLeast1d(index);
  DimVector out(idx->numel());
  for (int64_t i = 0; i < idx->numel(); ++i) {
    out[i] = IndexAt(*idx, i * idx->stride()[0]);
    if (out[i] >= 0 && out[i] < size) continue;
    if (dim == 1 && ndim >= 2) {
      OF_THROW(RuntimeError, op, "(): INDICES element is out of DATA bounds, id=", out[i],
               " axis_dim=", size);
    }
    OF_THROW(IndexError, op, "(): index out of range in self (index ", out[i], " for dimension ",
             dim, " with size ", size, ")");
  }
  return out;
}

// index_select over contiguous tensors as rows: row r of the selected tensor (outer block
// r / n, selected position r % n) is row Source(r, pos) of the source, `bytes` long.
struct SliceRows {
  int64_t outer = 1, inner = 1, n, size, bytes, count, grain;
  SliceRows(const DimVector& shape, int64_t dim, int64_t n_selected, int64_t itemsize)
      : n(n_selected), size(shape[dim]) {
    for (int64_t d = 0; d < dim; ++d) outer *= shape[d];
    for (int64_t d = dim + 1; d < static_cast<int64_t>(shape.size()); ++d) inner *= shape[d];
    bytes = inner * itemsize;
    count = outer * n;
    grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(inner, 1));
  }
  int64_t Source(int64_t r, const DimVector& pos) const { return (r / n) * size + pos[r % n]; }
};

void IndexSelectKernel(OpCall& c) {
  TensorImplPtr self = AtLeast1d(c.tensor(arg::_index_select::self));
  TensorImplPtr out = AtLeast1d(c.outputs[0]);
  const int64_t dim = WrapDim(c.get(arg::_index_select::dim), self->ndim());
  const DimVector pos =
      ReadSelectIndex(c.tensor(arg::_index_select::index), self->shape()[dim], dim,
                      c.tensor(arg::_index_select::self)->ndim(), "index_select");
  const int64_t is = self->itemsize();
  if (self->is_contiguous() && out->is_contiguous()) {
    // Whole slices at a time: a selected slice is `inner` consecutive elements.
    const SliceRows rows(self->shape(), dim, static_cast<int64_t>(pos.size()), is);
    ParallelFor(rows.count, rows.grain, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        std::memcpy(out->data() + r * rows.bytes, self->data() + rows.Source(r, pos) * rows.bytes,
                    rows.bytes);
      }
    });
    return;
  }
  DimVector self_stride = self->stride();
  const int64_t dim_stride = self_stride[dim];
  self_stride[dim] = 0;
  ForEachIndex<2>(out->shape(), {out->stride(), self_stride},
                  [&](const DimVector& i, const std::array<int64_t, 2>& off) {
                    CopyElem(out->data() + off[0] * is,
                             self->data() + (off[1] + pos[i[dim]] * dim_stride) * is, is);
                  });
}
OF_KERNEL("_index_select", kCPU, kAllDTypes, &IndexSelectKernel);

void IndexSelectBackwardKernel(OpCall& c) {
  TensorImplPtr g = AtLeast1d(c.tensor(arg::index_select_backward::grad));
  TensorImplPtr out = AtLeast1d(c.outputs[0]);
  Fill(out, Scalar::Int(0));
  const int64_t dim = WrapDim(c.get(arg::index_select_backward::dim), out->ndim());
  const DimVector pos =
      ReadSelectIndex(c.tensor(arg::index_select_backward::index), out->shape()[dim], dim,
                      out->ndim(), "index_select_backward");
  DimVector out_stride = out->stride();
  const int64_t dim_stride = out_stride[dim];
  out_stride[dim] = 0;
  const int64_t is = out->itemsize();
  DispatchAll(out->dtype(), "index_select_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (g->is_contiguous() && out->is_contiguous()) {
      // Row by row, in order (a position selected twice accumulates twice).
      const SliceRows rows(out->shape(), dim, static_cast<int64_t>(pos.size()), is);
      for (int64_t r = 0; r < rows.count; ++r) {
        char* dst = out->data() + rows.Source(r, pos) * rows.bytes;
        const char* src = g->data() + r * rows.bytes;
        for (int64_t k = 0; k < rows.inner; ++k) AddElem<T>(dst + k * is, src + k * is);
      }
      return;
    }
    ForEachIndex<2>(g->shape(), {g->stride(), out_stride},
                    [&](const DimVector& i, const std::array<int64_t, 2>& off) {
                      AddElem<T>(out->data() + (off[1] + pos[i[dim]] * dim_stride) * is,
                                 g->data() + off[0] * is);
                    });
  });
}
OF_KERNEL("index_select_backward", kCPU, kAllDTypes, &IndexSelectBackwardKernel);

// ---- masked ops --------------------------------------------------------------

// masked_fill.Tensor/.Scalar and their in-place twins (masked_fill.Tensor's
// names: the arguments are at the same places).
void MaskedFillKernel(OpCall& c) {
  const TensorImplPtr& self = c.tensor(arg::masked_fill_Tensor::self);
  const TensorImplPtr& mask = c.tensor(arg::masked_fill_Tensor::mask);
  const TensorImplPtr& out = c.outputs[0];
  if (out != self) CopyInto(Expand(self, out->shape()), out);
  const Value& value_arg = c.args[arg::masked_fill_Tensor::value];
  TensorImplPtr value = value_arg.is_tensor()
                            ? Contiguous(ToDType(value_arg.tensor(), out->dtype(), false))
                            : Full({}, value_arg.scalar(), out->dtype(), out->device());
  const int64_t is = out->itemsize();
  const char* v = value->data();
  ForEachIndex<2>(out->shape(), {out->stride(), BroadcastStrides(*mask, out->shape())},
                  [&](const DimVector&, const std::array<int64_t, 2>& off) {
                    if (*reinterpret_cast<const bool*>(mask->data() + off[1])) {
                      CopyElem(out->data() + off[0] * is, v, is);
                    }
                  });
}
OF_KERNEL("masked_fill.Tensor", kCPU, kAllDTypes, &MaskedFillKernel);
OF_KERNEL("masked_fill_.Tensor", kCPU, kAllDTypes, &MaskedFillKernel);
OF_KERNEL("masked_fill.Scalar", kCPU, kAllDTypes, &MaskedFillKernel);
OF_KERNEL("masked_fill_.Scalar", kCPU, kAllDTypes, &MaskedFillKernel);

// Elements of self (broadcast with the mask) where the mask is true, in order.
void MaskedSelectKernel(OpCall& c) {
  const TensorImplPtr& self = c.tensor(arg::masked_select::self);
  const TensorImplPtr& mask = c.tensor(arg::masked_select::mask);
  const DimVector shape = BroadcastShapes(self->shape(), mask->shape(), "masked_select");
  const DimVector mask_stride = BroadcastStrides(*mask, shape);
  const DimVector self_stride = BroadcastStrides(*self, shape);
  int64_t count = 0;
  ForEachIndex<1>(shape, {mask_stride}, [&](const DimVector&, const std::array<int64_t, 1>& off) {
    count += *reinterpret_cast<const bool*>(mask->data() + off[0]);
  });
  TensorImplPtr out = TensorImpl::Empty({count}, self->dtype(), c.device);
  const int64_t is = self->itemsize();
  char* dst = out->data();
  ForEachIndex<2>(shape, {mask_stride, self_stride},
                  [&](const DimVector&, const std::array<int64_t, 2>& off) {
                    if (*reinterpret_cast<const bool*>(mask->data() + off[0])) {
                      CopyElem(dst, self->data() + off[1] * is, is);
                      dst += is;
                    }
                  });
  c.outputs = {out};
}
OF_KERNEL("masked_select", kCPU, kAllDTypes, &MaskedSelectKernel);

void MaskedSelectBackwardKernel(OpCall& c) {
  TensorImplPtr g = Contiguous(c.tensor(arg::masked_select_backward::grad));
  const TensorImplPtr& mask = c.tensor(arg::masked_select_backward::mask);
  const TensorImplPtr& out = c.outputs[0];
  Fill(out, Scalar::Int(0));
  const int64_t is = out->itemsize();
  const char* src = g->data();
  int64_t taken = 0;
  ForEachIndex<2>(out->shape(), {out->stride(), BroadcastStrides(*mask, out->shape())},
                  [&](const DimVector&, const std::array<int64_t, 2>& off) {
                    if (*reinterpret_cast<const bool*>(mask->data() + off[1])) {
                      OF_CHECK(taken < g->numel(), RuntimeError,
                               "masked_select_backward(): the gradient has ", g->numel(),
                               " elements but the mask selects more");
                      CopyElem(out->data() + off[0] * is, src + taken * is, is);
                      ++taken;
                    }
                  });
}
OF_KERNEL("masked_select_backward", kCPU, kAllDTypes, &MaskedSelectBackwardKernel);

// ---- nonzero -------------------------------------------------------------------

// (count, ndim) int64 positions of the nonzero elements, in row-major order.
void NonzeroKernel(OpCall& c) {
  const TensorImplPtr& x = c.tensor(arg::nonzero::self);
  const int64_t nd = x->ndim();
  const int64_t is = x->itemsize();
  TensorImplPtr out;
  DispatchAll(x->dtype(), "nonzero", [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto nonzero = [&](int64_t off) { return Load<T>(x->data() + off * is) != AccT<T>(0); };
    int64_t count = 0;
    ForEachIndex<1>(
        x->shape(), {x->stride()},
        [&](const DimVector&, const std::array<int64_t, 1>& off) { count += nonzero(off[0]); });
    out = TensorImpl::Empty({count, nd}, DType::kInt64, c.device);
    int64_t* dst = reinterpret_cast<int64_t*>(out->data());
    ForEachIndex<1>(x->shape(), {x->stride()},
                    [&](const DimVector& index, const std::array<int64_t, 1>& off) {
                      if (!nonzero(off[0])) return;
                      for (int64_t d = 0; d < nd; ++d) *dst++ = index[d];
                    });
  });
  c.outputs = {out};
}
OF_KERNEL("nonzero", kCPU, kAllDTypes, &NonzeroKernel);

// ---- advanced indexing ------------------------------------------------------------

// The geometry of self[indices] for resolved indices (int64 tensors of one
// broadcast shape B, one dim each): the result is outer + B + inner, where outer
// are the dims before the indexed ones when those are adjacent (none
// otherwise) and inner the remaining dims not indexed.
struct IndexGeometry {
  DimVector outer_shape, outer_stride, inner_shape, inner_stride;
  std::vector<int64_t> index_offsets;  // per element of B: sum of index * stride
  std::vector<int64_t> inner_offsets;  // per element of inner
};

IndexGeometry MakeGeometry(const TensorImpl& t, const TensorList& indices, const DimVector& dims) {
  IndexGeometry g;
  const int64_t nd = t.ndim();
  bool adjacent = true;
  for (size_t k = 1; k < dims.size(); ++k) adjacent = adjacent && dims[k] == dims[k - 1] + 1;
  std::vector<bool> indexed(nd, false);
  for (int64_t d : dims) indexed[d] = true;
  for (int64_t d = 0; d < nd; ++d) {
    if (indexed[d]) continue;
    const bool outer = adjacent && d < dims[0];
    (outer ? g.outer_shape : g.inner_shape).push_back(t.shape()[d]);
    (outer ? g.outer_stride : g.inner_stride).push_back(t.stride()[d]);
  }
  const int64_t nb = indices[0]->numel();
  g.index_offsets.assign(nb, 0);
  for (size_t k = 0; k < indices.size(); ++k) {
    const int64_t* p = reinterpret_cast<const int64_t*>(indices[k]->data());
    const int64_t size = t.shape()[dims[k]];
    const int64_t stride = t.stride()[dims[k]];
    for (int64_t b = 0; b < nb; ++b) {
      int64_t v = p[b];
      OF_CHECK(v >= -size && v < size, IndexError, "index ", v, " is out of bounds for dimension ",
               dims[k], " with size ", size);
      if (v < 0) v += size;
      g.index_offsets[b] += v * stride;
    }
  }
  ForEachIndex<1>(g.inner_shape, {g.inner_stride},
                  [&](const DimVector&, const std::array<int64_t, 1>& off) {
                    g.inner_offsets.push_back(off[0]);
                  });
  return g;
}

// Calls f(element offset in t) for every element of t[indices], in row-major order.
template <typename F>
void ForEachIndexed(const IndexGeometry& g, F&& f) {
  ForEachIndex<1>(g.outer_shape, {g.outer_stride},
                  [&](const DimVector&, const std::array<int64_t, 1>& outer) {
                    for (int64_t b : g.index_offsets) {
                      for (int64_t i : g.inner_offsets) f(outer[0] + b + i);
                    }
                  });
}

void IndexKernel(OpCall& c) {
  const TensorImplPtr& self = c.tensor(arg::_index::self);
  const TensorImplPtr& out = c.outputs[0];  // contiguous
  IndexGeometry g = MakeGeometry(*self, c.args[arg::_index::indices].tensors(),
                                 c.args[arg::_index::dims].int_list());
  const int64_t is = self->itemsize();
  const char* src = self->data();
  char* dst = out->data();
  ForEachIndexed(g, [&](int64_t off) {
    CopyElem(dst, src + off * is, is);
    dst += is;
  });
}
OF_KERNEL("_index", kCPU, kAllDTypes, &IndexKernel);

// index_put and index_put_.
void IndexPutKernel(OpCall& c) {
  namespace a = arg::index_put;
  const TensorImplPtr& self = c.tensor(a::self);
  const TensorImplPtr& out = c.outputs[0];
  if (out != self) CopyInto(self, out);
  const TensorList& indices = c.args[a::indices].tensors();
  IndexGeometry g = MakeGeometry(*out, indices, c.args[a::dims].int_list());
  // The values laid out like out[indices].
  DimVector shape = g.outer_shape;
  shape.insert(shape.end(), indices[0]->shape().begin(), indices[0]->shape().end());
  shape.insert(shape.end(), g.inner_shape.begin(), g.inner_shape.end());
  TensorImplPtr values = Contiguous(Expand(Unaliased(c.tensor(a::values), out), shape));
  const int64_t is = out->itemsize();
  const char* src = values->data();
  char* base = out->data();
  if (!c.get(a::accumulate)) {
    ForEachIndexed(g, [&](int64_t off) {
      CopyElem(base + off * is, src, is);
      src += is;
    });
    return;
  }
  DispatchAll(out->dtype(), "index_put", [&](auto tag) {
    using T = typename decltype(tag)::type;
    ForEachIndexed(g, [&](int64_t off) {
      AddElem<T>(base + off * is, src);
      src += is;
    });
  });
}
OF_KERNEL_WITH_INPLACE("index_put", kCPU, kAllDTypes, &IndexPutKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
