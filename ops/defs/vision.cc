// Vision ops: interpolation (nearest, nearest-exact, linear, bilinear,
// trilinear, bicubic, area), grid sampling and affine grids, pixel shuffles and
// im2col / col2im (F.unfold / F.fold). Kernels: ops/cpu/upsample_kernels.cc,
// grid_sampler_kernels.cc and im2col_kernels.cc;
// Python wrappers (F.interpolate, F.grid_sample, ...): nn/functional/_vision.py.
//
// The interpolation ops take the input's size as an argument (as PyTorch's
// backward ops do), so their gradients need only sizes, never the saved input:
// an in-place change of the input after the forward does not break backward.
// Each is linear in its input, so the gradient of a forward op is its
// `_backward` op and the gradient of that is the forward op again.

#include <string>
#include <type_traits>
#include <utility>

#include "core/runtime/view_ops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// PyTorch's name of an op, for messages: no leading '_', no "_backward".
std::string DisplayName(const std::string& name) {
  std::string n = name;
  if (!n.empty() && n[0] == '_') n.erase(0, 1);
  const std::string suffix = "_backward";
  if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
    n.erase(n.size() - suffix.size());
  return n;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Sizes of the spatial dims as "(H: 4, W: 4)", PyTorch's format.
std::string SpatialToString(const DimVector& sizes) {
  static const char* kNames[] = {"D", "H", "W"};
  const size_t nd = sizes.size();
  std::string s = "(";
  for (size_t i = 0; i < nd; ++i) {
    if (i) s += ", ";
    s += StrCat(kNames[3 - nd + i], ": ", sizes[i]);
  }
  return s + ")";
}

// ---- interpolation ---------------------------------------------------------------

// Forward op (Tensor self, int[K] output_size, int[K+2] input_size, [bool
// align_corners,] float? scales...) and its backward op (Tensor grad_output,
// same arguments): the output has the input's batch and channels and
// output_size's spatial sizes. `area` ops take int[] sizes of any length 1..3.
void InferUpsample(OpCall& call) {
  const std::string op = DisplayName(call.name());
  const bool backward = EndsWith(call.name(), "_backward");
  // Every interpolation op has these three first (grad_output for self in backward ops).
  namespace a = arg::_upsample_nearest1d;
  const TensorImplPtr& t = call.tensor(a::self);
  const DimVector out_size = call.get(a::output_size);
  const DimVector in_size = call.get(a::input_size);
  const size_t nd = in_size.size() >= 2 ? in_size.size() - 2 : 0;
  OF_CHECK(nd >= 1 && nd <= 3 && out_size.size() == nd, RuntimeError, op,
           "(): expected output_size of ", nd, " spatial sizes for input_size ",
           ShapeToString(in_size), ", but got output_size ", ShapeToString(out_size));
  DimVector expected = {in_size[0], in_size[1]};
  expected.insert(expected.end(), backward ? out_size.begin() : in_size.begin() + 2,
                  backward ? out_size.end() : in_size.end());
  OF_CHECK(t->shape() == expected, RuntimeError, op, "(): expected ",
           backward ? "grad_output" : "input", " of shape ", ShapeToString(expected),
           ", but got a tensor of shape ", ShapeToString(t->shape()));
  const DimVector in_spatial(in_size.begin() + 2, in_size.end());
  if (op.rfind("upsample_area", 0) == 0) {
    // Adaptive average pooling: an empty output is fine, empty input planes are not.
    for (size_t d = 0; d < nd; ++d) {
      OF_CHECK(in_spatial[d] > 0, RuntimeError, "adaptive_avg_pool", nd,
               "d(): Expected input to have non-zero size for non-batch dimensions, but input has "
               "sizes ",
               ShapeToString(in_size), " with dimension ", d + 2, " being empty");
      OF_CHECK(out_size[d] >= 0, RuntimeError, "adaptive_avg_pool", nd,
               "d(): elements of output_size must be greater than or equal to 0 but received ",
               ShapeToString(out_size));
    }
    OF_CHECK(in_size[1] > 0, RuntimeError, "adaptive_avg_pool", nd,
             "d(): Expected input to have non-zero size for non-batch dimensions, but input has "
             "sizes ",
             ShapeToString(in_size), " with dimension 1 being empty");
  } else {
    bool ok = true;
    for (size_t d = 0; d < nd; ++d) ok = ok && in_spatial[d] > 0 && out_size[d] > 0;
    OF_CHECK(ok, RuntimeError, op,
             "(): Input and output sizes should be greater than 0, but got input ",
             SpatialToString(in_spatial), " output ", SpatialToString(out_size));
    // A batch of 0 is fine; empty channels are not.
    OF_CHECK(in_size[1] > 0, RuntimeError, op, "(): Non-empty ", nd + 2,
             "D data tensor expected but got a tensor with sizes ", ShapeToString(in_size));
  }
  DimVector shape = {in_size[0], in_size[1]};
  const DimVector& spatial = backward ? in_spatial : out_size;
  shape.insert(shape.end(), spatial.begin(), spatial.end());
  call.compute_dtype = t->dtype();
  call.out_meta = {{shape, t->dtype()}};
}

// The number of arguments of an ops:: entry point after its first.
template <typename... A>
constexpr size_t ArityAfterFirst(TensorImplPtr (*)(const ops::TensorArg&, A...)) {
  return sizeof...(A);
}

// `op` (an ops:: entry point) on the gradient, then this op's arguments after
// its first (op takes the same ones, in the same order).
template <typename... A, size_t... I>
TensorImplPtr OnGrad(TensorImplPtr (*op)(const ops::TensorArg&, A...), BackwardCtx& c,
                     std::index_sequence<I...>) {
  return op(c.grad(), c.get(ArgRef<std::decay_t<A>>{static_cast<int>(I) + 1})...);
}

// The gradient of a forward op is its backward op `Op` on the same arguments,
// and the other way round.
template <auto Op>
TensorList UpsampleGrad(BackwardCtx& c) {
  return {OnGrad(Op, c, std::make_index_sequence<ArityAfterFirst(Op)>{})};
}

// An upsampling op and its backward op, declared from the arguments after the
// input ("int[K] output_size, int[K+2] input_size, ..."; K = nd spatial dims,
// nd = 0 for mode='area', whose sizes have any length). `forward_grad` and
// `backward_grad` are their gradients.
void DeclareUpsample(OpDef& forward, OpDef& backward, int nd, BackwardFn forward_grad,
                     BackwardFn backward_grad) {
  // Nearest-neighbour resampling runs in float32 under CUDA autocast (PyTorch's list).
  const AutocastPolicy cuda_amp =
      forward.schema().name.find("nearest") != std::string::npos ? amp::kFp32 : amp::kNone;
  // Batch and channels split; mode='area' (nd == 0) has no rule yet.
  const SbpRule rule = nd > 0
                           ? sbp::Family("spatial", StrCat("n=", nd, " input_size_arg=input_size"))
                           : sbp::NoSplitRuleYet();
  forward.Infer(InferUpsample).Backward(forward_grad).Sbp(rule).Autocast(amp::kNone, cuda_amp);
  backward.Infer(InferUpsample)
      .Backward(backward_grad)
      .Sbp(sbp::NoSplitRuleYet())
      .Autocast(amp::kNone);
}

#define OF_UPSAMPLE(name, nd, args)                                                               \
  DeclareUpsample(OpRegistry::Declare(#name "(Tensor self, " args ") -> Tensor"),                 \
                  OpRegistry::Declare(#name "_backward(Tensor grad_output, " args ") -> Tensor"), \
                  nd, &UpsampleGrad<&ops::name##_backward>, &UpsampleGrad<&ops::name>)
#define OF_SCALES_1D "float? scales=None"
#define OF_SCALES_2D "float? scales_h=None, float? scales_w=None"
#define OF_SCALES_3D "float? scales_d=None, float? scales_h=None, float? scales_w=None"
#define OF_SIZES(k, k2) "int[" #k "] output_size, int[" #k2 "] input_size, "

[[maybe_unused]] const bool kUpsampleDeclared = [] {
  OF_UPSAMPLE(_upsample_nearest1d, 1, OF_SIZES(1, 3) OF_SCALES_1D);
  OF_UPSAMPLE(_upsample_nearest_exact1d, 1, OF_SIZES(1, 3) OF_SCALES_1D);
  OF_UPSAMPLE(_upsample_nearest2d, 2, OF_SIZES(2, 4) OF_SCALES_2D);
  OF_UPSAMPLE(_upsample_nearest_exact2d, 2, OF_SIZES(2, 4) OF_SCALES_2D);
  OF_UPSAMPLE(_upsample_nearest3d, 3, OF_SIZES(3, 5) OF_SCALES_3D);
  OF_UPSAMPLE(_upsample_nearest_exact3d, 3, OF_SIZES(3, 5) OF_SCALES_3D);
  OF_UPSAMPLE(_upsample_linear1d, 1, OF_SIZES(1, 3) "bool align_corners, " OF_SCALES_1D);
  OF_UPSAMPLE(_upsample_bilinear2d, 2, OF_SIZES(2, 4) "bool align_corners, " OF_SCALES_2D);
  OF_UPSAMPLE(_upsample_trilinear3d, 3, OF_SIZES(3, 5) "bool align_corners, " OF_SCALES_3D);
  OF_UPSAMPLE(_upsample_bicubic2d, 2, OF_SIZES(2, 4) "bool align_corners, " OF_SCALES_2D);
  // mode='area': adaptive average pooling to output_size.
  OF_UPSAMPLE(_upsample_area, 0, "int[] output_size, int[] input_size");
  return true;
}();

// ---- grid_sampler ----------------------------------------------------------------

// interpolation_mode: 0 bilinear, 1 nearest, 2 bicubic; padding_mode: 0 zeros,
// 1 border, 2 reflection (PyTorch's enums).
void CheckGridSampler(const TensorImplPtr& input, const TensorImplPtr& grid, int64_t mode,
                      int64_t padding) {
  const DimVector& is = input->shape();
  const DimVector& gs = grid->shape();
  OF_CHECK(input->dtype() == grid->dtype(), RuntimeError,
           "grid_sampler(): expected input and grid to have the same dtype, but input has ",
           DTypeName(input->dtype()), " and grid has ", DTypeName(grid->dtype()));
  OF_CHECK((input->ndim() == 4 || input->ndim() == 5) && input->ndim() == grid->ndim(),
           RuntimeError,
           "grid_sampler(): expected 4D or 5D input and grid with same number of "
           "dimensions, but got input with sizes ",
           ShapeToString(is), " and grid with sizes ", ShapeToString(gs));
  OF_CHECK(is[0] == gs[0], RuntimeError,
           "grid_sampler(): expected grid and input to have same batch size, but got input with "
           "sizes ",
           ShapeToString(is), " and grid with sizes ", ShapeToString(gs));
  OF_CHECK(gs.back() == input->ndim() - 2, RuntimeError,
           "grid_sampler(): expected grid to have size ", input->ndim() - 2,
           " in last dimension, but got grid with sizes ", ShapeToString(gs), " (input with sizes ",
           ShapeToString(is), ")");
  for (int64_t d = 2; d < input->ndim(); ++d) {
    OF_CHECK(is[d] > 0, RuntimeError,
             "grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
             "sizes ",
             ShapeToString(is), " with dimension ", d, " being empty");
  }
  OF_CHECK(mode >= 0 && mode <= 2, RuntimeError,
           "grid_sampler(): expected interpolation_mode 0 (bilinear), 1 (nearest) or 2 (bicubic), "
           "but got ",
           mode);
  OF_CHECK(
      padding >= 0 && padding <= 2, RuntimeError,
      "grid_sampler(): expected padding_mode 0 (zeros), 1 (border) or 2 (reflection), but got ",
      padding);
  OF_CHECK(
      mode != 2 || input->ndim() == 4, RuntimeError,
      "grid_sampler(): bicubic interpolation only supports 4D input, but got input with sizes ",
      ShapeToString(is));
}

void InferGridSampler(OpCall& call) {
  namespace a = arg::grid_sampler;
  const TensorImplPtr& input = call.tensor(a::input);
  const TensorImplPtr& grid = call.tensor(a::grid);
  CheckGridSampler(input, grid, call.get(a::interpolation_mode), call.get(a::padding_mode));
  DimVector shape = {input->shape()[0], input->shape()[1]};
  shape.insert(shape.end(), grid->shape().begin() + 1, grid->shape().end() - 1);
  call.compute_dtype = input->dtype();
  call.out_meta = {{shape, input->dtype()}};
}

OF_OP(
    "grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool "
    "align_corners) -> Tensor")
    .Infer(InferGridSampler)
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace a = arg::grid_sampler;
      auto [grad_input, grad_grid] = ops::grid_sampler_backward(
          c.grad(), c.get(a::input), c.get(a::grid), c.get(a::interpolation_mode),
          c.get(a::padding_mode), c.get(a::align_corners), static_cast<bool>(c.needs_grad[0]));
      return {c.needs_grad[0] ? grad_input : nullptr, c.needs_grad[1] ? grad_grid : nullptr};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32, amp::kPromote);

// Gradients of input and grid (the input's only when input_grad is set; else
// zeros). Not differentiable again, as in PyTorch.
void InferGridSamplerBackward(OpCall& call) {
  namespace a = arg::grid_sampler_backward;
  const TensorImplPtr& input = call.tensor(a::input);
  const TensorImplPtr& grid = call.tensor(a::grid);
  CheckGridSampler(input, grid, call.get(a::interpolation_mode), call.get(a::padding_mode));
  call.compute_dtype = input->dtype();
  call.out_meta = {{input->shape(), input->dtype()}, {grid->shape(), grid->dtype()}};
}
OF_OP(
    "grid_sampler_backward(Tensor grad_output, Tensor input, Tensor grid, int interpolation_mode, "
    "int padding_mode, bool align_corners, bool input_grad=True) -> (Tensor, Tensor)")
    .Infer(InferGridSamplerBackward)
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- affine_grid_generator -------------------------------------------------------

// The base grid (1, spatial..., K+1): normalized coordinates (x, y[, z], 1)
// of each output position, x varying fastest.
TensorImplPtr BaseGrid(const DimVector& spatial, bool align_corners, DType dtype) {
  const int64_t k = static_cast<int64_t>(spatial.size());
  DimVector shape = {1};
  shape.insert(shape.end(), spatial.begin(), spatial.end());
  shape.push_back(k + 1);
  TensorImplPtr base = Full(shape, Scalar::Int(1), DType::kFloat64, Device{});
  double* p = reinterpret_cast<double*>(base->data());
  // The coordinate of index i along a dim of n points, in [-1, 1].
  auto coord = [&](int64_t i, int64_t n) {
    if (n <= 1) return 0.0;
    double v = -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
    return align_corners ? v : v * static_cast<double>(n - 1) / static_cast<double>(n);
  };
  const int64_t positions = Numel(spatial);
  for (int64_t pos = 0; pos < positions; ++pos) {
    int64_t rest = pos;
    // Spatial dims are (D,) H, W; grid channel 0 is x (W), 1 is y (H), 2 is z (D).
    for (int64_t d = k - 1; d >= 0; --d) {
      const int64_t i = rest % spatial[d];
      rest /= spatial[d];
      p[pos * (k + 1) + (k - 1 - d)] = coord(i, spatial[d]);
    }
  }
  return ToDType(base, dtype, false);
}

// grid[n] = base @ theta[n]^T: (N, positions, K+1) x (N, K+1, K).
void AffineGridGenerator(OpCall& call) {
  const TensorImplPtr& theta = call.tensor(arg::affine_grid_generator::theta);
  const DimVector size = call.get(arg::affine_grid_generator::size);
  const bool align = call.get(arg::affine_grid_generator::align_corners);
  OF_CHECK(size.size() == 4 || size.size() == 5, RuntimeError,
           "affine_grid_generator(): expected a 4D or 5D size, but got size ", ShapeToString(size));
  const int64_t k = static_cast<int64_t>(size.size()) - 2;
  OF_CHECK(IsFloatingPoint(theta->dtype()), RuntimeError,
           "affine_grid_generator(): expected theta to have floating point type, but got ",
           DTypeName(theta->dtype()));
  OF_CHECK(theta->ndim() == 3 && theta->shape()[0] == size[0] && theta->shape()[1] == k &&
               theta->shape()[2] == k + 1,
           RuntimeError, "affine_grid_generator(): expected theta of shape [", size[0], ", ", k,
           ", ", k + 1, "] for size ", ShapeToString(size), ", but got theta of shape ",
           ShapeToString(theta->shape()));
  const DimVector spatial(size.begin() + 2, size.end());
  TensorImplPtr base = BaseGrid(spatial, align, theta->dtype());
  base = ops::expand(ops::reshape(base, DimVector{1, Numel(spatial), k + 1}),
                     DimVector{size[0], Numel(spatial), k + 1});
  TensorImplPtr grid = ops::bmm(base, ops::transpose(theta, 1, 2));
  DimVector shape = {size[0]};
  shape.insert(shape.end(), spatial.begin(), spatial.end());
  shape.push_back(k);
  call.outputs = {ops::reshape(grid, shape)};
}
OF_OP("affine_grid_generator(Tensor theta, int[] size, bool align_corners) -> Tensor")
    .Composite(AffineGridGenerator)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- pixel_shuffle / pixel_unshuffle --------------------------------------------

// (*, C*r*r, H, W) -> (*, C, H*r, W*r) as reshape, permute, reshape.
void PixelShuffle(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::pixel_shuffle::input);
  const int64_t r = call.get(arg::pixel_shuffle::upscale_factor);
  OF_CHECK(x->ndim() >= 3, RuntimeError,
           "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
           x->ndim(), " dimension(s)");
  OF_CHECK(r > 0, RuntimeError, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  const DimVector& s = x->shape();
  const int64_t nd = x->ndim();
  const int64_t c = s[nd - 3], h = s[nd - 2], w = s[nd - 1];
  OF_CHECK(c % (r * r) == 0, RuntimeError,
           "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
           "upscale_factor, but input.size(-3)=",
           c, " is not divisible by ", r * r, " (input of shape ", ShapeToString(s), ")");
  DimVector batch(s.begin(), s.end() - 3);
  const int64_t b = static_cast<int64_t>(batch.size());
  DimVector split = batch;
  for (int64_t v : {c / (r * r), r, r, h, w}) split.push_back(v);
  DimVector perm;
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  for (int64_t i : {0, 3, 1, 4, 2}) perm.push_back(b + i);
  DimVector out = batch;
  for (int64_t v : {c / (r * r), h * r, w * r}) out.push_back(v);
  TensorImplPtr y = ops::permute(ops::reshape(x, split), perm);
  call.outputs = {ops::clone(ops::reshape(y, out))};
}
OF_OP("pixel_shuffle(Tensor input, int upscale_factor) -> Tensor")
    .Composite(PixelShuffle)
    .Sbp(sbp::Family("spatial", "n=3"))
    .Autocast(amp::kNone);

// (*, C, H*r, W*r) -> (*, C*r*r, H, W).
void PixelUnshuffle(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::pixel_unshuffle::input);
  const int64_t r = call.get(arg::pixel_unshuffle::downscale_factor);
  OF_CHECK(x->ndim() >= 3, RuntimeError,
           "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
           x->ndim(), " dimension(s)");
  OF_CHECK(r > 0, RuntimeError, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const DimVector& s = x->shape();
  const int64_t nd = x->ndim();
  const int64_t c = s[nd - 3], h = s[nd - 2], w = s[nd - 1];
  OF_CHECK(
      h % r == 0, RuntimeError,
      "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=", h,
      " is not divisible by ", r, " (input of shape ", ShapeToString(s), ")");
  OF_CHECK(w % r == 0, RuntimeError,
           "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=",
           w, " is not divisible by ", r, " (input of shape ", ShapeToString(s), ")");
  DimVector batch(s.begin(), s.end() - 3);
  const int64_t b = static_cast<int64_t>(batch.size());
  DimVector split = batch;
  for (int64_t v : {c, h / r, r, w / r, r}) split.push_back(v);
  DimVector perm;
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  for (int64_t i : {0, 2, 4, 1, 3}) perm.push_back(b + i);
  DimVector out = batch;
  for (int64_t v : {c * r * r, h / r, w / r}) out.push_back(v);
  TensorImplPtr y = ops::permute(ops::reshape(x, split), perm);
  call.outputs = {ops::clone(ops::reshape(y, out))};
}
OF_OP("pixel_unshuffle(Tensor input, int downscale_factor) -> Tensor")
    .Composite(PixelUnshuffle)
    .Sbp(sbp::Family("spatial", "n=3"))
    .Autocast(amp::kNone);

// ---- im2col / col2im -------------------------------------------------------------

struct Window {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
};

// Checks the four int[2] window arguments.
Window ParseWindow(const DimVector& kernel_size, const DimVector& dilation,
                   const DimVector& padding, const DimVector& stride, const char* op) {
  const char* names[] = {"kernel_size", "dilation", "padding", "stride"};
  const DimVector v[4] = {kernel_size, dilation, padding, stride};
  for (int i = 0; i < 4; ++i) {
    OF_CHECK(v[i].size() == 2, RuntimeError, op, "(): It is expected ", names[i],
             " equals to 2, but got size ", v[i].size());
  }
  Window w{v[0][0], v[0][1], v[1][0], v[1][1], v[2][0], v[2][1], v[3][0], v[3][1]};
  OF_CHECK(w.kh > 0 && w.kw > 0, RuntimeError, op,
           "(): kernel size should be greater than zero, but got kernel_height: ", w.kh,
           " kernel_width: ", w.kw);
  OF_CHECK(w.dh > 0 && w.dw > 0, RuntimeError, op,
           "(): dilation should be greater than zero, but got dilation_height: ", w.dh,
           " dilation_width: ", w.dw);
  OF_CHECK(w.ph >= 0 && w.pw >= 0, RuntimeError, op,
           "(): padding should be non-negative, but got pad_height: ", w.ph, " pad_width: ", w.pw);
  OF_CHECK(w.sh > 0 && w.sw > 0, RuntimeError, op,
           "(): stride should be greater than zero, but got stride_height: ", w.sh,
           " stride_width: ", w.sw);
  return w;
}

// The number of window positions along a dim of `size`.
int64_t Blocks(int64_t size, int64_t k, int64_t d, int64_t p, int64_t s) {
  const int64_t span = size + 2 * p - (d * (k - 1) + 1);
  return span < 0 ? 0 : span / s + 1;
}

// (N, C, H, W) or (C, H, W) -> (N, C*kh*kw, L) or (C*kh*kw, L).
void InferIm2col(OpCall& call) {
  namespace a = arg::_im2col;
  const TensorImplPtr& x = call.tensor(a::self);
  const Window w = ParseWindow(call.get(a::kernel_size), call.get(a::dilation),
                               call.get(a::padding), call.get(a::stride), "unfold");
  const DimVector& s = x->shape();
  const bool batched = x->ndim() == 4;
  bool ok = x->ndim() == 3 || batched;
  for (int64_t d = batched ? 1 : 0; ok && d < x->ndim(); ++d) ok = s[d] > 0;
  OF_CHECK(ok, RuntimeError,
           "unfold(): Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
           "non-zero dimensions for input, but got: ",
           ShapeToString(s));
  const int64_t h = s[x->ndim() - 2], wd = s[x->ndim() - 1];
  const int64_t span_h = h + 2 * w.ph - (w.dh * (w.kh - 1) + 1);
  const int64_t span_w = wd + 2 * w.pw - (w.dw * (w.kw - 1) + 1);
  OF_CHECK(span_h >= 0 && span_w >= 0, RuntimeError, "unfold(): Given input with spatial size (", h,
           ", ", wd, "), kernel_size=(", w.kh, ", ", w.kw, "), dilation=(", w.dh, ", ", w.dw,
           "), padding=(", w.ph, ", ", w.pw,
           "), calculated shape of the array of sliding blocks as (", span_h / w.sh + 1, ", ",
           span_w / w.sw + 1, "), but its components must be at least one.");
  const int64_t blocks = Blocks(h, w.kh, w.dh, w.ph, w.sh) * Blocks(wd, w.kw, w.dw, w.pw, w.sw);
  const int64_t c = s[x->ndim() - 3];
  DimVector shape =
      batched ? DimVector{s[0], c * w.kh * w.kw, blocks} : DimVector{c * w.kh * w.kw, blocks};
  call.compute_dtype = x->dtype();
  call.out_meta = {{shape, x->dtype()}};
}

OF_OP(
    "_im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> "
    "Tensor")
    .Infer(InferIm2col)
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace a = arg::_im2col;
      const TensorImplPtr x = c.get(a::self);
      const DimVector hw(x->shape().end() - 2, x->shape().end());
      return {ops::_col2im(c.grad(), hw, c.get(a::kernel_size), c.get(a::dilation),
                           c.get(a::padding), c.get(a::stride))};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// (N, C*kh*kw, L) or (C*kh*kw, L) -> (N, C, H, W) or (C, H, W), summing
// overlapping windows.
void InferCol2im(OpCall& call) {
  namespace a = arg::_col2im;
  const TensorImplPtr& x = call.tensor(a::self);
  const DimVector out = call.get(a::output_size);
  OF_CHECK(out.size() == 2, RuntimeError,
           "fold(): It is expected output_size equals to 2, but got size ", out.size());
  OF_CHECK(out[0] > 0 && out[1] > 0, RuntimeError,
           "fold(): output_size should be greater than zero, but got output_height: ", out[0],
           " output_width: ", out[1]);
  const Window w = ParseWindow(call.get(a::kernel_size), call.get(a::dilation),
                               call.get(a::padding), call.get(a::stride), "fold");
  const DimVector& s = x->shape();
  const bool batched = x->ndim() == 3;
  bool ok = x->ndim() == 2 || batched;
  for (int64_t d = batched ? 1 : 0; ok && d < x->ndim(); ++d) ok = s[d] > 0;
  OF_CHECK(ok, RuntimeError,
           "fold(): Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
           "non-zero dimensions for input, but got: ",
           ShapeToString(s));
  const int64_t cols = s[x->ndim() - 2], l = s[x->ndim() - 1];
  OF_CHECK(cols % (w.kh * w.kw) == 0, RuntimeError, "fold(): Expected size of input's dimension ",
           x->ndim() - 2, " to be divisible by the product of kernel_size, but got input.size(",
           x->ndim() - 2, ")=", cols, " and kernel_size=(", w.kh, ", ", w.kw, ").");
  const int64_t bh = Blocks(out[0], w.kh, w.dh, w.ph, w.sh);
  const int64_t bw = Blocks(out[1], w.kw, w.dw, w.pw, w.sw);
  OF_CHECK(bh >= 1 && bw >= 1 && bh * bw == l, RuntimeError, "fold(): Given output_size=(", out[0],
           ", ", out[1], "), kernel_size=(", w.kh, ", ", w.kw, "), dilation=(", w.dh, ", ", w.dw,
           "), padding=(", w.ph, ", ", w.pw, "), stride=(", w.sh, ", ", w.sw,
           "), expected size of input's dimension ", x->ndim() - 1,
           " to match the calculated number of sliding blocks ", bh, " * ", bw, " = ", bh * bw,
           ", but got input.size(", x->ndim() - 1, ")=", l, ".");
  const int64_t c = cols / (w.kh * w.kw);
  DimVector shape = batched ? DimVector{s[0], c, out[0], out[1]} : DimVector{c, out[0], out[1]};
  call.compute_dtype = x->dtype();
  call.out_meta = {{shape, x->dtype()}};
}

OF_OP(
    "_col2im(Tensor self, int[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, "
    "int[2] stride) -> Tensor")
    .Infer(InferCol2im)
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace a = arg::_col2im;
      return {ops::_im2col(c.grad(), c.get(a::kernel_size), c.get(a::dilation), c.get(a::padding),
                           c.get(a::stride))};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
