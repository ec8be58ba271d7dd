#include "core/framework/trace.h"

#include <sstream>
#include <utility>

#include "core/framework/autocast.h"
#include "core/framework/dispatch.h"
#include "core/framework/grad_mode.h"
#include "core/runtime/error.h"

namespace oneflow {
namespace {

thread_local Trace* active_trace = nullptr;
thread_local std::unique_ptr<Trace> owned_trace;

// Autocast off while a plan runs: the trace holds autocast's casts as nodes.
class AutocastOff {
 public:
  AutocastOff()
      : cpu_(AutocastState::is_enabled(DeviceType::kCPU)),
        cuda_(AutocastState::is_enabled(DeviceType::kCUDA)) {
    AutocastState::set_enabled(DeviceType::kCPU, false);
    AutocastState::set_enabled(DeviceType::kCUDA, false);
  }
  ~AutocastOff() {
    AutocastState::set_enabled(DeviceType::kCPU, cpu_);
    AutocastState::set_enabled(DeviceType::kCUDA, cuda_);
  }
  AutocastOff(const AutocastOff&) = delete;
  AutocastOff& operator=(const AutocastOff&) = delete;

 private:
  bool cpu_, cuda_;
};

void PrintValue(std::ostream& os, const Value& v) {
  const auto& s = v.storage();
  if (v.is_none()) {
    os << "None";
  } else if (auto* sc = std::get_if<Scalar>(&s)) {
    if (sc->kind == Scalar::Kind::kBool) {
      os << (sc->b ? "True" : "False");
    } else if (sc->kind == Scalar::Kind::kInt) {
      os << sc->i;
    } else {
      os << sc->d;
    }
  } else if (auto* i = std::get_if<int64_t>(&s)) {
    os << *i;
  } else if (auto* d = std::get_if<double>(&s)) {
    os << *d;
  } else if (auto* b = std::get_if<bool>(&s)) {
    os << (*b ? "True" : "False");
  } else if (auto* l = std::get_if<DimVector>(&s)) {
    os << ShapeToString(*l);
  } else if (auto* dt = std::get_if<DType>(&s)) {
    os << DTypeName(*dt);
  } else if (auto* str = std::get_if<std::string>(&s)) {
    os << '"' << *str << '"';
  } else if (v.is_tensor() && v.is_wrapped_number()) {
    os << "<number>";
  } else {
    os << "<value>";
  }
}

}  // namespace

Trace* Trace::Active() { return active_trace; }

void Trace::Begin() {
  OF_CHECK(active_trace == nullptr, RuntimeError,
           "nn.Graph: a graph is already being traced on this thread (a graph cannot be called "
           "inside another graph's build)");
  owned_trace = std::make_unique<Trace>();
  active_trace = owned_trace.get();
}

void Trace::Abort() {
  active_trace = nullptr;
  owned_trace.reset();
}

void Trace::AddInput(const TensorImplPtr& t) {
  OF_CHECK(t != nullptr, ValueError, "nn.Graph: an input tensor is undefined");
  plan_->inputs_.push_back(NewValue(t));
}

int Trace::NewValue(const TensorImplPtr& t) {
  const int id = plan_->num_values_++;
  ids_[t.get()] = id;
  seen_.push_back(t);
  return id;
}

int Trace::IdOf(const TensorImplPtr& t) {
  if (t == nullptr) return -1;
  auto it = ids_.find(t.get());
  if (it != ids_.end()) return it->second;
  auto alias = alias_of_.find(t.get());
  if (alias != alias_of_.end()) return IdOf(alias->second);
  // Produced by none of the recorded ops: a constant of the graph (a parameter,
  // a buffer, an eager tensor the build function captured).
  const int id = NewValue(t);
  plan_->constants_.emplace_back(id, t);
  return id;
}

void Trace::Record(const OpDef& op, const std::vector<Value>& args, const TensorList& outputs) {
  TraceNode node;
  node.op = &op;
  node.args = args;
  node.tensor_ids.resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const Value& v = args[i];
    if (v.is_tensor() && !v.is_wrapped_number()) {
      node.tensor_ids[i] = {IdOf(v.tensor())};
      node.args[i] = Value();  // the run supplies it
    } else if (v.is_tensor_list()) {
      for (const TensorImplPtr& t : v.tensors()) node.tensor_ids[i].push_back(IdOf(t));
      node.args[i] = Value(std::vector<TensorImplPtr>());
    }
  }
  for (const TensorImplPtr& t : outputs) node.outputs.push_back(NewValue(t));
  plan_->nodes_.push_back(std::move(node));
}

void Trace::Alias(const TensorImplPtr& of, const TensorImplPtr& alias) {
  if (of == nullptr || alias == nullptr || of == alias) return;
  alias_of_[alias.get()] = of;
  seen_.push_back(alias);
}

void NoteAlias(const TensorImplPtr& of, const TensorImplPtr& alias) {
  if (Trace* trace = Trace::Active()) trace->Alias(of, alias);
}

std::shared_ptr<Plan> Trace::End(const TensorList& outputs) {
  OF_CHECK(active_trace != nullptr, RuntimeError, "nn.Graph: no trace is active");
  std::unique_ptr<Trace> trace = std::move(owned_trace);
  active_trace = nullptr;
  // An output no op produced is a constant (a captured eager tensor, returned as is); a detached
  // output stands for the value it was detached from.
  std::vector<int> output_ids;
  for (size_t i = 0; i < outputs.size(); ++i) {
    OF_CHECK(outputs[i] != nullptr, ValueError, "nn.Graph: output ", i, " is undefined");
    output_ids.push_back(trace->IdOf(outputs[i]));
  }
  std::shared_ptr<Plan> plan = std::move(trace->plan_);
  plan->outputs_ = std::move(output_ids);
  plan->Finish();
  return plan;
}

void Plan::Finish() {
  last_use_.assign(num_values_, -1);
  for (size_t n = 0; n < nodes_.size(); ++n) {
    for (const auto& ids : nodes_[n].tensor_ids) {
      for (int id : ids) {
        if (id >= 0) last_use_[id] = static_cast<int>(n);
      }
    }
  }
  // Outputs live to the end of the run.
  for (int id : outputs_) last_use_[id] = static_cast<int>(nodes_.size());
}

std::shared_ptr<Plan> Plan::Make(std::vector<TraceNode> nodes, int num_values,
                                 std::vector<int> inputs, std::vector<int> outputs,
                                 std::vector<std::pair<int, TensorImplPtr>> constants) {
  auto check = [num_values](int id, const char* what) {
    OF_CHECK(id >= -1 && id < num_values, ValueError, "nn.Graph: a saved graph names ", what,
             " value %", id, " of ", num_values);
  };
  for (int id : inputs) check(id, "input");
  for (int id : outputs) check(id, "output");
  for (const auto& [id, t] : constants) {
    check(id, "constant");
    OF_CHECK(t != nullptr, ValueError, "nn.Graph: constant %", id,
             " of a saved graph is undefined");
  }
  for (const TraceNode& node : nodes) {
    OF_CHECK(node.op != nullptr && node.tensor_ids.size() == node.args.size(), ValueError,
             "nn.Graph: a saved graph has a malformed node");
    for (const auto& ids : node.tensor_ids) {
      for (int id : ids) check(id, "argument");
    }
    for (int id : node.outputs) check(id, "result");
  }
  auto plan = std::make_shared<Plan>();
  plan->nodes_ = std::move(nodes);
  plan->num_values_ = num_values;
  plan->inputs_ = std::move(inputs);
  plan->outputs_ = std::move(outputs);
  plan->constants_ = std::move(constants);
  plan->Finish();
  return plan;
}

TensorList Plan::Run(const TensorList& inputs) const {
  OF_CHECK(inputs.size() == inputs_.size(), ValueError, "nn.Graph: the compiled graph takes ",
           inputs_.size(), " tensors, got ", inputs.size());
  OF_CHECK(Trace::Active() == nullptr, RuntimeError,
           "nn.Graph: a compiled graph cannot run while another graph is being traced");
  GradModeGuard no_grad(false);
  AutocastOff no_autocast;
  std::vector<TensorImplPtr> values(num_values_);
  for (const auto& [id, t] : constants_) values[id] = t;
  for (size_t i = 0; i < inputs.size(); ++i) values[inputs_[i]] = inputs[i];
  for (size_t n = 0; n < nodes_.size(); ++n) {
    const TraceNode& node = nodes_[n];
    std::vector<Value> args = node.args;
    for (size_t a = 0; a < args.size(); ++a) {
      const std::vector<int>& ids = node.tensor_ids[a];
      if (args[a].is_tensor_list()) {
        std::vector<TensorImplPtr> list;
        list.reserve(ids.size());
        for (int id : ids) list.push_back(id < 0 ? nullptr : values[id]);
        args[a] = Value(std::move(list));
      } else if (!ids.empty()) {
        args[a] = ids[0] < 0 ? Value() : Value(values[ids[0]]);
      }
    }
    std::vector<Value> results = Dispatch(*node.op, std::move(args));
    size_t k = 0;
    for (const Value& r : results) {
      if (r.is_tensor_list()) {
        for (const TensorImplPtr& t : r.tensors()) {
          if (k < node.outputs.size()) values[node.outputs[k++]] = t;
        }
      } else if (r.is_tensor() && k < node.outputs.size()) {
        values[node.outputs[k++]] = r.tensor();
      }
    }
    // Values read for the last time here are released (the allocator reuses them at once).
    for (const auto& ids : node.tensor_ids) {
      for (int id : ids) {
        if (id >= 0 && last_use_[id] == static_cast<int>(n)) values[id] = nullptr;
      }
    }
  }
  TensorList out;
  out.reserve(outputs_.size());
  for (int id : outputs_) out.push_back(values[id]);
  return out;
}

void Plan::SetArg(size_t node, size_t arg, Value value) {
  OF_CHECK(node < nodes_.size() && arg < nodes_[node].args.size() &&
               nodes_[node].tensor_ids[arg].empty() && !value.is_tensor() &&
               !value.is_tensor_list(),
           ValueError, "nn.Graph: no non-tensor argument ", arg, " at node ", node);
  nodes_[node].args[arg] = std::move(value);
}

std::string Plan::ToString() const {
  std::ostringstream os;
  os << "graph(";
  for (size_t i = 0; i < inputs_.size(); ++i) os << (i ? ", %" : "%") << inputs_[i];
  os << ") {\n";
  for (const TraceNode& node : nodes_) {
    os << "  ";
    for (size_t i = 0; i < node.outputs.size(); ++i) os << (i ? ", %" : "%") << node.outputs[i];
    os << (node.outputs.empty() ? "" : " = ") << node.op->schema().name << "(";
    for (size_t a = 0; a < node.args.size(); ++a) {
      if (a) os << ", ";
      const std::vector<int>& ids = node.tensor_ids[a];
      if (node.args[a].is_tensor_list()) {
        os << "[";
        for (size_t j = 0; j < ids.size(); ++j) os << (j ? ", %" : "%") << ids[j];
        os << "]";
      } else if (!ids.empty()) {
        os << "%" << ids[0];
      } else {
        PrintValue(os, node.args[a]);
      }
    }
    os << ")\n";
  }
  os << "  return ";
  for (size_t i = 0; i < outputs_.size(); ++i) os << (i ? ", %" : "%") << outputs_[i];
  os << "\n}";
  return os.str();
}

void CheckNotTracing(const char* what) {
  OF_CHECK(Trace::Active() == nullptr, RuntimeError, "nn.Graph: ", what,
           " reads a tensor's values while build() is traced; the graph would keep this call's "
           "values forever. Keep value-dependent Python control flow out of build()");
}

}  // namespace oneflow
