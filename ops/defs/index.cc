// Indexing ops: gather/scatter, index_select, masked ops, nonzero, and the
// advanced indexing behind Tensor.__getitem__/__setitem__ (_index, index_put).
// Kernels: ops/cpu/index_kernels.cc.
//
// Advanced indexing: `_index(self, indices, dims, self.shape)` indexes the dims
// `dims` of `self` with the tensors `indices` (int64/int32 positions, or bool/uint8 masks
// that cover as many dims as they have); dims=None means one after another from
// dim 0, as in torch.index_put_. The index tensors broadcast together to a shape
// B. When the indexed dims are adjacent, B replaces them in the result;
// otherwise B comes first, followed by the dims not indexed (PyTorch's and
// NumPy's rule). The infer functions resolve masks into positions, so kernels
// see int64 index tensors of shape B and one dim per index tensor.

#include <algorithm>

#include "core/framework/type_promotion.h"
#include "core/runtime/view_ops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// The op's name without an in-place '_' ("scatter_" -> "scatter").
std::string BaseName(const OpCall& call) {
  std::string n = call.name();
  if (!n.empty() && n.back() == '_') n.pop_back();
  return n;
}

bool IsIndexDType(DType d) { return d == DType::kInt64 || d == DType::kInt32; }

// Tensors as at least 1-D (gather/scatter treat a scalar as one element).
int64_t NonEmptyDim(const TensorImplPtr& t) { return std::max<int64_t>(t->ndim(), 1); }
int64_t SizeAt(const TensorImplPtr& t, int64_t d) { return t->ndim() == 0 ? 1 : t->shape()[d]; }

// ---- gather / scatter ------------------------------------------------------

void InferGather(OpCall& call) {
  const TensorImplPtr& self = call.tensor(arg::gather::self);
  const TensorImplPtr& index = call.tensor(arg::gather::index);
  OF_CHECK(IsIndexDType(index->dtype()), RuntimeError,
           "gather(): Expected dtype int32/int64 for index");
  OF_CHECK(NonEmptyDim(index) == NonEmptyDim(self), RuntimeError,
           "gather(): Index tensor must have the same number of dimensions as input tensor");
  const int64_t dim = WrapDim(call.get(arg::gather::dim), self->ndim());
  if (index->numel() > 0) {
    for (int64_t d = 0; d < NonEmptyDim(self); ++d) {
      OF_CHECK(d == dim || SizeAt(index, d) <= SizeAt(self, d), RuntimeError,
               "gather(): Size does not match at dimension ", d, " expected index ",
               ShapeToString(index->shape()), " to be no larger than self ",
               ShapeToString(self->shape()), " apart from dimension ", dim);
    }
  }
  call.compute_dtype = self->dtype();
  call.out_meta = {{index->shape(), self->dtype()}};
}

OF_OP("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor")
    .Infer(InferGather)
    .Backward([](BackwardCtx& c) -> TensorList {
      if (!c.needs_grad[0]) return {nullptr, nullptr};
      TensorImplPtr g = c.grad();
      TensorImplPtr zeros =
          Full(c.get(arg::gather::self)->shape(), Scalar::Int(0), g->dtype(), g->device());
      return {ops::scatter_add(zeros, c.get(arg::gather::dim), c.get(arg::gather::index), g),
              nullptr};
    })
    .Sbp(sbp::Family("gather"))
    .Autocast(amp::kNone);

// scatter.src, scatter.value and scatter_add (and their in-place twins). A
// Python number given as scatter's src means scatter.value. The arguments of
// all of them are those of scatter.src (scatter.value's `value` is its `src`).
void InferScatter(OpCall& call) {
  const std::string name = BaseName(call);
  const TensorImplPtr& self = call.tensor(arg::scatter_src::self);
  const TensorImplPtr& index = call.tensor(arg::scatter_src::index);
  OF_CHECK(IsIndexDType(index->dtype()), RuntimeError, name,
           "(): Expected dtype int32/int64 for index");
  const int64_t dim = WrapDim(call.get(arg::scatter_src::dim), self->ndim());
  TensorImplPtr src;
  Value& src_arg = call.args[arg::scatter_src::src];
  if (src_arg.is_tensor()) {
    if (src_arg.is_wrapped_number()) {
      OF_CHECK(name == "scatter", TypeError, name,
               "(): argument 'src' must be Tensor, not a Python number");
      src_arg = Value(ToDType(src_arg.tensor(), self->dtype(), false), true);
    } else {
      src = src_arg.tensor();
      OF_CHECK(src->dtype() == self->dtype(), RuntimeError, name,
               "(): Expected self.dtype to be equal to src.dtype");
    }
  }
  if (index->numel() > 0) {
    OF_CHECK(NonEmptyDim(index) == NonEmptyDim(self), RuntimeError, name,
             "(): Index tensor must have the same number of dimensions as self tensor");
    if (src) {
      OF_CHECK(NonEmptyDim(index) == NonEmptyDim(src), RuntimeError, name,
               "(): Index tensor must have the same number of dimensions as src tensor");
    }
    for (int64_t d = 0; d < NonEmptyDim(self); ++d) {
      bool ok = (d == dim || SizeAt(index, d) <= SizeAt(self, d)) &&
                (!src || SizeAt(index, d) <= SizeAt(src, d));
      if (ok) continue;
      if (src) {
        OF_THROW(RuntimeError, name, "(): Expected index ", ShapeToString(index->shape()),
                 " to be no larger than self ", ShapeToString(self->shape()),
                 " apart from dimension ", dim, " and to be no larger size than src ",
                 ShapeToString(src->shape()));
      }
      OF_THROW(RuntimeError, name, "(): Expected index ", ShapeToString(index->shape()),
               " to be no larger than self ", ShapeToString(self->shape()),
               " apart from dimension ", dim);
    }
  }
  call.compute_dtype = self->dtype();
  call.out_meta = {{self->shape(), self->dtype()}};
}

// `t` (of the index's shape) as the leading block of zeros of `shape`: the
// gradient of a src larger than the index.
TensorImplPtr PadTo(TensorImplPtr t, const DimVector& shape) {
  DimVector sizes = t->shape();
  for (size_t d = 0; d < shape.size() && d < sizes.size(); ++d) {
    if (sizes[d] == shape[d]) continue;
    const int64_t n = sizes[d];
    sizes[d] = shape[d];
    t = ops::slice_backward(t, sizes, static_cast<int64_t>(d), int64_t{0}, n, 1);
  }
  return t;
}

// src's gradient: the output's gradient gathered where src was scattered to
// (scatter.src and scatter_add, whose arguments are at the same places).
TensorImplPtr ScatterSrcGrad(BackwardCtx& c, const TensorImplPtr& g) {
  return PadTo(ops::gather(g, c.get(arg::scatter_src::dim), c.get(arg::scatter_src::index)),
               c.get(arg::scatter_src::src)->shape());
}

// The gradient of what scatter overwrote is zero; src's is gathered
// (scatter.src and scatter.value: self, dim and index are at the same places).
TensorList ScatterGrad(BackwardCtx& c) {
  TensorImplPtr g = c.grad();
  TensorImplPtr gs, gsrc;
  if (c.needs_grad[0]) {
    gs = ops::scatter_value(g, c.get(arg::scatter_src::dim), c.get(arg::scatter_src::index),
                            Scalar::Int(0));
  }
  if (c.needs_grad.size() > 2 && c.needs_grad[2]) gsrc = ScatterSrcGrad(c, g);
  TensorList out = {gs, nullptr};
  if (c.needs_grad.size() > 2) out.push_back(gsrc);
  return out;
}

OF_OP_WITH_INPLACE("scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor")
    .Infer(InferScatter)
    .Backward(ScatterGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_OP_WITH_INPLACE("scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor")
    .Infer(InferScatter)
    .Backward(ScatterGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_OP_WITH_INPLACE("scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor")
    .Infer(InferScatter)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      return {c.needs_grad[0] ? g : nullptr, nullptr,
              c.needs_grad[2] ? ScatterSrcGrad(c, g) : nullptr};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone, amp::kPromote);

// scatter_reduce's "amax", "amin" and "prod" (its "sum" and "mean" are scatter_add): out is
// self with src's elements reduced in where index sends them; without include_self, what was
// in self there takes no part. It has no backward of its own: oneflow.scatter_reduce wraps it
// in an autograd.Function with PyTorch's formula (equal maxima share the gradient).
void InferScatterReduce(OpCall& call) {
  const std::string& reduce = call.args[arg::_scatter_reduce::reduce].str();
  OF_CHECK(reduce == "amax" || reduce == "amin" || reduce == "prod", RuntimeError,
           "_scatter_reduce", "(): reduce must be \"amax\", \"amin\" or \"prod\", got \"", reduce,
           "\"");
  InferScatter(call);
}
OF_OP(
    "_scatter_reduce(Tensor self, int dim, Tensor index, Tensor src, str reduce, bool "
    "include_self) -> Tensor")
    .Infer(InferScatterReduce)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- index_select ------------------------------------------------------------

void InferIndexSelect(OpCall& call) {
  const TensorImplPtr& self = call.tensor(arg::_index_select::self);
  const TensorImplPtr& index = call.tensor(arg::_index_select::index);
  const DimVector& self_sizes = call.args[arg::_index_select::self_sizes].int_list();
  OF_CHECK(self_sizes == self->shape(), RuntimeError, "_index_select(): self_sizes ",
           ShapeToString(self_sizes), " is not self's shape ", ShapeToString(self->shape()));
  OF_CHECK(index->ndim() <= 1, IndexError, "index_select(): Index is supposed to be a vector");
  OF_CHECK(IsIndexDType(index->dtype()), RuntimeError,
           "index_select(): Expected dtype int32 or int64 for index");
  const int64_t dim = WrapDim(call.get(arg::_index_select::dim), self->ndim());
  DimVector shape = self->shape();
  if (self->ndim() == 0) {
    OF_CHECK(index->numel() == 1, RuntimeError,
             "index_select(): Index to scalar can have only 1 value, got ", index->numel(),
             " value(s)");
  } else {
    shape[dim] = index->numel();
  }
  call.compute_dtype = self->dtype();
  call.out_meta = {{shape, self->dtype()}};
}

// index_select(self, dim, index) runs _index_select(self, dim, index,
// self.shape): the backward formula needs only self's shape, not self (which
// may change in place before the backward pass), as in PyTorch.
void IndexSelect(OpCall& call) {
  call.outputs = {ops::_index_select(
      call.args[arg::index_select::self], call.get(arg::index_select::dim),
      call.args[arg::index_select::index], call.tensor(arg::index_select::self)->shape())};
}
OF_OP("index_select(Tensor self, int dim, Tensor index) -> Tensor")
    .Composite(IndexSelect)
    .Sbp(sbp::Family("index_select"))
    .Autocast(amp::kNone);
OF_OP("_index_select(Tensor self, int dim, Tensor index, int[] self_sizes) -> Tensor")
    .Infer(InferIndexSelect)
    .Backward([](BackwardCtx& c) -> TensorList {
      if (!c.needs_grad[0]) return {nullptr, nullptr};
      return {ops::index_select_backward(c.grad(), c.get(arg::_index_select::self_sizes),
                                         c.get(arg::_index_select::dim),
                                         c.get(arg::_index_select::index)),
              nullptr};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// Zeros of the input's shape with the gradient's slices added at the selected
// positions.
void InferIndexSelectBackward(OpCall& call) {
  call.compute_dtype = call.tensor(arg::index_select_backward::grad)->dtype();
  call.out_meta = {
      {call.args[arg::index_select_backward::self_sizes].int_list(), call.compute_dtype}};
}
OF_OP("index_select_backward(Tensor grad, int[] self_sizes, int dim, Tensor index) -> Tensor")
    .Infer(InferIndexSelectBackward)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {ops::index_select(c.grad(), c.get(arg::index_select_backward::dim),
                                c.get(arg::index_select_backward::index)),
              nullptr};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- masked ops --------------------------------------------------------------

void CheckBoolMask(const TensorImplPtr& mask, const std::string& what) {
  OF_CHECK(mask->dtype() == DType::kBool, RuntimeError, what,
           " only supports boolean masks, but got mask with dtype ", DTypeName(mask->dtype()));
}

// masked_fill.Tensor/.Scalar (and in-place): the result broadcasts self with
// the mask; the value is cast to self's dtype. A Python number given as the
// value tensor is a Scalar. (Both overloads have their arguments at the same
// places: those of masked_fill.Tensor are used.)
void InferMaskedFill(OpCall& call) {
  const TensorImplPtr& self = call.tensor(arg::masked_fill_Tensor::self);
  CheckBoolMask(call.tensor(arg::masked_fill_Tensor::mask), "masked_fill_");
  Value& value = call.args[arg::masked_fill_Tensor::value];
  if (value.is_tensor()) {
    const TensorImplPtr& v = value.tensor();
    OF_CHECK(v->ndim() == 0, RuntimeError,
             "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
             v->ndim(), " dimension(s).");
    if (v->dtype() != self->dtype()) {
      value = Value(ToDType(v, self->dtype(), false), value.is_wrapped_number());
    }
  }
  call.compute_dtype = self->dtype();
  call.out_meta = {
      {BroadcastShapes(self->shape(), call.tensor(arg::masked_fill_Tensor::mask)->shape(),
                       "masked_fill"),
       self->dtype()}};
}

// masked_fill.Tensor and .Scalar (mask at the same place).
TensorList MaskedFillGrad(BackwardCtx& c) {
  TensorImplPtr g = c.grad();
  TensorImplPtr mask = c.get(arg::masked_fill_Tensor::mask);
  TensorList out = {c.needs_grad[0] ? ops::masked_fill_Scalar(g, mask, Scalar::Int(0)) : nullptr,
                    nullptr};
  if (c.needs_grad.size() > 2) {
    out.push_back(c.needs_grad[2] ? ops::sum(ops::where(mask, g, Num(0))) : nullptr);
  }
  return out;
}

OF_OP_WITH_INPLACE("masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor")
    .Infer(InferMaskedFill)
    .Backward(MaskedFillGrad)
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP_WITH_INPLACE("masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor")
    .Infer(InferMaskedFill)
    .Backward(MaskedFillGrad)
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);

// masked_select's output size depends on the mask: its kernel allocates it.
void InferMaskedSelect(OpCall& call) {
  const TensorImplPtr& self = call.tensor(arg::masked_select::self);
  const TensorImplPtr& mask = call.tensor(arg::masked_select::mask);
  OF_CHECK(mask->dtype() == DType::kBool, RuntimeError,
           "masked_select: expected BoolTensor for mask");
  BroadcastShapes(self->shape(), mask->shape(), "masked_select");
  call.compute_dtype = self->dtype();
}
OF_OP("masked_select(Tensor self, Tensor mask) -> Tensor")
    .Infer(InferMaskedSelect)
    .Backward([](BackwardCtx& c) -> TensorList {
      if (!c.needs_grad[0]) return {nullptr, nullptr};
      // Of the broadcast shape; the dispatcher sums it back to self's.
      return {ops::masked_select_backward(c.grad(), c.get(arg::masked_select::mask),
                                          c.get(arg::masked_select::self)->shape()),
              nullptr};
    })
    .Sbp(sbp::BroadcastOnly("the output size depends on the values of the whole tensor"))
    .Autocast(amp::kNone);

// Zeros of broadcast(sizes, mask) with `grad` written, in order, where the mask is true.
void InferMaskedSelectBackward(OpCall& call) {
  call.compute_dtype = call.tensor(arg::masked_select_backward::grad)->dtype();
  call.out_meta = {{BroadcastShapes(call.args[arg::masked_select_backward::sizes].int_list(),
                                    call.tensor(arg::masked_select_backward::mask)->shape(),
                                    "masked_select_backward"),
                    call.compute_dtype}};
}
OF_OP("masked_select_backward(Tensor grad, Tensor mask, int[] sizes) -> Tensor")
    .Infer(InferMaskedSelectBackward)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {ops::masked_select(c.grad(), c.get(arg::masked_select_backward::mask)), nullptr};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- nonzero -------------------------------------------------------------------

void InferNonzero(OpCall& call) { call.compute_dtype = call.tensor(arg::nonzero::self)->dtype(); }
OF_OP("nonzero(Tensor self) -> Tensor")
    .Infer(InferNonzero)
    .NonDifferentiable()
    .Sbp(sbp::BroadcastOnly("the output size depends on the values of the whole tensor"))
    .Autocast(amp::kNone);

// nonzero(as_tuple=True): one 1-D tensor of positions per dim (a scalar counts
// as 1-D); as_tuple=False gives nonzero(self) alone.
void NonzeroAsTuple(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::nonzero_as_tuple::self);
  if (!call.get(arg::nonzero_as_tuple::as_tuple)) {
    call.outputs = {ops::nonzero(x)};
    return;
  }
  TensorImplPtr nz = ops::nonzero(x->ndim() == 0 ? Reshape(x, {1}) : x);
  for (int64_t d = 0; d < nz->shape()[1]; ++d) call.outputs.push_back(ops::select(nz, 1, d));
}
OF_OP("nonzero.as_tuple(Tensor self, *, bool as_tuple) -> Tensor[]")
    .Composite(NonzeroAsTuple)
    .Sbp(sbp::BroadcastOnly("the output size depends on the values of the whole tensor"))
    .Autocast(amp::kNone);

// ---- advanced indexing ------------------------------------------------------------

struct ResolvedIndices {
  TensorList indices;  // int64, contiguous, each of shape `shape`
  DimVector dims;      // the dim of self each index tensor indexes
  DimVector shape;     // the broadcast shape of the index tensors
  DimVector result;    // the shape of self[indices]
};

std::string ShapesToString(const TensorList& ts) {
  std::string s;
  for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + ShapeToString(ts[i]->shape());
  return s;
}

// See the comment at the top. Errors are PyTorch's IndexErrors.
ResolvedIndices ResolveIndices(const DimVector& self_shape, const TensorList& indices,
                               const Value& dims_arg, const std::string& op) {
  const int64_t nd = static_cast<int64_t>(self_shape.size());
  OF_CHECK(!indices.empty(), IndexError, op, "(): expected at least one index tensor");
  const DimVector* given = dims_arg.is_none() ? nullptr : &dims_arg.int_list();
  OF_CHECK(!given || given->size() == indices.size(), RuntimeError, op, "(): got ", indices.size(),
           " index tensors but ", given ? given->size() : 0, " dims");
  ResolvedIndices r;
  TensorList positions;
  int64_t next = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const TensorImplPtr& t = indices[i];
    const int64_t start = given ? (*given)[i] : next;
    const DType d = t->dtype();
    if (d == DType::kBool || d == DType::kUInt8) {
      OF_CHECK(t->ndim() > 0, IndexError, op,
               "(): a 0-dimensional mask cannot index a dim (unsqueeze it first)");
      OF_CHECK(start >= 0 && start + t->ndim() <= nd, IndexError,
               "too many indices for tensor of dimension ", nd);
      for (int64_t j = 0; j < t->ndim(); ++j) {
        OF_CHECK(t->shape()[j] == self_shape[start + j], IndexError, "The shape of the mask ",
                 ShapeToString(t->shape()), " at index ", j,
                 " does not match the shape of the indexed tensor ", ShapeToString(self_shape),
                 " at index ", start + j);
      }
      TensorImplPtr nz = ops::nonzero(t);
      for (int64_t j = 0; j < t->ndim(); ++j) {
        positions.push_back(Select(nz, 1, j));
        r.dims.push_back(start + j);
      }
      next = start + t->ndim();
    } else if (IsIndexDType(d)) {
      OF_CHECK(start >= 0 && start < nd, IndexError, "too many indices for tensor of dimension ",
               nd);
      positions.push_back(t);
      r.dims.push_back(start);
      next = start + 1;
    } else {
      OF_THROW(IndexError, "tensors used as indices must be long, int, byte or bool tensors");
    }
  }
  std::vector<bool> used(nd, false);
  for (int64_t d : r.dims) {
    OF_CHECK(!used[d], IndexError, op, "(): dim ", d, " is indexed more than once");
    used[d] = true;
  }
  // Broadcast the index tensors together.
  for (const auto& p : positions) {
    const DimVector& s = p->shape();
    size_t n = std::max(r.shape.size(), s.size());
    DimVector b(n);
    for (size_t k = 0; k < n; ++k) {
      int64_t x = k < n - r.shape.size() ? 1 : r.shape[k - (n - r.shape.size())];
      int64_t y = k < n - s.size() ? 1 : s[k - (n - s.size())];
      OF_CHECK(x == y || x == 1 || y == 1, IndexError,
               "shape mismatch: indexing tensors could not be broadcast together with shapes ",
               ShapesToString(positions));
      b[k] = x == 1 ? y : x;
    }
    r.shape = std::move(b);
  }
  for (const auto& p : positions) {
    r.indices.push_back(Contiguous(Expand(ToDType(p, DType::kInt64, false), r.shape)));
  }
  bool adjacent = true;
  for (size_t k = 1; k < r.dims.size(); ++k) adjacent = adjacent && r.dims[k] == r.dims[k - 1] + 1;
  if (adjacent) {
    r.result.assign(self_shape.begin(), self_shape.begin() + r.dims[0]);
    r.result.insert(r.result.end(), r.shape.begin(), r.shape.end());
    r.result.insert(r.result.end(), self_shape.begin() + r.dims.back() + 1, self_shape.end());
  } else {
    r.result = r.shape;
    for (int64_t d = 0; d < nd; ++d) {
      if (!used[d]) r.result.push_back(self_shape[d]);
    }
  }
  return r;
}

// Replaces the index tensors and dims of the call by their resolved form
// (_index and index_put: self is argument 0 of both).
ResolvedIndices ResolveCallIndices(OpCall& call, int indices_arg, int dims_arg) {
  ResolvedIndices r =
      ResolveIndices(call.tensor(arg::_index::self)->shape(), call.args[indices_arg].tensors(),
                     call.args[dims_arg], BaseName(call));
  call.args[indices_arg] = Value(r.indices);
  call.args[dims_arg] = Value(r.dims);
  return r;
}

// self_sizes is self's shape: the backward formula needs only that, not self
// (which `t[i] += 1` changes in place before the backward pass).
void InferIndex(OpCall& call) {
  const TensorImplPtr& self = call.tensor(arg::_index::self);
  const DimVector& self_sizes = call.args[arg::_index::self_sizes].int_list();
  OF_CHECK(self_sizes == self->shape(), RuntimeError, "_index(): self_sizes ",
           ShapeToString(self_sizes), " is not self's shape ", ShapeToString(self->shape()));
  ResolvedIndices r = ResolveCallIndices(call, arg::_index::indices, arg::_index::dims);
  call.compute_dtype = self->dtype();
  call.out_meta = {{r.result, call.compute_dtype}};
}

OF_OP("_index(Tensor self, Tensor[] indices, int[]? dims, int[] self_sizes) -> Tensor")
    .Infer(InferIndex)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorList indices = c.get(arg::_index::indices);
      TensorList out(1 + indices.size());
      if (c.needs_grad[0]) {
        TensorImplPtr g = c.grad();
        TensorImplPtr zeros = Full(c.arg(arg::_index::self_sizes).int_list(), Scalar::Int(0),
                                   g->dtype(), g->device());
        out[0] = ops::index_put(zeros, indices, g, true, c.get(arg::_index::dims));
      }
      return out;
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// index_put(self, indices, values, accumulate, dims): self with values
// (broadcast to the shape of self[indices], of self's dtype) written (or added)
// at the indexed positions.
void InferIndexPut(OpCall& call) {
  const TensorImplPtr& self = call.tensor(arg::index_put::self);
  ResolvedIndices r = ResolveCallIndices(call, arg::index_put::indices, arg::index_put::dims);
  Value& values = call.args[arg::index_put::values];
  if (values.is_wrapped_number() && values.tensor()->dtype() != self->dtype()) {
    values = Value(ToDType(values.tensor(), self->dtype(), false), true);
  }
  const TensorImplPtr& v = values.tensor();
  OF_CHECK(v->dtype() == self->dtype(), RuntimeError,
           "Index put requires the source and destination dtypes match, got ",
           DTypeName(self->dtype()), " for the destination and ", DTypeName(v->dtype()),
           " for the source.");
  bool fits = v->ndim() <= static_cast<int64_t>(r.result.size());
  for (int64_t k = 0; fits && k < v->ndim(); ++k) {
    int64_t s = v->shape()[v->ndim() - 1 - k];
    fits = s == 1 || s == r.result[r.result.size() - 1 - k];
  }
  OF_CHECK(fits, RuntimeError, "shape mismatch: value tensor of shape ", ShapeToString(v->shape()),
           " cannot be broadcast to indexing result of shape ", ShapeToString(r.result));
  call.compute_dtype = self->dtype();
  call.out_meta = {{self->shape(), self->dtype()}};
}

TensorList IndexPutGrad(BackwardCtx& c) {
  TensorList indices = c.get(arg::index_put::indices);
  TensorImplPtr g = c.grad();
  TensorList out(2 + indices.size());
  const bool accumulate = c.get(arg::index_put::accumulate);
  if (c.needs_grad[0]) {
    out[0] = accumulate
                 ? g
                 : ops::index_put(g, indices, Full({}, Scalar::Int(0), g->dtype(), g->device()),
                                  false, c.get(arg::index_put::dims));
  }
  // Of the indexed shape; the dispatcher sums it back to the values' shape.
  if (c.needs_grad[1 + indices.size()]) {
    out.back() = ops::_index(g, indices, c.get(arg::index_put::dims), g->shape());
  }

  return out;
}

OF_OP_WITH_INPLACE(
    "index_put(Tensor self, Tensor[] indices, Tensor values, bool accumulate=False, *, int[]? "
    "dims=None) -> Tensor")
    .Infer(InferIndexPut)
    .Backward(IndexPutGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone, amp::kPromote);

}  // namespace
}  // namespace defs
}  // namespace oneflow
