#ifndef CORE_FRAMEWORK_TRACE_H_
#define CORE_FRAMEWORK_TRACE_H_

// nn.Graph's tracer and executor. While a Trace is active on a thread, every
// op call that reaches the dispatcher from outside a kernel is recorded as a
// node: the op, its arguments (tensors as value ids) and its outputs. Tensors
// the trace did not produce and that are not its inputs are constants, held by
// reference (parameters and buffers among them, so eager updates to them are
// seen by the plan). A Plan replays the nodes in order through the same
// dispatcher, with autograd and autocast off (the trace recorded autocast's
// casts as nodes), releasing each value after its last use: no Python runs
// per op.

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/framework/op_registry.h"
#include "core/framework/value.h"

namespace oneflow {

struct TraceNode {
  const OpDef* op = nullptr;
  // The arguments as called; their tensors are replaced by the values named in
  // tensor_ids at run time.
  std::vector<Value> args;
  // Per argument: the value ids of its tensors (one for a tensor, one per
  // element for a tensor list, none otherwise; -1 for an undefined tensor).
  std::vector<std::vector<int>> tensor_ids;
  std::vector<int> outputs;
};

class Plan {
 public:
  // A plan from its parts (a saved graph being loaded); checks the value ids.
  static std::shared_ptr<Plan> Make(std::vector<TraceNode> nodes, int num_values,
                                    std::vector<int> inputs, std::vector<int> outputs,
                                    std::vector<std::pair<int, TensorImplPtr>> constants);

  // Runs the plan on `inputs` (one per traced input, of the traced shapes and
  // dtypes); returns the traced outputs.
  TensorList Run(const TensorList& inputs) const;

  const std::vector<TraceNode>& nodes() const { return nodes_; }
  int num_values() const { return num_values_; }
  const std::vector<int>& inputs() const { return inputs_; }
  const std::vector<int>& outputs() const { return outputs_; }
  const std::vector<std::pair<int, TensorImplPtr>>& constants() const { return constants_; }
  // Replaces a non-tensor argument of node `node` (a learning rate that a
  // scheduler changes between runs).
  void SetArg(size_t node, size_t arg, Value value);
  // One line per node: "%3 = add(%1, %2, 1)".
  std::string ToString() const;

 private:
  friend class Trace;
  // Computes last_use_ from the nodes and outputs.
  void Finish();
  std::vector<TraceNode> nodes_;
  int num_values_ = 0;
  std::vector<int> inputs_;
  std::vector<int> outputs_;
  std::vector<std::pair<int, TensorImplPtr>> constants_;
  // last_use_[v]: the index of the last node that reads value v (-1: none).
  std::vector<int> last_use_;
};

class Trace {
 public:
  // The trace active on this thread, or null.
  static Trace* Active();

  // Starts recording on this thread; throws if a trace is already active.
  static void Begin();
  // Stops recording and returns the plan computing `outputs` from the inputs.
  // Throws if no trace is active or an output was not produced by the trace.
  static std::shared_ptr<Plan> End(const TensorList& outputs);
  // Stops recording and drops what was recorded (an exception inside build).
  static void Abort();

  // Declares `t` as the next input of the traced function.
  void AddInput(const TensorImplPtr& t);

  // Dispatch's side: whether a call at this point is recorded (not inside a
  // recorded op's own kernel), and the recording itself.
  bool recording() const { return depth_ == 0; }
  size_t num_nodes() const { return plan_->nodes_.size(); }
  void Enter() { ++depth_; }
  void Leave() { --depth_; }
  void Record(const OpDef& op, const std::vector<Value>& args, const TensorList& outputs);
  // `alias` (a detached tensor, made outside the dispatcher) stands for `of`:
  // in the plan, which runs without autograd, they are the same value.
  void Alias(const TensorImplPtr& of, const TensorImplPtr& alias);

  // The value of an in-place op's `self` before the op, recorded as a clone
  // node so that a gradient formula reading it sees each run's value; the
  // dispatcher takes it (once) instead of cloning untraced.
  void set_self_before(TensorImplPtr t) { self_before_ = std::move(t); }
  TensorImplPtr take_self_before() { return std::move(self_before_); }

 private:
  int IdOf(const TensorImplPtr& t);
  int NewValue(const TensorImplPtr& t);

  std::shared_ptr<Plan> plan_ = std::make_shared<Plan>();
  // Every tensor seen keeps its id; holding them keeps their addresses unique.
  std::unordered_map<const TensorImpl*, int> ids_;
  // Tensors made outside the dispatcher that stand for another (detached
  // copies of metadata, saved outputs): resolved when first read, since the
  // tensor they stand for may not be recorded yet when they are made.
  std::unordered_map<const TensorImpl*, TensorImplPtr> alias_of_;
  std::vector<TensorImplPtr> seen_;
  TensorImplPtr self_before_;
  int depth_ = 0;
};

// While tracing, `alias` (detach(), .data) stands for `of`; otherwise nothing.
void NoteAlias(const TensorImplPtr& of, const TensorImplPtr& alias);

// Reading a tensor's values (item(), numpy(), ...) while tracing would bake
// them into the graph: throws a RuntimeError naming `what`.
void CheckNotTracing(const char* what);

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_TRACE_H_
