// Views and copies: the C++ core's view arithmetic (core/runtime/view_ops.h)
// as ops, so they take part in autograd. The kernels are device independent.

#include "core/runtime/device_kernels.h"
#include "core/runtime/view_ops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

#define OF_ANY_DEVICE_KERNEL(op, fn)               \
  OF_KERNEL(op, DeviceType::kCPU, kAllDTypes, fn); \
  OF_KERNEL(op, DeviceType::kCUDA, kAllDTypes, fn)

// Views compute in the input's dtype and allocate nothing. (Every op it serves
// has its input tensor first, as view's self.)
void InferView(OpCall& call) { call.compute_dtype = call.tensor(arg::view::self)->dtype(); }

// A view op with its SBP rule; views never change dtype, so autocast leaves
// them alone. `name` is also the op's name in namespace arg.
#define OF_VIEW_OP(schema, name, expr, grad_expr, sbp_rule)               \
  OF_OP(schema)                                                           \
      .Infer(InferView)                                                   \
      .Backward([](BackwardCtx& c) -> TensorList {                        \
        [[maybe_unused]] const TensorImplPtr g = c.grad();                \
        [[maybe_unused]] auto x = [&] { return c.get(arg::name::self); }; \
        return {grad_expr};                                               \
      })                                                                  \
      .Sbp(sbp_rule)                                                      \
      .Autocast(amp::kNone);                                              \
  void name##Kernel(OpCall& c) {                                          \
    [[maybe_unused]] const TensorImplPtr& t = c.tensor(arg::name::self);  \
    c.outputs = {ViewOrCopy(expr)};                                       \
  }                                                                       \
  OF_ANY_DEVICE_KERNEL(#name, &name##Kernel)

DimVector Shape(const TensorImplPtr& t) { return t->shape(); }

// With views disabled (ONEFLOW_DISABLE_VIEW), every view op hands back a tensor
// of its own, as OneFlow's copying kernels do in that mode.
TensorImplPtr ViewOrCopy(const TensorImplPtr& view) {
  if (ViewsEnabled()) return view;
  return view->is_contiguous() ? Clone(view) : Contiguous(view);
}

int64_t WrapStart(const TensorImplPtr& x, int64_t dim, int64_t start) {
  int64_t size = x->shape()[WrapDim(dim, x->ndim())];
  return start < 0 ? start + size : start;
}

TensorImplPtr TwoDimTranspose(const TensorImplPtr& t) {
  OF_CHECK(t->ndim() <= 2, RuntimeError, "t() expects a tensor with <= 2 dimensions, but self is ",
           t->ndim(), "D");
  if (t->ndim() < 2) return t->AsStrided(t->shape(), t->stride(), t->storage_offset());
  return Transpose(t, 0, 1);
}

DimVector InversePermutation(const DimVector& dims, int64_t n) {
  DimVector inv(n);
  for (int64_t i = 0; i < n; ++i) inv[WrapDim(dims[i], n)] = i;
  return inv;
}

OF_VIEW_OP("view(Tensor(a) self, int[] size) -> Tensor(a)", view,
           ViewsEnabled() ? View(t, c.args[arg::view::size].int_list())
                          : Reshape(t, c.args[arg::view::size].int_list()),
           ops::reshape(g, Shape(x())), sbp::Family("reshape", "local=view"));
OF_VIEW_OP("reshape(Tensor(a) self, int[] shape) -> Tensor(a)", reshape,
           Reshape(t, c.args[arg::reshape::shape].int_list()), ops::reshape(g, Shape(x())),
           sbp::Family("reshape"));
OF_VIEW_OP("flatten(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)", flatten,
           Flatten(t, c.get(arg::flatten::start_dim), c.get(arg::flatten::end_dim)),
           ops::reshape(g, Shape(x())), sbp::Family("reshape", "target=flatten"));
OF_VIEW_OP("squeeze(Tensor(a) self, int[]? dim=None) -> Tensor(a)", squeeze,
           Squeeze(t, c.get(arg::squeeze::dim)), ops::reshape(g, Shape(x())),
           sbp::Family("squeeze"));
OF_VIEW_OP("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", unsqueeze,
           Unsqueeze(t, c.get(arg::unsqueeze::dim)), ops::reshape(g, Shape(x())),
           sbp::Family("unsqueeze"));
OF_VIEW_OP("expand(Tensor(a) self, int[] size) -> Tensor(a)", expand,
           Expand(t, c.args[arg::expand::size].int_list()), ops::sum_to_size(g, Shape(x())),
           sbp::Family("expand"));
OF_VIEW_OP("transpose(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", transpose,
           Transpose(t, c.get(arg::transpose::dim0), c.get(arg::transpose::dim1)),
           ops::transpose(g, c.get(arg::transpose::dim0), c.get(arg::transpose::dim1)),
           sbp::Family("permute", "perm=swap"));
OF_VIEW_OP("t(Tensor(a) self) -> Tensor(a)", t, TwoDimTranspose(t), ops::t(g),
           sbp::Family("permute", "perm=reverse"));
OF_VIEW_OP("permute(Tensor(a) self, int[] dims) -> Tensor(a)", permute,
           Permute(t, c.args[arg::permute::dims].int_list()),
           ops::permute(g, InversePermutation(c.arg(arg::permute::dims).int_list(), g->ndim())),
           sbp::Family("permute"));
OF_VIEW_OP("narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)", narrow,
           Narrow(t, c.get(arg::narrow::dim), c.get(arg::narrow::start),
                  c.get(arg::narrow::length)),
           ops::slice_backward(g, Shape(x()), c.get(arg::narrow::dim),
                               WrapStart(x(), c.get(arg::narrow::dim), c.get(arg::narrow::start)),
                               WrapStart(x(), c.get(arg::narrow::dim), c.get(arg::narrow::start)) +
                                   c.get(arg::narrow::length),
                               1),
           sbp::Family("along_dim", "linear=1"));
OF_VIEW_OP("select(Tensor(a) self, int dim, int index) -> Tensor(a)", select,
           Select(t, c.get(arg::select::dim), c.get(arg::select::index)),
           ops::select_backward(g, Shape(x()), c.get(arg::select::dim), c.get(arg::select::index)),
           sbp::Family("along_dim", "removes=1 linear=1"));
OF_VIEW_OP(
    "slice(Tensor(a) self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor(a)",
    slice,
    Slice(t, c.get(arg::slice::dim), c.get(arg::slice::start), c.get(arg::slice::end),
          c.get(arg::slice::step)),
    ops::slice_backward(g, Shape(x()), c.get(arg::slice::dim), c.get(arg::slice::start),
                        c.get(arg::slice::end), c.get(arg::slice::step)),
    sbp::Family("along_dim", "default=0 linear=1"));

// Gradients of slicing: zeros of the input's shape with the gradient in the
// sliced part. Their own gradients slice again.
void SliceBackwardKernel(OpCall& c) {
  const TensorImplPtr& g = c.tensor(arg::slice_backward::grad_output);
  auto out = Full(c.args[arg::slice_backward::input_sizes].int_list(), Scalar::Int(0), g->dtype(),
                  g->device());
  CopyInto(g, Slice(out, c.get(arg::slice_backward::dim), c.get(arg::slice_backward::start),
                    c.get(arg::slice_backward::end), c.get(arg::slice_backward::step)));
  c.outputs = {out};
}
OF_OP(
    "slice_backward(Tensor grad_output, int[] input_sizes, int dim, int? start, int? end, int "
    "step) -> Tensor")
    .Infer(InferView)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {ops::slice(c.grad(), c.get(arg::slice_backward::dim),
                         c.get(arg::slice_backward::start), c.get(arg::slice_backward::end),
                         c.get(arg::slice_backward::step))};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_ANY_DEVICE_KERNEL("slice_backward", &SliceBackwardKernel);

void SelectBackwardKernel(OpCall& c) {
  const TensorImplPtr& g = c.tensor(arg::select_backward::grad_output);
  auto out = Full(c.args[arg::select_backward::input_sizes].int_list(), Scalar::Int(0), g->dtype(),
                  g->device());
  CopyInto(g, Select(out, c.get(arg::select_backward::dim), c.get(arg::select_backward::index)));
  c.outputs = {out};
}
OF_OP("select_backward(Tensor grad_output, int[] input_sizes, int dim, int index) -> Tensor")
    .Infer(InferView)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {ops::select(c.grad(), c.get(arg::select_backward::dim),
                          c.get(arg::select_backward::index))};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_ANY_DEVICE_KERNEL("select_backward", &SelectBackwardKernel);

// ---- copies and conversions ------------------------------------------------

#define OF_IDENTITY_GRAD [](BackwardCtx& c) -> TensorList { return {c.grad()}; }

// memory_format: the code of a oneflow.memory_format (see MemoryFormat); the
// Python objects pass as ints.
void ContiguousKernel(OpCall& c) {
  c.outputs = {ContiguousAs(c.tensor(arg::contiguous::self),
                            ToMemoryFormat(c.get(arg::contiguous::memory_format), "contiguous"))};
}
OF_OP("contiguous(Tensor(a) self, *, int memory_format=0) -> Tensor(a)")
    .Infer(InferView)
    .Backward(OF_IDENTITY_GRAD)
    .Sbp(sbp::Elementwise("P"))
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_ANY_DEVICE_KERNEL("contiguous", &ContiguousKernel);

void CloneKernel(OpCall& c) {
  const TensorImplPtr& t = c.tensor(arg::clone::self);
  const std::optional<int64_t> memory_format = c.get(arg::clone::memory_format);
  if (!memory_format) {
    c.outputs = {Clone(t)};
    return;
  }
  auto out = EmptyAs(t, ToMemoryFormat(*memory_format, "clone"), t->dtype(), t->device());
  GetDeviceKernels(t->device().type).copy(*t, *out);
  c.outputs = {out};
}
OF_OP("clone(Tensor self, *, int? memory_format=None) -> Tensor")
    .Infer(InferView)
    .Backward(OF_IDENTITY_GRAD)
    .Sbp(sbp::Elementwise("P"))
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_ANY_DEVICE_KERNEL("clone", &CloneKernel);

// The gradient comes back in the input's dtype (OpNode casts it).
void ToDTypeKernel(OpCall& c) {
  c.outputs = {ToDType(c.tensor(arg::_to_dtype::self), c.get(arg::_to_dtype::dtype),
                       c.get(arg::_to_dtype::copy))};
}
OF_OP("_to_dtype(Tensor(a) self, ScalarType dtype, bool copy=False) -> Tensor(a)")
    .Infer(InferView)
    .Backward(OF_IDENTITY_GRAD)
    .Sbp(sbp::Family("to_dtype"))
    .Autocast(amp::kNone);
OF_ANY_DEVICE_KERNEL("_to_dtype", &ToDTypeKernel);

// fill_, zero_ and copy_ (self first in all three).
void InferFill(OpCall& call) {
  const TensorImplPtr& self = call.tensor(arg::fill_::self);
  call.compute_dtype = self->dtype();
  call.out_meta = {{self->shape(), self->dtype()}};
}
// Kernels write through the device kernels: the dispatcher bumps the version once.
void FillKernel(OpCall& c) {
  GetDeviceKernels(c.device.type).fill(*c.outputs[0], c.get(arg::fill_::value));
}
OF_OP("fill_(Tensor(a!) self, Scalar value) -> Tensor(a!)")
    .Infer(InferFill)
    .Backward([](BackwardCtx& c) -> TensorList { return {ZerosLike(c.grad())}; })
    .Sbp(sbp::Family("fill"))
    .Autocast(amp::kNone);
OF_ANY_DEVICE_KERNEL("fill_", &FillKernel);

void ZeroKernel(OpCall& c) { GetDeviceKernels(c.device.type).fill(*c.outputs[0], Scalar::Int(0)); }
OF_OP("zero_(Tensor(a!) self) -> Tensor(a!)")
    .Infer(InferFill)
    .Backward([](BackwardCtx& c) -> TensorList { return {ZerosLike(c.grad())}; })
    .Sbp(sbp::Family("zero"))
    .Autocast(amp::kNone);
OF_ANY_DEVICE_KERNEL("zero_", &ZeroKernel);

void InferCopy(OpCall& call) {
  InferFill(call);
  const TensorImplPtr& self = call.tensor(arg::copy_::self);
  const TensorImplPtr& src = call.tensor(arg::copy_::src);
  BroadcastShapes(self->shape(), src->shape(), "copy_");
  OF_CHECK(src->ndim() <= self->ndim(), RuntimeError, "copy_(): source of shape ",
           ShapeToString(src->shape()), " cannot be broadcast to destination ",
           ShapeToString(self->shape()));
}
void CopyKernel(OpCall& c) {
  const TensorImplPtr& src = c.tensor(arg::copy_::src);
  if (src->device() != c.outputs[0]->device()) {
    // Across devices: the gradient goes back to src's device (OpNode moves it).
    CopyAcrossDevices(Expand(src, c.outputs[0]->shape()), c.outputs[0]);
    return;
  }
  GetDeviceKernels(c.device.type).copy(*Expand(src, c.outputs[0]->shape()), *c.outputs[0]);
}

OF_OP("copy_(Tensor(a!) self, Tensor src) -> Tensor(a!)")
    .Infer(InferCopy)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {c.needs_grad[0] ? ZerosLike(c.grad()) : nullptr,
              c.needs_grad[1] ? c.grad() : nullptr};
    })
    .Sbp(sbp::Family("copy"))
    .Autocast(amp::kNone)
    .Traits(kCrossDevice);
OF_ANY_DEVICE_KERNEL("copy_", &CopyKernel);

}  // namespace
}  // namespace defs
}  // namespace oneflow
