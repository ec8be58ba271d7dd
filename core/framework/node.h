#ifndef CORE_FRAMEWORK_NODE_H_
#define CORE_FRAMEWORK_NODE_H_

// The autograd graph: a Node computes the gradients of its inputs from the
// gradients of its outputs; Edges point from a node to the nodes of its inputs.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/runtime/tensor_impl.h"

namespace oneflow {

using TensorList = std::vector<TensorImplPtr>;

struct Edge {
  std::shared_ptr<Node> fn;  // null: that input needs no gradient
  uint32_t input_nr = 0;     // which input of `fn` receives the gradient
  bool valid() const { return fn != nullptr; }
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node() = default;

  // Gradients of the inputs (one per next edge; null where none) from the
  // gradients of the outputs (one per output; null where none flowed).
  virtual TensorList Apply(TensorList&& grad_outputs) = 0;
  virtual std::string name() const = 0;
  // Frees what was saved for backward; called after use unless retain_graph.
  virtual void ReleaseSaved() {}

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  std::vector<Edge>& mutable_next_edges() { return next_edges_; }
  uint32_t num_outputs() const { return num_outputs_; }
  void set_num_outputs(uint32_t n) { num_outputs_ = n; }
  // Creation order: later nodes run first when both are ready.
  uint64_t sequence_nr() const { return sequence_nr_; }

  // Hooks on the gradient of one output (tensor hooks of non-leaf tensors).
  using TensorHook = std::function<TensorImplPtr(const TensorImplPtr&)>;
  void AddOutputHook(uint32_t output_nr, TensorHook hook);
  // Non-leaf tensors that retain their grad: the output's gradient is stored there.
  void AddRetainGrad(uint32_t output_nr, std::weak_ptr<TensorImpl> tensor);
  // Runs the output hooks (and retain_grad) on the incoming gradients.
  void RunOutputHooks(TensorList& grads);

 private:
  std::vector<Edge> next_edges_;
  uint32_t num_outputs_ = 1;
  uint64_t sequence_nr_;
  std::vector<std::pair<uint32_t, TensorHook>> output_hooks_;
  std::vector<std::pair<uint32_t, std::weak_ptr<TensorImpl>>> retain_grads_;
};

// Accumulates into a leaf's .grad.
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(std::weak_ptr<TensorImpl> leaf) : leaf_(std::move(leaf)) {}
  TensorList Apply(TensorList&& grad_outputs) override;
  std::string name() const override { return "AccumulateGrad"; }
  TensorImplPtr leaf() const { return leaf_.lock(); }

 private:
  std::weak_ptr<TensorImpl> leaf_;
};

// The edge a gradient for `t` must flow into: its grad_fn, or the accumulator
// of a leaf that requires grad (created on demand), or none.
Edge GradientEdge(const TensorImplPtr& t);

// Makes `t` an output of `node` (output `output_nr`): it requires grad and is no
// longer a leaf.
void SetHistory(const TensorImplPtr& t, const std::shared_ptr<Node>& node, uint32_t output_nr);

// A tensor saved for backward. It checks at unpacking that the tensor was not
// modified in place since, and refuses after release (backward run twice).
class SavedTensor {
 public:
  SavedTensor() = default;
  // `is_output`: `t` is an output of `node`; it is stored without its grad_fn
  // (no reference cycle) and rebuilt with it for double backward.
  SavedTensor(const TensorImplPtr& t, bool is_output, uint32_t output_nr);
  TensorImplPtr Unpack(const std::shared_ptr<Node>& node) const;
  void Release();
  bool defined() const { return defined_; }

 private:
  TensorImplPtr data_;
  bool defined_ = false;
  bool is_output_ = false;
  bool released_ = false;
  uint32_t output_nr_ = 0;
  int64_t saved_version_ = 0;
};

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_NODE_H_
