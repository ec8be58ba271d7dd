#include "core/framework/engine.h"

#include <map>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "core/framework/core_ops.h"
#include "core/framework/dispatch.h"
#include "core/framework/grad_mode.h"
#include "core/runtime/error.h"

namespace oneflow {
namespace {

struct ReadyOrder {
  bool operator()(Node* a, Node* b) const { return a->sequence_nr() < b->sequence_nr(); }
};

void AddInto(TensorImplPtr& slot, const TensorImplPtr& g) {
  slot = slot ? GetCoreOps().add(slot, g) : g;
}

TensorImplPtr RunLeafHooks(const TensorImplPtr& leaf, TensorImplPtr g) {
  const AutogradMeta* meta = leaf ? leaf->autograd_if_any() : nullptr;
  if (!meta) return g;
  for (const auto& hook : meta->hooks) {
    TensorImplPtr replaced = hook(g);
    if (replaced) g = replaced;
  }
  return g;
}

AnomalyCheck& AnomalyCheckSlot() {
  static AnomalyCheck check;
  return check;
}

}  // namespace

void SetAnomalyCheck(AnomalyCheck check) { AnomalyCheckSlot() = std::move(check); }

TensorList RunBackward(const TensorList& roots, const TensorList& grad_roots, bool keep_graph,
                       bool create_graph, const TensorList& inputs, bool allow_unused) {
  OF_CHECK(roots.size() == grad_roots.size(), RuntimeError, "backward: got ", roots.size(),
           " tensors and ", grad_roots.size(), " gradients");
  std::vector<Edge> root_edges;
  for (size_t i = 0; i < roots.size(); ++i) {
    OF_CHECK(roots[i]->requires_grad(), RuntimeError, "element ", i,
             " of tensors does not require grad and does not have a grad_fn");
    OF_CHECK(grad_roots[i]->shape() == roots[i]->shape(), RuntimeError,
             "backward: the gradient given for output ", i, " has shape ",
             ShapeToString(grad_roots[i]->shape()), " but the output has shape ",
             ShapeToString(roots[i]->shape()));
    root_edges.push_back(GradientEdge(roots[i]));
  }

  // Captures for autograd.grad: (node, input slot) -> index in `inputs`.
  std::map<std::pair<Node*, uint32_t>, size_t> captures;
  std::vector<TensorImplPtr> captured(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    OF_CHECK(inputs[i]->requires_grad(), RuntimeError, "One of the differentiated Tensors (index ",
             i, ") does not require grad");
    Edge e = GradientEdge(inputs[i]);
    captures[{e.fn.get(), e.input_nr}] = i;
  }

  // Dependencies (number of incoming edges) of every reachable node.
  std::unordered_map<Node*, int> deps;
  std::unordered_map<Node*, std::shared_ptr<Node>> keep;  // alive while we run
  std::vector<Node*> stack;
  for (const Edge& e : root_edges) {
    if (keep.emplace(e.fn.get(), e.fn).second) stack.push_back(e.fn.get());
  }
  std::vector<Node*> order;  // discovery order, for the "needed" pass
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    order.push_back(n);
    for (const Edge& e : n->next_edges()) {
      if (!e.valid()) continue;
      ++deps[e.fn.get()];
      if (keep.emplace(e.fn.get(), e.fn).second) stack.push_back(e.fn.get());
    }
  }
  // With captures, only nodes on a path to a captured slot need to run.
  std::unordered_set<Node*> needed;
  if (!inputs.empty()) {
    bool changed = true;
    std::unordered_set<Node*> capture_nodes;
    for (const auto& [key, idx] : captures) capture_nodes.insert(key.first);
    while (changed) {  // fixed point; graphs are small relative to the work per node
      changed = false;
      for (Node* n : order) {
        if (needed.count(n)) continue;
        bool need = capture_nodes.count(n) > 0;
        for (const Edge& e : n->next_edges()) {
          if (e.valid() && needed.count(e.fn.get())) need = true;
        }
        if (need) {
          needed.insert(n);
          changed = true;
        }
      }
    }
  }

  GradModeGuard grad_mode(create_graph);
  std::unordered_map<Node*, TensorList> buffers;
  std::priority_queue<Node*, std::vector<Node*>, ReadyOrder> ready;
  for (size_t i = 0; i < root_edges.size(); ++i) {
    Node* n = root_edges[i].fn.get();
    TensorList& buf = buffers[n];
    buf.resize(n->num_outputs());
    AddInto(buf[root_edges[i].input_nr], grad_roots[i]);
  }
  for (const auto& [n, _] : buffers) {
    if (deps[n] == 0) ready.push(n);
  }

  std::unordered_set<Node*> done;
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    if (!done.insert(n).second) continue;
    TensorList grads = std::move(buffers[n]);
    grads.resize(n->num_outputs());
    buffers.erase(n);
    n->RunOutputHooks(grads);

    auto* acc = dynamic_cast<AccumulateGrad*>(n);
    for (uint32_t nr = 0; nr < grads.size(); ++nr) {
      auto it = captures.find({n, nr});
      if (it != captures.end() && grads[nr]) {
        captured[it->second] = acc ? RunLeafHooks(acc->leaf(), grads[nr]) : grads[nr];
      }
    }
    bool run = inputs.empty() ? true : needed.count(n) > 0 && !acc;
    bool any = false;
    for (const auto& g : grads) any = any || g != nullptr;
    TensorList outs;
    if (run && any) {
      if (acc) {
        TensorImplPtr leaf = acc->leaf();
        grads[0] = RunLeafHooks(leaf, grads[0]);
        acc->Apply(std::move(grads));
      } else {
        outs = n->Apply(std::move(grads));
        if (const AnomalyCheck& check = AnomalyCheckSlot()) check(*n, outs);
      }
    }
    if (run && !keep_graph) n->ReleaseSaved();
    const auto& edges = n->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.valid()) continue;
      Node* next = e.fn.get();
      if (i < outs.size() && outs[i]) {
        TensorList& buf = buffers[next];
        buf.resize(next->num_outputs());
        AddInto(buf[e.input_nr], outs[i]);
      }
      if (--deps[next] == 0) ready.push(next);
    }
  }

  for (size_t i = 0; i < inputs.size(); ++i) {
    OF_CHECK(captured[i] || allow_unused, RuntimeError, "autograd.grad: input ", i,
             " was not used to compute the outputs; pass allow_unused=True to get None for it");
  }
  return captured;
}

}  // namespace oneflow
