// Matrix functions and decompositions behind oneflow.linalg: inverse,
// determinants, linear solves (general and triangular), Cholesky, QR, SVD,
// symmetric eigendecomposition and matrix/vector norms, batched over leading
// dims. Kernels (native LU, Householder QR, one-sided Jacobi SVD, Jacobi eigh):
// ops/cpu/linalg_more_kernels.cc.
//
// The kernel ops are private (`_linalg_*`, taking `A`): oneflow.linalg calls
// them (and turns their singular-input errors into LinAlgError), and the
// PyTorch names outside linalg (inverse, det, slogdet, logdet, cholesky, qr,
// svd) are composites over them. Backward formulas are PyTorch's, written with
// registered ops.

#include <cmath>
#include <limits>

#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// A float32/float64 tensor of (batches of) matrices, square when asked.
void CheckMatrix(const TensorImplPtr& a, const char* op, bool square, const char* name = "A") {
  const DType d = a->dtype();
  OF_CHECK(d == DType::kFloat32 || d == DType::kFloat64, RuntimeError, op,
           IsFloatingPoint(d) ? ": Low precision dtypes not supported. Got "
                              : ": Expected a floating point or complex tensor as input. Got ",
           LegacyTypeName(d));
  OF_CHECK(a->ndim() >= 2, RuntimeError, op, ": The input tensor ", name,
           " must have at least 2 dimensions.");
  const int64_t m = a->shape()[a->ndim() - 2], n = a->shape()[a->ndim() - 1];
  OF_CHECK(!square || m == n, RuntimeError, op, ": ", name,
           " must be batches of square matrices, but they are ", m, " by ", n, " matrices");
}

DimVector BatchOf(const TensorImplPtr& t) {
  return DimVector(t->shape().begin(), t->shape().end() - 2);
}
DimVector With(DimVector batch, std::initializer_list<int64_t> tail) {
  batch.insert(batch.end(), tail);
  return batch;
}

TensorImplPtr MT(const TensorImplPtr& t) { return ops::transpose(t, -2, -1); }
TensorImplPtr MM(const TensorImplPtr& a, const TensorImplPtr& b) { return ops::matmul(a, b); }
TensorImplPtr Unsq(const TensorImplPtr& t, int64_t d) { return ops::unsqueeze(t, d); }
TensorImplPtr Where(const TensorImplPtr& c, const Value& a, const Value& b) {
  return ops::where(c, a, b);
}
// An n x n boolean identity (a constant).
TensorImplPtr EyeMask(int64_t n, const Device& device) {
  return Eye(n, std::nullopt, DType::kBool, device);
}
// The incoming gradient of output i, or null when none flowed.
TensorImplPtr GradOrNull(const BackwardCtx& c, int i) { return c.grads[i]; }

// ---- inverse / det / slogdet -------------------------------------------------------

void InferInv(OpCall& call) {
  const TensorImplPtr& a = call.tensor(arg::_linalg_inv::A);
  CheckMatrix(a, "linalg.inv", true);
  call.compute_dtype = a->dtype();
  call.out_meta = {{a->shape(), a->dtype()}};
}
// d(A^-1) = -A^-1 dA A^-1, so gA = -A^-T g A^-T.
OF_OP("_linalg_inv(Tensor A) -> Tensor")
    .Infer(InferInv)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr inv_t = MT(c.output(0));
      return {Neg(MM(MM(inv_t, c.grad()), inv_t))};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);
OF_OP("inverse(Tensor self) -> Tensor")
    .Composite([](OpCall& call) {
      call.outputs = {ops::_linalg_inv(call.args[arg::inverse::self])};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);

// _linalg_det and _linalg_slogdet: A is argument 0 of both.
void InferDet(OpCall& call) {
  const TensorImplPtr& a = call.tensor(arg::_linalg_det::A);
  CheckMatrix(a, call.name() == "_linalg_det" ? "linalg.det" : "linalg.slogdet", true);
  call.compute_dtype = a->dtype();
  call.out_meta = {{BatchOf(a), a->dtype()}};
  if (call.name() == "_linalg_slogdet") call.out_meta.push_back({BatchOf(a), a->dtype()});
}

// d det / dA = det * A^-T where A is invertible. With a singular matrix in the
// batch it is the adjugate's transpose, taken from the SVD A = U S Vh:
// det(U) det(Vh) U diag(prod_{j != i} s_j) Vh.
TensorList DetGrad(BackwardCtx& c) {
  TensorImplPtr a = c.get(arg::_linalg_det::A), det = c.output(0);
  TensorImplPtr g = Mul(c.grad(), det);
  TensorImplPtr dc = Contiguous(ToDType(det, DType::kFloat64, false));
  bool singular = false;
  for (int64_t i = 0; i < dc->numel(); ++i) {
    singular = singular || reinterpret_cast<const double*>(dc->data())[i] == 0.0;
  }
  const int64_t n = a->shape().back();
  if (!singular || n == 0) {
    return {Mul(Unsq(Unsq(g, -1), -1), MT(ops::_linalg_inv(a)))};
  }
  auto [u, s, vh] = ops::_linalg_svd(a, false);
  DimVector square = s->shape();
  square.push_back(n);
  TensorImplPtr others = Where(EyeMask(n, a->device()), Num(1), ops::expand(Unsq(s, -2), square));
  TensorImplPtr prod_others = ops::prod_dim_int(others, -1, false);
  TensorImplPtr sign = Mul(ops::_linalg_det(u), ops::_linalg_det(vh));
  TensorImplPtr adj_t = MM(Mul(u, Unsq(prod_others, -2)), vh);
  return {Mul(Unsq(Unsq(Mul(c.grad(), sign), -1), -1), adj_t)};
}
OF_OP("_linalg_det(Tensor A) -> Tensor")
    .Infer(InferDet)
    .Backward(DetGrad)
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kNone);
OF_OP("det(Tensor self) -> Tensor")
    .Composite([](OpCall& call) { call.outputs = {ops::_linalg_det(call.args[arg::det::self])}; })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kNone);

// d log|det A| / dA = A^-T; the sign is piecewise constant.
OF_OP("_linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)")
    .Infer(InferDet)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = GradOrNull(c, 1);
      if (!g) return {nullptr};
      return {Mul(Unsq(Unsq(g, -1), -1), MT(ops::_linalg_inv(c.get(arg::_linalg_slogdet::A))))};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kNone);
OF_OP("slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)")
    .Composite([](OpCall& call) {
      auto [sign, logabsdet] = ops::_linalg_slogdet(call.args[arg::slogdet::self]);
      call.outputs = {sign, logabsdet};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kNone);
// logdet: log|det A|, NaN where det A < 0 (-inf where it is 0).
OF_OP("logdet(Tensor self) -> Tensor")
    .Composite([](OpCall& call) {
      auto [sign, logabsdet] = ops::_linalg_slogdet(call.args[arg::logdet::self]);
      call.outputs = {
          Where(ops::lt(sign, Num(0)), Num(std::numeric_limits<double>::quiet_NaN()), logabsdet)};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kNone);

// ---- solve / solve_triangular ---------------------------------------------------------

// The kernels take A (*, n, n) and B (*, n, k) with the same batch dims. (A and
// B have the same indices in _linalg_solve_matrix and _linalg_solve_triangular_matrix.)
void InferSolveMatrix(OpCall& call) {
  const TensorImplPtr &a = call.tensor(arg::_linalg_solve_matrix::A),
                      &b = call.tensor(arg::_linalg_solve_matrix::B);
  call.compute_dtype = a->dtype();
  call.out_meta = {{b->shape(), a->dtype()}};
}
// X = A^-1 B: gB = A^-T g, gA = -gB X^T.
OF_OP("_linalg_solve_matrix(Tensor A, Tensor B) -> Tensor")
    .Infer(InferSolveMatrix)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr gb =
          ops::_linalg_solve_matrix(MT(c.get(arg::_linalg_solve_matrix::A)), c.grad());
      return {c.needs_grad[0] ? Neg(MM(gb, MT(c.output(0)))) : nullptr, gb};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);
OF_OP(
    "_linalg_solve_triangular_matrix(Tensor A, Tensor B, bool upper, bool unitriangular) -> "
    "Tensor")
    .Infer(InferSolveMatrix)
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace a = arg::_linalg_solve_triangular_matrix;
      const bool upper = c.get(a::upper), unit = c.get(a::unitriangular);
      TensorImplPtr gb =
          ops::_linalg_solve_triangular_matrix(MT(c.get(a::A)), c.grad(), !upper, unit);
      TensorImplPtr ga;
      if (c.needs_grad[0]) {
        ga = Neg(MM(gb, MT(c.output(0))));
        const int64_t diag = unit ? 1 : 0;
        ga = upper ? ops::triu(ga, diag) : ops::tril(ga, -diag);
      }
      return {ga, gb};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);

// Shared by solve and solve_triangular: B is a batch of column vectors when
// it is 1-D or has A's shape without the last dim (refused with left=False, as
// in PyTorch); batch dims broadcast; left=False solves X A = B as
// A^T X^T = B^T.
template <typename Solve>
TensorImplPtr SolveShapes(TensorImplPtr a, TensorImplPtr b, bool left, const char* op,
                          Solve solve) {
  CheckMatrix(a, op, true);
  OF_CHECK(b->ndim() >= 1, RuntimeError, op,
           ": The input tensor B must have at least 1 dimensions.");
  OF_CHECK(a->dtype() == b->dtype(), RuntimeError, op,
           ": Expected A and B to have the same dtype, but found A of type ",
           LegacyTypeName(a->dtype()), " and B of type ", LegacyTypeName(b->dtype()), " instead");
  const bool vector =
      b->ndim() == 1 || (b->ndim() == a->ndim() - 1 &&
                         b->shape() == DimVector(a->shape().begin(), a->shape().end() - 1));
  OF_CHECK(
      left || !vector, RuntimeError, op,
      ": Vector broadcasting of the left hand side is not supported for left=False (B of shape ",
      ShapeToString(b->shape()), "). In this case linalg.solve is equivalent to B / A.squeeze(-1)");
  if (vector) b = Unsq(b, -1);
  const int64_t n = a->shape().back();
  const int64_t bn = b->shape()[b->ndim() - (left ? 2 : 1)];
  OF_CHECK(bn == n, RuntimeError, op, ": Incompatible shapes of A and B for the equation ",
           left ? "AX = B" : "XA = B", " (", a->shape()[a->ndim() - 2], "x", n, " and ",
           b->shape()[b->ndim() - 2], "x", b->shape().back(), ")");
  DimVector batch = BroadcastShapes(BatchOf(a), BatchOf(b), op);
  DimVector ashape = With(batch, {n, n});
  DimVector bshape = With(batch, {b->shape()[b->ndim() - 2], b->shape().back()});
  if (a->shape() != ashape) a = ops::expand(a, ashape);
  if (b->shape() != bshape) b = ops::expand(b, bshape);
  TensorImplPtr x = left ? solve(a, b, false) : MT(solve(a, MT(b), true));
  if (vector) x = ops::squeeze(x, DimVector{-1});
  return x;
}

OF_OP("_linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor")
    .Composite([](OpCall& call) {
      namespace a = arg::_linalg_solve;
      call.outputs = {
          SolveShapes(call.tensor(a::A), call.tensor(a::B), call.get(a::left), "linalg.solve",
                      [](const TensorImplPtr& a, const TensorImplPtr& b, bool transposed) {
                        return ops::_linalg_solve_matrix(transposed ? MT(a) : a, b);
                      })};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);

OF_OP(
    "_linalg_solve_triangular(Tensor A, Tensor B, *, bool upper, bool left=True, bool "
    "unitriangular=False) -> Tensor")
    .Composite([](OpCall& call) {
      namespace args = arg::_linalg_solve_triangular;
      const bool upper = call.get(args::upper), unit = call.get(args::unitriangular);
      const TensorImplPtr &a = call.tensor(args::A), &b = call.tensor(args::B);
      CheckMatrix(b, "linalg.solve_triangular", false, "B");
      call.outputs = {SolveShapes(
          a, b, call.get(args::left), "linalg.solve_triangular",
          [upper, unit](const TensorImplPtr& a, const TensorImplPtr& b, bool transposed) {
            return ops::_linalg_solve_triangular_matrix(transposed ? MT(a) : a, b,
                                                        transposed ? !upper : upper, unit);
          })};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);

// ---- cholesky ------------------------------------------------------------------------

void InferCholesky(OpCall& call) {
  const TensorImplPtr& a = call.tensor(arg::_linalg_cholesky::A);
  CheckMatrix(a, "linalg.cholesky", true);
  call.compute_dtype = a->dtype();
  call.out_meta = {{a->shape(), a->dtype()}};
}
// PyTorch's formula: with Phi(X) = tril(X) with a halved diagonal,
// gA = sym(L^-T Phi(L^T gL) L^-1).
OF_OP("_linalg_cholesky(Tensor A, *, bool upper=False) -> Tensor")
    .Infer(InferCholesky)
    .Backward([](BackwardCtx& c) -> TensorList {
      const bool upper = c.get(arg::_linalg_cholesky::upper);
      TensorImplPtr l = c.output(0), gl = c.grad();
      if (upper) {
        l = MT(l);
        gl = MT(gl);
      }
      const int64_t n = l->shape().back();
      TensorImplPtr eye = ops::expand(Eye(n, std::nullopt, l->dtype(), l->device()), l->shape());
      TensorImplPtr l_inv = ops::_linalg_solve_triangular_matrix(l, Contiguous(eye), false, false);
      TensorImplPtr phi = ops::tril(MM(MT(l), gl), 0);
      phi = Sub(phi, Mul(ops::diag_embed(ops::diagonal(phi, 0, -2, -1)), Num(0.5)));
      TensorImplPtr ga = MM(MM(MT(l_inv), phi), l_inv);
      return {Mul(Add(ga, MT(ga)), Num(0.5))};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);
OF_OP("cholesky(Tensor self, bool upper=False) -> Tensor")
    .Composite([](OpCall& call) {
      call.outputs = {
          ops::_linalg_cholesky(call.args[arg::cholesky::self], call.get(arg::cholesky::upper))};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);

// ---- qr --------------------------------------------------------------------------------

void InferQr(OpCall& call) {
  const TensorImplPtr& a = call.tensor(arg::_linalg_qr::A);
  CheckMatrix(a, "linalg.qr", false);
  const std::string mode = call.get(arg::_linalg_qr::mode);
  OF_CHECK(mode == "reduced" || mode == "complete" || mode == "r", RuntimeError,
           "qr received unrecognized mode '", mode,
           "' but expected one of 'reduced' (default), 'r', or 'complete'");
  const int64_t m = a->shape()[a->ndim() - 2], n = a->shape().back(), k = std::min(m, n);
  const DimVector batch = BatchOf(a);
  call.compute_dtype = a->dtype();
  if (mode == "r") {
    call.out_meta = {{{0}, a->dtype()}, {With(batch, {k, n}), a->dtype()}};
  } else if (mode == "complete") {
    call.out_meta = {{With(batch, {m, m}), a->dtype()}, {With(batch, {m, n}), a->dtype()}};
  } else {
    call.out_meta = {{With(batch, {m, k}), a->dtype()}, {With(batch, {k, n}), a->dtype()}};
  }
}

// The gradient of A = QR for square or tall A (Q m x n, R n x n):
// with M = R gR^T - gQ^T Q, gA = (gQ + Q copyltu(M)) R^-T, where copyltu
// mirrors M's lower triangle to the upper one.
TensorImplPtr QrGradTall(const TensorImplPtr& q, const TensorImplPtr& r, const TensorImplPtr& gq,
                         const TensorImplPtr& gr) {
  TensorImplPtr m = Sub(MM(r, MT(gr)), MM(MT(gq), q));
  TensorImplPtr low = ops::tril(m, -1);
  TensorImplPtr copyltu = Add(ops::tril(m, 0), MT(low));
  TensorImplPtr y = Add(gq, MM(q, copyltu));
  // y R^-T = (R^-1 y^T)^T.
  return MT(ops::_linalg_solve_triangular_matrix(r, MT(y), true, false));
}

TensorList QrGrad(BackwardCtx& c) {
  const std::string mode = c.get(arg::_linalg_qr::mode);
  OF_CHECK(mode != "r", RuntimeError,
           "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
           "use linalg.qr(A, mode='reduced') if you are going to differentiate through "
           "linalg.qr.");
  TensorImplPtr a = c.get(arg::_linalg_qr::A), q = c.output(0), r = c.output(1);
  const int64_t m = a->shape()[a->ndim() - 2], n = a->shape().back();
  OF_CHECK(mode == "reduced" || m <= n, RuntimeError,
           "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  TensorImplPtr gq = c.grad(0), gr = c.grad(1);
  if (m >= n) return {QrGradTall(q, r, gq, gr)};
  // Wide A = [X | Y] with X = Q U, Y = Q V (R = [U | V]): Y's gradient is
  // Q gV, and X's that of a square QR whose Q also receives Y gV^T.
  TensorImplPtr u = ops::narrow(r, -1, 0, m);
  TensorImplPtr gu = ops::narrow(gr, -1, 0, m);
  TensorImplPtr gv = ops::narrow(gr, -1, m, n - m);
  TensorImplPtr y = ops::narrow(a, -1, m, n - m);
  TensorImplPtr gx = QrGradTall(q, u, Add(gq, MM(y, MT(gv))), gu);
  return {ops::cat(TensorList{gx, MM(q, gv)}, -1)};
}
OF_OP("_linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)")
    .Infer(InferQr)
    .Backward(QrGrad)
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);
OF_OP("qr(Tensor self, bool some=True) -> (Tensor Q, Tensor R)")
    .Composite([](OpCall& call) {
      auto [q, r] = ops::_linalg_qr(call.args[arg::qr::self],
                                    std::string(call.get(arg::qr::some) ? "reduced" : "complete"));
      call.outputs = {q, r};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);

// ---- svd -------------------------------------------------------------------------------

void InferSvd(OpCall& call) {
  const TensorImplPtr& a = call.tensor(arg::_linalg_svd::A);
  CheckMatrix(a, "linalg.svd", false);
  const bool full = call.get(arg::_linalg_svd::full_matrices);
  const int64_t m = a->shape()[a->ndim() - 2], n = a->shape().back(), k = std::min(m, n);
  const DimVector batch = BatchOf(a);
  call.compute_dtype = a->dtype();
  call.out_meta = {{With(batch, {m, full ? m : k}), a->dtype()},
                   {With(batch, {k}), a->dtype()},
                   {With(batch, {full ? n : k, n}), a->dtype()}};
}

// PyTorch's formula (real case), on the first k columns of U and rows of Vh:
// with E_ij = s_j^2 - s_i^2 and skew(X) = X - X^T,
// gA = U [(skew(U^T gU) S + S skew(V^T gV)) / E + diag(gS)] Vh
//      + (I - U U^T) gU S^-1 Vh + U S^-1 gVh (I - V Vh).
TensorList SvdGrad(BackwardCtx& c) {
  const bool full = c.get(arg::_linalg_svd::full_matrices);
  TensorImplPtr u = c.output(0), s = c.output(1), vh = c.output(2);
  TensorImplPtr gu = GradOrNull(c, 0), gs = GradOrNull(c, 1), gvh = GradOrNull(c, 2);
  const int64_t m = u->shape()[u->ndim() - 2], n = vh->shape().back(), k = s->shape().back();
  if (full) {
    u = ops::narrow(u, -1, 0, k);
    vh = ops::narrow(vh, -2, 0, k);
    if (gu) gu = ops::narrow(gu, -1, 0, k);
    if (gvh) gvh = ops::narrow(gvh, -2, 0, k);
  }
  if (!gu && !gvh) {
    if (!gs) return {nullptr};
    return {MM(Mul(u, Unsq(gs, -2)), vh)};
  }
  auto skew = [](const TensorImplPtr& x) { return Sub(x, MT(x)); };
  TensorImplPtr s_row = Unsq(s, -2), s_col = Unsq(s, -1);
  TensorImplPtr s2 = Mul(s, s);
  TensorImplPtr eye = EyeMask(k, s->device());
  TensorImplPtr e = Where(eye, Num(1), Sub(Unsq(s2, -2), Unsq(s2, -1)));
  TensorImplPtr core;
  if (gu && gvh) {
    core = Div(Add(Mul(skew(MM(MT(u), gu)), s_row), Mul(s_col, skew(MM(vh, MT(gvh))))), e);
  } else if (gu) {
    core = Mul(skew(MM(MT(u), gu)), Div(s_row, e));
  } else {
    core = Mul(s_col, Div(skew(MM(vh, MT(gvh))), e));
  }
  if (gs) core = Add(core, ops::diag_embed(gs));
  TensorImplPtr ga;
  if (m > n && gu) {
    ga = MM(u, core);
    TensorImplPtr gu_sinv = Div(gu, s_row);
    ga = Sub(Add(ga, gu_sinv), MM(u, MM(MT(u), gu_sinv)));
    ga = MM(ga, vh);
  } else if (m < n && gvh) {
    ga = MM(core, vh);
    TensorImplPtr sinv_gvh = Div(gvh, s_col);
    ga = Sub(Add(ga, sinv_gvh), MM(MM(sinv_gvh, MT(vh)), vh));
    ga = MM(u, ga);
  } else {
    ga = MM(MM(u, core), vh);
  }
  return {ga};
}
OF_OP("_linalg_svd(Tensor A, bool full_matrices=True) -> (Tensor U, Tensor S, Tensor Vh)")
    .Infer(InferSvd)
    .Backward(SvdGrad)
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);
OF_OP("_linalg_svdvals(Tensor A) -> Tensor")
    .Composite([](OpCall& call) {
      call.outputs = {ops::_linalg_svd(call.args[arg::_linalg_svdvals::A], false)[1]};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);
// torch.svd: V instead of Vh; compute_uv=False gives zero-filled U and V of
// the full sizes.
OF_OP("svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)")
    .Composite([](OpCall& call) {
      const TensorImplPtr& a = call.tensor(arg::svd::self);
      const bool some = call.get(arg::svd::some), uv = call.get(arg::svd::compute_uv);
      auto [u, s, vh] = ops::_linalg_svd(a, uv ? !some : false);
      if (uv) {
        call.outputs = {u, s, MT(vh)};
        return;
      }
      const int64_t m = a->shape()[a->ndim() - 2], n = a->shape().back();
      call.outputs = {Full(With(BatchOf(a), {m, m}), Scalar::Int(0), a->dtype(), a->device()), s,
                      Full(With(BatchOf(a), {n, n}), Scalar::Int(0), a->dtype(), a->device())};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);

// ---- eigh --------------------------------------------------------------------------------

void InferEigh(OpCall& call) {
  const TensorImplPtr& a = call.tensor(arg::_linalg_eigh::A);
  CheckMatrix(a, "linalg.eigh", true);
  const std::string uplo = call.get(arg::_linalg_eigh::UPLO);
  OF_CHECK(uplo == "L" || uplo == "U" || uplo == "l" || uplo == "u", RuntimeError,
           "Expected UPLO argument to be 'L' or 'U', but got ", uplo);
  const int64_t n = a->shape().back();
  call.compute_dtype = a->dtype();
  call.out_meta = {{With(BatchOf(a), {n}), a->dtype()}, {a->shape(), a->dtype()}};
}
// PyTorch's formula: gA = V (skew_half(V^T gV) / E + diag(gL)) V^T with
// E_ij = L_j - L_i.
OF_OP("_linalg_eigh(Tensor A, str UPLO='L') -> (Tensor eigenvalues, Tensor eigenvectors)")
    .Infer(InferEigh)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr l = c.output(0), v = c.output(1);
      TensorImplPtr gl = GradOrNull(c, 0), gv = GradOrNull(c, 1);
      if (!gv) {
        if (!gl) return {nullptr};
        return {MM(Mul(v, Unsq(gl, -2)), MT(v))};
      }
      const int64_t n = l->shape().back();
      TensorImplPtr eye = EyeMask(n, l->device());
      TensorImplPtr vgv = MM(MT(v), gv);
      vgv = Mul(Sub(vgv, MT(vgv)), Num(0.5));
      TensorImplPtr e = Where(eye, Num(1), Sub(Unsq(l, -2), Unsq(l, -1)));
      TensorImplPtr core = Where(eye, gl ? ops::diag_embed(gl) : ZerosLike(vgv), Div(vgv, e));
      return {MM(v, MM(core, MT(v)))};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);
OF_OP("_linalg_eigvalsh(Tensor A, str UPLO='L') -> Tensor")
    .Composite([](OpCall& call) {
      call.outputs = {ops::_linalg_eigh(call.args[arg::_linalg_eigvalsh::A],
                                        call.get(arg::_linalg_eigvalsh::UPLO))[0]};
    })
    .Sbp(sbp::BroadcastOnly("a factorization reads whole matrices; batch splits not written yet"))
    .Autocast(amp::kFp32, amp::kNone);

// ---- norms ---------------------------------------------------------------------------------

// vector_norm: norm over dim (every element when None), any real ord.
OF_OP(
    "_linalg_vector_norm(Tensor x, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor")
    .Composite([](OpCall& call) {
      namespace a = arg::_linalg_vector_norm;
      const TensorImplPtr& x = call.tensor(a::x);
      OF_CHECK(IsFloatingPoint(x->dtype()), RuntimeError,
               "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
               LegacyTypeName(x->dtype()));
      std::optional<DimVector> dim = call.get(a::dim);
      if (dim && dim->empty()) dim = std::nullopt;
      call.outputs = {
          ops::norm(x, call.get(a::ord), dim, call.get(a::keepdim), call.get(a::dtype))};
    })
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone, amp::kFp32);

// The matrix norm over dims (d0, d1): Frobenius, nuclear (sum of singular
// values), +-2 (largest/smallest singular value), +-1 (max/min column sum of
// |A|), +-inf (max/min row sum).
TensorImplPtr MatrixNorm(TensorImplPtr a, const std::string& ord_str, double ord,
                         const DimVector& dims, bool keepdim, std::optional<DType> dtype) {
  const char* op = "linalg.matrix_norm";
  OF_CHECK(a->ndim() >= 2, RuntimeError, op,
           ": The input tensor A must have at least 2 dimensions.");
  OF_CHECK(IsFloatingPoint(a->dtype()), RuntimeError, op,
           ": Expected a floating point or complex tensor as input. Got ",
           LegacyTypeName(a->dtype()));
  OF_CHECK(dims.size() == 2, RuntimeError, op, ": dim must be a 2-tuple. Got ",
           ShapeToString(dims));
  const int64_t d0 = WrapDim(dims[0], a->ndim()), d1 = WrapDim(dims[1], a->ndim());
  OF_CHECK(d0 != d1, RuntimeError, op, ": dims must be different. Got (", dims[0], ", ", dims[1],
           ")");
  if (dtype) a = ops::_to_dtype(a, *dtype, false);
  if (ord_str == "fro") return ops::norm(a, Scalar::Int(2), DimVector{d0, d1}, keepdim);
  const bool nuc = ord_str == "nuc";
  OF_CHECK(nuc || ord_str.empty(), RuntimeError, op, ": Order ", ord_str, " not supported.");
  const bool spectral = nuc || std::abs(ord) == 2;
  OF_CHECK(spectral || std::abs(ord) == 1 || std::isinf(ord), RuntimeError, op, ": Order ", ord,
           " not supported.");
  TensorImplPtr out;
  if (spectral) {
    // Singular values of the matrices in (d0, d1), moved last.
    DimVector perm;
    for (int64_t d = 0; d < a->ndim(); ++d) {
      if (d != d0 && d != d1) perm.push_back(d);
    }
    perm.push_back(d0);
    perm.push_back(d1);
    TensorImplPtr s = ops::_linalg_svdvals(ops::permute(a, perm));
    if (nuc) {
      out = ops::sum_dim(s, DimVector{-1}, false);
    } else {
      out = ord > 0 ? ops::amax(s, DimVector{-1}, false) : ops::amin(s, DimVector{-1}, false);
    }
    if (keepdim) {
      const int64_t lo = std::min(d0, d1), hi = std::max(d0, d1);
      out = Unsq(Unsq(out, lo), hi);
    }
    return out;
  }
  // ord +-1 sums over rows (d0) then reduces columns; +-inf the other way.
  const bool cols = std::abs(ord) == 1;
  const int64_t sum_dim = cols ? d0 : d1;
  int64_t red_dim = cols ? d1 : d0;
  TensorImplPtr sums = ops::sum_dim(ops::abs(a), DimVector{sum_dim}, keepdim);
  if (!keepdim && red_dim > sum_dim) --red_dim;
  return ord > 0 ? ops::amax(sums, DimVector{red_dim}, keepdim)
                 : ops::amin(sums, DimVector{red_dim}, keepdim);
}

OF_OP(
    "_linalg_matrix_norm(Tensor A, Scalar ord, int[] dim=[-2,-1], bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor")
    .Composite([](OpCall& call) {
      namespace a = arg::_linalg_matrix_norm;
      call.outputs = {MatrixNorm(call.tensor(a::A), "", call.get(a::ord).d, call.get(a::dim),
                                 call.get(a::keepdim), call.get(a::dtype))};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone, amp::kFp32);
OF_OP(
    "_linalg_matrix_norm.str_ord(Tensor A, str ord='fro', int[] dim=[-2,-1], bool keepdim=False, "
    "*, ScalarType? dtype=None) -> Tensor")
    .Composite([](OpCall& call) {
      namespace a = arg::_linalg_matrix_norm_str_ord;
      call.outputs = {MatrixNorm(call.tensor(a::A), call.get(a::ord), 0, call.get(a::dim),
                                 call.get(a::keepdim), call.get(a::dtype))};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone, amp::kFp32);

// linalg.norm: a matrix norm when ord is a string, or dim has two entries, or
// ord is given without dim for a 2-D input; otherwise a vector norm (of the
// flattened input when neither ord nor dim is given). _linalg_norm and
// _linalg_norm.ord_str have the same indices; ord is a Scalar? in the first, a
// str in the second (`str_ord`).
void LinalgNorm(OpCall& call, bool str_ord) {
  namespace args = arg::_linalg_norm;
  const TensorImplPtr& a = call.tensor(args::A);
  const Value& ord = call.args[args::ord];
  const Value& dim = call.args[args::dim];
  const bool keepdim = call.get(args::keepdim);
  const std::optional<DType> dtype = call.get(args::dtype);
  const char* op = "linalg.norm";
  if (dim.is_none() && !ord.is_none()) {
    OF_CHECK(a->ndim() == 1 || a->ndim() == 2, RuntimeError, op,
             ": If dim is not specified but ord is, the input must be 1D or 2D. Got ", a->ndim(),
             "D.");
  }
  const bool matrix = str_ord || (!dim.is_none() && dim.int_list().size() == 2) ||
                      (dim.is_none() && !ord.is_none() && a->ndim() == 2);
  if (matrix) {
    DimVector dims = dim.is_none() ? DimVector{-2, -1} : dim.int_list();
    OF_CHECK(dims.size() == 2, RuntimeError, op, ": dim must be a 2-tuple for matrix norms. Got ",
             ShapeToString(dims));
    if (str_ord) {
      call.outputs = {MatrixNorm(a, ord.str(), 0, dims, keepdim, dtype)};
    } else {
      call.outputs = {MatrixNorm(a, "", ord.scalar().d, dims, keepdim, dtype)};
    }
    return;
  }
  OF_CHECK(dim.is_none() || dim.int_list().size() == 1, RuntimeError, op,
           ": dim must be an int or a 2-tuple. Got ", ShapeToString(dim.int_list()));
  call.outputs = {ops::_linalg_vector_norm(a, ord.is_none() ? Scalar::Int(2) : ord.scalar(),
                                           call.get(args::dim), keepdim, dtype)};
}
OF_OP(
    "_linalg_norm(Tensor A, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor")
    .Composite([](OpCall& call) { LinalgNorm(call, false); })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone, amp::kFp32);
OF_OP(
    "_linalg_norm.ord_str(Tensor A, str ord, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor")
    .Composite([](OpCall& call) { LinalgNorm(call, true); })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone, amp::kFp32);

}  // namespace
}  // namespace defs
}  // namespace oneflow
