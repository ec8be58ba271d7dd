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

// Views compute in the input's dtype and allocate nothing.
void InferView(OpCall& call) { call.compute_dtype = call.tensor(0)->dtype(); }

// A view op with its SBP rule; views never change dtype, so autocast leaves
// them alone.
#define OF_VIEW_OP(schema, name, expr, grad_expr, sbp_rule)                   \
  OF_OP(schema)                                                               \
      .Infer(InferView)                                                       \
      .Backward([](BackwardCtx& c) -> TensorList {                            \
        [[maybe_unused]] const TensorImplPtr g = c.grad();                    \
        [[maybe_unused]] auto x = [&] { return c.input(0); };                 \
        return {grad_expr};                                                   \
      })                                                                      \
      .Sbp(sbp_rule)                                                          \
      .Autocast(amp::kNone);                                                  \
  void name##Kernel(OpCall& c) {                                             \
    [[maybe_unused]] const TensorImplPtr& t = c.tensor(0);                   \
    c.outputs = {expr};                                                      \
  }                                                                          \
  OF_ANY_DEVICE_KERNEL(#name, &name##Kernel)

DimVector Shape(const TensorImplPtr& t) { return t->shape(); }

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

std::optional<DimVector> OptionalDims(const Value& v) {
  if (v.is_none()) return std::nullopt;
  return v.int_list();
}

std::optional<int64_t> OptionalInt(const Value& v) {
  if (v.is_none()) return std::nullopt;
  return v.to_int();
}

OF_VIEW_OP("view(Tensor(a) self, int[] size) -> Tensor(a)", view, View(t, c.args[1].int_list()),
           Call("reshape", {g, Shape(x())}),
           sbp::Family("reshape", "local=view"));
OF_VIEW_OP("reshape(Tensor(a) self, int[] shape) -> Tensor(a)", reshape,
           Reshape(t, c.args[1].int_list()), Call("reshape", {g, Shape(x())}),
           sbp::Family("reshape"));
OF_VIEW_OP("flatten(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)", flatten,
           Flatten(t, c.args[1].to_int(), c.args[2].to_int()), Call("reshape", {g, Shape(x())}),
           sbp::Family("reshape", "target=flatten"));
OF_VIEW_OP("squeeze(Tensor(a) self, int[]? dim=None) -> Tensor(a)", squeeze,
           Squeeze(t, OptionalDims(c.args[1])), Call("reshape", {g, Shape(x())}),
           sbp::Family("squeeze"));
OF_VIEW_OP("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", unsqueeze,
           Unsqueeze(t, c.args[1].to_int()), Call("reshape", {g, Shape(x())}),
           sbp::Family("unsqueeze"));
OF_VIEW_OP("expand(Tensor(a) self, int[] size) -> Tensor(a)", expand,
           Expand(t, c.args[1].int_list()), Call("sum_to_size", {g, Shape(x())}),
           sbp::Family("expand"));
OF_VIEW_OP("transpose(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", transpose,
           Transpose(t, c.args[1].to_int(), c.args[2].to_int()),
           Call("transpose", {g, c.int_arg(1), c.int_arg(2)}),
           sbp::Family("permute", "perm=swap"));
OF_VIEW_OP("t(Tensor(a) self) -> Tensor(a)", t, TwoDimTranspose(t), Call("t", {g}),
           sbp::Family("permute", "perm=reverse"));
OF_VIEW_OP("permute(Tensor(a) self, int[] dims) -> Tensor(a)", permute,
           Permute(t, c.args[1].int_list()),
           Call("permute", {g, InversePermutation(c.arg(1).int_list(), g->ndim())}),
           sbp::Family("permute"));
OF_VIEW_OP("narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)", narrow,
           Narrow(t, c.args[1].to_int(), c.args[2].to_int(), c.args[3].to_int()),
           Call("slice_backward",
                {g, Shape(x()), c.int_arg(1), Value(WrapStart(x(), c.int_arg(1), c.int_arg(2))),
                 Value(WrapStart(x(), c.int_arg(1), c.int_arg(2)) + c.int_arg(3)),
                 Value(int64_t{1})}),
           sbp::Family("along_dim", "linear=1"));
OF_VIEW_OP("select(Tensor(a) self, int dim, int index) -> Tensor(a)", select,
           Select(t, c.args[1].to_int(), c.args[2].to_int()),
           Call("select_backward", {g, Shape(x()), c.int_arg(1), c.int_arg(2)}),
           sbp::Family("along_dim", "removes=1 linear=1"));
OF_VIEW_OP(
    "slice(Tensor(a) self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor(a)",
    slice,
    Slice(t, c.args[1].to_int(), OptionalInt(c.args[2]), OptionalInt(c.args[3]),
          c.args[4].to_int()),
    Call("slice_backward", {g, Shape(x()), c.int_arg(1), c.arg(2), c.arg(3), c.int_arg(4)}),
           sbp::Family("along_dim", "default=0 linear=1"));

// Gradients of slicing: zeros of the input's shape with the gradient in the
// sliced part. Their own gradients slice again.
void SliceBackwardKernel(OpCall& c) {
  const TensorImplPtr& g = c.tensor(0);
  auto out = Full(c.args[1].int_list(), Scalar::Int(0), g->dtype(), g->device());
  CopyInto(g, Slice(out, c.args[2].to_int(), OptionalInt(c.args[3]), OptionalInt(c.args[4]),
                    c.args[5].to_int()));
  c.outputs = {out};
}
OF_OP(
    "slice_backward(Tensor grad_output, int[] input_sizes, int dim, int? start, int? end, int "
    "step) -> Tensor")
    .Infer(InferView)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {Call("slice", {c.grad(), c.int_arg(2), c.arg(3), c.arg(4), c.int_arg(5)})};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_ANY_DEVICE_KERNEL("slice_backward", &SliceBackwardKernel);

void SelectBackwardKernel(OpCall& c) {
  const TensorImplPtr& g = c.tensor(0);
  auto out = Full(c.args[1].int_list(), Scalar::Int(0), g->dtype(), g->device());
  CopyInto(g, Select(out, c.args[2].to_int(), c.args[3].to_int()));
  c.outputs = {out};
}
OF_OP("select_backward(Tensor grad_output, int[] input_sizes, int dim, int index) -> Tensor")
    .Infer(InferView)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {Call("select", {c.grad(), c.int_arg(2), c.int_arg(3)})};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_ANY_DEVICE_KERNEL("select_backward", &SelectBackwardKernel);

// ---- copies and conversions ------------------------------------------------

#define OF_IDENTITY_GRAD [](BackwardCtx& c) -> TensorList { return {c.grad()}; }

// memory_format: the code of a oneflow.memory_format (see MemoryFormat); the
// Python objects pass as ints.
void ContiguousKernel(OpCall& c) {
  c.outputs = {ContiguousAs(c.tensor(0), ToMemoryFormat(c.args[1].to_int(), "contiguous"))};
}
OF_OP("contiguous(Tensor(a) self, *, int memory_format=0) -> Tensor(a)")
    .Infer(InferView)
    .Backward(OF_IDENTITY_GRAD)
    .Sbp(sbp::Elementwise("P"))
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_ANY_DEVICE_KERNEL("contiguous", &ContiguousKernel);

void CloneKernel(OpCall& c) {
  const TensorImplPtr& t = c.tensor(0);
  if (c.args[1].is_none()) {
    c.outputs = {Clone(t)};
    return;
  }
  auto out = EmptyAs(t, ToMemoryFormat(c.args[1].to_int(), "clone"), t->dtype(), t->device());
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
  c.outputs = {ToDType(c.tensor(0), c.args[1].dtype(), c.args[2].to_bool())};
}
OF_OP("_to_dtype(Tensor(a) self, ScalarType dtype, bool copy=False) -> Tensor(a)")
    .Infer(InferView)
    .Backward(OF_IDENTITY_GRAD)
    .Sbp(sbp::Family("to_dtype"))
    .Autocast(amp::kNone);
OF_ANY_DEVICE_KERNEL("_to_dtype", &ToDTypeKernel);

void InferFill(OpCall& call) {
  const TensorImplPtr& self = call.tensor(0);
  call.compute_dtype = self->dtype();
  call.out_meta = {{self->shape(), self->dtype()}};
}
// Kernels write through the device kernels: the dispatcher bumps the version once.
void FillKernel(OpCall& c) {
  GetDeviceKernels(c.device.type).fill(*c.outputs[0], c.args[1].scalar());
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
  BroadcastShapes(call.tensor(0)->shape(), call.tensor(1)->shape(), "copy_");
  OF_CHECK(call.tensor(1)->ndim() <= call.tensor(0)->ndim(), RuntimeError,
           "copy_(): source of shape ", ShapeToString(call.tensor(1)->shape()),
           " cannot be broadcast to destination ", ShapeToString(call.tensor(0)->shape()));
}
void CopyKernel(OpCall& c) {
  OF_CHECK(c.tensor(1)->device() == c.outputs[0]->device(), RuntimeError,
           "copy_(): cross-device copy from ", c.tensor(1)->device().ToString(), " to ",
           c.outputs[0]->device().ToString(), " is not supported yet");
  GetDeviceKernels(c.device.type).copy(*Expand(c.tensor(1), c.outputs[0]->shape()), *c.outputs[0]);
}
OF_OP("copy_(Tensor(a!) self, Tensor src) -> Tensor(a!)")
    .Infer(InferCopy)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {c.needs_grad[0] ? ZerosLike(c.grad()) : nullptr,
              c.needs_grad[1] ? c.grad() : nullptr};
    })
    .Sbp(sbp::Family("copy"))
    .Autocast(amp::kNone);
OF_ANY_DEVICE_KERNEL("copy_", &CopyKernel);

}  // namespace
}  // namespace defs
}  // namespace oneflow
