// Padding: constant (any number of dims; negative padding crops), reflect,
// replicate and circular, and F.pad's dispatch between them (_pad). Kernels:
// ops/cpu/pad_kernels.cc.
//
// Padding lists follow F.pad: (left, right) of the last dim first, then of the
// dim before it, and so on. Every padding op is linear in its input; the
// reflect and replicate gradients are their `_backward` ops (sums of the
// gradient over the positions each input element was copied to), whose own
// gradients are the forward ops again. Circular padding is a composite of
// narrow and cat, so its gradient follows from theirs.

#include <algorithm>
#include <string>

#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// ---- constant_pad_nd ---------------------------------------------------------------

void InferConstantPad(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::constant_pad_nd::input);
  const DimVector pad = call.get(arg::constant_pad_nd::pad);
  OF_CHECK(pad.size() % 2 == 0, RuntimeError,
           "constant_pad_nd(): Length of pad must be even but instead it equals ", pad.size());
  OF_CHECK(static_cast<int64_t>(pad.size()) <= 2 * x->ndim(), RuntimeError,
           "constant_pad_nd(): Length of pad should be no more than twice the number of dimensions "
           "of the input. Pad length is ",
           pad.size(), " while the input has ", x->ndim(), " dimensions.");
  DimVector shape = x->shape();
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = x->ndim() - 1 - static_cast<int64_t>(i);
    const int64_t kept =
        shape[d] + std::min<int64_t>(pad[2 * i], 0) + std::min<int64_t>(pad[2 * i + 1], 0);
    OF_CHECK(kept >= 0, RuntimeError, "constant_pad_nd(): negative padding ", pad[2 * i], " and ",
             pad[2 * i + 1], " crops more than the size ", shape[d], " of dimension ", d,
             " of the input of shape ", ShapeToString(x->shape()));
    const int64_t n = shape[d] + pad[2 * i] + pad[2 * i + 1];
    OF_CHECK(n >= 0, RuntimeError, "constant_pad_nd(): The input size ", shape[d],
             ", plus negative padding ", pad[2 * i], " and ", pad[2 * i + 1],
             " resulted in a negative output size, which is invalid. Check dimension ", d,
             " of your input of shape ", ShapeToString(x->shape()), ".");
    shape[d] = n;
  }
  call.compute_dtype = x->dtype();
  call.out_meta = {{shape, x->dtype()}};
}

// The gradient crops what was padded and pads (with zeros) what was cropped.
OF_OP("constant_pad_nd(Tensor input, int[] pad, Scalar value=0) -> Tensor")
    .Infer(InferConstantPad)
    .Backward([](BackwardCtx& c) -> TensorList {
      DimVector neg = c.get(arg::constant_pad_nd::pad);
      for (int64_t& p : neg) p = -p;
      return {ops::constant_pad_nd(c.grad(), neg, Scalar::Int(0))};
    })
    .Sbp(sbp::Family("constant_pad"))
    .Autocast(amp::kNone);

// ---- reflect / replicate -----------------------------------------------------------

// "reflection_pad2d" for 4 padding values, as PyTorch names the op.
std::string PadOpName(const std::string& name, size_t pad_len) {
  const bool reflect = name.find("reflection") != std::string::npos;
  return StrCat(reflect ? "reflection_pad" : "replication_pad", pad_len / 2, "d");
}

// Forward (Tensor self, int[] padding) and backward (Tensor grad_output, int[]
// padding): the backward's input size is the gradient's minus the padding.
void InferReflectReplicate(OpCall& call) {
  const std::string& name = call.name();
  const bool backward = name.find("_backward") != std::string::npos;
  const bool reflect = name.find("reflection") != std::string::npos;
  // The four ops have the same argument indices.
  const TensorImplPtr& t = call.tensor(arg::_reflection_pad::self);
  const DimVector pad = call.get(arg::_reflection_pad::padding);
  const int64_t k = static_cast<int64_t>(pad.size()) / 2;
  OF_CHECK(pad.size() % 2 == 0 && k >= 1 && k <= 3, RuntimeError, name,
           "(): expected 2, 4 or 6 padding values, but got ", ShapeToString(pad));
  const std::string op = PadOpName(name, pad.size());
  const int64_t nd = t->ndim();
  DimVector in = t->shape();
  if (backward && nd >= k + 1) {
    for (int64_t i = 0; i < k; ++i) in[nd - 1 - i] -= pad[2 * i] + pad[2 * i + 1];
  }
  bool ok = nd == k + 1 || nd == k + 2;
  for (int64_t d = nd == k + 2 ? 1 : 0; ok && d < nd; ++d) ok = in[d] > 0;
  OF_CHECK(ok, RuntimeError, op, "(): Expected ", k + 1, "D or ", k + 2,
           "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
           "input, but got: ",
           ShapeToString(in));
  static const char* kNames[] = {"W", "H", "D"};
  DimVector out = in;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i;
    const int64_t l = pad[2 * i], r = pad[2 * i + 1];
    if (reflect) {
      OF_CHECK(l < in[d] && r < in[d], RuntimeError, op, "(): Argument #", 4 + 2 * i,
               ": Padding size should be less than the corresponding input dimension, but got: "
               "padding (",
               l, ", ", r, ") at dimension ", d, " of input ", ShapeToString(in));
    }
    out[d] = in[d] + l + r;
  }
  // As PyTorch's: an output dim may be empty as long as another is not.
  bool any_positive = false, any_negative = false;
  std::string in_text, out_text;
  for (int64_t i = k - 1; i >= 0; --i) {
    const int64_t d = nd - 1 - i;
    any_positive = any_positive || out[d] >= 1;
    any_negative = any_negative || out[d] < 0;
    in_text += StrCat(in_text.empty() ? "" : ", ", kNames[i], ": ", in[d]);
    out_text += StrCat(out_text.empty() ? "" : " ", kNames[i], ": ", out[d]);
  }
  OF_CHECK(any_positive && !any_negative, RuntimeError, op, "(): input (", in_text,
           ") is too small. Calculated output ", out_text, " (input of shape ", ShapeToString(in),
           ", padding ", ShapeToString(pad), ")");
  if (backward) {
    OF_CHECK(t->shape() == out, RuntimeError, name, "(): grad_output of shape ",
             ShapeToString(t->shape()), " does not fit padding ", ShapeToString(pad));
  }
  call.compute_dtype = t->dtype();
  call.out_meta = {{backward ? in : out, t->dtype()}};
}

// The forward's gradient is the backward op; the backward's is the forward.
OF_OP("_reflection_pad(Tensor self, int[] padding) -> Tensor")
    .Infer(InferReflectReplicate)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {ops::_reflection_pad_backward(c.grad(), c.get(arg::_reflection_pad::padding))};
    })
    .Sbp(sbp::Family("spatial", "n=any"))
    .Autocast(amp::kFp32, amp::kNone);
OF_OP("_reflection_pad_backward(Tensor grad_output, int[] padding) -> Tensor")
    .Infer(InferReflectReplicate)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {ops::_reflection_pad(c.grad(), c.get(arg::_reflection_pad_backward::padding))};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_OP("_replication_pad(Tensor self, int[] padding) -> Tensor")
    .Infer(InferReflectReplicate)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {ops::_replication_pad_backward(c.grad(), c.get(arg::_replication_pad::padding))};
    })
    .Sbp(sbp::Family("spatial", "n=any"))
    .Autocast(amp::kFp32, amp::kNone);
OF_OP("_replication_pad_backward(Tensor grad_output, int[] padding) -> Tensor")
    .Infer(InferReflectReplicate)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {ops::_replication_pad(c.grad(), c.get(arg::_replication_pad_backward::padding))};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- circular ----------------------------------------------------------------------

// Negative padding crops first; the rest wraps around the cropped tensor, at
// most once.
void PadCircular(OpCall& call) {
  const TensorImplPtr& input = call.tensor(arg::_pad_circular::self);
  TensorImplPtr x = input;
  const DimVector pad = call.get(arg::_pad_circular::pad);
  const int64_t k = static_cast<int64_t>(pad.size()) / 2;
  const int64_t nd = x->ndim();
  OF_CHECK(pad.size() % 2 == 0 && k >= 1 && k <= 3 && (nd == k + 1 || nd == k + 2), RuntimeError,
           "_pad_circular(): expected ", k + 1, "D or ", k + 2, "D input for ", pad.size(),
           " padding values, but got input of shape ", ShapeToString(x->shape()));
  DimVector out = x->shape();
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i;
    const int64_t l = pad[2 * i], r = pad[2 * i + 1];
    OF_CHECK(l <= x->shape()[d] && r <= x->shape()[d], RuntimeError,
             "_pad_circular(): Padding value causes wrapping around more than once: padding (", l,
             ", ", r, ") at dimension ", d, " of input ", ShapeToString(x->shape()));
    out[d] += l + r;
    OF_CHECK(out[d] >= 0, RuntimeError,
             "_pad_circular(): Negative padding value is resulting in an empty dimension: padding "
             "(",
             l, ", ", r, ") at dimension ", d, " of input ", ShapeToString(x->shape()));
  }
  if (Numel(out) == 0) {
    // An empty result (still connected to x for autograd): crop each dim to its output size.
    DimVector crop(pad.size());
    for (int64_t i = 0; i < k; ++i) crop[2 * i] = out[nd - 1 - i] - x->shape()[nd - 1 - i];
    call.outputs = {ops::constant_pad_nd(x, crop, Scalar::Int(0))};
    return;
  }
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i;
    const int64_t l = pad[2 * i], r = pad[2 * i + 1];
    const int64_t n = x->shape()[d];
    const int64_t lo = l < 0 ? -l : 0, hi = r < 0 ? -r : 0;
    const int64_t m = n - lo - hi;
    OF_CHECK(m >= 0 && l <= m && r <= m, RuntimeError,
             "_pad_circular(): Padding value causes wrapping around more than once: padding (", l,
             ", ", r, ") at dimension ", d, " of input ", ShapeToString(input->shape()), " (", m,
             " elements left after the negative padding)");
    TensorImplPtr core = ops::narrow(x, d, lo, m);
    TensorList parts;
    if (l > 0) parts.push_back(ops::narrow(core, d, m - l, l));
    parts.push_back(core);
    if (r > 0) parts.push_back(ops::narrow(core, d, 0, r));
    x = parts.size() == 1 ? core : ops::cat(parts, d);
  }
  if (x->storage() == input->storage()) x = ops::clone(x);
  call.outputs = {x};
}
OF_OP("_pad_circular(Tensor self, int[] pad) -> Tensor")
    .Composite(PadCircular)
    .Sbp(sbp::Family("spatial", "n=any"))
    .Autocast(amp::kNone);

// ---- F.pad -------------------------------------------------------------------------

void Pad(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::_pad::self);
  const DimVector pad = call.get(arg::_pad::pad);
  const std::string mode = call.get(arg::_pad::mode);
  const std::optional<double> value = call.get(arg::_pad::value);
  const int64_t nd = x->ndim();
  const int64_t len = static_cast<int64_t>(pad.size());
  OF_CHECK(mode == "constant" || mode == "reflect" || mode == "replicate" || mode == "circular",
           NotImplementedError, "pad(): Unrecognised padding mode ", mode);
  OF_CHECK(len % 2 == 0, RuntimeError, "pad(): Padding length must be divisible by 2, but got ",
           len, " padding values for input of shape ", ShapeToString(x->shape()));
  OF_CHECK(len <= nd * 2, RuntimeError,
           "pad(): Padding length should be less than or equal to two times the input dimension "
           "but got padding length ",
           len, " and input of dimension ", nd, " (shape ", ShapeToString(x->shape()), ")");
  if (mode == "constant") {
    const Scalar fill = value ? Scalar::Float(*value) : Scalar::Int(0);
    call.outputs = {ops::constant_pad_nd(x, pad, fill)};
    return;
  }
  OF_CHECK(!value || *value == 0, RuntimeError, "pad(): Padding mode \"", mode,
           "\" doesn't take in value argument");
  const int64_t k = len / 2;
  OF_CHECK(k >= 1 && k <= 3 && (nd == k + 1 || nd == k + 2), NotImplementedError,
           "pad(): Padding size ", len, " is not supported for ", nd, "D input tensor of shape ",
           ShapeToString(x->shape()),
           ".\nSupported combinations for non-constant padding:\n"
           "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
           "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
           "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)");
  if (mode == "reflect") {
    call.outputs = {ops::_reflection_pad(x, pad)};
  } else if (mode == "replicate") {
    call.outputs = {ops::_replication_pad(x, pad)};
  } else {
    call.outputs = {ops::_pad_circular(x, pad)};
  }
}
OF_OP("_pad(Tensor self, int[] pad, str mode=\"constant\", float? value=None) -> Tensor")
    .Composite(Pad)
    .Sbp(sbp::Family("spatial", "n=any"))
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
