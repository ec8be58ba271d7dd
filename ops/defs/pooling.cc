// Pooling: max_pool{1,2,3}d (with and without indices), avg_pool{1,2,3}d,
// adaptive_avg_pool{1,2,3}d, adaptive_max_pool{1,2,3}d, max_unpool{1,2,3}d.
// Each takes (C, *spatial) or (N, C, *spatial) input, as PyTorch does. Shape
// checks and messages follow PyTorch's; kernels: ops/cpu/pooling_kernels.cc and
// ops/cpu/adaptive_pool_kernels.cc (one N-d kernel per family, reading N from
// the arguments).
//
// Gradients go through three gradient ops whose own gradients are again
// pooling ops (so create_graph works):
//   max_pool_with_indices_backward  scatter-add into the argmax positions
//                                   (max pools and adaptive max pools); its
//                                   gradient gathers at the same indices
//   avg_pool_backward               the adjoint of avg_pool; its gradient is
//                                   avg_pool
//   adaptive_avg_pool_backward      likewise for adaptive_avg_pool

#include <string>
#include <vector>

#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

std::string Sizes(const DimVector& v, const char* sep = "x") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

// PyTorch's floor division for sizes that may go negative.
int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// A list argument of a pooling op with `n` spatial dims: one value repeats
// (callers read an empty stride as kernel_size before this).
DimVector PoolParam(const DimVector& v, int64_t n, const std::string& op, const char* what,
                    const char* expect) {
  if (static_cast<int64_t>(v.size()) == n) return v;
  OF_CHECK(v.size() == 1, RuntimeError, op, ": ", what, " must ", expect,
           n == 1   ? " a single int"
           : n == 2 ? " a single int, or a tuple of two ints"
                    : " a single int, or a tuple of three ints",
           " (got ", ShapeToString(v), ")");
  return DimVector(n, v[0]);
}

// The input's rank: (C, *spatial) or (N, C, *spatial), with non-empty
// non-batch dims.
void CheckPoolInput(const TensorImplPtr& x, int64_t n, const std::string& op) {
  const int64_t nd = x->ndim();
  OF_CHECK(nd == n + 1 || nd == n + 2, RuntimeError, op, "(): Expected ", n + 1, "D or ", n + 2,
           "D (batch mode) tensor for input, but got input of size ", ShapeToString(x->shape()));
  for (int64_t d = nd == n + 2 ? 1 : 0; d < nd; ++d) {
    OF_CHECK(x->shape()[d] > 0, RuntimeError, op, "(): Expected ", n + 1, "D or ", n + 2,
             "D (batch mode) tensor with optional 0 dim batch size for input, but got input of "
             "size ",
             ShapeToString(x->shape()), " with dimension ", d, " being empty");
  }
}

// A pooling window's geometry, one entry per spatial dim.
struct Window {
  DimVector kernel, stride, padding, dilation;
  bool ceil_mode = false;
};

// Parses kernel_size/stride/padding/dilation (dilation may be absent: avg
// pools) and checks them; returns the output's shape.
DimVector PoolOutputShape(const std::string& op, const TensorImplPtr& x, int64_t n, Window& w) {
  w.kernel = PoolParam(w.kernel, n, op, "kernel_size", "be either");
  w.stride = w.stride.empty() ? w.kernel : PoolParam(w.stride, n, op, "stride", "be omitted,");
  w.padding = PoolParam(w.padding, n, op, "padding", "be either");
  w.dilation =
      w.dilation.empty() ? DimVector(n, 1) : PoolParam(w.dilation, n, op, "dilation", "be either");
  CheckPoolInput(x, n, op);
  const std::string input = " (input of size " + ShapeToString(x->shape()) + ")";
  for (int64_t i = 0; i < n; ++i) {
    OF_CHECK(w.kernel[i] > 0, RuntimeError, op,
             "(): kernel size should be greater than zero, but got kernel_size=",
             ShapeToString(w.kernel), input);
    OF_CHECK(w.stride[i] > 0, RuntimeError, op,
             "(): stride should be greater than zero, but got stride=", ShapeToString(w.stride),
             input);
    OF_CHECK(w.dilation[i] > 0, RuntimeError, op,
             "(): dilation should be greater than zero, but got dilation=",
             ShapeToString(w.dilation), input);
    OF_CHECK(w.padding[i] >= 0, RuntimeError, op,
             "(): pad must be non-negative, but got pad: ", ShapeToString(w.padding), input);
    OF_CHECK(w.padding[i] <= w.kernel[i] / 2, RuntimeError, op,
             "(): pad should be at most half of effective kernel size, but got pad=",
             ShapeToString(w.padding), ", kernel_size=", ShapeToString(w.kernel),
             " and dilation=", ShapeToString(w.dilation), input);
  }
  const int64_t lead = x->ndim() - n;
  DimVector out(x->shape().begin(), x->shape().begin() + lead);
  DimVector in_sp(x->shape().begin() + lead, x->shape().end()), out_sp(n);
  bool ok = true;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t in = in_sp[i], s = w.stride[i], p = w.padding[i];
    int64_t o =
        FloorDiv(in + 2 * p - w.dilation[i] * (w.kernel[i] - 1) - 1 + (w.ceil_mode ? s - 1 : 0),
                 s) +
        1;
    // With ceil_mode the last window must start inside the input or its
    // left padding.
    if (w.ceil_mode && (o - 1) * s >= in + p) --o;
    out_sp[i] = o;
    ok = ok && o > 0;
  }
  const int64_t channels = x->shape()[lead - 1];
  OF_CHECK(ok, RuntimeError, op, "(): Given input size: (", channels, "x", Sizes(in_sp),
           "). Calculated output size: (", channels, "x", Sizes(out_sp),
           "). Output size is too small");
  out.insert(out.end(), out_sp.begin(), out_sp.end());
  return out;
}

// The number of spatial dims of a pooling op: the digit in its name
// (max_pool2d_with_indices -> 2).
int64_t SpatialDimsOf(const std::string& name) {
  for (char ch : name) {
    if (ch >= '1' && ch <= '3') return ch - '0';
  }
  return 2;
}
int64_t SpatialDims(const OpCall& call) { return SpatialDimsOf(call.name()); }
int64_t SpatialDims(const BackwardCtx& c) { return SpatialDimsOf(c.op->schema().name); }

// The strides of a pooling result (or input gradient) of `shape` laid out like
// `like` over `n` spatial dims: channels_last when `like` is a batched 2-d
// (3-d) input that suggests it, as in PyTorch; else contiguous (empty).
DimVector PoolStrides(const TensorImplPtr& like, const DimVector& shape, int64_t n) {
  if (n < 2 || like->ndim() != n + 2 || static_cast<int64_t>(shape.size()) != n + 2) return {};
  const MemoryFormat f = SuggestMemoryFormat(like->shape(), like->stride());
  return f == MemoryFormat::kContiguous ? DimVector{} : MemoryFormatStrides(shape, f);
}

void CheckPoolDType(const TensorImplPtr& x, const std::string& op) {
  OF_CHECK(x->dtype() != DType::kBool, NotImplementedError, "\"", op,
           "\" not implemented for 'Bool'");
}

// ---- max pooling --------------------------------------------------------------

// max_poolNd_with_indices(self, kernel_size, stride, padding, dilation,
// ceil_mode) -> (values, indices); N = 1, 2, 3 have their arguments at the
// same places (max_pool1d_with_indices's names).
void InferMaxPool(OpCall& call) {
  namespace a = arg::max_pool1d_with_indices;
  const std::string op = call.name();
  const int64_t n = SpatialDims(call);
  Window w{call.get(a::kernel_size), call.get(a::stride), call.get(a::padding),
           call.get(a::dilation), call.get(a::ceil_mode)};
  const TensorImplPtr& x = call.tensor(a::input);
  DimVector shape = PoolOutputShape(op, x, n, w);
  CheckPoolDType(x, op);
  // The kernel reads the normalized lists.
  call.args[a::kernel_size] = w.kernel;
  call.args[a::stride] = w.stride;
  call.args[a::padding] = w.padding;
  call.args[a::dilation] = w.dilation;
  call.compute_dtype = x->dtype();
  DimVector stride = PoolStrides(x, shape, n);
  call.out_meta = {{shape, x->dtype(), stride}, {shape, DType::kInt64, stride}};
}

// The trailing `n` sizes of `shape`.
DimVector Trailing(const DimVector& shape, int64_t n) {
  return DimVector(shape.end() - n, shape.end());
}

TensorImplPtr MaxPoolBackward(const TensorImplPtr& g, const TensorImplPtr& indices,
                              const DimVector& input_shape, int64_t n) {
  return ops::max_pool_with_indices_backward(g, indices, Trailing(input_shape, n));
}

// `t` with its trailing `n` dims flattened into one.
TensorImplPtr FlattenTrailing(const TensorImplPtr& t, int64_t n) {
  DimVector shape(t->shape().begin(), t->shape().end() - n);
  int64_t inner = 1;
  for (int64_t s : Trailing(t->shape(), n)) inner *= s;
  shape.push_back(inner);
  return ops::reshape(t, shape);
}

// out[..., j] = src[..., indices[..., j]] per plane, the indices being flat
// offsets into src's trailing `n` dims; out has the indices' shape.
TensorImplPtr GatherPlanes(const TensorImplPtr& src, const TensorImplPtr& indices, int64_t n) {
  const int64_t lead = src->ndim() - n;
  TensorImplPtr out = ops::gather(FlattenTrailing(src, n), lead, FlattenTrailing(indices, n));
  return ops::reshape(out, indices->shape());
}

TensorList MaxPoolGrad(BackwardCtx& c) {
  const int64_t n = SpatialDims(c);
  return {MaxPoolBackward(c.grad(0), c.output(1),
                          c.get(arg::max_pool1d_with_indices::input)->shape(), n)};
}

// max_poolNd: the values of max_poolNd_with_indices (whose indices the
// gradient needs anyway). N = 1, 2, 3 have their arguments at the same places
// (max_pool1d's names).
void MaxPoolValues(OpCall& call) {
  namespace a = arg::max_pool1d;
  // max_poolNd_with_indices for N = 1, 2, 3.
  static constexpr decltype(&ops::max_pool1d_with_indices) kWithIndices[] = {
      &ops::max_pool1d_with_indices, &ops::max_pool2d_with_indices, &ops::max_pool3d_with_indices};
  const int64_t n = SpatialDims(call);
  OF_CHECK(n >= 1 && n <= 3, RuntimeError, "no op named '", call.name(),
           "_with_indices' is declared");
  call.outputs = {kWithIndices[n - 1](call.args[a::input], call.get(a::kernel_size),
                                      call.get(a::stride), call.get(a::padding),
                                      call.get(a::dilation), call.get(a::ceil_mode))[0]};
}

// max_pool3d runs in float32 under CPU autocast (PyTorch's CPU list).
#define OF_MAX_POOL(N)                                                                          \
  OF_OP("max_pool" #N "d(Tensor input, int[" #N "] kernel_size, int[" #N "] stride=[], int[" #N \
        "] padding=0, int[" #N                                                                  \
        "] dilation=1, bool ceil_mode=False) -> "                                               \
        "Tensor")                                                                               \
      .Composite(MaxPoolValues)                                                                 \
      .Sbp(sbp::Family("spatial", "n=" #N))                                                     \
      .Autocast(N == 3 ? amp::kFp32 : amp::kNone, amp::kNone);                                  \
  OF_OP("max_pool" #N "d_with_indices(Tensor input, int[" #N "] kernel_size, int[" #N           \
        "] stride=[], int[" #N "] padding=0, int[" #N                                           \
        "] dilation=1, bool ceil_mode=False) -> "                                               \
        "(Tensor, Tensor)")                                                                     \
      .Infer(InferMaxPool)                                                                      \
      .Backward(MaxPoolGrad)                                                                    \
      .Sbp(sbp::Family("spatial", "n=" #N))                                                     \
      .Autocast(N == 3 ? amp::kFp32 : amp::kNone, amp::kNone)

OF_MAX_POOL(1);
OF_MAX_POOL(2);
OF_MAX_POOL(3);

// grad_input[..., indices[..., j]] += grad_output[..., j] per plane (the
// leading dims); `indices` are flat offsets into the input's trailing dims,
// whose sizes `input_size` gives.
OF_OP(
    "max_pool_with_indices_backward(Tensor grad_output, Tensor indices, int[] input_size) -> "
    "Tensor")
    .Infer([](OpCall& call) {
      const TensorImplPtr& g = call.tensor(arg::max_pool_with_indices_backward::grad_output);
      const DimVector& sp = call.args[arg::max_pool_with_indices_backward::input_size].int_list();
      DimVector shape(g->shape().begin(), g->shape().end() - sp.size());
      shape.insert(shape.end(), sp.begin(), sp.end());
      call.compute_dtype = g->dtype();
      call.out_meta = {{shape, g->dtype(), PoolStrides(g, shape, static_cast<int64_t>(sp.size()))}};
    })
    .Backward([](BackwardCtx& c) -> TensorList {
      // Linear in grad_output: its gradient gathers at the indices.
      if (!c.needs_grad[0]) return {nullptr, nullptr};
      const int64_t n = static_cast<int64_t>(
          c.arg(arg::max_pool_with_indices_backward::input_size).int_list().size());
      return {GatherPlanes(c.grad(), c.get(arg::max_pool_with_indices_backward::indices), n),
              nullptr};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- average pooling -------------------------------------------------------------

// avg_poolNd(self, kernel_size, stride, padding, ceil_mode, count_include_pad
// [, divisor_override]): N = 1, 2, 3 have their arguments at the same places
// (avg_pool2d's names); avg_pool1d has no divisor_override.
void InferAvgPool(OpCall& call) {
  namespace a = arg::avg_pool2d;
  const std::string op = call.name();
  const int64_t n = SpatialDims(call);
  Window w{call.get(a::kernel_size),
           call.get(a::stride),
           call.get(a::padding),
           {},
           call.get(a::ceil_mode)};
  const TensorImplPtr& x = call.tensor(a::input);
  DimVector shape = PoolOutputShape(op, x, n, w);
  CheckPoolDType(x, op);
  if (static_cast<int>(call.args.size()) > a::divisor_override && call.has(a::divisor_override)) {
    OF_CHECK(*call.get(a::divisor_override) != 0, RuntimeError, op, "(): divisor must be not zero");
  }
  call.args[a::kernel_size] = w.kernel;
  call.args[a::stride] = w.stride;
  call.args[a::padding] = w.padding;
  call.compute_dtype = x->dtype();
  DimVector stride = PoolStrides(x, shape, n);
  call.out_meta = {{shape, x->dtype(), std::move(stride)}};
}

// avg_pool1d/2d/3d, read with avg_pool2d's names (see InferAvgPool).
TensorList AvgPoolGrad(BackwardCtx& c) {
  namespace a = arg::avg_pool2d;
  const std::optional<int64_t> divisor = static_cast<int>(c.args.size()) > a::divisor_override
                                             ? c.get(a::divisor_override)
                                             : std::nullopt;
  const int64_t n = SpatialDims(c);
  return {ops::avg_pool_backward(c.grad(), Trailing(c.get(a::input)->shape(), n),
                                 c.get(a::kernel_size), c.get(a::stride), c.get(a::padding),
                                 c.get(a::ceil_mode), c.get(a::count_include_pad), divisor)};
}

// grad_output's leading dims followed by `spatial`.
DimVector GradInputShape(const TensorImplPtr& g, const DimVector& spatial) {
  DimVector shape(g->shape().begin(), g->shape().end() - spatial.size());
  shape.insert(shape.end(), spatial.begin(), spatial.end());
  return shape;
}

OF_OP(
    "avg_pool1d(Tensor input, int[1] kernel_size, int[1] stride=[], int[1] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True) -> Tensor")
    .Infer(InferAvgPool)
    .Backward(AvgPoolGrad)
    .Sbp(sbp::Family("spatial", "n=1 linear=1"))
    .Autocast(amp::kNone);
OF_OP(
    "avg_pool2d(Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor")
    .Infer(InferAvgPool)
    .Backward(AvgPoolGrad)
    .Sbp(sbp::Family("spatial", "n=2 linear=1"))
    .Autocast(amp::kNone);
OF_OP(
    "avg_pool3d(Tensor input, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor")
    .Infer(InferAvgPool)
    .Backward(AvgPoolGrad)
    .Sbp(sbp::Family("spatial", "n=3 linear=1"))
    .Autocast(amp::kFp32, amp::kNone);

// The adjoint of avg_pool: each output gradient spread over its window with
// the forward's divisor. Arguments are the forward's, normalized; input_size
// holds the input's spatial sizes.
OF_OP(
    "avg_pool_backward(Tensor grad_output, int[] input_size, int[] kernel_size, int[] stride, "
    "int[] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor")
    .Infer([](OpCall& call) {
      namespace a = arg::avg_pool_backward;
      // The kernel reads normalized lists (the forward's arguments as given).
      const DimVector& input_size = call.args[a::input_size].int_list();
      const int64_t n = static_cast<int64_t>(input_size.size());
      const std::string op = "avg_pool" + std::to_string(n) + "d";
      DimVector kernel = PoolParam(call.get(a::kernel_size), n, op, "kernel_size", "be either");
      const DimVector& given_stride = call.args[a::stride].int_list();
      DimVector stride =
          given_stride.empty() ? kernel : PoolParam(given_stride, n, op, "stride", "be omitted,");
      call.args[a::padding] = PoolParam(call.get(a::padding), n, op, "padding", "be either");
      call.args[a::kernel_size] = std::move(kernel);
      call.args[a::stride] = std::move(stride);
      const TensorImplPtr& g = call.tensor(a::grad_output);
      call.compute_dtype = g->dtype();
      DimVector shape = GradInputShape(g, input_size);
      DimVector layout = PoolStrides(g, shape, n);
      call.out_meta = {{std::move(shape), call.compute_dtype, std::move(layout)}};
    })
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace a = arg::avg_pool_backward;
      if (!c.needs_grad[0]) return {nullptr};
      const int64_t n = static_cast<int64_t>(c.arg(a::input_size).int_list().size());
      const TensorImplPtr g = c.grad();
      const DimVector kernel = c.get(a::kernel_size), stride = c.get(a::stride),
                      padding = c.get(a::padding);
      const bool ceil_mode = c.get(a::ceil_mode);
      const bool count_include_pad = c.get(a::count_include_pad);
      switch (n) {
        case 1:
          return {ops::avg_pool1d(g, kernel, stride, padding, ceil_mode, count_include_pad)};
        case 2:
          return {ops::avg_pool2d(g, kernel, stride, padding, ceil_mode, count_include_pad,
                                  c.get(a::divisor_override))};
        case 3:
          return {ops::avg_pool3d(g, kernel, stride, padding, ceil_mode, count_include_pad,
                                  c.get(a::divisor_override))};
      }
      OF_THROW(RuntimeError, "no op named 'avg_pool", n, "d' is declared");
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- adaptive pooling ----------------------------------------------------------

// Checks an adaptive pool's input and output_size; returns the output shape.
// (adaptive_{avg,max}_pool{1,2,3}d: input and output_size at the same places.)
DimVector AdaptiveOutputShape(const OpCall& call, int64_t n) {
  const std::string op = call.name();
  const TensorImplPtr& x = call.tensor(arg::adaptive_avg_pool1d::input);
  const DimVector& size = call.args[arg::adaptive_avg_pool1d::output_size].int_list();
  OF_CHECK(static_cast<int64_t>(size.size()) == n, RuntimeError, op, ": output_size must be ", n,
           " (got ", ShapeToString(size), ")");
  for (int64_t s : size) {
    OF_CHECK(s >= 0, RuntimeError, op,
             ": elements of output_size must be greater than or equal to 0 but received ",
             ShapeToString(size));
  }
  const int64_t nd = x->ndim();
  OF_CHECK(nd == n + 1 || nd == n + 2, RuntimeError, op, "(): Expected ", n + 1, "D or ", n + 2,
           "D tensor, but got input of size ", ShapeToString(x->shape()));
  for (int64_t d = 1; d < nd; ++d) {
    OF_CHECK(x->shape()[d] > 0, RuntimeError, op,
             "(): Expected input to have non-zero size for non-batch dimensions, but input has "
             "sizes ",
             ShapeToString(x->shape()), " with dimension ", d, " being empty");
  }
  OF_CHECK(IsFloatingPoint(x->dtype()), NotImplementedError, "\"", op, "\" not implemented for '",
           DTypeName(x->dtype()), "'");
  DimVector out(x->shape().begin(), x->shape().end() - n);
  out.insert(out.end(), size.begin(), size.end());
  return out;
}

// adaptive_avg_pool1d/2d/3d (adaptive_avg_pool1d's names).
void InferAdaptiveAvg(OpCall& call) {
  const int64_t n = SpatialDims(call);
  DimVector shape = AdaptiveOutputShape(call, n);
  const TensorImplPtr& x = call.tensor(arg::adaptive_avg_pool1d::input);
  call.compute_dtype = x->dtype();
  DimVector stride = PoolStrides(x, shape, n);
  call.out_meta = {{shape, call.compute_dtype, std::move(stride)}};
}

// adaptive_max_pool1d/2d/3d (adaptive_max_pool1d's names).
void InferAdaptiveMax(OpCall& call) {
  const int64_t n = SpatialDims(call);
  DimVector shape = AdaptiveOutputShape(call, n);
  const TensorImplPtr& x = call.tensor(arg::adaptive_max_pool1d::input);
  call.compute_dtype = x->dtype();
  DimVector stride = PoolStrides(x, shape, n);
  call.out_meta = {{shape, call.compute_dtype, stride}, {shape, DType::kInt64, stride}};
}

TensorList AdaptiveAvgGrad(BackwardCtx& c) {
  const int64_t n = SpatialDims(c);
  return {ops::adaptive_avg_pool_backward(
      c.grad(), Trailing(c.get(arg::adaptive_avg_pool1d::input)->shape(), n))};
}

OF_OP("adaptive_avg_pool1d(Tensor input, int[1] output_size) -> Tensor")
    .Infer(InferAdaptiveAvg)
    .Backward(AdaptiveAvgGrad)
    .Sbp(sbp::Family("spatial", "n=1 linear=1"))
    .Autocast(amp::kNone);
OF_OP("adaptive_avg_pool2d(Tensor input, int[2] output_size) -> Tensor")
    .Infer(InferAdaptiveAvg)
    .Backward(AdaptiveAvgGrad)
    .Sbp(sbp::Family("spatial", "n=2 linear=1"))
    .Autocast(amp::kNone);
OF_OP("adaptive_avg_pool3d(Tensor input, int[3] output_size) -> Tensor")
    .Infer(InferAdaptiveAvg)
    .Backward(AdaptiveAvgGrad)
    .Sbp(sbp::Family("spatial", "n=3 linear=1"))
    .Autocast(amp::kFp32, amp::kNone);

// The adjoint of adaptive_avg_pool; input_size holds the input's spatial
// sizes. Its gradient is adaptive_avg_pool to grad_output's spatial sizes.
OF_OP("adaptive_avg_pool_backward(Tensor grad_output, int[] input_size) -> Tensor")
    .Infer([](OpCall& call) {
      namespace a = arg::adaptive_avg_pool_backward;
      const TensorImplPtr& g = call.tensor(a::grad_output);
      const DimVector& input_size = call.args[a::input_size].int_list();
      call.compute_dtype = g->dtype();
      DimVector shape = GradInputShape(g, input_size);
      DimVector stride = PoolStrides(g, shape, static_cast<int64_t>(input_size.size()));
      call.out_meta = {{std::move(shape), call.compute_dtype, std::move(stride)}};
    })
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace a = arg::adaptive_avg_pool_backward;
      if (!c.needs_grad[0]) return {nullptr};
      const int64_t n = static_cast<int64_t>(c.arg(a::input_size).int_list().size());
      const TensorImplPtr g = c.grad();
      const DimVector output_size = Trailing(c.get(a::grad_output)->shape(), n);
      switch (n) {
        case 1:
          return {ops::adaptive_avg_pool1d(g, output_size)};
        case 2:
          return {ops::adaptive_avg_pool2d(g, output_size)};
        case 3:
          return {ops::adaptive_avg_pool3d(g, output_size)};
      }
      OF_THROW(RuntimeError, "no op named 'adaptive_avg_pool", n, "d' is declared");
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

TensorList AdaptiveMaxGrad(BackwardCtx& c) {
  const int64_t n = SpatialDims(c);
  return {
      MaxPoolBackward(c.grad(0), c.output(1), c.get(arg::adaptive_max_pool1d::input)->shape(), n)};
}

OF_OP("adaptive_max_pool1d(Tensor input, int[1] output_size) -> (Tensor, Tensor)")
    .Infer(InferAdaptiveMax)
    .Backward(AdaptiveMaxGrad)
    .Sbp(sbp::Family("spatial", "n=1"))
    .Autocast(amp::kNone);
OF_OP("adaptive_max_pool2d(Tensor input, int[2] output_size) -> (Tensor, Tensor)")
    .Infer(InferAdaptiveMax)
    .Backward(AdaptiveMaxGrad)
    .Sbp(sbp::Family("spatial", "n=2"))
    .Autocast(amp::kNone);
OF_OP("adaptive_max_pool3d(Tensor input, int[3] output_size) -> (Tensor, Tensor)")
    .Infer(InferAdaptiveMax)
    .Backward(AdaptiveMaxGrad)
    .Sbp(sbp::Family("spatial", "n=3"))
    .Autocast(amp::kFp32, amp::kNone);

// ---- max_unpool -------------------------------------------------------------------

// max_unpool1d/2d/3d (max_unpool3d's names; only it has stride and padding).
void InferMaxUnpool(OpCall& call) {
  namespace a = arg::max_unpool3d;
  const std::string op = call.name();
  const int64_t n = SpatialDims(call);
  const TensorImplPtr &x = call.tensor(a::input), &idx = call.tensor(a::indices);
  const DimVector& size = call.args[a::output_size].int_list();
  OF_CHECK(idx->dtype() == DType::kInt64, RuntimeError, op,
           "(): elements in indices should be type int64 but got: ", DTypeName(idx->dtype()));
  OF_CHECK(static_cast<int64_t>(size.size()) == n, RuntimeError, op, "(): There should be exactly ",
           n, " elements (depth, height, width) in output_size, but got ", size.size(),
           " elements.");
  OF_CHECK(x->ndim() == n + 1 || x->ndim() == n + 2, RuntimeError, op, "(): Expected ", n + 1,
           "d or ", n + 2, "d (batch mode) tensor for input, but got: ", ShapeToString(x->shape()));
  OF_CHECK(x->shape() == idx->shape(), RuntimeError, op,
           "(): Expected shape of indices to be same as that of the input tensor (",
           ShapeToString(x->shape()),
           ") but got indices tensor with shape: ", ShapeToString(idx->shape()));
  for (int64_t d = 1; d < x->ndim(); ++d) {
    OF_CHECK(x->shape()[d] > 0, RuntimeError, op,
             "(): Expected input to have non-zero size for non-batch dimensions, but got ",
             ShapeToString(x->shape()), " with dimension ", d, " being empty.");
  }
  if (static_cast<int>(call.args.size()) > a::stride) {
    const DimVector& stride = call.args[a::stride].int_list();
    for (int64_t s : stride) {
      OF_CHECK(s > 0, RuntimeError, op,
               "(): strides should be greater than zero, but got stride: ", ShapeToString(stride));
    }
  }
  CheckPoolDType(x, op);
  DimVector out(x->shape().begin(), x->shape().end() - n);
  out.insert(out.end(), size.begin(), size.end());
  call.compute_dtype = x->dtype();
  call.out_meta = {{out, x->dtype()}};
}

// The gradient of an unpool is the output gradient gathered at the indices
// (per plane, over the flattened spatial dims).
TensorList MaxUnpoolGrad(BackwardCtx& c) {
  if (!c.needs_grad[0]) return {nullptr, nullptr};
  const int64_t n = SpatialDims(c);
  return {GatherPlanes(c.grad(), c.get(arg::max_unpool3d::indices), n), nullptr};
}

OF_OP("max_unpool1d(Tensor input, Tensor indices, int[1] output_size) -> Tensor")
    .Infer(InferMaxUnpool)
    .Backward(MaxUnpoolGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_OP("max_unpool2d(Tensor input, Tensor indices, int[2] output_size) -> Tensor")
    .Infer(InferMaxUnpool)
    .Backward(MaxUnpoolGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32, amp::kNone);
OF_OP(
    "max_unpool3d(Tensor input, Tensor indices, int[3] output_size, int[3] stride, "
    "int[3] padding) -> Tensor")
    .Infer(InferMaxUnpool)
    .Backward(MaxUnpoolGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32, amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
