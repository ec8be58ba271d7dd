// Matrix products: matmul, mm, bmm, addmm, baddbmm, mv, dot, outer.
// Declarations, shape/dtype rules and backward formulas; kernels:
// ops/cpu/matmul_kernels.cc.
//
// Operands must share one dtype (PyTorch does not promote here, except for
// outer, which is a product of broadcast vectors).

#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// PyTorch's names for dtypes in these messages: C++ names ("float != double")
// and ScalarType names ("Float and Double").
const char* CppTypeName(DType d) {
  switch (d) {
    case DType::kBool:
      return "bool";
    case DType::kUInt8:
      return "unsigned char";
    case DType::kInt8:
      return "signed char";
    case DType::kInt16:
      return "short int";
    case DType::kInt32:
      return "int";
    case DType::kInt64:
      return "long int";
    case DType::kFloat16:
      return "c10::Half";
    case DType::kBFloat16:
      return "c10::BFloat16";
    case DType::kFloat32:
      return "float";
    case DType::kFloat64:
      return "double";
  }
  return "?";
}

// "2x3" for a matrix (and "3" for a vector, "2x2x3" for a batch).
std::string Dims(const DimVector& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

void CheckSameDType(const TensorImplPtr& a, const TensorImplPtr& b) {
  OF_CHECK(a->dtype() == b->dtype(), RuntimeError,
           "expected m1 and m2 to have the same dtype, but got: ", CppTypeName(a->dtype()),
           " != ", CppTypeName(b->dtype()));
}

void CheckNDim(const TensorImplPtr& t, int64_t ndim, const char* op, const char* what) {
  OF_CHECK(t->ndim() == ndim, RuntimeError, op, "(): ", what, " must be a ",
           ndim == 2 ? "matrix" : "3D tensor", ", but got a ", t->ndim(), "-D tensor");
}

// The output has the operands' dtype (the kernel computes the 16-bit floats in
// float32). Bool has no kernel (as in PyTorch).
void SetOutput(OpCall& call, DType dtype, DimVector shape) {
  OF_CHECK(dtype != DType::kBool, NotImplementedError, "\"", call.name(),
           "\" not implemented for 'Bool'");
  call.compute_dtype = dtype;
  call.out_meta = {{std::move(shape), dtype}};
}

// `self` of addmm/baddbmm must expand to the product's shape.
void CheckExpandable(const TensorImplPtr& self, const DimVector& shape, const char* op) {
  const DimVector& s = self->shape();
  bool ok = s.size() <= shape.size();
  for (size_t i = 0; ok && i < s.size(); ++i) {
    int64_t want = shape[shape.size() - s.size() + i];
    ok = s[i] == want || s[i] == 1;
  }
  OF_CHECK(ok, RuntimeError, op, "(): self of shape ", ShapeToString(s),
           " cannot be expanded to the size of the product ", ShapeToString(shape));
}

// addmm and baddbmm (and their in-place twins) have the same indices.
void CheckAddDTypes(const OpCall& call, const char* op) {
  const TensorImplPtr& self = call.tensor(arg::addmm::self);
  const TensorImplPtr& mat2 = call.tensor(arg::addmm::mat2);
  CheckSameDType(call.tensor(arg::addmm::mat1), mat2);
  OF_CHECK(self->dtype() == mat2->dtype(), RuntimeError, op,
           "(): self and mat2 must have the same dtype, but got ", LegacyTypeName(self->dtype()),
           " and ", LegacyTypeName(mat2->dtype()));
}

DimVector MmShape(const TensorImplPtr& a, const TensorImplPtr& b, const char* op,
                  const char* a_name) {
  CheckNDim(a, 2, op, a_name);
  CheckNDim(b, 2, op, "mat2");
  OF_CHECK(a->shape()[1] == b->shape()[0], RuntimeError, op,
           "(): mat1 and mat2 shapes cannot be multiplied (", Dims(a->shape()), " and ",
           Dims(b->shape()), ")");
  return {a->shape()[0], b->shape()[1]};
}

DimVector BmmShape(const TensorImplPtr& a, const TensorImplPtr& b, const char* op) {
  CheckNDim(a, 3, op, "batch1");
  CheckNDim(b, 3, op, "batch2");
  OF_CHECK(a->shape()[0] == b->shape()[0] && a->shape()[2] == b->shape()[1], RuntimeError, op,
           "(): batch1 and batch2 shapes cannot be multiplied (", Dims(a->shape()), " and ",
           Dims(b->shape()), "): expected batch2 to have size [", a->shape()[0], ", ",
           a->shape()[2], "] in its first two dimensions");
  return {a->shape()[0], a->shape()[1], b->shape()[2]};
}

void InferMm(OpCall& call) {
  const TensorImplPtr &a = call.tensor(arg::mm::self), &b = call.tensor(arg::mm::mat2);
  DimVector shape = MmShape(a, b, "mm", "self");
  CheckSameDType(a, b);
  SetOutput(call, a->dtype(), std::move(shape));
}

void InferBmm(OpCall& call) {
  const TensorImplPtr &a = call.tensor(arg::bmm::self), &b = call.tensor(arg::bmm::mat2);
  DimVector shape = BmmShape(a, b, "bmm");
  CheckSameDType(a, b);
  SetOutput(call, a->dtype(), std::move(shape));
}

// (addmm and addmm_ have the same indices.)
void InferAddmm(OpCall& call) {
  const TensorImplPtr& self = call.tensor(arg::addmm::self);
  DimVector shape =
      MmShape(call.tensor(arg::addmm::mat1), call.tensor(arg::addmm::mat2), "addmm", "mat1");
  CheckExpandable(self, shape, "addmm");
  CheckAddDTypes(call, "addmm");
  SetOutput(call, self->dtype(), std::move(shape));
}

// (baddbmm and baddbmm_ have the same indices.)
void InferBaddbmm(OpCall& call) {
  const TensorImplPtr& self = call.tensor(arg::baddbmm::self);
  DimVector shape =
      BmmShape(call.tensor(arg::baddbmm::batch1), call.tensor(arg::baddbmm::batch2), "baddbmm");
  CheckExpandable(self, shape, "baddbmm");
  CheckAddDTypes(call, "baddbmm");
  SetOutput(call, self->dtype(), std::move(shape));
}

void InferMv(OpCall& call) {
  const TensorImplPtr &a = call.tensor(arg::mv::self), &v = call.tensor(arg::mv::vec);
  OF_CHECK(a->ndim() == 2 && v->ndim() == 1, RuntimeError,
           "mv(): expected a matrix and a vector, but got ", a->ndim(), "-D and ", v->ndim(),
           "-D tensors");
  OF_CHECK(a->shape()[1] == v->shape()[0], RuntimeError, "mv(): size mismatch, got mat (",
           Dims(a->shape()), "), vec (", v->shape()[0], ")");
  OF_CHECK(a->dtype() == v->dtype(), RuntimeError,
           "mv(): expected self and vec to have the same dtype, but got ",
           LegacyTypeName(a->dtype()), " and ", LegacyTypeName(v->dtype()));
  SetOutput(call, a->dtype(), {a->shape()[0]});
}

void InferDot(OpCall& call) {
  const TensorImplPtr &a = call.tensor(arg::dot::self), &b = call.tensor(arg::dot::tensor);
  OF_CHECK(a->ndim() == 1 && b->ndim() == 1, RuntimeError, "dot(): 1D tensors expected, but got ",
           a->ndim(), "D and ", b->ndim(), "D tensors");
  OF_CHECK(a->shape()[0] == b->shape()[0], RuntimeError,
           "dot(): inconsistent tensor size, expected tensor [", a->shape()[0], "] and src [",
           b->shape()[0], "] to have the same number of elements, but got ", a->shape()[0], " and ",
           b->shape()[0], " elements respectively");
  OF_CHECK(a->dtype() == b->dtype(), RuntimeError,
           "dot : expected both vectors to have same dtype, but found ", LegacyTypeName(a->dtype()),
           " and ", LegacyTypeName(b->dtype()));
  SetOutput(call, a->dtype(), {});
}

// matmul: dot (1-D, 1-D), matrix-vector products (a 1-D operand gains a dim
// that the result drops again) and batched products whose batch dims
// (all but the last two) broadcast.
void InferMatmul(OpCall& call) {
  const TensorImplPtr &a = call.tensor(arg::matmul::self), &b = call.tensor(arg::matmul::other);
  const int64_t an = a->ndim(), bn = b->ndim();
  OF_CHECK(an >= 1 && bn >= 1, RuntimeError,
           "both arguments to matmul need to be at least 1D, but they are ", an, "D and ", bn, "D");
  CheckSameDType(a, b);
  const int64_t ka = a->shape()[an - 1];
  const int64_t kb = b->shape()[bn >= 2 ? bn - 2 : 0];
  OF_CHECK(ka == kb, RuntimeError, "matmul(): mat1 and mat2 shapes cannot be multiplied (",
           Dims(a->shape()), " and ", Dims(b->shape()), ")");
  DimVector abatch(a->shape().begin(), a->shape().end() - std::min<int64_t>(an, 2));
  DimVector bbatch(b->shape().begin(), b->shape().end() - std::min<int64_t>(bn, 2));
  DimVector shape = BroadcastShapes(abatch, bbatch, "matmul");
  if (an >= 2) shape.push_back(a->shape()[an - 2]);
  if (bn >= 2) shape.push_back(b->shape()[bn - 1]);
  SetOutput(call, a->dtype(), std::move(shape));
}

// ---- backward --------------------------------------------------------------

TensorImplPtr T2(const TensorImplPtr& t) { return ops::t(t); }
TensorImplPtr MT(const TensorImplPtr& t) { return ops::transpose(t, -2, -1); }

// a @ b, laid out like `like` (the operand whose gradient it is). When `like`
// is a transposed matrix (column-major, as the weight in linear's x @ w.t()),
// computes (b^T @ a^T)^T: the gradient then has like's strides, so after the
// transpose's backward it is contiguous like the weight and .grad takes it
// without a transposing copy.
TensorImplPtr MmLike(const TensorImplPtr& a, const TensorImplPtr& b, const TensorImplPtr& like) {
  const bool column_major = like->ndim() == 2 && like->shape()[0] > 1 && like->shape()[1] > 1 &&
                            like->stride()[0] == 1 && like->stride()[1] == like->shape()[0];
  return column_major ? T2(ops::mm(T2(b), T2(a))) : ops::mm(a, b);
}
TensorImplPtr Unsqueeze(const TensorImplPtr& t, int64_t dim) { return ops::unsqueeze(t, dim); }
TensorImplPtr SqueezeLast(const TensorImplPtr& t) {
  return ops::squeeze(t, DimVector{t->ndim() - 1});
}

bool IsOne(const Scalar& s) { return s.kind == Scalar::Kind::kBool ? s.b : s.d == 1.0; }

// t * s for a Scalar s (skipped when s is 1).
TensorImplPtr Scale(const TensorImplPtr& t, const Scalar& s) {
  if (IsOne(s)) return t;
  return Mul(t, s.kind == Scalar::Kind::kFloat ? Num(s.d) : Int(s.i));
}

// The gradients of a @ b for a 1-D or N-D operand each: the 1-D ones are
// viewed as (1, k) and (k, 1), the gradient gets the dims the product dropped,
// and the dispatcher sums the results over broadcast batch dims.
TensorList MatmulGrad(BackwardCtx& c) {
  const TensorImplPtr a = c.get(arg::matmul::self), b = c.get(arg::matmul::other);
  const bool a_vec = a->ndim() == 1, b_vec = b->ndim() == 1;
  TensorImplPtr g = c.grad();
  if (b_vec) g = Unsqueeze(g, g->ndim());
  if (a_vec) g = Unsqueeze(g, g->ndim() - 1);
  TensorImplPtr ga, gb;
  if (c.needs_grad[0]) {
    ga = ops::matmul(g, b_vec ? Unsqueeze(b, 0) : MT(b));
    if (a_vec) ga = ops::squeeze(ga, DimVector{ga->ndim() - 2});
  }
  if (c.needs_grad[1]) {
    gb = ops::matmul(a_vec ? Unsqueeze(a, 1) : MT(a), g);
    if (b_vec) gb = SqueezeLast(gb);
  }
  return {ga, gb};
}

OF_OP("matmul(Tensor self, Tensor other) -> Tensor")
    .Infer(InferMatmul)
    .Backward(MatmulGrad)
    .Sbp(sbp::Family("matmul"))
    .Autocast(amp::kLower);

OF_OP("mm(Tensor self, Tensor mat2) -> Tensor")
    .Infer(InferMm)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      TensorImplPtr self = c.get(arg::mm::self), mat2 = c.get(arg::mm::mat2);
      return {c.needs_grad[0] ? MmLike(g, T2(mat2), self) : nullptr,
              c.needs_grad[1] ? MmLike(T2(self), g, mat2) : nullptr};
    })
    .Sbp(sbp::Family("matmul"))
    .Autocast(amp::kLower);

OF_OP("bmm(Tensor self, Tensor mat2) -> Tensor")
    .Infer(InferBmm)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      return {c.needs_grad[0] ? ops::bmm(g, MT(c.get(arg::bmm::mat2))) : nullptr,
              c.needs_grad[1] ? ops::bmm(MT(c.get(arg::bmm::self)), g) : nullptr};
    })
    .Sbp(sbp::Family("matmul"))
    .Autocast(amp::kLower);

// addmm/baddbmm: beta * self + alpha * (mat1 @ mat2). With beta == 0 self is
// not read (NaN in it does not propagate). `prod` computes a @ b laid out like
// `like` (mm) or not (bmm). addmm and baddbmm (and their in-place twins) have
// the same indices.
TensorList AddProductGrad(BackwardCtx& c,
                          TensorImplPtr (*prod)(const TensorImplPtr& a, const TensorImplPtr& b,
                                                const TensorImplPtr& like),
                          TensorImplPtr (*transpose)(const TensorImplPtr&)) {
  TensorImplPtr g = c.grad();
  const Scalar beta = c.get(arg::addmm::beta), alpha = c.get(arg::addmm::alpha);
  TensorImplPtr gself, g1, g2;
  if (c.needs_grad[0]) gself = Scale(g, beta);
  if (c.needs_grad[1]) {
    g1 = Scale(prod(g, transpose(c.get(arg::addmm::mat2)), c.get(arg::addmm::mat1)), alpha);
  }
  if (c.needs_grad[2]) {
    g2 = Scale(prod(transpose(c.get(arg::addmm::mat1)), g, c.get(arg::addmm::mat2)), alpha);
  }
  return {gself, g1, g2};
}

TensorImplPtr Bmm(const TensorImplPtr& a, const TensorImplPtr& b, const TensorImplPtr& /*like*/) {
  return ops::bmm(a, b);
}

OF_OP_WITH_INPLACE(
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor")
    .Infer(InferAddmm)
    .Backward([](BackwardCtx& c) { return AddProductGrad(c, MmLike, T2); })
    .Sbp(sbp::Family("addmm"))
    .Autocast(amp::kLower);

OF_OP_WITH_INPLACE(
    "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> "
    "Tensor")
    .Infer(InferBaddbmm)
    .Backward([](BackwardCtx& c) { return AddProductGrad(c, Bmm, MT); })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kLower);

OF_OP("mv(Tensor self, Tensor vec) -> Tensor")
    .Infer(InferMv)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      return {c.needs_grad[0] ? ops::outer(g, c.get(arg::mv::vec)) : nullptr,
              c.needs_grad[1] ? ops::mv(T2(c.get(arg::mv::self)), g) : nullptr};
    })
    .Sbp(sbp::Family("matmul"))
    .Autocast(amp::kNone, amp::kLower);

OF_OP("dot(Tensor self, Tensor tensor) -> Tensor")
    .Infer(InferDot)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      return {c.needs_grad[0] ? Mul(g, c.get(arg::dot::tensor)) : nullptr,
              c.needs_grad[1] ? Mul(g, c.get(arg::dot::self)) : nullptr};
    })
    .Sbp(sbp::Family("matmul"))
    .Autocast(amp::kNone, amp::kPromote);

// outer(a, b) = a[:, None] * b: a broadcast product, so it promotes dtypes and
// takes bool like mul (as in PyTorch); its gradient is mul's.
OF_OP("outer(Tensor self, Tensor vec2) -> Tensor")
    .Composite([](OpCall& call) {
      const TensorImplPtr &a = call.tensor(arg::outer::self), &b = call.tensor(arg::outer::vec2);
      OF_CHECK(a->ndim() == 1, RuntimeError, "outer: Expected 1-D argument self, but got ",
               a->ndim(), "-D");
      OF_CHECK(b->ndim() == 1, RuntimeError, "outer: Expected 1-D argument vec2, but got ",
               b->ndim(), "-D");
      call.outputs = {Mul(Unsqueeze(a, 1), b)};
    })
    .Sbp(sbp::Family("outer"))
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
