// The CUDA kernels of the vision layers: convolution on cuDNN (forward, input
// and weight gradients), batch norm (composed from the CUDA reductions and
// elementwise ops), max pooling with indices and adaptive average pooling
// (ops/cuda/pool.cu).

#include <cudnn.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "core/framework/grad_mode.h"
#include "core/runtime/device_kernels.h"
#include "core/runtime/view_ops.h"
#include "ops/cuda/cuda_runtime.h"
#include "ops/cuda/launch.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cuda {
namespace {

#define OF_CUDNN_CHECK(expr, op)                                                         \
  do {                                                                                   \
    cudnnStatus_t of_st_ = (expr);                                                       \
    OF_CHECK(of_st_ == CUDNN_STATUS_SUCCESS, RuntimeError, op, "(): cuDNN failed with ", \
             cudnnGetErrorString(of_st_), " (", #expr, ")");                             \
  } while (0)

// One handle per device, bound to that device's stream.
cudnnHandle_t Handle(int device) {
  static std::mutex mu;
  static std::vector<cudnnHandle_t> handles;
  std::lock_guard<std::mutex> lock(mu);
  if (handles.size() <= static_cast<size_t>(device)) handles.resize(device + 1, nullptr);
  if (handles[device] == nullptr) {
    OF_CUDNN_CHECK(cudnnCreate(&handles[device]), "cudnn");
    OF_CUDNN_CHECK(cudnnSetStream(handles[device], StreamOf(device)), "cudnn");
  }
  return handles[device];
}

cudnnDataType_t CudnnType(DType d, const char* op) {
  switch (d) {
    case DType::kFloat32:
      return CUDNN_DATA_FLOAT;
    case DType::kFloat64:
      return CUDNN_DATA_DOUBLE;
    case DType::kFloat16:
      return CUDNN_DATA_HALF;
    case DType::kBFloat16:
      return CUDNN_DATA_BFLOAT16;
    default:
      OF_THROW(NotImplementedError, "\"", op, "_cuda\" not implemented for '", DTypeName(d), "'");
  }
}

// cuDNN wants at least 2 spatial dims: a 1-d convolution runs as 2-d with height 1.
DimVector Dims4(const DimVector& shape) {
  DimVector d = shape;
  if (d.size() == 3) d.insert(d.begin() + 2, 1);
  return d;
}
DimVector Params(const DimVector& p, int64_t spatial, int64_t fill) {
  DimVector d = p;
  if (spatial == 1) d.insert(d.begin(), fill);
  return d;
}

std::vector<int> Ints(const DimVector& v) { return std::vector<int>(v.begin(), v.end()); }

// Descriptors for one convolution call, destroyed with it.
struct ConvDescs {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, b = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnDataType_t type;
  const char* op;

  ConvDescs(const DimVector& x_shape, const DimVector& w_shape, const DimVector& y_shape,
            const DimVector& stride, const DimVector& padding, const DimVector& dilation,
            int64_t groups, DType dtype, const char* op_name)
      : type(CudnnType(dtype, op_name)), op(op_name) {
    const int64_t spatial = static_cast<int64_t>(x_shape.size()) - 2;
    OF_CHECK(spatial >= 1 && spatial <= 3, RuntimeError, op,
             "(): expected a 3-d, 4-d or 5-d input, got ", ShapeToString(x_shape));
    SetTensor(&x, Dims4(x_shape));
    SetTensor(&y, Dims4(y_shape));
    const std::vector<int> wd = Ints(Dims4(w_shape));
    OF_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w), op);
    OF_CUDNN_CHECK(cudnnSetFilterNdDescriptor(w, type, CUDNN_TENSOR_NCHW,
                                              static_cast<int>(wd.size()), wd.data()),
                   op);
    const std::vector<int> pad = Ints(Params(padding, spatial, 0));
    const std::vector<int> str = Ints(Params(stride, spatial, 1));
    const std::vector<int> dil = Ints(Params(dilation, spatial, 1));
    OF_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv), op);
    const cudnnDataType_t compute =
        type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    OF_CUDNN_CHECK(
        cudnnSetConvolutionNdDescriptor(conv, static_cast<int>(pad.size()), pad.data(), str.data(),
                                        dil.data(), CUDNN_CROSS_CORRELATION, compute),
        op);
    OF_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv, static_cast<int>(groups)), op);
    // float32 without TF32 (as PyTorch with allow_tf32 off); tensor cores for 16-bit floats.
    OF_CUDNN_CHECK(
        cudnnSetConvolutionMathType(conv, type == CUDNN_DATA_FLOAT || type == CUDNN_DATA_DOUBLE
                                              ? CUDNN_FMA_MATH
                                              : CUDNN_TENSOR_OP_MATH),
        op);
  }
  ~ConvDescs() {
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (b) cudnnDestroyTensorDescriptor(b);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
  }
  ConvDescs(const ConvDescs&) = delete;
  ConvDescs& operator=(const ConvDescs&) = delete;

  void SetTensor(cudnnTensorDescriptor_t* d, const DimVector& shape) {
    OF_CUDNN_CHECK(cudnnCreateTensorDescriptor(d), op);
    const std::vector<int> dims = Ints(shape);
    std::vector<int> strides(dims.size());
    int acc = 1;
    for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
      strides[i] = acc;
      acc *= dims[i];
    }
    OF_CUDNN_CHECK(cudnnSetTensorNdDescriptor(*d, type, static_cast<int>(dims.size()), dims.data(),
                                              strides.data()),
                   op);
  }
  // The bias as (1, C, 1, ...) against y.
  void SetBias(int64_t channels, size_t rank) {
    DimVector shape(rank, 1);
    shape[1] = channels;
    SetTensor(&b, shape);
  }
};

// alpha = 1, beta = 0 in the type cuDNN scales by (double for double tensors).
struct Scaling {
  double d1 = 1, d0 = 0;
  float f1 = 1, f0 = 0;
  bool f64;
  explicit Scaling(cudnnDataType_t t) : f64(t == CUDNN_DATA_DOUBLE) {}
  const void* one() const { return f64 ? static_cast<const void*>(&d1) : &f1; }
  const void* zero() const { return f64 ? static_cast<const void*>(&d0) : &f0; }
};

TensorImplPtr Workspace(size_t bytes, const Device& device) {
  return TensorImpl::Empty({static_cast<int64_t>(std::max<size_t>(bytes, 1))}, DType::kUInt8,
                           device);
}

void CheckNotTransposed(bool transposed, const char* op) {
  OF_CHECK(!transposed, NotImplementedError, op,
           "(): transposed convolution has no CUDA kernel yet (conv_transpose on a GPU)");
}

void ConvolutionKernel(OpCall& c) {
  namespace a = arg::convolution;
  CheckNotTransposed(c.get(a::transposed), "convolution");
  const TensorImplPtr x = Contiguous(c.tensor(a::input)), w = Contiguous(c.tensor(a::weight));
  const TensorImplPtr bias = c.get(a::bias);
  const TensorImplPtr& out = c.outputs[0];
  DeviceGuard guard(out->device().index);
  TensorImplPtr y =
      out->is_contiguous() ? out : TensorImpl::Empty(out->shape(), out->dtype(), out->device());
  ConvDescs d(x->shape(), w->shape(), y->shape(), c.get(a::stride), c.get(a::padding),
              c.get(a::dilation), c.get(a::groups), x->dtype(), "convolution");
  cudnnHandle_t h = Handle(CurrentDevice());
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int found = 0;
  OF_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
                     h, d.x, d.w, d.conv, d.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf),
                 "convolution");
  OF_CHECK(found > 0, RuntimeError, "convolution(): cuDNN found no algorithm");
  const Scaling s(d.type);
  cudnnStatus_t st = CUDNN_STATUS_NOT_SUPPORTED;
  for (int i = 0; i < found && st != CUDNN_STATUS_SUCCESS; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    TensorImplPtr ws = Workspace(perf[i].memory, y->device());
    st = cudnnConvolutionForward(h, s.one(), d.x, x->data(), d.w, w->data(), d.conv, perf[i].algo,
                                 ws->data(), perf[i].memory, s.zero(), d.y, y->data());
  }
  OF_CUDNN_CHECK(st, "convolution");
  if (bias) {
    d.SetBias(y->shape()[1], Dims4(y->shape()).size());
    const TensorImplPtr b = Contiguous(bias);
    OF_CUDNN_CHECK(cudnnAddTensor(h, s.one(), d.b, b->data(), s.one(), d.y, y->data()),
                   "convolution");
  }
  if (y != out) CopyInto(y, out);
}

void ConvolutionInputBackwardKernel(OpCall& c) {
  namespace a = arg::convolution_input_backward;
  CheckNotTransposed(c.get(a::transposed), "convolution_backward");
  const TensorImplPtr g = Contiguous(c.tensor(a::grad_output)), w = Contiguous(c.tensor(a::weight));
  const TensorImplPtr& out = c.outputs[0];
  DeviceGuard guard(out->device().index);
  TensorImplPtr gx =
      out->is_contiguous() ? out : TensorImpl::Empty(out->shape(), out->dtype(), out->device());
  ConvDescs d(gx->shape(), w->shape(), g->shape(), c.get(a::stride), c.get(a::padding),
              c.get(a::dilation), c.get(a::groups), g->dtype(), "convolution_backward");
  cudnnHandle_t h = Handle(CurrentDevice());
  cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  int found = 0;
  OF_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
                     h, d.w, d.y, d.conv, d.x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf),
                 "convolution_backward");
  const Scaling s(d.type);
  cudnnStatus_t st = CUDNN_STATUS_NOT_SUPPORTED;
  for (int i = 0; i < found && st != CUDNN_STATUS_SUCCESS; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    TensorImplPtr ws = Workspace(perf[i].memory, gx->device());
    st = cudnnConvolutionBackwardData(h, s.one(), d.w, w->data(), d.y, g->data(), d.conv,
                                      perf[i].algo, ws->data(), perf[i].memory, s.zero(), d.x,
                                      gx->data());
  }
  OF_CUDNN_CHECK(st, "convolution_backward");
  if (gx != out) CopyInto(gx, out);
}

void ConvolutionWeightBackwardKernel(OpCall& c) {
  namespace a = arg::convolution_weight_backward;
  CheckNotTransposed(c.get(a::transposed), "convolution_backward");
  const TensorImplPtr g = Contiguous(c.tensor(a::grad_output)), x = Contiguous(c.tensor(a::input));
  const TensorImplPtr& gw_out = c.outputs[0];
  DeviceGuard guard(gw_out->device().index);
  TensorImplPtr gw = gw_out->is_contiguous()
                         ? gw_out
                         : TensorImpl::Empty(gw_out->shape(), gw_out->dtype(), gw_out->device());
  ConvDescs d(x->shape(), gw->shape(), g->shape(), c.get(a::stride), c.get(a::padding),
              c.get(a::dilation), c.get(a::groups), g->dtype(), "convolution_backward");
  cudnnHandle_t h = Handle(CurrentDevice());
  cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  int found = 0;
  OF_CUDNN_CHECK(
      cudnnGetConvolutionBackwardFilterAlgorithm_v7(
          h, d.x, d.y, d.conv, d.w, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, perf),
      "convolution_backward");
  const Scaling s(d.type);
  cudnnStatus_t st = CUDNN_STATUS_NOT_SUPPORTED;
  for (int i = 0; i < found && st != CUDNN_STATUS_SUCCESS; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    TensorImplPtr ws = Workspace(perf[i].memory, gw->device());
    st = cudnnConvolutionBackwardFilter(h, s.one(), d.x, x->data(), d.y, g->data(), d.conv,
                                        perf[i].algo, ws->data(), perf[i].memory, s.zero(), d.w,
                                        gw->data());
  }
  OF_CUDNN_CHECK(st, "convolution_backward");
  if (gw != gw_out) CopyInto(gw, gw_out);
  if (c.get(a::bias) && c.outputs.size() > 1 && c.outputs[1] && c.outputs[1]->numel() > 0) {
    const TensorImplPtr& gb = c.outputs[1];
    d.SetBias(g->shape()[1], Dims4(g->shape()).size());
    TensorImplPtr gbd =
        gb->is_contiguous() ? gb : TensorImpl::Empty(gb->shape(), gb->dtype(), gb->device());
    OF_CUDNN_CHECK(
        cudnnConvolutionBackwardBias(h, s.one(), d.y, g->data(), s.zero(), d.b, gbd->data()),
        "convolution_backward");
    if (gbd != gb) CopyInto(gbd, gb);
  }
}

// ---- batch norm, from the CUDA reductions and elementwise ops -------------------------------

// A number as a 0-d host tensor (elementwise CUDA kernels read it as a scalar).
TensorImplPtr Num(double v, DType dtype) {
  return Full({}, Scalar::Float(v), dtype, Device{DeviceType::kCPU, -1});
}

// The per-channel view (1, C, 1, ...) of a (C) tensor against x.
TensorImplPtr PerChannel(const TensorImplPtr& v, const TensorImplPtr& x) {
  DimVector shape(x->ndim(), 1);
  shape[1] = v->numel();
  return Reshape(v, shape);
}

DimVector ReducedDims(const TensorImplPtr& x) {
  DimVector dims = {0};
  for (int64_t d = 2; d < x->ndim(); ++d) dims.push_back(d);
  return dims;
}

const void* DataOrNull(const TensorImplPtr& t) { return t ? t->data() : nullptr; }

// Whether t is absent or a dense tensor of dtype d (what the fused kernels take).
bool AbsentOr(const TensorImplPtr& t, DType d) {
  return !t || (t->dtype() == d && t->is_contiguous());
}

// (N, C, S) of a contiguous (N, C, ...) tensor.
struct NCS {
  int64_t n, c, s;
};
NCS NcsOf(const TensorImplPtr& x) {
  NCS r{x->shape()[0], x->shape()[1], 1};
  for (int64_t d = 2; d < x->ndim(); ++d) r.s *= x->shape()[d];
  return r;
}

TensorImplPtr BnWorkspace(int64_t n, int64_t c, const Device& device) {
  return TensorImpl::Empty({2 * ChannelChunks(n) * c}, DType::kFloat64, device);
}

// Training batch norm in four kernels (two statistics passes, finishing, one apply pass).
bool FusedBatchNorm(OpCall& c) {
  namespace a = arg::native_batch_norm;
  const TensorImplPtr x = Contiguous(c.tensor(a::input));
  const DType sd = c.outputs[1]->dtype();
  const TensorImplPtr w = c.get(a::weight), b = c.get(a::bias);
  const TensorImplPtr rm = c.get(a::running_mean), rv = c.get(a::running_var);
  if (!c.get(a::training) || !AbsentOr(w, x->dtype()) || !AbsentOr(b, x->dtype()) ||
      !AbsentOr(rm, sd) || !AbsentOr(rv, sd) || !c.outputs[0]->is_contiguous() ||
      !(sd == x->dtype() || sd == DType::kFloat32)) {
    return false;
  }
  const NCS d = NcsOf(x);
  TensorImplPtr ws = BnWorkspace(d.n, d.c, x->device());
  LaunchBatchNormStats(x->data(), x->dtype(), sd, d.n, d.c, d.s, c.get(a::eps), c.get(a::momentum),
                       c.outputs[1]->data(), c.outputs[2]->data(), rm ? rm->data() : nullptr,
                       rv ? rv->data() : nullptr, reinterpret_cast<double*>(ws->data()));
  LaunchBatchNormApply(x->data(), c.outputs[0]->data(), x->dtype(), sd, d.n, d.c, d.s,
                       c.outputs[1]->data(), c.outputs[2]->data(), DataOrNull(w), DataOrNull(b));
  return true;
}

void BatchNormKernel(OpCall& c) {
  namespace a = arg::native_batch_norm;
  DeviceGuard device_guard(c.outputs[0]->device().index);
  if (FusedBatchNorm(c)) return;
  GradModeGuard no_grad(false);
  const TensorImplPtr x = c.tensor(a::input);
  const TensorImplPtr w = c.get(a::weight), b = c.get(a::bias);
  const TensorImplPtr rm = c.get(a::running_mean), rv = c.get(a::running_var);
  const bool training = c.get(a::training);
  const double momentum = c.get(a::momentum), eps = c.get(a::eps);
  const DType sd = c.outputs[1]->dtype();
  const DimVector dims = ReducedDims(x);
  TensorImplPtr mean, invstd;
  if (training) {
    const TensorImplPtr xf = ToDType(x, sd, false);
    mean = ops::mean_dim(xf, dims, false);
    const TensorImplPtr xc = ops::sub(xf, PerChannel(mean, x));
    const TensorImplPtr var = ops::mean_dim(ops::mul(xc, xc), dims, false);
    invstd = ops::rsqrt(ops::add(var, Num(eps, sd)));
    CopyInto(mean, c.outputs[1]);
    CopyInto(invstd, c.outputs[2]);
    const double n = static_cast<double>(x->numel() / x->shape()[1]);
    // The running variance moves towards the unbiased batch variance.
    const DType rd = rm ? rm->dtype() : sd;
    if (rm) {
      CopyInto(ops::add(ops::mul(rm, Num(1 - momentum, rd)), ops::mul(mean, Num(momentum, sd))),
               rm);
    }
    if (rv) {
      CopyInto(ops::add(ops::mul(rv, Num(1 - momentum, rd)),
                        ops::mul(var, Num(momentum * n / (n - 1), sd))),
               rv);
    }
  } else {
    mean = ToDType(rm, sd, false);
    invstd = ops::rsqrt(ops::add(ToDType(rv, sd, false), Num(eps, sd)));
  }
  TensorImplPtr scale = invstd, shift;
  if (w) scale = ops::mul(scale, ToDType(w, sd, false));
  shift = ops::neg(ops::mul(mean, scale));
  if (b) shift = ops::add(shift, ToDType(b, sd, false));
  TensorImplPtr y =
      ops::add(ops::mul(ToDType(x, sd, false), PerChannel(scale, x)), PerChannel(shift, x));
  CopyInto(y, c.outputs[0]);
}

// Training batch norm's gradients in two passes (per-channel sums, then gx).
bool FusedBatchNormBackward(OpCall& c) {
  namespace a = arg::native_batch_norm_backward;
  if (!c.get(a::train)) return false;
  const TensorImplPtr g = Contiguous(c.tensor(a::grad_out)), x = Contiguous(c.tensor(a::input));
  const TensorImplPtr mean = c.tensor(a::save_mean), invstd = c.tensor(a::save_invstd);
  const TensorImplPtr w = c.get(a::weight);
  const DType sd = mean->dtype();
  const DimVector mask = c.get(a::output_mask);
  auto out_at = [&](size_t i) -> TensorImplPtr {
    if (mask.size() <= i || !mask[i] || i >= c.outputs.size() || !c.outputs[i] ||
        c.outputs[i]->numel() == 0) {
      return nullptr;
    }
    return c.outputs[i];
  };
  const TensorImplPtr gx = out_at(0), gw = out_at(1), gb = out_at(2);
  if (g->dtype() != x->dtype() || !AbsentOr(w, x->dtype()) || !AbsentOr(mean, sd) ||
      !AbsentOr(invstd, sd) || !AbsentOr(gx, x->dtype()) || !AbsentOr(gw, x->dtype()) ||
      !AbsentOr(gb, x->dtype()) || !(sd == x->dtype() || sd == DType::kFloat32)) {
    return false;
  }
  const NCS d = NcsOf(x);
  TensorImplPtr ws = BnWorkspace(d.n, d.c, x->device());
  LaunchBatchNormBackward(g->data(), x->data(), x->dtype(), sd, d.n, d.c, d.s, mean->data(),
                          invstd->data(), DataOrNull(w), true, gx ? gx->data() : nullptr,
                          gw ? gw->data() : nullptr, gb ? gb->data() : nullptr,
                          reinterpret_cast<double*>(ws->data()));
  return true;
}

void BatchNormBackwardKernel(OpCall& c) {
  namespace a = arg::native_batch_norm_backward;
  DeviceGuard device_guard(c.tensor(a::input)->device().index);
  if (FusedBatchNormBackward(c)) return;
  GradModeGuard no_grad(false);
  const TensorImplPtr g0 = c.tensor(a::grad_out), x0 = c.tensor(a::input);
  const TensorImplPtr w = c.get(a::weight);
  const bool training = c.get(a::train);
  const double eps = c.get(a::eps);
  const DimVector mask = c.get(a::output_mask);
  const DType sd = training ? c.tensor(a::save_mean)->dtype() : c.tensor(a::running_mean)->dtype();
  const TensorImplPtr g = ToDType(g0, sd, false), x = ToDType(x0, sd, false);
  const DimVector dims = ReducedDims(x);
  TensorImplPtr mean, invstd;
  if (training) {
    mean = c.tensor(a::save_mean);
    invstd = c.tensor(a::save_invstd);
  } else {
    mean = ToDType(c.tensor(a::running_mean), sd, false);
    invstd = ops::rsqrt(ops::add(ToDType(c.tensor(a::running_var), sd, false), Num(eps, sd)));
  }
  const TensorImplPtr xhat = ops::mul(ops::sub(x, PerChannel(mean, x)), PerChannel(invstd, x));
  const TensorImplPtr sum_g = ops::sum_dim(g, dims, false);
  const TensorImplPtr sum_gx = ops::sum_dim(ops::mul(g, xhat), dims, false);
  const TensorImplPtr wf = w ? ToDType(w, sd, false) : nullptr;
  if (mask.size() > 0 && mask[0] && c.outputs[0]->numel() > 0) {
    TensorImplPtr k = wf ? ops::mul(invstd, wf) : invstd;
    TensorImplPtr gx;
    if (training) {
      const double n = static_cast<double>(x->numel() / x->shape()[1]);
      // gx = w invstd (g - mean(g) - xhat mean(g xhat))
      gx = ops::sub(ops::sub(g, PerChannel(ops::mul(sum_g, Num(1 / n, sd)), x)),
                    ops::mul(xhat, PerChannel(ops::mul(sum_gx, Num(1 / n, sd)), x)));
      gx = ops::mul(gx, PerChannel(k, x));
    } else {
      gx = ops::mul(g, PerChannel(k, x));
    }
    CopyInto(gx, c.outputs[0]);
  }
  if (mask.size() > 1 && mask[1] && c.outputs[1]->numel() > 0) CopyInto(sum_gx, c.outputs[1]);
  if (mask.size() > 2 && mask[2] && c.outputs[2]->numel() > 0) CopyInto(sum_g, c.outputs[2]);
}

// ---- pooling ---------------------------------------------------------------------------------

// The pooling shape of an (N, C, spatial...) input and output, spatial dims right-aligned.
PoolShape ShapeOf(const DimVector& in, const DimVector& out, const char* op) {
  const int64_t spatial = static_cast<int64_t>(in.size()) - 2;
  OF_CHECK(spatial >= 1 && spatial <= 3 && out.size() == in.size(), RuntimeError, op,
           "(): expected (N, C, ...) with 1 to 3 spatial dims, got ", ShapeToString(in));
  PoolShape s;
  s.planes = in[0] * in[1];
  for (int64_t i = 0; i < spatial; ++i) {
    s.in[3 - spatial + i] = in[2 + i];
    s.out[3 - spatial + i] = out[2 + i];
  }
  return s;
}

void SetWindow(int64_t* dst, const DimVector& v, int64_t spatial, int64_t fill) {
  for (int64_t i = 0; i < 3; ++i) dst[i] = fill;
  for (int64_t i = 0; i < spatial; ++i) {
    dst[3 - spatial + i] = v.empty() ? fill : v[v.size() == 1 ? 0 : i];
  }
}

void MaxPoolKernel(OpCall& c) {
  namespace a = arg::max_pool2d_with_indices;  // 1d/3d: the same argument indices
  const TensorImplPtr x = Contiguous(c.tensor(a::input));
  DeviceGuard guard(x->device().index);
  const TensorImplPtr& y = c.outputs[0];
  const TensorImplPtr& idx = c.outputs[1];
  OF_CHECK(y->is_contiguous() && idx->is_contiguous(), RuntimeError,
           "max_pool: outputs must be contiguous on CUDA");
  PoolShape s = ShapeOf(x->shape(), y->shape(), c.name().c_str());
  const int64_t spatial = x->ndim() - 2;
  const DimVector kernel = c.get(a::kernel_size);
  const DimVector stride = c.get(a::stride);
  SetWindow(s.kernel, kernel, spatial, 1);
  SetWindow(s.stride, stride.empty() ? kernel : stride, spatial, 1);
  SetWindow(s.pad, c.get(a::padding), spatial, 0);
  SetWindow(s.dilation, c.get(a::dilation), spatial, 1);
  LaunchMaxPool(x->data(), y->data(), reinterpret_cast<int64_t*>(idx->data()), x->dtype(), s);
}

TensorImplPtr FloatAcc(const DimVector& shape, const Device& device) {
  return Full(shape, Scalar::Int(0), DType::kFloat32, device);
}

void MaxPoolBackwardKernel(OpCall& c) {
  namespace a = arg::max_pool_with_indices_backward;
  const TensorImplPtr g = Contiguous(c.tensor(a::grad_output));
  const TensorImplPtr idx = Contiguous(c.tensor(a::indices));
  DeviceGuard guard(g->device().index);
  const TensorImplPtr& out = c.outputs[0];
  const PoolShape s = ShapeOf(out->shape(), g->shape(), "max_pool_backward");
  TensorImplPtr acc = FloatAcc(out->shape(), out->device());
  LaunchMaxPoolBackward(g->data(), reinterpret_cast<const int64_t*>(idx->data()),
                        reinterpret_cast<float*>(acc->data()), g->dtype(), s);
  CopyInto(acc, out);
}

void AdaptiveAvgPoolKernel(OpCall& c) {
  const TensorImplPtr x = Contiguous(c.tensor(arg::adaptive_avg_pool2d::input));
  DeviceGuard guard(x->device().index);
  const TensorImplPtr& y = c.outputs[0];
  OF_CHECK(y->is_contiguous(), RuntimeError, "adaptive_avg_pool: output must be contiguous");
  LaunchAdaptiveAvgPool(x->data(), y->data(), x->dtype(),
                        ShapeOf(x->shape(), y->shape(), c.name().c_str()));
}

void AdaptiveAvgPoolBackwardKernel(OpCall& c) {
  const TensorImplPtr g = Contiguous(c.tensor(arg::adaptive_avg_pool_backward::grad_output));
  DeviceGuard guard(g->device().index);
  const TensorImplPtr& out = c.outputs[0];
  TensorImplPtr acc = FloatAcc(out->shape(), out->device());
  LaunchAdaptiveAvgPoolBackward(g->data(), reinterpret_cast<float*>(acc->data()), g->dtype(),
                                ShapeOf(out->shape(), g->shape(), "adaptive_avg_pool_backward"));
  CopyInto(acc, out);
}

struct Registrations {
  Registrations() {
    Register("convolution", kFloatingDTypes, &ConvolutionKernel, false);
    Register("convolution_input_backward", kFloatingDTypes, &ConvolutionInputBackwardKernel, false);
    Register("convolution_weight_backward", kFloatingDTypes, &ConvolutionWeightBackwardKernel,
             false);
    Register("native_batch_norm", kFloatingDTypes, &BatchNormKernel, false);
    Register("native_batch_norm_backward", kFloatingDTypes, &BatchNormBackwardKernel, false);
    for (const char* op :
         {"max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices"}) {
      Register(op, kFloatingDTypes, &MaxPoolKernel, false);
    }
    Register("max_pool_with_indices_backward", kFloatingDTypes, &MaxPoolBackwardKernel, false);
    for (const char* op : {"adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"}) {
      Register(op, kFloatingDTypes, &AdaptiveAvgPoolKernel, false);
    }
    Register("adaptive_avg_pool_backward", kFloatingDTypes, &AdaptiveAvgPoolBackwardKernel, false);
  }
};
const Registrations registrations;

}  // namespace
}  // namespace cuda
}  // namespace oneflow
