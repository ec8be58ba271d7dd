#ifndef CORE_FRAMEWORK_DISPATCH_H_
#define CORE_FRAMEWORK_DISPATCH_H_

// Running an op: argument defaults, output inference and allocation, the
// kernel for (device, dtype), in-place rules, and recording the autograd node.

#include <string>
#include <vector>

#include "core/framework/node.h"
#include "core/framework/op_registry.h"

namespace oneflow {

struct OutMeta {
  DimVector shape;
  DType dtype;
  // Strides of the output the dispatcher allocates (dense); empty: contiguous.
  DimVector stride = {};
};

struct OpCall {
  const OpDef* op = nullptr;
  std::vector<Value> args;  // one per schema argument, defaults filled in
  TensorList outputs;
  // Set by the op's infer function:
  std::vector<OutMeta> out_meta;
  DType compute_dtype = DType::kFloat32;
  bool cast_inputs = false;  // cast every tensor argument to compute_dtype first
  Device device;

  const std::string& name() const { return op->schema().name; }
  const TensorImplPtr& tensor(int i) const { return args[i].tensor(); }
  bool has(int i) const { return !args[i].is_none(); }
  // The argument `a` (arg::<op>::<name>) as the type it holds.
  template <typename T>
  T get(ArgRef<T> a) const {
    return ValueAs<T>(args[a.index]);
  }
};

// What a backward formula sees: the saved arguments and outputs, the gradients
// of the outputs, and which inputs need a gradient.
struct BackwardCtx {
  const OpDef* op = nullptr;
  std::shared_ptr<Node> node;
  std::vector<Value> args;                // tensors replaced by placeholders; see input()
  std::vector<SavedTensor> saved_inputs;  // per schema argument (undefined if not a tensor)
  std::vector<std::vector<SavedTensor>> saved_lists;  // per schema argument (Tensor[])
  std::vector<SavedTensor> saved_outputs;
  std::vector<OutMeta> output_meta;
  TensorList grads;              // one per output; null where no gradient flowed
  std::vector<bool> needs_grad;  // one per differentiable input (edge order)

  TensorImplPtr input(int arg) const;
  TensorList input_list(int arg) const;
  TensorImplPtr output(int i = 0) const;
  // The gradient of output i, zeros if none flowed.
  TensorImplPtr grad(int i = 0) const;
  const Scalar& scalar(int arg) const { return args[arg].scalar(); }
  int64_t int_arg(int arg) const { return args[arg].to_int(); }
  const Value& arg(int i) const { return args[i]; }
  // The argument `a` (arg::<op>::<name>) as the type it holds; tensors as
  // input() gives them.
  template <typename T>
  T get(ArgRef<T> a) const {
    if constexpr (std::is_same_v<T, TensorImplPtr>) {
      return input(a.index);
    } else if constexpr (std::is_same_v<T, TensorList>) {
      return input_list(a.index);
    } else {
      return ValueAs<T>(args[a.index]);
    }
  }
};

// Runs `op` on `args` (trailing defaults may be left out) and returns its
// outputs: tensors, or tensor lists for Tensor[] returns.
std::vector<Value> Dispatch(const OpDef& op, std::vector<Value> args);

// The broadcast of two shapes; throws RuntimeError naming `op` when they do not
// broadcast: "The size of tensor a (3) must match the size of tensor b (4) at
// non-singleton dimension 1".
DimVector BroadcastShapes(const DimVector& a, const DimVector& b, const char* op);

// `grad` summed over broadcast dims so that it has `shape`.
TensorImplPtr SumToShape(const TensorImplPtr& grad, const DimVector& shape);

// The strides of a new output of `shape` computed elementwise from `operands`
// (each broadcastable to `shape`), as PyTorch's TensorIterator lays it out: the
// operands' strides when all have `shape` and share one dense layout (all
// contiguous, all channels_last, or identical strides), else dense strides whose
// dim order follows the operands' strides (the first operand that orders two
// dims decides; broadcast dims decide nothing). Empty when that is contiguous.
DimVector ElementwiseOutputStrides(const std::vector<const TensorImpl*>& operands,
                                   const DimVector& shape);

// Common infer functions.
// Elementwise over all tensor (and Scalar) arguments: broadcast shape, promoted
// dtype; inputs are cast to it. Output dtype = compute dtype; output layout from
// ElementwiseOutputStrides (a channels_last input gives a channels_last output).
void InferElementwise(OpCall& call);
// Like InferElementwise, but integer and bool inputs compute (and return) the
// default float dtype (exp, sqrt, true division, ...).
void InferElementwiseFloat(OpCall& call);
// Like InferElementwise, but the output is bool (comparisons, isnan, ...).
void InferElementwiseBool(OpCall& call);

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_DISPATCH_H_
