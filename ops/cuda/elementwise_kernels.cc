// The CUDA kernels of the elementwise ops (arithmetic, comparisons, unary math,
// activations and their gradients, clamp, where, lerp, addcmul/addcdiv): the
// host side, which reads each call and runs a formula of ops/cuda/elementwise.cu.

#include <array>
#include <string>

#include "ops/cuda/cuda_runtime.h"
#include "ops/cuda/launch.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cuda {
namespace {

constexpr ArgRef<TensorImplPtr> kSelf = arg::abs::self;
constexpr ArgRef<TensorImplPtr> kOther = arg::add::other;

const Device kHost{DeviceType::kCPU, -1};

// ---- elementwise -------------------------------------------------------------

// Runs formula `name` with output c.outputs[0] and the given inputs.
void RunElementwise(OpCall& c, const char* name, std::initializer_list<TensorImplPtr> inputs,
                    std::array<double, 4> p = {0, 0, 0, 0}) {
  const TensorImplPtr& out = c.outputs[0];
  DeviceGuard guard(out->device().index);
  ElemArgs a = MakeElemArgs(out->shape(), c.name().c_str());
  SetOperand(a, 0, *out);
  int k = 1;
  for (const TensorImplPtr& t : inputs) SetOperand(a, k++, *t);
  Coalesce(a);
  OF_CHECK(LaunchElementwise(name, c.compute_dtype, a, p.data()), NotImplementedError, "\"",
           c.name(), "_cuda\": no CUDA formula '", name, "'");
}

// The op's name without a trailing "_" (in-place twins run the same formula).
std::string BaseName(const OpCall& c) {
  std::string n = c.name();
  if (!n.empty() && n.back() == '_') n.pop_back();
  return n;
}

void UnaryKernel(OpCall& c) { RunElementwise(c, BaseName(c).c_str(), {c.tensor(kSelf)}); }

void BinaryKernel(OpCall& c) {
  const std::string name = BaseName(c);
  std::array<double, 4> p = {1, 0, 0, 0};
  if (name == "add") p[0] = c.get(arg::add::alpha).d;
  if (name == "sub") p[0] = c.get(arg::sub::alpha).d;
  if (name == "div") {
    const std::optional<std::string> mode = c.get(arg::div::rounding_mode);
    p[0] = !mode ? 0 : (*mode == "trunc" ? 1 : 2);
  }
  RunElementwise(c, name.c_str(), {c.tensor(kSelf), c.tensor(kOther)}, p);
}

void WhereKernel(OpCall& c) {
  RunElementwise(
      c, "where",
      {c.tensor(arg::where::condition), c.tensor(arg::where::self), c.tensor(arg::where::other)});
}

void ClampKernel(OpCall& c) {
  const std::optional<Scalar> lo = c.get(arg::clamp::min), hi = c.get(arg::clamp::max);
  RunElementwise(c, "clamp", {c.tensor(arg::clamp::self)},
                 {lo ? lo->d : 0, hi ? hi->d : 0, lo ? 1.0 : 0.0, hi ? 1.0 : 0.0});
}

void ClampTensorKernel(OpCall& c) {
  namespace a = arg::clamp_Tensor;
  const TensorImplPtr& x = c.tensor(a::self);
  const TensorImplPtr lo = c.get(a::min), hi = c.get(a::max);
  OF_CHECK(lo || hi, RuntimeError, "clamp(): At least one of 'min' or 'max' must not be None");
  RunElementwise(c, "clamp_tensor", {x, lo ? lo : x, hi ? hi : x},
                 {lo ? 1.0 : 0.0, hi ? 1.0 : 0.0, 0, 0});
}

void AddcmulKernel(OpCall& c) {
  const std::string name = BaseName(c);
  const double value =
      name == "addcmul" ? c.get(arg::addcmul::value).d : c.get(arg::addcdiv::value).d;
  RunElementwise(c, name.c_str(),
                 {c.tensor(arg::addcmul::self), c.tensor(arg::addcmul::tensor1),
                  c.tensor(arg::addcmul::tensor2)},
                 {value, 0, 0, 0});
}

void LerpKernel(OpCall& c) {
  const TensorImplPtr& self = c.tensor(arg::lerp_Tensor::self);
  const TensorImplPtr& end = c.tensor(arg::lerp_Tensor::end);
  if (c.args[arg::lerp_Tensor::weight].is_tensor()) {
    RunElementwise(c, "lerp", {self, end, c.tensor(arg::lerp_Tensor::weight)});
    return;
  }
  auto w = Full({}, c.get(arg::lerp_Scalar::weight), self->dtype(), kHost);
  RunElementwise(c, "lerp", {self, end, w});
}

double S(const OpCall& c, ArgRef<Scalar> a) { return c.get(a).d; }

// Activation forwards: the formula and its parameters from the op's arguments.
void ActivationKernel(OpCall& c) {
  const std::string name = BaseName(c);
  std::string f = "activation:" + name;
  std::array<double, 4> p = {0, 0, 0, 0};
  if (name == "gelu") {
    if (c.get(arg::gelu::approximate) == "tanh") f = "activation:gelu_tanh";
  } else if (name == "silu") {
    p[0] = 1;
  } else if (name == "quick_gelu") {
    f = "activation:silu";
    p[0] = 1.702;
  } else if (name == "leaky_relu") {
    p[0] = S(c, arg::leaky_relu::negative_slope);
  } else if (name == "hardtanh") {
    p = {S(c, arg::hardtanh::min_val), S(c, arg::hardtanh::max_val), 0, 0};
  } else if (name == "relu6") {
    f = "activation:hardtanh";
    p = {0, 6, 0, 0};
  } else if (name == "threshold") {
    p = {S(c, arg::threshold::threshold), S(c, arg::threshold::value), 0, 0};
  } else if (name == "elu") {
    const double alpha = S(c, arg::elu::alpha), scale = S(c, arg::elu::scale);
    p = {alpha * scale, scale, S(c, arg::elu::input_scale), 0};
  } else if (name == "selu") {
    constexpr double kAlpha = 1.6732632423543772848170429916717;
    constexpr double kScale = 1.0507009873554804934193349852946;
    f = "activation:elu";
    p = {kAlpha * kScale, kScale, 1, 0};
  } else if (name == "softplus") {
    p = {S(c, arg::softplus::beta), S(c, arg::softplus::threshold), 0, 0};
  }
  RunElementwise(c, f.c_str(), {c.tensor(kSelf)}, p);
}

void ActivationBackwardKernel(OpCall& c) {
  namespace a = arg::activation_backward;
  const std::string kind = c.get(a::kind);
  const double p0 = c.get(a::p0), p1 = c.get(a::p1), p2 = c.get(a::p2);
  std::string f = "activation_backward:" + kind;
  if (kind == "gelu" && p0 != 0) f = "activation_backward:gelu_tanh";
  RunElementwise(c, f.c_str(), {c.tensor(a::grad_output), c.tensor(a::self)}, {p0, p1, p2, 0});
}

const char* const kUnaryInplace[] = {
    "exp",   "expm1",  "log",   "log1p",   "log2",  "log10", "sqrt",   "rsqrt",  "reciprocal",
    "sin",   "cos",    "tan",   "asin",    "acos",  "atan",  "sinh",   "cosh",   "tanh",
    "asinh", "acosh",  "atanh", "sigmoid", "erf",   "erfc",  "erfinv", "lgamma", "abs",
    "neg",   "square", "relu",  "sign",    "floor", "ceil",  "round",  "trunc",
};
const char* const kBinaryInplace[] = {"add",   "sub",   "mul",  "div",       "pow",
                                      "atan2", "hypot", "fmod", "remainder", "floor_divide"};
const char* const kBinaryOnly[] = {"maximum", "minimum",     "logaddexp",  "eq",
                                   "ne",      "lt",          "le",         "gt",
                                   "ge",      "logical_and", "logical_or", "logical_xor"};
const char* const kActivationInplace[] = {"relu6",     "hardtanh",   "threshold", "leaky_relu",
                                          "elu",       "selu",       "silu",      "mish",
                                          "hardswish", "hardsigmoid"};
const char* const kActivationOnly[] = {"gelu", "quick_gelu", "softplus", "softsign", "logsigmoid"};

// The dtypes a formula takes (as a DTypeSet).
DTypeSet FormulaDTypes(const std::string& op) {
  std::string f = op;
  if (f == "relu6") f = "hardtanh";
  if (f == "selu") f = "elu";
  if (f == "quick_gelu") f = "silu";
  DTypeSet d = ElementwiseDTypes(f.c_str());
  if (d == 0) d = ElementwiseDTypes(("activation:" + f).c_str());
  return d;
}

struct Registrations {
  Registrations() {
    for (const char* op : kUnaryInplace) Register(op, FormulaDTypes(op), &UnaryKernel, true);
    for (const char* op : kBinaryInplace) Register(op, FormulaDTypes(op), &BinaryKernel, true);
    for (const char* op : kBinaryOnly) Register(op, FormulaDTypes(op), &BinaryKernel, false);
    for (const char* op : kActivationInplace) {
      Register(op, FormulaDTypes(op), &ActivationKernel, true);
    }
    for (const char* op : kActivationOnly) {
      Register(op, FormulaDTypes(op), &ActivationKernel, false);
    }
    Register("activation_backward", kFloatingDTypes, &ActivationBackwardKernel, false);
    Register("where", kAllDTypes, &WhereKernel, false);
    Register("clamp", kNumericDTypes, &ClampKernel, true);
    Register("clamp.Tensor", kNumericDTypes, &ClampTensorKernel, false);
    Register("clamp_.Tensor", kNumericDTypes, &ClampTensorKernel, false);
    Register("addcmul", kNumericDTypes, &AddcmulKernel, true);
    Register("addcdiv", kFloatingDTypes, &AddcmulKernel, true);
    for (const char* op : {"lerp.Tensor", "lerp_.Tensor", "lerp.Scalar", "lerp_.Scalar"}) {
      Register(op, kFloatingDTypes, &LerpKernel, false);
    }
  }
};
const Registrations registrations;

}  // namespace
}  // namespace cuda
}  // namespace oneflow
