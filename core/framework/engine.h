#ifndef CORE_FRAMEWORK_ENGINE_H_
#define CORE_FRAMEWORK_ENGINE_H_

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

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_ENGINE_H_
