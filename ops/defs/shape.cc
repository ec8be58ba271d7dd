// Shape ops: concatenation and splitting, repetition, flips, rolls and
// triangles. Kernels: ops/cpu/shape_kernels.cc. Splitting ops are composites
// over the view ops (narrow, select, slice), so their pieces are views and their
// gradients follow from those of the views.

#include <algorithm>

#include "core/framework/type_promotion.h"
#include "core/runtime/view_ops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// ---- cat / stack -------------------------------------------------------------

// cat's legacy rule: 1-D tensors with no elements are skipped, whatever the
// shapes of the others.
bool SkippedByCat(const TensorImplPtr& t) { return t->ndim() == 1 && t->shape()[0] == 0; }

// The dim cat concatenates along: wrapped for the first tensor that is not
// skipped; -1 when every tensor is skipped.
int64_t CatDim(const TensorList& ts, int64_t dim) {
  for (const auto& t : ts) {
    if (!SkippedByCat(t)) return WrapDim(dim, t->ndim());
  }
  return -1;
}

void CheckCatInputs(const TensorList& ts) {
  OF_CHECK(!ts.empty(), ValueError, "cat(): expected a non-empty list of Tensors");
  for (size_t i = 0; i < ts.size(); ++i) {
    OF_CHECK(ts[i]->ndim() > 0, RuntimeError, "cat(): zero-dimensional tensor (at position ", i,
             ") cannot be concatenated");
  }
}

// cat(tensors, dim) runs _cat(tensors, dim, sizes), where sizes[i] is the size
// of input i along dim (-1 for a skipped one): the backward formula needs only
// those, not the inputs (which may change in place afterwards, as in PyTorch).
void Cat(OpCall& call) {
  const TensorList& ts = call.args[arg::cat::tensors].tensors();
  CheckCatInputs(ts);
  const int64_t dim = CatDim(ts, call.get(arg::cat::dim));
  DimVector sizes;
  for (const auto& t : ts) {
    sizes.push_back(SkippedByCat(t) || dim < 0 || t->ndim() <= dim ? -1 : t->shape()[dim]);
  }
  call.outputs = {ops::_cat(ts, call.get(arg::cat::dim), sizes)};
}

void InferCat(OpCall& call) {
  const TensorList& ts = call.args[arg::_cat::tensors].tensors();
  CheckCatInputs(ts);
  DType dtype = ts[0]->dtype();
  for (const auto& t : ts) dtype = PromoteTypes(dtype, t->dtype());
  call.compute_dtype = dtype;
  const int64_t dim = CatDim(ts, call.get(arg::_cat::dim));
  if (dim < 0) {
    call.out_meta = {{{0}, dtype}};
    return;
  }
  DimVector shape;
  bool first = true;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (SkippedByCat(ts[i])) continue;
    const DimVector& s = ts[i]->shape();
    if (first) {
      shape = s;
      first = false;
      continue;
    }
    OF_CHECK(s.size() == shape.size(), RuntimeError,
             "cat(): Tensors must have same number of dimensions: got ", shape.size(), " and ",
             s.size());
    for (size_t d = 0; d < s.size(); ++d) {
      OF_CHECK(static_cast<int64_t>(d) == dim || s[d] == shape[d], RuntimeError,
               "cat(): Sizes of tensors must match except in dimension ", dim, ". Expected size ",
               shape[d], " but got size ", s[d], " for tensor number ", i, " in the list.");
    }
    shape[dim] += s[dim];
  }
  const DimVector& sizes = call.args[arg::_cat::sizes].int_list();
  bool sizes_ok = sizes.size() == ts.size();
  for (size_t i = 0; sizes_ok && i < ts.size(); ++i) {
    sizes_ok = sizes[i] == (SkippedByCat(ts[i]) ? -1 : ts[i]->shape()[dim]);
  }
  OF_CHECK(sizes_ok, RuntimeError, "_cat(): sizes ", ShapeToString(sizes),
           " are not the inputs' sizes along dim ", dim);
  call.out_meta = {{shape, dtype}};
}

// Each input's gradient is its slice of the output's (zeros for a skipped one).
TensorList CatGrad(BackwardCtx& c) {
  const TensorImplPtr g = c.grad();
  const DimVector& sizes = c.arg(arg::_cat::sizes).int_list();
  TensorList out;
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) {
      out.push_back(c.needs_grad[i] ? Full({0}, Scalar::Int(0), g->dtype(), g->device()) : nullptr);
      continue;
    }
    const int64_t dim = WrapDim(c.get(arg::_cat::dim), g->ndim());
    out.push_back(c.needs_grad[i] ? ops::narrow(g, dim, offset, sizes[i]) : nullptr);
    offset += sizes[i];
  }
  return out;
}

OF_OP("cat(Tensor[] tensors, int dim=0) -> Tensor")
    .Composite(Cat)
    .Sbp(sbp::Family("cat"))
    .Autocast(amp::kPromote);
OF_OP("_cat(Tensor[] tensors, int dim, int[] sizes) -> Tensor")
    .Infer(InferCat)
    .Backward(CatGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

void Stack(OpCall& call) {
  const TensorList& ts = call.args[arg::stack::tensors].tensors();
  OF_CHECK(!ts.empty(), RuntimeError, "stack expects a non-empty TensorList");
  for (size_t i = 1; i < ts.size(); ++i) {
    OF_CHECK(ts[i]->shape() == ts[0]->shape(), RuntimeError,
             "stack expects each tensor to be equal size, but got ", ShapeToString(ts[0]->shape()),
             " at entry 0 and ", ShapeToString(ts[i]->shape()), " at entry ", i);
  }
  const int64_t dim = WrapDim(call.get(arg::stack::dim), ts[0]->ndim() + 1);
  TensorList pieces;
  for (const auto& t : ts) pieces.push_back(ops::unsqueeze(t, dim));
  call.outputs = {ops::cat(pieces, dim)};
}
OF_OP("stack(Tensor[] tensors, int dim=0) -> Tensor")
    .Composite(Stack)
    .Sbp(sbp::Family("stack"))
    .Autocast(amp::kPromote);

// ---- splitting ---------------------------------------------------------------

void CheckSplittable(const TensorImplPtr& x, const char* op) {
  OF_CHECK(x->ndim() > 0, RuntimeError, op, " expects at least a 1-dimensional tensor");
}

// Consecutive narrows of `x` along `dim` with these sizes.
void NarrowPieces(OpCall& call, const TensorImplPtr& x, int64_t dim, const DimVector& sizes) {
  int64_t start = 0;
  for (int64_t n : sizes) {
    call.outputs.push_back(ops::narrow(x, dim, start, n));
    start += n;
  }
}

// Pieces of `split` elements (the last one smaller) covering `size`.
DimVector EvenSizes(int64_t size, int64_t split) {
  if (split == 0) return {0};
  const int64_t n = std::max<int64_t>((size + split - 1) / split, 1);
  DimVector sizes;
  for (int64_t k = 0; k < n; ++k) sizes.push_back(std::min(split, size - k * split));
  return sizes;
}

void Split(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::split::self);
  CheckSplittable(x, "split");
  const int64_t split = call.get(arg::split::split_size);
  const int64_t dim = WrapDim(call.get(arg::split::dim), x->ndim());
  const int64_t size = x->shape()[dim];
  OF_CHECK(split >= 0, RuntimeError,
           "split expects split_size be non-negative, but got split_size=", split);
  OF_CHECK(split > 0 || size == 0, RuntimeError,
           "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  NarrowPieces(call, x, dim, EvenSizes(size, split));
}

void SplitWithSizes(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::split_sizes::self);
  CheckSplittable(x, "split");
  const DimVector& sizes = call.args[arg::split_sizes::split_size].int_list();
  const int64_t dim = WrapDim(call.get(arg::split_sizes::dim), x->ndim());
  const int64_t size = x->shape()[dim];
  int64_t sum = 0;
  for (int64_t s : sizes) {
    OF_CHECK(s >= 0, RuntimeError,
             "split_with_sizes expects split_sizes have only non-negative entries, but got "
             "split_sizes=",
             ShapeToString(sizes));
    sum += s;
  }
  OF_CHECK(sum == size, RuntimeError, "split_with_sizes expects split_sizes to sum exactly to ",
           size, " (input tensor's size at dimension ", dim,
           "), but got split_sizes=", ShapeToString(sizes));
  NarrowPieces(call, x, dim, sizes);
}

OF_OP("split(Tensor self, int split_size, int dim=0) -> Tensor[]")
    .Composite(Split)
    .Sbp(sbp::Family("split", "count=split_size"))
    .Autocast(amp::kNone);
OF_OP("split.sizes(Tensor self, int[] split_size, int dim=0) -> Tensor[]")
    .Composite(SplitWithSizes)
    .Sbp(sbp::Family("split", "count=split_sizes"))
    .Autocast(amp::kNone);

void Chunk(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::chunk::self);
  CheckSplittable(x, "chunk");
  const int64_t chunks = call.get(arg::chunk::chunks);
  OF_CHECK(chunks > 0, RuntimeError, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t dim = WrapDim(call.get(arg::chunk::dim), x->ndim());
  const int64_t size = x->shape()[dim];
  const int64_t split = (size + chunks - 1) / chunks;
  // An empty dim still gives `chunks` (empty) pieces.
  NarrowPieces(call, x, dim, size == 0 ? DimVector(chunks, 0) : EvenSizes(size, split));
}
OF_OP("chunk(Tensor self, int chunks, int dim=0) -> Tensor[]")
    .Composite(Chunk)
    .Sbp(sbp::Family("split", "count=chunks"))
    .Autocast(amp::kNone);

void CheckTensorSplittable(const TensorImplPtr& x) {
  OF_CHECK(x->ndim() > 0, RuntimeError,
           "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
}

void TensorSplitSectionsImpl(OpCall& call, const TensorImplPtr& x, int64_t sections, int64_t dim) {
  OF_CHECK(sections > 0, RuntimeError, "number of sections must be larger than 0, got ", sections);
  dim = WrapDim(dim, x->ndim());
  const int64_t size = x->shape()[dim];
  DimVector sizes;
  for (int64_t k = 0; k < sections; ++k) sizes.push_back(size / sections + (k < size % sections));
  NarrowPieces(call, x, dim, sizes);
}

// Pieces between consecutive split points, with Python's slice clamping.
void TensorSplitIndicesImpl(OpCall& call, const TensorImplPtr& x, const DimVector& indices,
                            int64_t dim) {
  dim = WrapDim(dim, x->ndim());
  int64_t start = 0;
  for (int64_t end : indices) {
    call.outputs.push_back(ops::slice(x, dim, start, end, 1));
    start = end;
  }
  call.outputs.push_back(ops::slice(x, dim, start, std::nullopt, 1));
}

void TensorSplitSections(OpCall& call) {
  CheckTensorSplittable(call.tensor(arg::tensor_split_sections::self));
  TensorSplitSectionsImpl(call, call.tensor(arg::tensor_split_sections::self),
                          call.get(arg::tensor_split_sections::sections),
                          call.get(arg::tensor_split_sections::dim));
}
void TensorSplitIndices(OpCall& call) {
  CheckTensorSplittable(call.tensor(arg::tensor_split_indices::self));
  TensorSplitIndicesImpl(call, call.tensor(arg::tensor_split_indices::self),
                         call.args[arg::tensor_split_indices::indices].int_list(),
                         call.get(arg::tensor_split_indices::dim));
}
// The sections or split points given as an int64 tensor (0-d: sections).
void TensorSplitTensor(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::tensor_split_tensor::self);
  CheckTensorSplittable(x);
  const TensorImplPtr& t = call.tensor(arg::tensor_split_tensor::tensor_indices_or_sections);
  OF_CHECK(!call.args[arg::tensor_split_tensor::tensor_indices_or_sections].is_wrapped_number() ||
               t->dtype() == DType::kInt64,
           TypeError, "tensor_split(): argument 'sections' must be int, not ",
           DTypeName(t->dtype()));
  OF_CHECK(t->dtype() == DType::kInt64, RuntimeError,
           "tensor_split expected tensor_indices_or_sections to have dtype of long, but got ",
           DTypeName(t->dtype()));
  OF_CHECK(t->ndim() <= 1, RuntimeError,
           "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
           "one-dimensional tensor, but got a tensor with ",
           t->ndim(), " dims");
  OF_CHECK(t->device().type == DeviceType::kCPU, RuntimeError,
           "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on ",
           t->device().ToString());
  TensorImplPtr values = Contiguous(t);
  const int64_t* p = reinterpret_cast<const int64_t*>(values->data());
  if (t->ndim() == 0) {
    TensorSplitSectionsImpl(call, x, p[0], call.get(arg::tensor_split_tensor::dim));
  } else {
    TensorSplitIndicesImpl(call, x, DimVector(p, p + t->numel()),
                           call.get(arg::tensor_split_tensor::dim));
  }
}
// The tensor overload comes first: the binding gives it Python ints too (as
// 0-d int64 tensors, i.e. sections), and it keeps 1-D tensors away from `int`.
OF_OP("tensor_split.tensor(Tensor self, Tensor tensor_indices_or_sections, int dim=0) -> Tensor[]")
    .Composite(TensorSplitTensor)
    .Sbp(sbp::Family("split"))
    .Autocast(amp::kNone);
OF_OP("tensor_split.sections(Tensor self, int sections, int dim=0) -> Tensor[]")
    .Composite(TensorSplitSections)
    .Sbp(sbp::Family("split", "count=sections"))
    .Autocast(amp::kNone);
OF_OP("tensor_split.indices(Tensor self, int[] indices, int dim=0) -> Tensor[]")
    .Composite(TensorSplitIndices)
    .Sbp(sbp::Family("split", "count=indices"))
    .Autocast(amp::kNone);

// A dim of a tensor that must have one (unbind, roll with dims).
int64_t WrapExistingDim(const TensorImplPtr& x, int64_t dim) {
  OF_CHECK(x->ndim() > 0, IndexError, "Dimension specified as ", dim,
           " but tensor has no dimensions");
  return WrapDim(dim, x->ndim());
}

void Unbind(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::unbind::self);
  const int64_t dim = WrapExistingDim(x, call.get(arg::unbind::dim));
  for (int64_t i = 0; i < x->shape()[dim]; ++i) call.outputs.push_back(ops::select(x, dim, i));
}
OF_OP("unbind(Tensor self, int dim=0) -> Tensor[]")
    .Composite(Unbind)
    .Sbp(sbp::Family("split", "count=unbind removes=1"))
    .Autocast(amp::kNone);

// ---- repeat / tile -----------------------------------------------------------

void InferRepeat(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::_repeat::self);
  const DimVector& repeats = call.args[arg::_repeat::repeats].int_list();
  const DimVector& self_sizes = call.args[arg::_repeat::self_sizes].int_list();
  OF_CHECK(self_sizes == x->shape(), RuntimeError, "_repeat(): self_sizes ",
           ShapeToString(self_sizes), " is not self's shape ", ShapeToString(x->shape()));
  OF_CHECK(static_cast<int64_t>(repeats.size()) >= x->ndim(), RuntimeError,
           "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
           "tensor");
  const int64_t lead = static_cast<int64_t>(repeats.size()) - x->ndim();
  DimVector shape(repeats.size());
  for (int64_t i = 0; i < static_cast<int64_t>(repeats.size()); ++i) {
    shape[i] = repeats[i] * (i < lead ? 1 : x->shape()[i - lead]);
  }
  for (int64_t s : shape) {
    OF_CHECK(s >= 0, RuntimeError, "repeat(): Trying to create tensor with negative dimension ", s,
             ": ", ShapeToString(shape));
  }
  call.compute_dtype = x->dtype();
  call.out_meta = {{shape, x->dtype()}};
}

// The output seen as (r0, s0, r1, s1, ...): the gradient sums over the r's.
TensorList RepeatGrad(BackwardCtx& c) {
  const DimVector& x_shape = c.arg(arg::_repeat::self_sizes).int_list();
  const DimVector& repeats = c.arg(arg::_repeat::repeats).int_list();
  if (repeats.empty()) return {c.grad()};
  const int64_t lead = static_cast<int64_t>(repeats.size()) - static_cast<int64_t>(x_shape.size());
  DimVector split_shape, tile_dims;
  for (int64_t i = 0; i < static_cast<int64_t>(repeats.size()); ++i) {
    tile_dims.push_back(static_cast<int64_t>(split_shape.size()));
    split_shape.push_back(repeats[i]);
    split_shape.push_back(i < lead ? 1 : x_shape[i - lead]);
  }
  TensorImplPtr g = ops::reshape(c.grad(), split_shape);
  g = ops::sum_dim(g, tile_dims, false);
  return {ops::reshape(g, x_shape)};
}

// repeat(self, repeats) runs _repeat(self, repeats, self.shape): the backward
// formula needs only self's shape.
void Repeat(OpCall& call) {
  call.outputs = {ops::_repeat(call.args[arg::repeat::self], call.get(arg::repeat::repeats),
                               call.tensor(arg::repeat::self)->shape())};
}
OF_OP("repeat(Tensor self, int[] repeats) -> Tensor")
    .Composite(Repeat)
    .Sbp(sbp::Family("repeat"))
    .Autocast(amp::kNone);
OF_OP("_repeat(Tensor self, int[] repeats, int[] self_sizes) -> Tensor")
    .Infer(InferRepeat)
    .Backward(RepeatGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

void Tile(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::tile::self);
  DimVector dims = call.get(arg::tile::dims);
  if (static_cast<int64_t>(dims.size()) < x->ndim())
    dims.insert(dims.begin(), x->ndim() - dims.size(), 1);
  call.outputs = {ops::repeat(x, dims)};
}
OF_OP("tile(Tensor self, int[] dims) -> Tensor")
    .Composite(Tile)
    .Sbp(sbp::Family("repeat", "pad_front=1"))
    .Autocast(amp::kNone);

// ---- flip / roll ---------------------------------------------------------------

void InferFlip(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::flip::self);
  std::vector<bool> seen(std::max<int64_t>(x->ndim(), 1), false);
  for (int64_t d : call.args[arg::flip::dims].int_list()) {
    int64_t w = WrapDim(d, x->ndim());
    OF_CHECK(!seen[w], RuntimeError, "flip(): dim ", w,
             " appears multiple times in the list of dims");
    seen[w] = true;
  }
  call.compute_dtype = x->dtype();
  call.out_meta = {{x->shape(), x->dtype()}};
}
OF_OP("flip(Tensor self, int[] dims) -> Tensor")
    .Infer(InferFlip)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {ops::flip(c.grad(), c.get(arg::flip::dims))};
    })
    .Sbp(sbp::Family("excluding_dims", "arg=dims linear=1"))
    .Autocast(amp::kNone);

// Rolls along one dim: the last `shift` elements move to the front.
TensorImplPtr RollDim(const TensorImplPtr& x, int64_t shift, int64_t dim) {
  const int64_t n = x->shape()[dim];
  if (n == 0) return x;
  shift = ((shift % n) + n) % n;
  if (shift == 0) return x;
  TensorList parts = {ops::narrow(x, dim, n - shift, shift), ops::narrow(x, dim, 0, n - shift)};
  return ops::cat(parts, dim);
}

void Roll(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::roll::self);
  const DimVector& shifts = call.args[arg::roll::shifts].int_list();
  const DimVector& dims = call.args[arg::roll::dims].int_list();
  OF_CHECK(!shifts.empty(), RuntimeError, "roll(): `shifts` required");
  TensorImplPtr out = x;
  if (dims.empty()) {
    OF_CHECK(shifts.size() == 1, RuntimeError,
             "roll(): shifts and dimensions must align. shifts: ", shifts.size(),
             ", dims:", dims.size());
    // No dims: roll the flattened tensor.
    out = RollDim(ops::flatten(x, 0, -1), shifts[0], 0);
    out = ops::reshape(out, x->shape());
  } else {
    OF_CHECK(shifts.size() == dims.size(), RuntimeError,
             "roll(): shifts and dimensions must align. shifts: ", shifts.size(),
             ", dims:", dims.size());
    for (size_t i = 0; i < dims.size(); ++i)
      out = RollDim(out, shifts[i], WrapExistingDim(x, dims[i]));
  }
  // Always a new tensor, never a view of the input.
  if (out->storage() == x->storage()) out = ops::clone(out);
  call.outputs = {out};
}
OF_OP("roll(Tensor self, int[1] shifts, int[1] dims=[]) -> Tensor")
    .Composite(Roll)
    .Sbp(sbp::Family("excluding_dims", "arg=dims"))
    .Autocast(amp::kNone);

// ---- tril / triu -----------------------------------------------------------------

// Serves tril, triu and their in-place twins (self is argument 0 of all four).
void InferTriangle(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::tril::self);
  std::string name = call.name();
  if (name.back() == '_') name.pop_back();
  OF_CHECK(x->ndim() >= 2, RuntimeError, name, ": input tensor must have at least 2 dimensions");
  call.compute_dtype = x->dtype();
  call.out_meta = {{x->shape(), x->dtype()}};
}

OF_OP_WITH_INPLACE("tril(Tensor self, int diagonal=0) -> Tensor")
    .Infer(InferTriangle)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {ops::tril(c.grad(), c.get(arg::tril::diagonal))};
    })
    .Sbp(sbp::Family("excluding_dims", "linear=1 last=2"))
    .Autocast(amp::kNone);
OF_OP_WITH_INPLACE("triu(Tensor self, int diagonal=0) -> Tensor")
    .Infer(InferTriangle)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {ops::triu(c.grad(), c.get(arg::triu::diagonal))};
    })
    .Sbp(sbp::Family("excluding_dims", "linear=1 last=2"))
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
