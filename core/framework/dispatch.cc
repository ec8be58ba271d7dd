#include "core/framework/dispatch.h"

#include <algorithm>
#include <unordered_map>

#include "core/framework/autocast.h"
#include "core/framework/core_ops.h"
#include "core/framework/grad_mode.h"
#include "core/framework/profiler.h"
#include "core/framework/trace.h"
#include "core/framework/type_promotion.h"
#include "core/runtime/error.h"
#include "core/runtime/tensor_ops.h"

namespace oneflow {
namespace {

// The node recorded for an op with a backward formula.
class OpNode final : public Node {
 public:
  explicit OpNode(BackwardCtx ctx) : ctx_(std::move(ctx)) {}

  TensorList Apply(TensorList&& grads) override {
    OF_CHECK(
        !released_, RuntimeError,
        "cannot backward through the graph a second time: the values it saved were freed by "
        "the first .backward() or autograd.grad(); pass retain_graph=True to that call to keep "
        "them (op: ",
        ctx_.op->schema().name, ")");
    ctx_.grads = std::move(grads);
    ctx_.node = shared_from_this();
    ctx_.needs_grad.resize(next_edges().size());
    for (size_t i = 0; i < next_edges().size(); ++i) ctx_.needs_grad[i] = next_edges()[i].valid();
    TensorList out = ctx_.op->backward()(ctx_);
    ctx_.node.reset();
    ctx_.grads.clear();
    OF_CHECK(out.size() == next_edges().size(), RuntimeError, "backward of '",
             ctx_.op->schema().name, "' returned ", out.size(), " gradients, expected ",
             next_edges().size());
    for (size_t i = 0; i < out.size(); ++i) {
      if (!out[i] || !next_edges()[i].valid()) {
        out[i] = nullptr;
        continue;
      }
      // Broadcasting and type promotion in the forward are undone here.
      const OutMeta& m = input_meta_[i];
      if (out[i]->shape() != m.shape) out[i] = SumToShape(out[i], m.shape);
      if (out[i]->dtype() != m.dtype) out[i] = GetCoreOps().to_dtype(out[i], m.dtype);
      if (out[i]->device() != input_devices_[i]) out[i] = ToDevice(out[i], input_devices_[i]);
    }
    return out;
  }

  std::string name() const override {
    std::string n = ctx_.op->schema().name;
    // PyTorch's names: AddBackward0, MulBackward0, ...
    std::string out;
    bool upper = true;
    for (char c : n) {
      if (c == '_') {
        upper = true;
        continue;
      }
      out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
      upper = false;
    }
    return out + "Backward0";
  }

  void ReleaseSaved() override {
    for (auto& s : ctx_.saved_inputs) s.Release();
    for (auto& l : ctx_.saved_lists) {
      for (auto& s : l) s.Release();
    }
    for (auto& s : ctx_.saved_outputs) s.Release();
    released_ = true;
  }

  std::vector<OutMeta> input_meta_;
  std::vector<Device> input_devices_;  // where each input's gradient must arrive

 private:
  BackwardCtx ctx_;
  bool released_ = false;
};

// Geometry of a view inside a buffer laid out like its base.
struct ViewGeometry {
  DimVector base_shape, base_stride, shape, stride;
  int64_t offset = 0;  // relative to the base's first element
  DType dtype;
  Device device;

  ViewGeometry(const TensorImpl& base, const TensorImpl& view)
      : base_shape(base.shape()),
        base_stride(base.stride()),
        shape(view.shape()),
        stride(view.stride()),
        offset(view.storage_offset() - base.storage_offset()),
        dtype(view.dtype()),
        device(view.device()) {}

  // A zero-filled buffer with the base's layout.
  TensorImplPtr ZeroBase() const {
    auto t = TensorImpl::EmptyStrided(base_shape, base_stride, dtype, device);
    Fill(t, Scalar::Int(0));
    return t;
  }
  TensorImplPtr Region(const TensorImplPtr& buffer) const {
    return buffer->AsStrided(shape, stride, offset);
  }
};

// The gradient of a view (after an in-place op rewrote its base's history):
// zeros of the base's shape with the view's gradient in its region.
class ViewOfBaseNode final : public Node {
 public:
  explicit ViewOfBaseNode(ViewGeometry g) : g_(std::move(g)) {}
  TensorList Apply(TensorList&& grads) override {
    TensorImplPtr out = g_.ZeroBase();
    CopyInto(grads[0], g_.Region(out));
    return {out};
  }
  std::string name() const override { return "AsStridedBackward0"; }

 private:
  ViewGeometry g_;
};

// An in-place op on a view, seen from the base: the base's gradient passes
// through unchanged outside the view, and through the op's own node inside it.
class CopySlices final : public Node {
 public:
  CopySlices(ViewGeometry g, std::shared_ptr<Node> fn) : g_(std::move(g)), fn_(std::move(fn)) {}
  TensorList Apply(TensorList&& grads) override {
    TensorImplPtr result = g_.ZeroBase();
    CopyInto(grads[0], result);
    TensorImplPtr region = g_.Region(result);
    TensorList res = fn_->Apply({Clone(region)});
    if (res.empty() || !res[0]) {
      Fill(region, Scalar::Int(0));
    } else {
      CopyInto(res[0], region);
    }
    TensorList out = {result};
    for (size_t i = 1; i < res.size(); ++i) out.push_back(res[i]);
    return out;
  }
  std::string name() const override { return "CopySlices"; }
  void ReleaseSaved() override { fn_->ReleaseSaved(); }

 private:
  ViewGeometry g_;
  std::shared_ptr<Node> fn_;
};

// After an in-place op recorded `node` on `self`, a view: the base takes the
// update into its history (CopySlices) and the view is re-derived from it.
void RebaseViewHistory(const TensorImplPtr& self, const std::shared_ptr<Node>& node) {
  OF_CHECK(Trace::Active() == nullptr, NotImplementedError,
           "nn.Graph: an in-place op on a view of a tensor that requires grad cannot be traced yet "
           "(op on ",
           ShapeToString(self->shape()), "); apply it to a copy or outside build()");
  const TensorImplPtr& base = self->view_base();
  OF_CHECK(!(base->is_leaf() && base->requires_grad()), RuntimeError,
           "in-place operation on a view of a leaf tensor that requires grad");
  OF_CHECK(IsNonOverlappingAndDense(base->shape(), base->stride()), NotImplementedError,
           "autograd of an in-place op on a view of a tensor with a non-dense layout");
  ViewGeometry geometry(*base, *self);
  auto copy_slices = std::make_shared<CopySlices>(geometry, node);
  std::vector<Edge> edges = {GradientEdge(base)};
  for (size_t i = 1; i < node->next_edges().size(); ++i) edges.push_back(node->next_edges()[i]);
  copy_slices->mutable_next_edges() = std::move(edges);
  SetHistory(base, copy_slices, 0);
  auto view_node = std::make_shared<ViewOfBaseNode>(geometry);
  view_node->mutable_next_edges() = {GradientEdge(base)};
  SetHistory(self, view_node, 0);
}

// The op's results as values: one tensor list for a `-> Tensor[]` op (however
// many pieces), else one value per tensor.
std::vector<Value> Results(const Schema& schema, TensorList&& outputs) {
  if (schema.returns.size() == 1 && schema.returns[0].type == ArgType::kTensorList) {
    return {Value(std::move(outputs))};
  }
  std::vector<Value> out;
  for (auto& t : outputs) out.emplace_back(std::move(t));
  return out;
}

void FillDefaults(const Schema& schema, std::vector<Value>& args) {
  OF_CHECK(args.size() <= schema.args.size(), TypeError, schema.name, "() takes ",
           schema.args.size(), " arguments but ", args.size(), " were given");
  for (size_t i = args.size(); i < schema.args.size(); ++i) {
    const ArgSpec& a = schema.args[i];
    OF_CHECK(a.has_default || a.optional, TypeError, schema.name, "() missing required argument '",
             a.name, "' (pos ", i + 1, ")");
    args.push_back(a.default_value);
  }
}

bool AnyRequiresGrad(const std::vector<Value>& args) {
  for (const Value& v : args) {
    if (v.is_tensor() && v.tensor() && v.tensor()->requires_grad()) return true;
    if (v.is_tensor_list()) {
      for (const auto& t : v.tensors()) {
        if (t->requires_grad()) return true;
      }
    }
  }
  return false;
}

// The device an op runs on: its first tensor's, where a 0-d CPU tensor (a
// number, or a scalar tensor as PyTorch allows beside accelerator tensors)
// yields to any other.
Device CallDevice(const OpCall& call) {
  std::optional<Device> scalar;
  for (const Value& v : call.args) {
    if (v.is_tensor() && v.tensor() && !v.is_wrapped_number()) {
      const Device& d = v.tensor()->device();
      if (d.type != DeviceType::kCPU || v.tensor()->ndim() > 0) return d;
      if (!scalar) scalar = d;
    }
    if (v.is_tensor_list() && !v.tensors().empty()) return v.tensors()[0]->device();
  }
  return scalar.value_or(Device{});
}

// On an accelerator, 0-d CPU tensors (numbers included) move to the call's
// device, except for elementwise ops, whose kernels read them as scalars.
void MoveCpuScalars(OpCall& call) {
  if (call.device.type == DeviceType::kCPU || call.op->has_trait(kElementwise)) return;
  for (Value& v : call.args) {
    if (v.is_tensor() && v.tensor() && v.tensor()->device().type == DeviceType::kCPU) {
      v = Value(ToDevice(v.tensor(), call.device), v.is_wrapped_number());
    }
  }
}

void CheckDevices(const OpCall& call) {
  if (call.op->has_trait(kCrossDevice)) return;
  for (size_t i = 0; i < call.args.size(); ++i) {
    const Value& v = call.args[i];
    if (v.is_tensor() && v.tensor() && !v.is_wrapped_number() && v.tensor()->ndim() > 0) {
      OF_CHECK(v.tensor()->device().type == call.device.type, RuntimeError,
               "Expected all tensors to be on the same device, but found at least two devices, ",
               call.device.ToString(), " and ", v.tensor()->device().ToString(),
               "! (op: ", call.name(), ", argument '", call.op->schema().args[i].name, "')");
    }
  }
}

void RunKernel(OpCall& call) {
  const KernelEntry& k = call.op->kernel(call.device.type);
  OF_CHECK(k.fn != nullptr, NotImplementedError, "op '", call.name(), "' has no kernel for ",
           call.device.type_name());
  OF_CHECK((k.dtypes & DTypeBit(call.compute_dtype)) != 0, NotImplementedError, "\"", call.name(),
           "_", call.device.type_name(), "\" not implemented for '", DTypeName(call.compute_dtype),
           "'");
  if (profiler::Enabled()) {
    profiler::KernelScope scope(call.name());
    k.fn(call);
    return;
  }
  k.fn(call);
}

void Record(OpCall& call, const std::vector<Value>& original_args,
            const TensorImplPtr& self_before) {
  const OpDef& op = *call.op;
  const Schema& schema = op.schema();
  BackwardCtx ctx;
  ctx.op = &op;
  ctx.args.resize(original_args.size());
  ctx.saved_inputs.resize(original_args.size());
  ctx.saved_lists.resize(original_args.size());
  std::vector<Edge> edges;
  std::vector<OutMeta> input_meta;
  std::vector<Device> input_devices;
  for (size_t i = 0; i < original_args.size(); ++i) {
    const Value& v = original_args[i];
    if (v.is_tensor() && v.tensor()) {
      // Saved as the kernel saw it (promoted), so formulas compute in the op's dtype.
      const TensorImplPtr& t =
          (schema.is_inplace() && i == 0) ? self_before : call.args[i].tensor();
      ctx.saved_inputs[i] = SavedTensor(t, /*is_output=*/false, 0);
      edges.push_back(GradientEdge(v.tensor()));
      input_meta.push_back({v.tensor()->shape(), v.tensor()->dtype()});
      input_devices.push_back(v.tensor()->device());
    } else if (v.is_tensor_list()) {
      for (const auto& t : v.tensors()) {
        ctx.saved_lists[i].emplace_back(t, false, 0);
        edges.push_back(GradientEdge(t));
        input_meta.push_back({t->shape(), t->dtype()});
        input_devices.push_back(t->device());
      }
    } else {
      ctx.args[i] = v;
    }
  }
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    const TensorImplPtr& o = call.outputs[i];
    ctx.output_meta.push_back({o->shape(), o->dtype()});
    ctx.saved_outputs.emplace_back(o, /*is_output=*/true, static_cast<uint32_t>(i));
  }
  auto node = std::make_shared<OpNode>(std::move(ctx));
  node->input_meta_ = std::move(input_meta);
  node->input_devices_ = std::move(input_devices);
  node->mutable_next_edges() = std::move(edges);
  node->set_num_outputs(static_cast<uint32_t>(call.outputs.size()));
  if (schema.is_inplace() && call.outputs[0]->view_base()) {
    RebaseViewHistory(call.outputs[0], node);
    return;
  }
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    if (IsFloatingPoint(call.outputs[i]->dtype())) SetHistory(call.outputs[i], node, i);
  }
}

}  // namespace

TensorImplPtr BackwardCtx::input(int arg) const { return saved_inputs[arg].Unpack(nullptr); }

TensorList BackwardCtx::input_list(int arg) const {
  TensorList out;
  for (const auto& s : saved_lists[arg]) out.push_back(s.Unpack(nullptr));
  return out;
}

TensorImplPtr BackwardCtx::output(int i) const { return saved_outputs[i].Unpack(node); }

TensorImplPtr BackwardCtx::grad(int i) const {
  if (grads[i]) return grads[i];
  const OutMeta& m = output_meta[i];
  return Full(m.shape, Scalar::Int(0), m.dtype, Device{});
}

DimVector BroadcastShapes(const DimVector& a, const DimVector& b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    OF_CHECK(da == db || da == 1 || db == 1, RuntimeError, op, "(): The size of tensor a (", da,
             ") must match the size of tensor b (", db, ") at non-singleton dimension ", i,
             " (shapes ", ShapeToString(a), " and ", ShapeToString(b), ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

TensorImplPtr SumToShape(const TensorImplPtr& grad, const DimVector& shape) {
  return GetCoreOps().sum_to_size(grad, shape);
}

DimVector ElementwiseOutputStrides(const std::vector<const TensorImpl*>& operands,
                                   const DimVector& shape) {
  const size_t nd = shape.size();
  if (nd <= 1 || operands.empty()) return {};
  // All operands of the output's shape: keep their common dense layout.
  bool same_shape = true;
  for (const TensorImpl* t : operands) same_shape = same_shape && t->shape() == shape;
  if (same_shape) {
    bool contiguous = true, channels_last = nd == 4, dense = true;
    for (const TensorImpl* t : operands) {
      contiguous = contiguous && t->is_contiguous();
      channels_last =
          channels_last && IsContiguousAs(shape, t->stride(), MemoryFormat::kChannelsLast);
      dense = dense && IsNonOverlappingAndDense(shape, t->stride());
    }
    if (contiguous) return {};
    if (channels_last) return MemoryFormatStrides(shape, MemoryFormat::kChannelsLast);
    bool equal = dense;
    for (const TensorImpl* t : operands) equal = equal && t->stride() == operands[0]->stride();
    if (equal) return operands[0]->stride();
  }
  // Order the dims by the operands' strides (broadcast dims, stride 0, say nothing):
  // perm[0] is the innermost dim. An insertion sort that stops at the first dim
  // known to be outer, and passes over ambiguous pairs.
  std::vector<DimVector> strides;
  strides.reserve(operands.size());
  for (const TensorImpl* t : operands) {
    DimVector st(nd, 0);
    const size_t off = nd - t->shape().size();
    for (size_t i = 0; i < t->shape().size(); ++i) {
      st[off + i] = t->shape()[i] == 1 && shape[off + i] != 1 ? 0 : t->stride()[i];
    }
    strides.push_back(std::move(st));
  }
  auto should_swap = [&](int d0, int d1) {
    for (const DimVector& st : strides) {
      const int64_t s0 = st[d0], s1 = st[d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[d0] > shape[d1]) return 1;  // equal strides: the smaller dim goes inside
    }
    return 0;
  };
  std::vector<int> perm(nd);
  for (size_t i = 0; i < nd; ++i) perm[i] = static_cast<int>(nd - 1 - i);
  for (size_t i = 1; i < nd; ++i) {
    size_t d1 = i;
    for (int d0 = static_cast<int>(i) - 1; d0 >= 0; --d0) {
      const int cmp = should_swap(perm[d0], perm[d1]);
      if (cmp > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (cmp < 0) {
        break;
      }
    }
  }
  bool row_major = true;
  for (size_t j = 0; j < nd; ++j) row_major = row_major && perm[j] == static_cast<int>(nd - 1 - j);
  if (row_major) return {};
  DimVector out(nd);
  int64_t acc = 1;
  for (int d : perm) {
    out[d] = acc;
    acc *= shape[d];
  }
  return out;
}

namespace {

void InferElementwiseImpl(OpCall& call, int mode) {
  std::vector<const Value*> operands;
  std::vector<const TensorImpl*> tensors;
  operands.reserve(call.args.size());
  tensors.reserve(call.args.size());
  DimVector shape;
  bool first = true;
  for (size_t i = 0; i < call.args.size(); ++i) {
    const Value& v = call.args[i];
    ArgType type = call.op->schema().args[i].type;
    if (type == ArgType::kTensor && v.is_tensor()) {
      operands.push_back(&v);
      tensors.push_back(v.tensor().get());
      shape = first ? v.tensor()->shape()
                    : BroadcastShapes(shape, v.tensor()->shape(), call.name().c_str());
      first = false;
    }
  }
  DType dtype = ResultType(operands);
  if (mode == 1 && !IsFloatingPoint(dtype)) dtype = DefaultFloatDType();
  call.compute_dtype = dtype;
  call.cast_inputs = true;
  call.out_meta = {
      {shape, mode == 2 ? DType::kBool : dtype, ElementwiseOutputStrides(tensors, shape)}};
}

}  // namespace

void InferElementwise(OpCall& call) { InferElementwiseImpl(call, 0); }
void InferElementwiseFloat(OpCall& call) { InferElementwiseImpl(call, 1); }
void InferElementwiseBool(OpCall& call) { InferElementwiseImpl(call, 2); }

namespace {

// Whether the call records an autograd node.
bool RecordsAutograd(const OpDef& op, const std::vector<Value>& args) {
  return op.differentiable() && op.backward() && GradMode::is_enabled() && AnyRequiresGrad(args);
}

// The call with its defaults filled, its device chosen and autocast applied.
OpCall PrepareCall(const OpDef& op, std::vector<Value> args) {
  FillDefaults(op.schema(), args);
  OpCall call;
  call.op = &op;
  call.args = std::move(args);
  call.device = CallDevice(call);
  // Autocast (oneflow.autocast): an op with a mixed-precision policy has its floating tensor
  // arguments cast with the differentiable _to_dtype op before anything else sees them, so
  // composites, kernels and gradients all follow it. A thread-local check when it is off.
  if (AutocastState::any_enabled()) ApplyAutocast(op, call.device.type, call.args);
  return call;
}

std::vector<Value> RunCall(OpCall call) {
  const OpDef& op = *call.op;
  const Schema& schema = op.schema();
  if (op.composite()) {
    op.composite()(call);
    return Results(schema, std::move(call.outputs));
  }

  CheckDevices(call);
  const bool record = RecordsAutograd(op, call.args);
  const bool inplace = schema.is_inplace();
  TensorImplPtr self_before;
  // Taken before inputs are cast: the result is written into self as given.
  TensorImplPtr inplace_target = inplace ? call.tensor(0) : nullptr;
  if (inplace) {
    const TensorImplPtr& self = call.tensor(0);
    if (record) {
      OF_CHECK(!(self->is_leaf() && self->requires_grad()), RuntimeError,
               "in-place operation on a leaf tensor that requires grad (op: ", schema.name, ")");
      // The formula may need the value before the update (while tracing, the clone the
      // trace recorded for it).
      Trace* trace = Trace::Active();
      self_before = trace != nullptr ? trace->take_self_before() : nullptr;
      if (self_before == nullptr) self_before = Clone(self);
    }
  }
  std::vector<Value> original_args;
  if (record) original_args = call.args;
  MoveCpuScalars(call);

  if (op.infer()) op.infer()(call);
  if (call.cast_inputs) {
    for (size_t i = 0; i < call.args.size(); ++i) {
      Value& v = call.args[i];
      if (v.is_tensor() && v.tensor() && v.tensor()->dtype() != call.compute_dtype) {
        v = Value(ToDType(v.tensor(), call.compute_dtype, false), v.is_wrapped_number());
      }
    }
  }

  if (inplace) {
    OF_CHECK(call.out_meta.empty() || call.out_meta[0].shape == inplace_target->shape(),
             RuntimeError, "output with shape ", ShapeToString(inplace_target->shape()),
             " doesn't match the broadcast shape ", ShapeToString(call.out_meta[0].shape),
             " (op: ", schema.name, ")");
    OF_CHECK(call.out_meta.empty() || CanCast(call.out_meta[0].dtype, inplace_target->dtype()),
             RuntimeError, "result type ", DTypeName(call.out_meta[0].dtype),
             " can't be cast to the desired output type ", DTypeName(inplace_target->dtype()),
             " (op: ", schema.name, ")");
  }
  bool direct =
      inplace && !call.out_meta.empty() && call.out_meta[0].dtype == inplace_target->dtype();
  if (direct) {
    call.outputs = {inplace_target};
  } else {
    call.outputs.reserve(call.out_meta.size());
    for (const OutMeta& m : call.out_meta) {
      call.outputs.push_back(
          m.stride.empty() ? TensorImpl::Empty(m.shape, m.dtype, call.device)
                           : TensorImpl::EmptyStrided(m.shape, m.stride, m.dtype, call.device));
    }
  }
  RunKernel(call);
  if (schema.is_view() && !call.outputs.empty() &&
      call.outputs[0]->storage() == call.tensor(0)->storage()) {
    const TensorImplPtr& in = call.tensor(0);
    call.outputs[0]->set_view_base(in->view_base() ? in->view_base() : in);
  }
  if (inplace) {
    if (!direct)
      CopyInto(call.outputs[0], inplace_target);
    else
      inplace_target->BumpVersion();
    call.outputs = {inplace_target};
  }

  if (record) Record(call, original_args, self_before);
  return Results(schema, std::move(call.outputs));
}

// The op's results as the tensors they hold, in order.
TensorList ResultTensors(const std::vector<Value>& results) {
  TensorList out;
  for (const Value& r : results) {
    if (r.is_tensor_list()) {
      out.insert(out.end(), r.tensors().begin(), r.tensors().end());
    } else if (r.is_tensor()) {
      out.push_back(r.tensor());
    }
  }
  return out;
}

}  // namespace

std::vector<Value> Dispatch(const OpDef& op, std::vector<Value> args) {
  Trace* trace = Trace::Active();
  if (trace == nullptr || !trace->recording() || op.composite()) {
    return RunCall(PrepareCall(op, std::move(args)));
  }
  // nn.Graph's trace: the call is recorded with its arguments as the kernel gets them (defaults
  // filled, autocast's casts already recorded as their own nodes); what it runs inside is not.
  OpCall call = PrepareCall(op, std::move(args));
  std::vector<Value> recorded = call.args;
  if (op.schema().is_inplace() && RecordsAutograd(op, call.args)) {
    trace->set_self_before(GetCoreOps().clone(call.tensor(0)));
  }
  trace->Enter();
  std::vector<Value> results;
  try {
    results = RunCall(std::move(call));
  } catch (...) {
    trace->Leave();
    throw;
  }
  trace->Leave();
  trace->Record(op, recorded, ResultTensors(results));
  return results;
}

}  // namespace oneflow
