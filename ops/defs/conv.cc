// Convolutions: conv1d/2d/3d (with PyTorch's 'same'/'valid' padding
// overloads) and conv_transpose1d/2d/3d. They are composites over one op,
// convolution (PyTorch's aten::convolution, N-d, plain or transposed), so the
// kernels and gradients exist once. Kernels: ops/cpu/conv_kernels.cc.
//
// Gradients. convolution is bilinear in (input, weight): y = B(x, w) + bias.
// Its gradients are two more ops,
//   convolution_input_backward(gy, w)   = B_x^T(gy; w)   (the input's gradient)
//   convolution_weight_backward(gy, x)  = B_w^T(gy; x)   (the weight's, and the bias's)
// and, both being linear in each argument, their own gradients are again
// convolution and these two ops, so create_graph works to any order:
//   d/dgy <gx, ggx> = B(ggx, w)          d/dw <gx, ggx> = B_w^T(gy; ggx)
//   d/dgy <gw, ggw> = B(x, ggw)          d/dx <gw, ggw> = B_x^T(gy; ggw)

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// Geometry arguments of a convolution, each with one entry per spatial dim.
struct ConvParams {
  DimVector stride, padding, dilation, output_padding;
  bool transposed = false;
  int64_t groups = 1;
};

std::string JoinX(const DimVector& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " x " : "") + std::to_string(v[i]);
  return s;
}

// A list argument given for `n` spatial dims: one value repeats (stride=2 for
// a 2-D convolution is (2, 2)).
DimVector ExpandParam(const DimVector& v, int64_t n, const char* name, const std::string& op) {
  if (static_cast<int64_t>(v.size()) == n) return v;
  OF_CHECK(v.size() == 1, RuntimeError, op, "(): expected ", name,
           " to be a single integer value or a list of ", n,
           " values to match the convolution dimensions, but got ", name, "=", ShapeToString(v));
  return DimVector(n, v[0]);
}

// PyTorch's names of tensor types in dtype-mismatch messages.
const char* TensorTypeName(DType d) {
  switch (d) {
    case DType::kFloat32:
      return "torch.FloatTensor";
    case DType::kFloat64:
      return "torch.DoubleTensor";
    case DType::kFloat16:
      return "torch.HalfTensor";
    case DType::kBFloat16:
      return "torch.BFloat16Tensor";
    case DType::kInt64:
      return "torch.LongTensor";
    case DType::kInt32:
      return "torch.IntTensor";
    case DType::kInt16:
      return "torch.ShortTensor";
    case DType::kInt8:
      return "torch.CharTensor";
    case DType::kUInt8:
      return "torch.ByteTensor";
    case DType::kBool:
      return "torch.BoolTensor";
  }
  return "?";
}

// Checks a convolution's arguments as PyTorch does (same exception types and
// messages, prefixed with the op's name) and returns the output's shape.
// `input` is batched here (N, C, *spatial).
DimVector CheckConv(const std::string& op, const TensorImplPtr& input, const TensorImplPtr& weight,
                    const TensorImplPtr& bias, ConvParams& p) {
  const int64_t nd = input->ndim();
  OF_CHECK(weight->ndim() == nd && nd >= 3, RuntimeError, op, "(): Expected ", weight->ndim(),
           "-dimensional input for ", weight->ndim(), "-dimensional weight ",
           ShapeToString(weight->shape()), ", but got ", nd, "-dimensional input of size ",
           ShapeToString(input->shape()), " instead");
  const int64_t ns = nd - 2;
  p.stride = ExpandParam(p.stride, ns, "stride", op);
  p.padding = ExpandParam(p.padding, ns, "padding", op);
  p.dilation = ExpandParam(p.dilation, ns, "dilation", op);
  if (p.transposed) p.output_padding = ExpandParam(p.output_padding, ns, "output_padding", op);
  // Argument errors name the operands too.
  const std::string operands = " (input of size " + ShapeToString(input->shape()) +
                               ", weight of size " + ShapeToString(weight->shape()) + ")";
  for (int64_t i = 0; i < ns; ++i) {
    OF_CHECK(p.padding[i] >= 0, RuntimeError, op,
             "(): negative padding is not supported: padding=", ShapeToString(p.padding), operands);
    OF_CHECK(p.stride[i] > 0, RuntimeError, op,
             "(): non-positive stride is not supported: stride=", ShapeToString(p.stride),
             operands);
    OF_CHECK(p.dilation[i] > 0, RuntimeError, op,
             "(): non-positive dilation is not supported: dilation=", ShapeToString(p.dilation),
             operands);
    if (p.transposed) {
      OF_CHECK(p.output_padding[i] >= 0, RuntimeError, op,
               "(): negative output_padding is not supported: output_padding=",
               ShapeToString(p.output_padding), operands);
    }
  }
  OF_CHECK(p.groups > 0, RuntimeError, op,
           "(): non-positive groups is not supported: groups=", p.groups, operands);
  const DimVector& ws = weight->shape();
  const DimVector& is = input->shape();
  OF_CHECK(ws[0] % p.groups == 0, RuntimeError, op, "(): Given groups=", p.groups,
           ", expected weight to be divisible by ", p.groups,
           " at dimension 0, but got weight of size [", ShapeToString(ws), "] instead");
  const int64_t in_channels = p.transposed ? ws[0] : ws[1] * p.groups;
  OF_CHECK(is[1] == in_channels, RuntimeError, op, "(): Given ",
           p.transposed ? "transposed=1" : "groups=" + std::to_string(p.groups),
           ", weight of size ", ShapeToString(ws), ", expected input", ShapeToString(is),
           " to have ", in_channels, " channels, but got ", is[1], " channels instead");
  const int64_t out_channels = p.transposed ? ws[1] * p.groups : ws[0];
  if (bias) {
    OF_CHECK(bias->ndim() == 1 && bias->shape()[0] == out_channels, RuntimeError, op, "(): Given ",
             p.transposed ? "transposed=1, " : "", "weight of size ", ShapeToString(ws),
             ", expected bias to be 1-dimensional with ", out_channels,
             " elements, but got bias of size ", ShapeToString(bias->shape()), " instead");
  }
  OF_CHECK(weight->dtype() == input->dtype(), RuntimeError, op, "(): Input type (",
           TensorTypeName(input->dtype()), ") and weight type (", TensorTypeName(weight->dtype()),
           ") should be the same", operands);
  if (bias) {
    OF_CHECK(bias->dtype() == input->dtype(), RuntimeError, op, "(): Input type (",
             TensorTypeName(input->dtype()), ") and bias type (", TensorTypeName(bias->dtype()),
             ") should be the same", operands);
  }
  OF_CHECK(input->dtype() != DType::kBool, RuntimeError, op,
           "(): \"convolution\" not implemented for 'Bool'");
  DimVector out = {is[0], out_channels};
  DimVector padded(ns), kernel(ns), sizes(ns);
  for (int64_t i = 0; i < ns; ++i) {
    const int64_t k = p.dilation[i] * (ws[2 + i] - 1) + 1;  // the dilated kernel's extent
    if (!p.transposed) {
      padded[i] = is[2 + i] + 2 * p.padding[i];
      kernel[i] = k;
      sizes[i] = (padded[i] - k) / p.stride[i] + 1;
    } else {
      OF_CHECK(p.output_padding[i] < p.stride[i] || p.output_padding[i] < p.dilation[i],
               RuntimeError, op,
               "(): output padding must be smaller than either stride or dilation, but got "
               "output_padding=",
               ShapeToString(p.output_padding), " stride=", ShapeToString(p.stride),
               " dilation=", ShapeToString(p.dilation), operands);
      sizes[i] = (is[2 + i] - 1) * p.stride[i] - 2 * p.padding[i] + k + p.output_padding[i];
    }
  }
  for (int64_t i = 0; i < ns; ++i) {
    if (!p.transposed) {
      OF_CHECK(padded[i] >= kernel[i], RuntimeError, op,
               "(): Calculated padded input size per channel: (", JoinX(padded),
               "). Kernel size: (", JoinX(kernel),
               "). Kernel size can't be greater than actual input size", operands);
    } else {
      DimVector in_sizes(is.begin() + 2, is.end());
      OF_CHECK(sizes[i] > 0, RuntimeError, op, "(): Given input size per channel: (",
               JoinX(in_sizes), "). Calculated output size per channel: (", JoinX(sizes),
               "). Output size is too small", operands);
    }
  }
  out.insert(out.end(), sizes.begin(), sizes.end());
  return out;
}

// The geometry arguments of convolution: stride, padding, dilation, transposed,
// output_padding, groups. `c`: its OpCall or BackwardCtx.
template <typename Ctx>
ConvParams ConvolutionParams(const Ctx& c) {
  ConvParams p;
  p.stride = c.get(arg::convolution::stride);
  p.padding = c.get(arg::convolution::padding);
  p.dilation = c.get(arg::convolution::dilation);
  p.transposed = c.get(arg::convolution::transposed);
  p.output_padding = c.get(arg::convolution::output_padding);
  p.groups = c.get(arg::convolution::groups);
  return p;
}

// The memory format of a convolution's result (and of its gradients) with
// these operands: channels_last (channels_last_3d) when either suggests it, as
// in PyTorch's oneDNN path; else contiguous.
MemoryFormat ConvFormat(const TensorImpl& a, const TensorImpl& b) {
  for (const TensorImpl* t : {&a, &b}) {
    const MemoryFormat f = SuggestMemoryFormat(t->shape(), t->stride());
    if (f != MemoryFormat::kContiguous && t->ndim() == a.ndim()) return f;
  }
  return MemoryFormat::kContiguous;
}

// Strides of an output of `shape` in format `f` (empty: contiguous).
DimVector FormatStrides(const DimVector& shape, MemoryFormat f) {
  if (f == MemoryFormat::kContiguous ||
      shape.size() != (f == MemoryFormat::kChannelsLast ? 4u : 5u)) {
    return {};
  }
  return MemoryFormatStrides(shape, f);
}

void InferConvolution(OpCall& call) {
  ConvParams p = ConvolutionParams(call);
  const TensorImplPtr& input = call.tensor(arg::convolution::input);
  const TensorImplPtr& weight = call.tensor(arg::convolution::weight);
  DimVector shape = CheckConv("convolution", input, weight, call.get(arg::convolution::bias), p);
  // The kernel reads the lists with one entry per spatial dim.
  call.args[arg::convolution::stride] = p.stride;
  call.args[arg::convolution::padding] = p.padding;
  call.args[arg::convolution::dilation] = p.dilation;
  if (p.transposed) call.args[arg::convolution::output_padding] = p.output_padding;
  call.compute_dtype = input->dtype();
  DimVector stride = FormatStrides(shape, ConvFormat(*input, *weight));
  call.out_meta = {{std::move(shape), input->dtype(), std::move(stride)}};
}

// output_padding that makes a transposed convolution of `in` produce `out`
// (its output size is ambiguous by up to stride - 1).
DimVector OutputPaddingFor(const DimVector& in, const DimVector& out, const DimVector& weight,
                           const ConvParams& p) {
  const size_t ns = in.size() - 2;
  DimVector op(ns, 0);
  if (!p.transposed) return op;
  for (size_t i = 0; i < ns; ++i) {
    const int64_t base =
        (in[2 + i] - 1) * p.stride[i] - 2 * p.padding[i] + p.dilation[i] * (weight[2 + i] - 1) + 1;
    op[i] = out[2 + i] - base;
  }
  return op;
}

// convolution(x, w, bias, ...), output_padding chosen so that the result has
// `out_shape`.
TensorImplPtr CallConvolution(const TensorImplPtr& x, const TensorImplPtr& w,
                              const TensorImplPtr& bias, const ConvParams& p,
                              const DimVector& out_shape) {
  return ops::convolution(x, w, bias, p.stride, p.padding, p.dilation, p.transposed,
                          OutputPaddingFor(x->shape(), out_shape, w->shape(), p), p.groups);
}

TensorImplPtr CallInputBackward(const TensorImplPtr& gy, const TensorImplPtr& w,
                                const DimVector& input_size, const ConvParams& p) {
  return ops::convolution_input_backward(gy, w, input_size, p.stride, p.padding, p.dilation,
                                         p.transposed, p.groups);
}

std::pair<TensorImplPtr, TensorImplPtr> CallWeightBackward(const TensorImplPtr& gy,
                                                           const TensorImplPtr& x,
                                                           const DimVector& weight_size,
                                                           const ConvParams& p, bool bias) {
  auto [gw, gb] = ops::convolution_weight_backward(gy, x, weight_size, p.stride, p.padding,
                                                   p.dilation, p.transposed, p.groups, bias);
  return {gw, bias ? gb : nullptr};
}

// The bias's gradient alone: gy summed over the batch and spatial dims.
TensorImplPtr BiasGrad(const TensorImplPtr& gy) {
  DimVector dims = {0};
  for (int64_t d = 2; d < gy->ndim(); ++d) dims.push_back(d);
  return ops::sum_dim(gy, dims, false);
}

TensorList ConvolutionGrad(BackwardCtx& c) {
  const ConvParams p = ConvolutionParams(c);
  // One gradient per tensor argument: a None bias has no entry.
  const bool has_bias = c.needs_grad.size() == 3;
  const TensorImplPtr g = c.grad();
  const TensorImplPtr x = c.get(arg::convolution::input), w = c.get(arg::convolution::weight);
  TensorImplPtr gx, gw, gb;
  if (c.needs_grad[0]) gx = CallInputBackward(g, w, x->shape(), p);
  const bool want_bias = has_bias && c.needs_grad[2];
  if (c.needs_grad[1]) {
    std::tie(gw, gb) = CallWeightBackward(g, x, w->shape(), p, want_bias);
    // The weight's gradient in the weight's own layout (it comes in the
    // activations' layout).
    const MemoryFormat wf = SuggestMemoryFormat(w->shape(), w->stride());
    if (!IsContiguousAs(gw->shape(), gw->stride(), wf)) {
      gw = ops::contiguous(gw, static_cast<int64_t>(wf));
    }
  } else if (want_bias) {
    gb = BiasGrad(g);
  }
  if (has_bias) return {gx, gw, gb};
  return {gx, gw};
}

OF_OP(
    "convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
    "int[] dilation, bool transposed, int[] output_padding, int groups) -> Tensor")
    .Infer(InferConvolution)
    .Backward(ConvolutionGrad)
    .Sbp(sbp::Family("conv"))
    .Autocast(amp::kLower);

// ---- gradient ops -------------------------------------------------------------

// The two gradient ops have their arguments up to groups at the same places
// (convolution_weight_backward's `input` is convolution_input_backward's
// `weight`): both are read with the names of convolution_input_backward.
namespace grad_arg = arg::convolution_input_backward;

// Geometry of the gradient ops: stride, padding, dilation, transposed, groups.
ConvParams GradParams(const BackwardCtx& c, int64_t ns) {
  ConvParams p;
  const char* op = "convolution";
  p.stride = ExpandParam(c.get(grad_arg::stride), ns, "stride", op);
  p.padding = ExpandParam(c.get(grad_arg::padding), ns, "padding", op);
  p.dilation = ExpandParam(c.get(grad_arg::dilation), ns, "dilation", op);
  p.transposed = c.get(grad_arg::transposed);
  p.groups = c.get(grad_arg::groups);
  p.output_padding.assign(p.stride.size(), 0);
  return p;
}

// Checks the operands' dtypes and expands the geometry lists to one entry
// per spatial dim (the forward's arguments arrive as given).
void PrepareGradOp(OpCall& call, const char* op) {
  const TensorImplPtr& gy = call.tensor(grad_arg::grad_output);
  const TensorImplPtr& operand = call.tensor(grad_arg::weight);
  OF_CHECK(gy->dtype() == operand->dtype(), RuntimeError, op,
           "(): expected grad_output and its operand to have the same dtype, but got ",
           DTypeName(gy->dtype()), " and ", DTypeName(operand->dtype()));
  const int64_t ns = gy->ndim() - 2;
  call.args[grad_arg::stride] = ExpandParam(call.get(grad_arg::stride), ns, "stride", op);
  call.args[grad_arg::padding] = ExpandParam(call.get(grad_arg::padding), ns, "padding", op);
  call.args[grad_arg::dilation] = ExpandParam(call.get(grad_arg::dilation), ns, "dilation", op);
}

OF_OP(
    "convolution_input_backward(Tensor grad_output, Tensor weight, int[] input_size, "
    "int[] stride, int[] padding, int[] dilation, bool transposed, int groups) -> Tensor")
    .Infer([](OpCall& call) {
      PrepareGradOp(call, "convolution_input_backward");
      const TensorImplPtr& gy = call.tensor(arg::convolution_input_backward::grad_output);
      const TensorImplPtr& w = call.tensor(arg::convolution_input_backward::weight);
      call.compute_dtype = gy->dtype();
      const DimVector& size = call.args[arg::convolution_input_backward::input_size].int_list();
      call.out_meta = {{size, call.compute_dtype, FormatStrides(size, ConvFormat(*gy, *w))}};
    })
    .Backward([](BackwardCtx& c) -> TensorList {
      // gx = B_x^T(gy; w): linear in gy (gradient B(ggx, w)) and in w.
      const TensorImplPtr ggx = c.grad(), gy = c.get(arg::convolution_input_backward::grad_output),
                          w = c.get(arg::convolution_input_backward::weight);
      const ConvParams p = GradParams(c, gy->ndim() - 2);
      TensorImplPtr dgy, dw;
      if (c.needs_grad[0]) dgy = CallConvolution(ggx, w, nullptr, p, gy->shape());
      if (c.needs_grad[1]) dw = CallWeightBackward(gy, ggx, w->shape(), p, false).first;
      return {dgy, dw};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

OF_OP(
    "convolution_weight_backward(Tensor grad_output, Tensor input, int[] weight_size, "
    "int[] stride, int[] padding, int[] dilation, bool transposed, int groups, bool bias) -> "
    "(Tensor, Tensor)")
    .Infer([](OpCall& call) {
      PrepareGradOp(call, "convolution_weight_backward");
      namespace a = arg::convolution_weight_backward;
      const TensorImplPtr& gy = call.tensor(a::grad_output);
      const TensorImplPtr& x = call.tensor(a::input);
      const DimVector& ws = call.args[a::weight_size].int_list();
      const bool transposed = call.get(a::transposed);
      const int64_t out_channels = transposed ? ws[1] * call.get(a::groups) : ws[0];
      call.compute_dtype = gy->dtype();
      call.out_meta = {{ws, call.compute_dtype, FormatStrides(ws, ConvFormat(*gy, *x))},
                       {{call.get(a::bias) ? out_channels : 0}, call.compute_dtype}};
    })
    .Backward([](BackwardCtx& c) -> TensorList {
      // (gw, gb) = (B_w^T(gy; x), sum(gy)): linear in gy (gradient B(x, ggw) +
      // ggb) and in x.
      namespace a = arg::convolution_weight_backward;
      const TensorImplPtr gy = c.get(a::grad_output), x = c.get(a::input);
      const ConvParams p = GradParams(c, gy->ndim() - 2);
      TensorImplPtr ggw = c.grads[0];
      TensorImplPtr ggb = c.get(a::bias) ? c.grads[1] : nullptr;
      TensorImplPtr dgy, dx;
      if (c.needs_grad[0] && (ggw || ggb)) {
        if (!ggw)
          ggw = Full(c.arg(a::weight_size).int_list(), Scalar::Int(0), gy->dtype(), gy->device());
        dgy = CallConvolution(x, ggw, ggb, p, gy->shape());
      }
      if (c.needs_grad[1] && ggw) dx = CallInputBackward(gy, ggw, x->shape(), p);
      return {dgy, dx};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- conv1d/2d/3d, conv_transpose1d/2d/3d ------------------------------------

// Runs convolution on `input`, which may lack the batch dim (PyTorch accepts
// (C, *spatial) and returns an unbatched result).
TensorImplPtr RunConv(const std::string& op, int64_t ns, TensorImplPtr input,
                      const TensorImplPtr& weight, const TensorImplPtr& bias, ConvParams p) {
  const int64_t nd = input->ndim();
  OF_CHECK(nd == ns + 1 || nd == ns + 2, RuntimeError, "Expected ", ns + 1, "D (unbatched) or ",
           ns + 2, "D (batched) input to ", op,
           ", but got input of size: ", ShapeToString(input->shape()));
  const bool unbatched = nd == ns + 1;
  if (unbatched) input = ops::unsqueeze(input, 0);
  OF_CHECK(weight->ndim() == ns + 2, RuntimeError, op, "(): expected a ", ns + 2,
           "-D weight, but got weight of size ", ShapeToString(weight->shape()));
  CheckConv(op, input, weight, bias, p);
  TensorImplPtr out = ops::convolution(input, weight, bias, p.stride, p.padding, p.dilation,
                                       p.transposed, p.output_padding, p.groups);
  if (unbatched) out = ops::squeeze(out, DimVector{0});
  return out;
}

// conv1d, conv2d and conv3d (their arguments at the same places: conv1d's names).
template <int N>
void ConvNd(OpCall& call) {
  namespace a = arg::conv1d;
  ConvParams p;
  p.stride = call.get(a::stride);
  p.padding = call.get(a::padding);
  p.dilation = call.get(a::dilation);
  p.groups = call.get(a::groups);
  p.output_padding.assign(N, 0);
  call.outputs = {
      RunConv(call.name(), N, call.tensor(a::input), call.tensor(a::weight), call.get(a::bias), p)};
}

// padding='valid' (none) or 'same' (the output has the input's size; stride
// must be 1). 'same' needs dilation * (k - 1) padding in total per dim; when
// that is odd PyTorch puts the extra element at the end. A convolution only
// pads symmetrically, so such dims are padded by the larger half on both
// sides and the one surplus output at the start is cut off. (conv1d.padding,
// conv2d.padding and conv3d.padding: conv1d.padding's names.)
template <int N>
void ConvNdPaddingMode(OpCall& call) {
  namespace a = arg::conv1d_padding;
  const std::string op = call.name();
  const std::string& mode = call.args[a::padding].str();
  ConvParams p;
  p.stride = ExpandParam(call.get(a::stride), N, "stride", op);
  p.dilation = ExpandParam(call.get(a::dilation), N, "dilation", op);
  p.groups = call.get(a::groups);
  p.output_padding.assign(N, 0);
  p.padding.assign(N, 0);
  const TensorImplPtr& input = call.tensor(a::input);
  const TensorImplPtr& weight = call.tensor(a::weight);
  const TensorImplPtr bias = call.get(a::bias);
  if (mode == "valid") {
    call.outputs = {RunConv(op, N, input, weight, bias, p)};
    return;
  }
  OF_CHECK(mode == "same", RuntimeError, op, "(): Invalid padding string: '", mode,
           "' (input of size ", ShapeToString(input->shape()), ")");
  for (int64_t s : p.stride) {
    OF_CHECK(s == 1, RuntimeError, op,
             "(): padding='same' is not supported for strided convolutions: stride=",
             ShapeToString(p.stride), " (input of size ", ShapeToString(input->shape()),
             ", weight of size ", ShapeToString(weight->shape()), ")");
  }
  OF_CHECK(weight->ndim() == N + 2, RuntimeError, op, "(): expected a ", N + 2,
           "-D weight, but got weight of size ", ShapeToString(weight->shape()));
  DimVector surplus(N, 0);
  for (int i = 0; i < N; ++i) {
    const int64_t total = p.dilation[i] * (weight->shape()[2 + i] - 1);
    const int64_t left = total / 2;
    p.padding[i] = total - left;
    surplus[i] = p.padding[i] - left;
  }
  TensorImplPtr out = RunConv(op, N, input, weight, bias, p);
  const int64_t first_spatial = out->ndim() - N;
  for (int i = 0; i < N; ++i) {
    if (surplus[i] == 0) continue;
    const int64_t d = first_spatial + i;
    out = ops::narrow(out, d, surplus[i], out->shape()[d] - surplus[i]);
  }
  if (!out->is_contiguous()) out = ops::contiguous(out);
  call.outputs = {out};
}

// conv_transpose1d/2d/3d (their arguments at the same places: conv_transpose1d's names).
template <int N>
void ConvTransposeNd(OpCall& call) {
  namespace a = arg::conv_transpose1d;
  ConvParams p;
  p.stride = call.get(a::stride);
  p.padding = call.get(a::padding);
  p.output_padding = call.get(a::output_padding);
  p.groups = call.get(a::groups);
  p.dilation = call.get(a::dilation);
  p.transposed = true;
  call.outputs = {
      RunConv(call.name(), N, call.tensor(a::input), call.tensor(a::weight), call.get(a::bias), p)};
}

OF_OP(
    "conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0, "
    "int[1] dilation=1, int groups=1) -> Tensor")
    .Composite(ConvNd<1>)
    .Sbp(sbp::Family("conv"))
    .Autocast(amp::kLower);
OF_OP(
    "conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
    "str padding=\"valid\", int[1] dilation=1, int groups=1) -> Tensor")
    .Composite(ConvNdPaddingMode<1>)
    .Sbp(sbp::Family("conv"))
    .Autocast(amp::kLower);
OF_OP(
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
    "int[2] dilation=1, int groups=1) -> Tensor")
    .Composite(ConvNd<2>)
    .Sbp(sbp::Family("conv"))
    .Autocast(amp::kLower);
OF_OP(
    "conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
    "str padding=\"valid\", int[2] dilation=1, int groups=1) -> Tensor")
    .Composite(ConvNdPaddingMode<2>)
    .Sbp(sbp::Family("conv"))
    .Autocast(amp::kLower);
OF_OP(
    "conv3d(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, int[3] padding=0, "
    "int[3] dilation=1, int groups=1) -> Tensor")
    .Composite(ConvNd<3>)
    .Sbp(sbp::Family("conv"))
    .Autocast(amp::kLower);
OF_OP(
    "conv3d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, "
    "str padding=\"valid\", int[3] dilation=1, int groups=1) -> Tensor")
    .Composite(ConvNdPaddingMode<3>)
    .Sbp(sbp::Family("conv"))
    .Autocast(amp::kLower);
OF_OP(
    "conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
    "int[1] padding=0, int[1] output_padding=0, int groups=1, int[1] dilation=1) -> Tensor")
    .Composite(ConvTransposeNd<1>)
    .Sbp(sbp::Family("conv", "transposed=1"))
    .Autocast(amp::kLower);
OF_OP(
    "conv_transpose2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
    "int[2] padding=0, int[2] output_padding=0, int groups=1, int[2] dilation=1) -> Tensor")
    .Composite(ConvTransposeNd<2>)
    .Sbp(sbp::Family("conv", "transposed=1"))
    .Autocast(amp::kLower);
OF_OP(
    "conv_transpose3d(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, "
    "int[3] padding=0, int[3] output_padding=0, int groups=1, int[3] dilation=1) -> Tensor")
    .Composite(ConvTransposeNd<3>)
    .Sbp(sbp::Family("conv", "transposed=1"))
    .Autocast(amp::kLower);

}  // namespace
}  // namespace defs
}  // namespace oneflow
