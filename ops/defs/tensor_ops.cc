// Tensor ops beyond elementwise math: diagonals (diag, diag_embed, diagonal,
// trace), index updates (index_add/copy/fill, masked_scatter, take,
// take_along_dim), nan_to_num, as_strided, and grids and differences
// (meshgrid, cartesian_prod, diff). Contractions are in contraction.cc.
// Kernels: ops/cpu/tensor_ops_kernels.cc.
//
// Most of them are composites over the view, reduction and matrix-product ops,
// so their gradients follow from those.

#include <algorithm>
#include <limits>

#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// The op's name without an in-place '_' ("index_add_" -> "index_add").
std::string BaseName(const OpCall& call) {
  std::string n = call.name();
  if (!n.empty() && n.back() == '_') n.pop_back();
  return n;
}

bool IsIndexDType(DType d) { return d == DType::kInt64 || d == DType::kInt32; }

TensorImplPtr Reshaped(const TensorImplPtr& t, const DimVector& shape) {
  return t->shape() == shape ? t : ops::reshape(t, shape);
}

// ---- diagonals ------------------------------------------------------------------

// Serves diagonal and as_strided (self is argument 0 of both).
void InferView(OpCall& call) { call.compute_dtype = call.tensor(arg::diagonal::self)->dtype(); }

// The diagonal's view: the two dims removed and one of the diagonal's length
// appended.
OF_OP("diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)")
    .Infer(InferView)
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace A = arg::diagonal;
      return {ops::diagonal_backward(c.grad(), c.get(A::self)->shape(), c.get(A::offset),
                                     c.get(A::dim1), c.get(A::dim2))};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// Zeros of the input's shape with the gradient on the diagonal.
void InferDiagonalBackward(OpCall& call) {
  call.compute_dtype = call.tensor(arg::diagonal_backward::grad_output)->dtype();
  call.out_meta = {{call.get(arg::diagonal_backward::input_sizes), call.compute_dtype}};
}
OF_OP(
    "diagonal_backward(Tensor grad_output, int[] input_sizes, int offset, int dim1, int dim2) -> "
    "Tensor")
    .Infer(InferDiagonalBackward)
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace A = arg::diagonal_backward;
      return {ops::diagonal(c.grad(), c.get(A::offset), c.get(A::dim1), c.get(A::dim2))};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// diag_embed: the last dim of self on the diagonal (offset) of the plane
// (dim1, dim2) of a new tensor: diagonal_backward of self.
void DiagEmbed(OpCall& call) {
  namespace A = arg::diag_embed;
  const TensorImplPtr& x = call.tensor(A::self);
  const int64_t offset = call.get(A::offset);
  const int64_t nd = x->ndim() + 1;
  const int64_t d1 = WrapDim(call.get(A::dim1), nd), d2 = WrapDim(call.get(A::dim2), nd);
  OF_CHECK(d1 != d2, RuntimeError, "diag_embed(): diagonal dimensions cannot be identical ",
           call.get(A::dim1), ", ", call.get(A::dim2));
  OF_CHECK(x->ndim() >= 1, RuntimeError, "diag_embed(): expected a tensor with at least 1 dim");
  const int64_t n = x->shape().back() + std::abs(offset);
  DimVector shape(x->shape().begin(), x->shape().end() - 1);
  const int64_t lo = std::min(d1, d2), hi = std::max(d1, d2);
  shape.insert(shape.begin() + lo, n);
  shape.insert(shape.begin() + hi, n);
  call.outputs = {ops::diagonal_backward(x, shape, offset, d1, d2)};
}
OF_OP("diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor")
    .Composite(DiagEmbed)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// diag: a vector on a matrix's diagonal, or a matrix's diagonal as a new vector.
void Diag(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::diag::self);
  const int64_t k = call.get(arg::diag::diagonal);
  OF_CHECK(x->ndim() == 1 || x->ndim() == 2, RuntimeError,
           "diag(): Supports 1D or 2D tensors. Got ", x->ndim(), "D (shape ",
           ShapeToString(x->shape()), ")");
  if (x->ndim() == 1) {
    call.outputs = {ops::diag_embed(x, k, int64_t{0}, int64_t{1})};
  } else {
    call.outputs = {ops::clone(ops::diagonal(x, k, int64_t{0}, int64_t{1}))};
  }
}
OF_OP("diag(Tensor self, int diagonal=0) -> Tensor")
    .Composite(Diag)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

void Trace(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::trace::self);
  OF_CHECK(x->ndim() == 2, RuntimeError, "trace: expected a matrix, but got tensor with dim ",
           x->ndim(), " (shape ", ShapeToString(x->shape()), ")");
  call.outputs = {ops::sum(ops::diagonal(x, int64_t{0}, int64_t{0}, int64_t{1}))};
}
OF_OP("trace(Tensor self) -> Tensor")
    .Composite(Trace)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32, amp::kNone);

// ---- index_add / index_copy / index_fill -------------------------------------------

// Shared checks of (self, dim, index[, source]): an int vector index and a
// source of self's dtype and shape except along dim, with one slice per index.
// Serves index_add, index_copy and index_fill (and their in-place twins): self,
// dim, index and source (or value) are arguments 0-3 of each.
void CheckIndexUpdate(const OpCall& call, bool has_source) {
  namespace A = arg::index_add;
  const std::string op = BaseName(call) + "_";
  const TensorImplPtr& self = call.tensor(A::self);
  const TensorImplPtr& index = call.tensor(A::index);
  const int64_t dim = WrapDim(call.get(A::dim), self->ndim());
  OF_CHECK(IsIndexDType(index->dtype()), RuntimeError, op,
           "(): Expected dtype int32/int64 for index but got: ", LegacyTypeName(index->dtype()));
  OF_CHECK(index->ndim() <= 1, IndexError, op,
           "(): Index is supposed to be a vector, but got dim: ", index->ndim(),
           " with type: ", LegacyTypeName(index->dtype()),
           " and size: ", ShapeToString(index->shape()));
  if (!has_source) return;
  const TensorImplPtr& src = call.tensor(A::source);
  OF_CHECK(src->dtype() == self->dtype(), RuntimeError, op, "(): self (",
           LegacyTypeName(self->dtype()), ") and source (", LegacyTypeName(src->dtype()),
           ") must have the same scalar type");
  const int64_t src_size = src->ndim() == 0 ? 1 : src->shape()[WrapDim(dim, src->ndim())];
  OF_CHECK(index->numel() == src_size, RuntimeError, op, "(): Number of indices (", index->numel(),
           ") should be equal to source.size(dim): (", src_size, "), for dim: ", dim);
  bool same = self->ndim() == src->ndim();
  for (int64_t d = 0; same && d < self->ndim(); ++d) {
    same = d == dim || self->shape()[d] == src->shape()[d];
  }
  OF_CHECK(same, RuntimeError, op,
           "(): source tensor shape must match self tensor shape, excluding the specified "
           "dimension. Got self.shape = ",
           ShapeToString(self->shape()), " source.shape = ", ShapeToString(src->shape()));
}

void InferIndexUpdate(OpCall& call) {
  const bool has_source = BaseName(call) != "index_fill";
  CheckIndexUpdate(call, has_source);
  const TensorImplPtr& self = call.tensor(arg::index_add::self);
  // index_fill.int_Tensor's value (index_fill.int_Scalar's is a Scalar there).
  constexpr int kValue = arg::index_fill_int_Tensor::value;
  if (!has_source && call.args[kValue].is_tensor()) {
    const TensorImplPtr& v = call.tensor(kValue);
    OF_CHECK(v->ndim() == 0, RuntimeError,
             "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
             v->ndim(), " dimension(s).");
    if (v->dtype() != self->dtype()) {
      call.args[kValue] =
          Value(ToDType(v, self->dtype(), false), call.args[kValue].is_wrapped_number());
    }
  }
  call.compute_dtype = self->dtype();
  call.out_meta = {{self->shape(), self->dtype()}};
}

// The gradient of a source indexed along dim: the output's gradient selected
// at the index, in the source's shape (a scalar source sees a 1-D slice).
// For index_add and index_copy (the same dim, index and source).
TensorImplPtr SourceGrad(const BackwardCtx& c, const TensorImplPtr& g) {
  namespace A = arg::index_add;
  const TensorImplPtr src = c.get(A::source);
  TensorImplPtr r = ops::index_select(g, c.get(A::dim), c.get(A::index));
  return Reshaped(r, src->shape());
}

OF_OP_WITH_INPLACE(
    "index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor")
    .Infer(InferIndexUpdate)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      TensorImplPtr gs;
      if (c.needs_grad[2]) {
        gs = SourceGrad(c, g);
        const Scalar alpha = c.get(arg::index_add::alpha);
        if (alpha.d != 1.0) {
          gs = Mul(gs, alpha.kind == Scalar::Kind::kFloat ? Num(alpha.d) : Int(alpha.i));
        }
      }
      return {c.needs_grad[0] ? g : nullptr, nullptr, gs};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

OF_OP_WITH_INPLACE("index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor")
    .Infer(InferIndexUpdate)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      TensorImplPtr gself;
      if (c.needs_grad[0]) {
        gself = ops::index_fill_int_Scalar(g, c.get(arg::index_copy::dim),
                                           c.get(arg::index_copy::index), Scalar::Int(0));
      }
      return {gself, nullptr, c.needs_grad[2] ? SourceGrad(c, g) : nullptr};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kPromote);

// index_fill's value gradient sums the filled positions once each (an index
// may repeat): g minus g with those positions zeroed. Serves both overloads
// (the same dim and index).
TensorList IndexFillGrad(BackwardCtx& c) {
  namespace A = arg::index_fill_int_Tensor;
  TensorImplPtr g = c.grad();
  TensorImplPtr zeroed =
      ops::index_fill_int_Scalar(g, c.get(A::dim), c.get(A::index), Scalar::Int(0));
  TensorList out = {c.needs_grad[0] ? zeroed : nullptr, nullptr};
  if (c.needs_grad.size() > 2) {
    out.push_back(c.needs_grad[2] ? ops::sum(Sub(g, zeroed)) : nullptr);
  }
  return out;
}
OF_OP_WITH_INPLACE(
    "index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor")
    .Infer(InferIndexUpdate)
    .Backward(IndexFillGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_OP_WITH_INPLACE(
    "index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor")
    .Infer(InferIndexUpdate)
    .Backward(IndexFillGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- masked_scatter ------------------------------------------------------------------

// self (broadcast with the mask) with source's elements, in order, where the
// mask is true. The in-place form does not broadcast self.
void InferMaskedScatter(OpCall& call) {
  namespace A = arg::masked_scatter;  // also masked_scatter_
  const std::string op = BaseName(call);
  const TensorImplPtr &self = call.tensor(A::self), &mask = call.tensor(A::mask),
                      &src = call.tensor(A::source);
  OF_CHECK(mask->dtype() == DType::kBool, RuntimeError,
           "masked_scatter_ only supports boolean masks, but got mask with dtype ",
           LegacyTypeName(mask->dtype()));
  OF_CHECK(src->dtype() == self->dtype(), RuntimeError,
           "masked_scatter: expected self and source to have same dtypes but got ",
           LegacyTypeName(self->dtype()), " and ", LegacyTypeName(src->dtype()));
  DimVector shape = BroadcastShapes(self->shape(), mask->shape(), op.c_str());
  call.compute_dtype = self->dtype();
  call.out_meta = {{shape, self->dtype()}};
}
OF_OP_WITH_INPLACE("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor")
    .Infer(InferMaskedScatter)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      TensorImplPtr mask = c.get(arg::masked_scatter::mask);
      TensorImplPtr gself, gsrc;
      if (c.needs_grad[0]) gself = ops::masked_fill_Scalar(g, mask, Scalar::Int(0));
      if (c.needs_grad[2]) {
        // The selected gradient fills the source's first elements; the rest get zeros.
        const TensorImplPtr src = c.get(arg::masked_scatter::source);
        TensorImplPtr picked = ops::masked_select(g, mask);
        const int64_t n = picked->numel();
        picked = ops::slice_backward(picked, DimVector{src->numel()}, int64_t{0}, int64_t{0}, n,
                                     int64_t{1});
        gsrc = ops::reshape(picked, src->shape());
      }
      return {gself, nullptr, gsrc};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- nan_to_num ----------------------------------------------------------------------------

// nan_to_num and nan_to_num_.
void InferSameAsSelf(OpCall& call) {
  const TensorImplPtr& self = call.tensor(arg::nan_to_num::self);
  call.compute_dtype = self->dtype();
  call.out_meta = {{self->shape(), self->dtype()}};
}
OF_OP_WITH_INPLACE(
    "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor")
    .Infer(InferSameAsSelf)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {Mul(c.grad(), ops::isfinite(c.get(arg::nan_to_num::self)))};
    })
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);

// ---- take / take_along_dim / narrow_copy ------------------------------------------------

// take: self as 1-D, indexed by `index` (negative positions count from the end).
void Take(OpCall& call) {
  const TensorImplPtr &x = call.tensor(arg::take::self), &index = call.tensor(arg::take::index);
  OF_CHECK(index->dtype() == DType::kInt64, RuntimeError,
           "take(): Expected a long tensor for index, but got ", LegacyTypeName(index->dtype()));
  const int64_t n = x->numel();
  TensorImplPtr idx = Contiguous(index);
  const int64_t* p = reinterpret_cast<const int64_t*>(idx->data());
  for (int64_t i = 0; i < idx->numel(); ++i) {
    OF_CHECK(p[i] >= -n && p[i] < n, IndexError, "take(): out of range: tried to access index ",
             p[i], " on a tensor of ", n, " elements.");
  }
  OF_CHECK(n > 0 || idx->numel() == 0, IndexError,
           "take(): cannot take elements from an empty tensor (shape ", ShapeToString(x->shape()),
           ")");
  TensorImplPtr flat = ops::reshape(x, DimVector{n});
  call.outputs = {ops::_index(flat, TensorList{index}, std::nullopt, DimVector{n})};
}
OF_OP("take(Tensor self, Tensor index) -> Tensor")
    .Composite(Take)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// take_along_dim: gather after broadcasting self and indices against each
// other in every dim but `dim` (flattened both when dim is None).
void TakeAlongDim(OpCall& call) {
  namespace A = arg::take_along_dim;
  TensorImplPtr x = call.tensor(A::self), idx = call.tensor(A::indices);
  const std::optional<int64_t> dim_arg = call.get(A::dim);
  OF_CHECK(idx->dtype() == DType::kInt64, RuntimeError,
           "torch.take_along_dim(): dtype of indices should be Long but got ",
           LegacyTypeName(idx->dtype()));
  if (!dim_arg) {
    x = ops::reshape(x, DimVector{x->numel()});
    idx = ops::reshape(idx, DimVector{idx->numel()});
    call.outputs = {ops::gather(x, int64_t{0}, idx)};
    return;
  }
  OF_CHECK(x->ndim() == idx->ndim(), RuntimeError,
           "torch.take_along_dim(): input and indices should have the same number of dimensions, "
           "but got ",
           x->ndim(), " dimensions for input, and ", idx->ndim(), " dimensions for indices");
  const int64_t dim = WrapDim(*dim_arg, x->ndim());
  if (x->ndim() > 0) {
    DimVector xs = x->shape(), is = idx->shape();
    xs[dim] = idx->shape()[dim];
    DimVector ishape = BroadcastShapes(xs, idx->shape(), "take_along_dim");
    is[dim] = x->shape()[dim];
    DimVector xshape = BroadcastShapes(is, x->shape(), "take_along_dim");
    if (idx->shape() != ishape) idx = ops::expand(idx, ishape);
    if (x->shape() != xshape) x = ops::expand(x, xshape);
    // Negative positions count from the end.
    const int64_t size = x->shape()[dim];
    idx = ops::where(ops::lt(idx, Int(0)), Add(idx, Int(size)), idx);
  }
  call.outputs = {ops::gather(x, dim, idx)};
}
OF_OP("take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor")
    .Composite(TakeAlongDim)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

void NarrowCopy(OpCall& call) {
  namespace A = arg::narrow_copy;
  call.outputs = {ops::clone(
      ops::narrow(call.args[A::self], call.get(A::dim), call.get(A::start), call.get(A::length)))};
}
OF_OP("narrow_copy(Tensor self, int dim, int start, int length) -> Tensor")
    .Composite(NarrowCopy)
    .Sbp(sbp::Family("along_dim", "linear=1"))
    .Autocast(amp::kNone);

// ---- as_strided -----------------------------------------------------------------------------

// A view of self's storage with the given geometry (storage_offset defaults to
// self's). The gradient is accumulated into a buffer shaped like the storage
// both geometries touch and read back with self's geometry.
OF_OP("as_strided(Tensor(a) self, int[] size, int[] stride, int? storage_offset=None) -> Tensor(a)")
    .Infer(InferView)
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace A = arg::as_strided;
      const TensorImplPtr x = c.get(A::self);
      const std::optional<int64_t> storage_offset = c.get(A::storage_offset);
      const int64_t offset = storage_offset ? *storage_offset : x->storage_offset();
      return {ops::as_strided_backward(c.grad(), x->shape(), x->stride(), x->storage_offset(),
                                       c.get(A::size), c.get(A::stride), offset)};
    })
    .Sbp(sbp::Unsupported("the result depends on the local memory layout"))
    .Autocast(amp::kNone);
void InferAsStridedBackward(OpCall& call) {
  call.compute_dtype = call.tensor(arg::as_strided_backward::grad)->dtype();
  call.out_meta = {{call.get(arg::as_strided_backward::input_size), call.compute_dtype}};
}
OF_OP(
    "as_strided_backward(Tensor grad, int[] input_size, int[] input_stride, int input_offset, "
    "int[] size, int[] stride, int storage_offset) -> Tensor")
    .Infer(InferAsStridedBackward)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- meshgrid / cartesian_prod / diff -----------------------------------------------------

void Meshgrid(OpCall& call) {
  const TensorList ts = call.get(arg::meshgrid::tensors);
  OF_CHECK(!ts.empty(), RuntimeError, "meshgrid expects a non-empty TensorList");
  std::string indexing = call.get(arg::meshgrid::indexing).value_or("ij");
  OF_CHECK(indexing == "ij" || indexing == "xy", RuntimeError,
           "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  for (size_t i = 0; i < ts.size(); ++i) {
    OF_CHECK(ts[i]->ndim() <= 1, RuntimeError,
             "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ",
             ShapeToString(ts[i]->shape()), " at position ", i);
    OF_CHECK(ts[i]->dtype() == ts[0]->dtype(), RuntimeError,
             "meshgrid expects all tensors to have the same dtype (got ",
             LegacyTypeName(ts[0]->dtype()), " and ", LegacyTypeName(ts[i]->dtype()), ")");
  }
  const bool xy = indexing == "xy" && ts.size() >= 2;
  // With "xy" the first two inputs swap places in the grid's dims.
  std::vector<size_t> order(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) order[i] = i;
  if (xy) std::swap(order[0], order[1]);
  DimVector shape;
  for (size_t k : order) shape.push_back(ts[k]->numel());
  for (size_t i = 0; i < ts.size(); ++i) {
    size_t pos = std::find(order.begin(), order.end(), i) - order.begin();
    DimVector view(ts.size(), 1);
    view[pos] = ts[i]->numel();
    call.outputs.push_back(ops::expand(ops::reshape(ts[i], view), shape));
  }
}
OF_OP("meshgrid(Tensor[] tensors, *, str? indexing=None) -> Tensor[]")
    .Composite(Meshgrid)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

void CartesianProd(OpCall& call) {
  const TensorList ts = call.get(arg::cartesian_prod::tensors);
  for (const auto& t : ts) {
    OF_CHECK(t->ndim() == 1, RuntimeError, "cartesian_prod(): Expect a 1D vector, but got shape ",
             ShapeToString(t->shape()));
  }
  if (ts.size() == 1) {
    call.outputs = {ts[0]};
    return;
  }
  TensorList grid = ops::meshgrid(ts, std::string("ij"));
  TensorList cols;
  for (const auto& g : grid) cols.push_back(ops::reshape(g, DimVector{-1}));
  call.outputs = {ops::stack(cols, int64_t{1})};
}
OF_OP("cartesian_prod(Tensor[] tensors) -> Tensor")
    .Composite(CartesianProd)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// diff: n-th forward difference along dim (logical xor for bool), after
// prepend/append are concatenated.
void Diff(OpCall& call) {
  namespace A = arg::diff;
  TensorImplPtr x = call.tensor(A::self);
  const int64_t n = call.get(A::n);
  OF_CHECK(x->ndim() >= 1, RuntimeError, "diff expects input to be at least one-dimensional");
  OF_CHECK(n >= 0, RuntimeError, "order must be non-negative but got ", n);
  const int64_t dim = WrapDim(call.get(A::dim), x->ndim());
  TensorList parts;
  for (const TensorImplPtr& t : {call.get(A::prepend), x, call.get(A::append)}) {
    if (!t) continue;
    OF_CHECK(t->ndim() == x->ndim(), RuntimeError,
             "diff expects prepend or append to be the same dimension as input (got shapes ",
             ShapeToString(t->shape()), " and ", ShapeToString(x->shape()), ")");
    parts.push_back(t);
  }
  if (parts.size() > 1) x = ops::cat(parts, dim);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t len = x->shape()[dim];
    if (len <= 1) {
      x = ops::narrow(x, dim, int64_t{0}, int64_t{0});
      break;
    }
    TensorImplPtr hi = ops::narrow(x, dim, int64_t{1}, len - 1);
    TensorImplPtr lo = ops::narrow(x, dim, int64_t{0}, len - 1);
    x = x->dtype() == DType::kBool ? ops::logical_xor(hi, lo) : Sub(hi, lo);
  }
  call.outputs = {x};
}
OF_OP("diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor")
    .Composite(Diff)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
