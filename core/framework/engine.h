#ifndef CORE_FRAMEWORK_ENGINE_H_
#define CORE_FRAMEWORK_ENGINE_H_

#include <functional>

#include "core/framework/node.h"

namespace oneflow {

// Runs the autograd graph backward from `roots`, seeded with `grad_roots`
// (one per root, same shapes).
//
// With `inputs` empty (Tensor.backward) gradients accumulate into the .grad of
// the leaves. Otherwise (autograd.grad) nothing accumulates: the gradients of
// `inputs` are returned, null for an input the roots do not depend on (an
// error unless `allow_unused`).
//
// Saved tensors are freed as nodes run unless `keep_graph`; with
// `create_graph` the backward computations are themselves recorded, so the
// results can be differentiated again.
TensorList RunBackward(const TensorList& roots, const TensorList& grad_roots, bool keep_graph,
                       bool create_graph, const TensorList& inputs = {}, bool allow_unused = false);

// Anomaly detection (torch.autograd.set_detect_anomaly): while a check is set, RunBackward calls
// it with each node and the gradients its backward just returned, so a bad value (NaN) is caught
// at the op that made it. The check reports by throwing. An empty function turns it off.
using AnomalyCheck = std::function<void(const Node& node, const TensorList& grads)>;
void SetAnomalyCheck(AnomalyCheck check);

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_ENGINE_H_
