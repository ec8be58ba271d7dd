// linear and bilinear, composed from the matrix products of ops/defs/linalg.cc
// (oneDNN's sgemm for float32), so their gradients follow from those.
//
// linear(x, w, b) = x @ w^T + b: the batch dims of x fold into the rows of one
// addmm (w^T is a view; sgemm reads it transposed). bilinear(x1, x2, w, b) =
// sum_ij x1[..., i] w[o, i, j] x2[..., j] + b[o]: one matmul of x1 with w laid
// out as [in1, out * in2], then a product with x2 summed over in2.

#include "core/runtime/view_ops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

std::string Dims(const DimVector& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

OF_OP("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor")
    .Composite([](OpCall& call) {
      const TensorImplPtr &x = call.tensor(0), &w = call.tensor(1);
      const TensorImplPtr b = call.has(2) ? call.tensor(2) : nullptr;
      OF_CHECK(x->ndim() >= 1 && (w->ndim() == 1 || w->ndim() == 2), RuntimeError,
               "linear(): expected an input of at least 1 dim and a 1-D or 2-D weight, but got "
               "input of size ",
               ShapeToString(x->shape()), " and weight of size ", ShapeToString(w->shape()));
      const int64_t in = x->shape().back();
      OF_CHECK(in == w->shape().back(), RuntimeError,
               "linear(): input and weight shapes cannot be multiplied (", Dims(x->shape()),
               " and ", Dims(w->ndim() == 2 ? DimVector{w->shape()[1], w->shape()[0]} : w->shape()),
               ")");
      DimVector out_shape(x->shape().begin(), x->shape().end() - 1);
      if (w->ndim() == 2) out_shape.push_back(w->shape()[0]);
      if (b) {
        OF_CHECK(BroadcastShapes(b->shape(), out_shape, "linear") == out_shape, RuntimeError,
                 "linear(): bias of size ", ShapeToString(b->shape()),
                 " cannot be broadcast to the output of size ", ShapeToString(out_shape));
      }
      if (w->ndim() == 2 && x->ndim() >= 2) {
        // [..., in] -> [rows, in] @ [in, out] (+ bias) -> [..., out]
        TensorImplPtr x2 = x->ndim() == 2 ? x : Call("reshape", {x, DimVector{-1, in}});
        TensorImplPtr wt = Call("t", {w});
        if (b && b->ndim() <= 1) {
          TensorImplPtr y = Call("addmm", {b, x2, wt});
          call.outputs = {x->ndim() == 2 ? y : Call("reshape", {y, out_shape})};
          return;
        }
        TensorImplPtr y = Call("mm", {x2, wt});
        // As PyTorch, a bias of several dims is added to the folded [rows, out]
        // product for 2-D and contiguous 3-D inputs, to the result otherwise.
        const bool folded = x->ndim() == 2 || (x->ndim() == 3 && x->is_contiguous());
        if (b && folded) {
          OF_CHECK(BroadcastShapes(b->shape(), y->shape(), "linear") == y->shape(), RuntimeError,
                   "linear(): bias of size ", ShapeToString(b->shape()),
                   " cannot be broadcast to the folded output of size ", ShapeToString(y->shape()));
          y = Add(y, b);
        }
        if (x->ndim() != 2) y = Call("reshape", {y, out_shape});
        if (b && !folded) y = Add(y, b);
        call.outputs = {y};
        return;
      }
      TensorImplPtr y = Call("matmul", {x, w->ndim() == 2 ? Call("t", {w}) : w});
      if (b) y = Add(y, b);
      call.outputs = {y};
    });

OF_OP("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor")
    .Composite([](OpCall& call) {
      const TensorImplPtr &x1 = call.tensor(0), &x2 = call.tensor(1), &w = call.tensor(2);
      const TensorImplPtr b = call.has(3) ? call.tensor(3) : nullptr;
      OF_CHECK(x1->ndim() == x2->ndim(), RuntimeError,
               "bilinear(): input dimensions do not match: got ", x1->ndim(), " and ", x2->ndim(),
               " (input1 of size ", ShapeToString(x1->shape()), ", input2 of size ",
               ShapeToString(x2->shape()), ")");
      OF_CHECK(x1->ndim() >= 1, RuntimeError, "bilinear(): inputs must have at least 1 dim");
      for (int64_t i = 0; i + 1 < x1->ndim(); ++i) {
        OF_CHECK(x1->shape()[i] == x2->shape()[i], RuntimeError,
                 "bilinear(): input batch dimensions do not match at dim ", i, ": got ",
                 x1->shape()[i], " and ", x2->shape()[i], " (input1 of size ",
                 ShapeToString(x1->shape()), ", input2 of size ", ShapeToString(x2->shape()), ")");
      }
      OF_CHECK(w->ndim() == 3, RuntimeError,
               "bilinear(): weight must be 3-D, but got weight of size ",
               ShapeToString(w->shape()));
      const int64_t o = w->shape()[0], i1 = w->shape()[1], i2 = w->shape()[2];
      OF_CHECK(x1->shape().back() == i1, RuntimeError,
               "bilinear(): input1 size does not match weight size: got ", x1->shape().back(),
               " but expected ", i1, " (weight of size ", ShapeToString(w->shape()), ")");
      OF_CHECK(x2->shape().back() == i2, RuntimeError,
               "bilinear(): input2 size does not match weight size: got ", x2->shape().back(),
               " but expected ", i2, " (weight of size ", ShapeToString(w->shape()), ")");
      if (b) {
        OF_CHECK(b->ndim() == 1 && b->shape()[0] == o, RuntimeError,
                 "bilinear(): bias size does not match weight size: got ",
                 b->ndim() == 1 ? b->shape()[0] : b->numel(), " but expected ", o,
                 " (bias of size ", ShapeToString(b->shape()), ")");
      }
      DimVector out_shape(x1->shape().begin(), x1->shape().end() - 1);
      out_shape.push_back(o);
      TensorImplPtr a = Call("reshape", {x1, DimVector{-1, i1}});
      TensorImplPtr c = Call("reshape", {x2, DimVector{-1, i2}});
      // w as [in1, out * in2]
      TensorImplPtr wm =
          Call("reshape", {Call("permute", {w, DimVector{1, 0, 2}}), DimVector{i1, o * i2}});
      TensorImplPtr t = Call("reshape", {Call("mm", {a, wm}), DimVector{-1, o, i2}});
      TensorImplPtr y = Call("sum.dim", {Mul(t, Call("unsqueeze", {c, 1})), DimVector{2}, false});
      if (b) y = Add(y, b);
      call.outputs = {Call("reshape", {y, out_shape})};
    });

}  // namespace
}  // namespace defs
}  // namespace oneflow
