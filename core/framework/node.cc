#include "core/framework/node.h"

#include <atomic>

#include "core/framework/core_ops.h"
#include "core/framework/dispatch.h"
#include "core/framework/grad_mode.h"
#include "core/framework/trace.h"
#include "core/runtime/error.h"
#include "core/runtime/tensor_ops.h"

namespace oneflow {
namespace {
std::atomic<uint64_t> next_sequence_nr{0};
}  // namespace

Node::Node() : sequence_nr_(next_sequence_nr.fetch_add(1)) {}

void Node::AddOutputHook(uint32_t output_nr, TensorHook hook) {
  output_hooks_.emplace_back(output_nr, std::move(hook));
}

void Node::AddRetainGrad(uint32_t output_nr, std::weak_ptr<TensorImpl> tensor) {
  for (const auto& [nr, t] : retain_grads_) {
    if (nr == output_nr && t.lock() == tensor.lock()) return;
  }
  retain_grads_.emplace_back(output_nr, std::move(tensor));
}

void Node::RunOutputHooks(TensorList& grads) {
  for (auto& [nr, hook] : output_hooks_) {
    if (nr < grads.size() && grads[nr]) {
      TensorImplPtr replaced = hook(grads[nr]);
      if (replaced) grads[nr] = replaced;
    }
  }
  for (auto& [nr, weak] : retain_grads_) {
    TensorImplPtr t = weak.lock();
    if (!t || nr >= grads.size() || !grads[nr]) continue;
    AutogradMeta& meta = t->autograd();
    // A retained grad is a fresh tensor (not an alias of what flows on).
    if (!meta.grad) {
      meta.grad = GradMode::is_enabled() ? grads[nr] : grads[nr]->Detach();
      NoteAlias(grads[nr], meta.grad);
      if (!GradMode::is_enabled()) meta.grad = GetCoreOps().clone(meta.grad);
    } else {
      meta.grad = GetCoreOps().add(meta.grad, grads[nr]);
    }
  }
}

namespace {

// True when nothing but `g` can reach its memory, which it covers exactly,
// laid out like `leaf`: .grad can take it over without a copy. `g` may be a
// view whose base only it holds (the transpose of a product: a Linear
// weight's gradient).
bool IsPrivateDenseBuffer(const TensorImplPtr& g, const TensorImpl& leaf) {
  if (g.use_count() != 1 || g->grad_fn()) return false;
  long holders = 1;  // of the storage: g, and its base when g is a view
  if (const TensorImplPtr& base = g->view_base()) {
    if (base.use_count() != 1 || base->view_base() || base->grad_fn() ||
        base->storage() != g->storage()) {
      return false;
    }
    holders = 2;
  }
  return g->storage().use_count() == holders && g->storage_offset() == 0 &&
         g->shape() == leaf.shape() && g->stride() == leaf.stride() && g->dtype() == leaf.dtype() &&
         IsNonOverlappingAndDense(g->shape(), g->stride()) &&
         g->storage()->nbytes() == static_cast<size_t>(g->numel() * g->itemsize());
}

// A copy of `g` laid out like `leaf` when the leaf is dense (PyTorch's
// gradient layout contract: a channels_last weight gets a channels_last
// .grad), else like `g`.
TensorImplPtr CopyForLeaf(const TensorImplPtr& g, const TensorImplPtr& leaf) {
  if (g->stride() == leaf->stride() || !IsNonOverlappingAndDense(leaf->shape(), leaf->stride())) {
    return GetCoreOps().clone(g->Detach());
  }
  TensorImplPtr out =
      TensorImpl::EmptyStrided(leaf->shape(), leaf->stride(), g->dtype(), g->device());
  CopyInto(g, out);
  return out;
}

}  // namespace

TensorList AccumulateGrad::Apply(TensorList&& grads) {
  TensorImplPtr leaf = leaf_.lock();
  if (!leaf || grads.empty() || !grads[0]) return {};
  AutogradMeta& meta = leaf->autograd();
  TensorImplPtr g = std::move(grads[0]);
  if (Trace::Active() != nullptr) {
    // nn.Graph's trace: the gradient stays the traced value (no untraced copy or alias).
    meta.grad = meta.grad ? GetCoreOps().add(meta.grad, g) : g;
    return {};
  }
  if (!meta.grad) {
    if (GradMode::is_enabled()) {
      meta.grad = g;  // building a higher-order graph: keep the gradient's history
    } else if (IsPrivateDenseBuffer(g, *leaf)) {
      // Nobody else can see this memory: keep it instead of copying (as a
      // tensor of its own, not a view of a base nobody holds).
      meta.grad = g->view_base() ? g->DetachUntracked() : g;
    } else {
      meta.grad = CopyForLeaf(g, leaf);
    }
  } else if (GradMode::is_enabled()) {
    meta.grad = GetCoreOps().add(meta.grad, g);
  } else {
    GradModeGuard no_grad(false);
    meta.grad = GetCoreOps().add(meta.grad->Detach(), g->Detach());
  }
  return {};
}

Edge GradientEdge(const TensorImplPtr& t) {
  if (!t || !t->requires_grad()) return {};
  AutogradMeta& meta = t->autograd();
  if (meta.grad_fn) return {meta.grad_fn, meta.output_nr};
  std::shared_ptr<Node> acc = meta.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    meta.grad_accumulator = acc;
  }
  return {acc, 0};
}

void SetHistory(const TensorImplPtr& t, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  AutogradMeta& meta = t->autograd();
  meta.requires_grad = true;
  meta.grad_fn = node;
  meta.output_nr = output_nr;
  meta.grad_accumulator.reset();
  if (meta.retains_grad) node->AddRetainGrad(output_nr, t);
}

SavedTensor::SavedTensor(const TensorImplPtr& t, bool is_output, uint32_t output_nr)
    : defined_(t != nullptr), is_output_(is_output), output_nr_(output_nr) {
  if (!t) return;
  saved_version_ = t->version();
  // Outputs are kept without their history: the node owning this SavedTensor is
  // their grad_fn, and holding it here would be a reference cycle.
  data_ = is_output ? t->Detach() : t;
  NoteAlias(t, data_);
}

TensorImplPtr SavedTensor::Unpack(const std::shared_ptr<Node>& node) const {
  if (!defined_) return nullptr;
  OF_CHECK(
      !released_, RuntimeError,
      "cannot backward through the graph a second time: the values it saved were freed by the "
      "first .backward() or autograd.grad(); pass retain_graph=True to that call to keep them");
  OF_CHECK(data_->version() == saved_version_, RuntimeError,
           "a tensor saved for backward was modified by an in-place operation since: [oneflow.",
           DTypeName(data_->dtype()), " ", ShapeToString(data_->shape()), "]",
           node ? ", which is output " + std::to_string(output_nr_) + " of " + node->name() : "",
           ", is at version ", data_->version(), " but was saved at version ", saved_version_);
  if (!is_output_ || !node) return data_;
  // Double backward needs the output connected to the node that made it.
  TensorImplPtr t = data_->Detach();
  NoteAlias(data_, t);
  SetHistory(t, node, output_nr_);
  return t;
}

void SavedTensor::Release() {
  data_.reset();
  released_ = true;
}

}  // namespace oneflow
