// CPU kernels of the decompositions declared in ops/defs/linalg_more.cc:
// LU with partial pivoting (inverse, determinants, solves), Cholesky,
// triangular solves, Householder QR (LAPACK's sign convention, so Q and R
// match PyTorch's), one-sided Jacobi SVD and cyclic Jacobi for symmetric
// eigenproblems.
//
// Each matrix of a batch is loaded into a row-major double buffer (float32
// inputs are computed in double and rounded once), and matrices run in
// parallel. Kernels do not throw inside parallel regions: each matrix reports
// an error code and the first failure is raised afterwards, naming its batch
// element as PyTorch does.

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "ops/api/ops.h"
#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;
constexpr DTypeSet kLinalgDTypes = DTypeBit(DType::kFloat32) | DTypeBit(DType::kFloat64);
constexpr double kEps = std::numeric_limits<double>::epsilon();

template <typename Fn>
void DispatchLinalg(DType d, Fn&& fn) {
  if (d == DType::kFloat32) return fn(TypeTag<float>{});
  return fn(TypeTag<double>{});
}

// The matrices of a (batched) tensor: count matrices of rows x cols.
struct Matrices {
  TensorImplPtr t;  // contiguous
  int64_t count = 1, rows = 0, cols = 0;
  bool batched = false;  // more than two dims: errors name the batch element
};
Matrices Batch(const TensorImplPtr& a) {
  Matrices m;
  m.t = Contiguous(a);
  m.rows = a->shape()[a->ndim() - 2];
  m.cols = a->shape().back();
  for (int64_t d = 0; d + 2 < a->ndim(); ++d) m.count *= a->shape()[d];
  m.batched = a->ndim() > 2;
  return m;
}
template <typename T>
void LoadMatrix(const Matrices& m, int64_t i, double* dst) {
  const int64_t size = m.rows * m.cols;
  const T* p = reinterpret_cast<const T*>(m.t->data()) + i * size;
  for (int64_t j = 0; j < size; ++j) dst[j] = static_cast<double>(p[j]);
}
template <typename T>
void StoreMatrix(const TensorImplPtr& out, int64_t i, int64_t size, const double* src) {
  T* p = reinterpret_cast<T*>(out->data()) + i * size;
  for (int64_t j = 0; j < size; ++j) p[j] = static_cast<T>(src[j]);
}

// Runs fn(i) for each matrix, in parallel; fn returns 0 or an error code.
// Returns the first failing matrix and its code ({-1, 0} when none failed).
template <typename Fn>
std::pair<int64_t, int64_t> ForEachMatrix(int64_t count, int64_t cost, Fn fn) {
  std::vector<int64_t> info(count, 0);
  ParallelFor(count, std::max<int64_t>(1, 100000 / std::max<int64_t>(cost, 1)),
              [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) info[i] = fn(i);
              });
  for (int64_t i = 0; i < count; ++i) {
    if (info[i] != 0) return {i, info[i]};
  }
  return {-1, 0};
}

std::string BatchPrefix(const Matrices& m, int64_t i) {
  return m.batched ? "(Batch element " + std::to_string(i) + "): " : "";
}

// ---- LU ---------------------------------------------------------------------------

// In-place LU with partial pivoting of the row-major n x n matrix `a`
// (P A = L U, L unit lower); piv[k] is the row swapped with row k. Returns 0,
// or the 1-based index of the first zero pivot (the factorization goes on past
// it, as LAPACK's getrf does).
int64_t LuFactor(double* a, int64_t n, int64_t* piv) {
  int64_t info = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    double best = std::abs(a[k * n + k]);
    for (int64_t i = k + 1; i < n; ++i) {
      if (std::abs(a[i * n + k]) > best) {
        best = std::abs(a[i * n + k]);
        p = i;
      }
    }
    piv[k] = p;
    if (best == 0) {
      if (!info) info = k + 1;
      continue;
    }
    if (p != k) std::swap_ranges(a + k * n, a + (k + 1) * n, a + p * n);
    const double inv = 1.0 / a[k * n + k];
    const double* rk = a + k * n;
    // The trailing update, split by rows over threads for large matrices
    // (ParallelFor runs serially inside the batch's parallel region).
    const int64_t rest = n - k - 1;
    ParallelFor(rest, std::max<int64_t>(16, 65536 / std::max<int64_t>(rest, 1)),
                [&](int64_t b, int64_t e) {
                  for (int64_t i = k + 1 + b; i < k + 1 + e; ++i) {
                    double* ri = a + i * n;
                    const double l = ri[k] *= inv;
                    if (l == 0) continue;
                    for (int64_t j = k + 1; j < n; ++j) ri[j] -= l * rk[j];
                  }
                });
  }
  return info;
}

// Solves A X = B in place of the row-major n x k `b`, from LuFactor's
// output. Large right-hand sides split their columns over threads.
void LuSolve(const double* lu, const int64_t* piv, int64_t n, double* b, int64_t k) {
  for (int64_t i = 0; i < n; ++i) {
    if (piv[i] != i) std::swap_ranges(b + i * k, b + (i + 1) * k, b + piv[i] * k);
  }
  ParallelFor(k, std::max<int64_t>(16, 65536 / std::max<int64_t>(n * n, 1)),
              [&](int64_t c0, int64_t c1) {
                for (int64_t i = 0; i < n; ++i) {
                  double* bi = b + i * k;
                  for (int64_t j = 0; j < i; ++j) {
                    const double l = lu[i * n + j];
                    if (l == 0) continue;
                    const double* bj = b + j * k;
                    for (int64_t c = c0; c < c1; ++c) bi[c] -= l * bj[c];
                  }
                }
                for (int64_t i = n - 1; i >= 0; --i) {
                  double* bi = b + i * k;
                  for (int64_t j = i + 1; j < n; ++j) {
                    const double u = lu[i * n + j];
                    if (u == 0) continue;
                    const double* bj = b + j * k;
                    for (int64_t c = c0; c < c1; ++c) bi[c] -= u * bj[c];
                  }
                  const double inv = 1.0 / lu[i * n + i];
                  for (int64_t c = c0; c < c1; ++c) bi[c] *= inv;
                }
              });
}

void InvKernel(OpCall& c) {
  const Matrices m = Batch(c.tensor(arg::_linalg_inv::A));
  const int64_t n = m.rows;
  const TensorImplPtr& out = c.outputs[0];
  std::pair<int64_t, int64_t> bad;
  DispatchLinalg(c.compute_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    bad = ForEachMatrix(m.count, n * n * n, [&](int64_t i) -> int64_t {
      std::vector<double> a(n * n), b(n * n, 0.0);
      std::vector<int64_t> piv(n);
      LoadMatrix<T>(m, i, a.data());
      const int64_t info = LuFactor(a.data(), n, piv.data());
      if (info) return info;
      for (int64_t j = 0; j < n; ++j) b[j * n + j] = 1;
      LuSolve(a.data(), piv.data(), n, b.data(), n);
      StoreMatrix<T>(out, i, n * n, b.data());
      return 0;
    });
  });
  OF_CHECK(bad.first < 0, RuntimeError, "linalg.inv: ", BatchPrefix(m, bad.first),
           "The diagonal element ", bad.second,
           " is zero, the inversion could not be completed because the input matrix is singular.");
}
OF_KERNEL("_linalg_inv", kCPU, kLinalgDTypes, &InvKernel);

// det and slogdet from the LU factors.
template <bool kLog>
void DetKernel(OpCall& c) {
  // (A is argument 0 of both _linalg_det and _linalg_slogdet.)
  const Matrices m = Batch(c.tensor(arg::_linalg_det::A));
  const int64_t n = m.rows;
  DispatchLinalg(c.compute_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    ForEachMatrix(m.count, n * n * n, [&](int64_t i) -> int64_t {
      std::vector<double> a(n * n);
      std::vector<int64_t> piv(n);
      LoadMatrix<T>(m, i, a.data());
      LuFactor(a.data(), n, piv.data());
      // det = prod(u_kk) times -1 per row swap; a zero pivot makes the sign 0.
      double sign = 1, logabs = 0, det = 1;
      for (int64_t k = 0; k < n; ++k) {
        const double u = a[k * n + k];
        if (piv[k] != k) {
          det = -det;
          sign = -sign;
        }
        det *= u;
        if (u < 0) sign = -sign;
        if (u == 0) sign = 0;
        logabs += std::log(std::abs(u));
      }
      if (kLog) {
        reinterpret_cast<T*>(c.outputs[0]->data())[i] = static_cast<T>(sign);
        reinterpret_cast<T*>(c.outputs[1]->data())[i] = static_cast<T>(logabs);
      } else {
        reinterpret_cast<T*>(c.outputs[0]->data())[i] = static_cast<T>(det);
      }
      return 0;
    });
  });
}
OF_KERNEL("_linalg_det", kCPU, kLinalgDTypes, &DetKernel<false>);
OF_KERNEL("_linalg_slogdet", kCPU, kLinalgDTypes, &DetKernel<true>);

void SolveKernel(OpCall& c) {
  const Matrices ma = Batch(c.tensor(arg::_linalg_solve_matrix::A)),
                 mb = Batch(c.tensor(arg::_linalg_solve_matrix::B));
  const int64_t n = ma.rows, k = mb.cols;
  const TensorImplPtr& out = c.outputs[0];
  std::pair<int64_t, int64_t> bad;
  DispatchLinalg(c.compute_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    bad = ForEachMatrix(ma.count, n * n * (n + k), [&](int64_t i) -> int64_t {
      std::vector<double> a(n * n), b(n * k);
      std::vector<int64_t> piv(n);
      LoadMatrix<T>(ma, i, a.data());
      LoadMatrix<T>(mb, i, b.data());
      if (LuFactor(a.data(), n, piv.data())) return 1;
      LuSolve(a.data(), piv.data(), n, b.data(), k);
      StoreMatrix<T>(out, i, n * k, b.data());
      return 0;
    });
  });
  OF_CHECK(bad.first < 0, RuntimeError, "linalg.solve: ", BatchPrefix(ma, bad.first),
           "The solver failed because the input matrix is singular.");
}
OF_KERNEL("_linalg_solve_matrix", kCPU, kLinalgDTypes, &SolveKernel);

// ---- triangular solve / Cholesky ------------------------------------------------------

// Solves T X = B in place of the row-major n x k `b` for a triangular `t`.
void TriangularSolve(const double* t, int64_t n, double* b, int64_t k, bool upper, bool unit) {
  for (int64_t s = 0; s < n; ++s) {
    const int64_t i = upper ? n - 1 - s : s;
    double* bi = b + i * k;
    const int64_t lo = upper ? i + 1 : 0, hi = upper ? n : i;
    for (int64_t j = lo; j < hi; ++j) {
      const double v = t[i * n + j];
      if (v == 0) continue;
      const double* bj = b + j * k;
      for (int64_t col = 0; col < k; ++col) bi[col] -= v * bj[col];
    }
    if (!unit) {
      const double inv = 1.0 / t[i * n + i];
      for (int64_t col = 0; col < k; ++col) bi[col] *= inv;
    }
  }
}

void SolveTriangularKernel(OpCall& c) {
  namespace args = arg::_linalg_solve_triangular_matrix;
  const Matrices ma = Batch(c.tensor(args::A)), mb = Batch(c.tensor(args::B));
  const int64_t n = ma.rows, k = mb.cols;
  const bool upper = c.get(args::upper), unit = c.get(args::unitriangular);
  const TensorImplPtr& out = c.outputs[0];
  DispatchLinalg(c.compute_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    ForEachMatrix(ma.count, n * n * k, [&](int64_t i) -> int64_t {
      std::vector<double> a(n * n), b(n * k);
      LoadMatrix<T>(ma, i, a.data());
      LoadMatrix<T>(mb, i, b.data());
      TriangularSolve(a.data(), n, b.data(), k, upper, unit);
      StoreMatrix<T>(out, i, n * k, b.data());
      return 0;
    });
  });
}
OF_KERNEL("_linalg_solve_triangular_matrix", kCPU, kLinalgDTypes, &SolveTriangularKernel);

// Lower Cholesky factor of the symmetric matrix whose lower triangle `a`
// holds (in place; the upper triangle is zeroed). Returns 0 or the order of
// the first leading minor that is not positive-definite.
int64_t CholeskyLower(double* a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    double* rj = a + j * n;
    double d = rj[j];
    for (int64_t k = 0; k < j; ++k) d -= rj[k] * rj[k];
    if (!(d > 0)) return j + 1;
    d = std::sqrt(d);
    rj[j] = d;
    for (int64_t i = j + 1; i < n; ++i) {
      double* ri = a + i * n;
      double s = ri[j];
      for (int64_t k = 0; k < j; ++k) s -= ri[k] * rj[k];
      ri[j] = s / d;
    }
    for (int64_t k = j + 1; k < n; ++k) rj[k] = 0;
  }
  return 0;
}

// upper=True factors A = U^T U from A's upper triangle (U = L^T of A^T).
void CholeskyKernel(OpCall& c) {
  const Matrices m = Batch(c.tensor(arg::_linalg_cholesky::A));
  const int64_t n = m.rows;
  const bool upper = c.get(arg::_linalg_cholesky::upper);
  const TensorImplPtr& out = c.outputs[0];
  std::pair<int64_t, int64_t> bad;
  DispatchLinalg(c.compute_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    bad = ForEachMatrix(m.count, n * n * n, [&](int64_t i) -> int64_t {
      std::vector<double> a(n * n);
      LoadMatrix<T>(m, i, a.data());
      if (upper) {
        for (int64_t r = 0; r < n; ++r) {
          for (int64_t s = 0; s < r; ++s) a[r * n + s] = a[s * n + r];
        }
      }
      const int64_t info = CholeskyLower(a.data(), n);
      if (info) return info;
      if (upper) {
        for (int64_t r = 0; r < n; ++r) {
          for (int64_t s = 0; s < r; ++s) std::swap(a[r * n + s], a[s * n + r]);
        }
      }
      StoreMatrix<T>(out, i, n * n, a.data());
      return 0;
    });
  });
  OF_CHECK(bad.first < 0, RuntimeError, "linalg.cholesky: ", BatchPrefix(m, bad.first),
           "The factorization could not be completed because the input is not positive-definite "
           "(the leading minor of order ",
           bad.second, " is not positive-definite).");
}
OF_KERNEL("_linalg_cholesky", kCPU, kLinalgDTypes, &CholeskyKernel);

// ---- QR ------------------------------------------------------------------------------

// Householder QR of the row-major m x n `a`, LAPACK's geqr2 convention: the
// reflector H = I - tau v v^T (v[0] = 1) maps a column x to beta e_1 with
// beta = -sign(x_0) |x|; tau = 0 (H = I) when x below its first entry is 0.
// On return `a` holds R in its upper triangle and the reflectors below it.
void HouseholderQr(double* a, int64_t m, int64_t n, std::vector<double>* tau) {
  const int64_t k = std::min(m, n);
  tau->assign(k, 0.0);
  std::vector<double> w(n);
  for (int64_t j = 0; j < k; ++j) {
    double xnorm = 0;
    for (int64_t i = j + 1; i < m; ++i) xnorm = std::hypot(xnorm, a[i * n + j]);
    if (xnorm == 0) continue;
    const double alpha = a[j * n + j];
    const double beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
    (*tau)[j] = (beta - alpha) / beta;
    const double scale = 1.0 / (alpha - beta);
    for (int64_t i = j + 1; i < m; ++i) a[i * n + j] *= scale;
    a[j * n + j] = beta;
    // A[j:, j+1:] -= tau v (v^T A[j:, j+1:]).
    for (int64_t col = j + 1; col < n; ++col) w[col] = a[j * n + col];
    for (int64_t i = j + 1; i < m; ++i) {
      const double v = a[i * n + j];
      for (int64_t col = j + 1; col < n; ++col) w[col] += v * a[i * n + col];
    }
    const double t = (*tau)[j];
    for (int64_t col = j + 1; col < n; ++col) a[j * n + col] -= t * w[col];
    for (int64_t i = j + 1; i < m; ++i) {
      const double tv = t * a[i * n + j];
      for (int64_t col = j + 1; col < n; ++col) a[i * n + col] -= tv * w[col];
    }
  }
}

// Q's first `qcols` columns (row-major m x qcols) from the reflectors:
// H_0 H_1 ... H_{k-1} applied to the identity's columns.
void FormQ(const double* a, int64_t m, int64_t n, const std::vector<double>& tau, int64_t qcols,
           double* q) {
  std::fill(q, q + m * qcols, 0.0);
  for (int64_t i = 0; i < std::min(m, qcols); ++i) q[i * qcols + i] = 1;
  std::vector<double> w(qcols);
  for (int64_t j = static_cast<int64_t>(tau.size()) - 1; j >= 0; --j) {
    const double t = tau[j];
    if (t == 0) continue;
    // Q[j:, :] -= t v (v^T Q[j:, :]) with v = (1, a[j+1:, j]).
    for (int64_t col = 0; col < qcols; ++col) w[col] = q[j * qcols + col];
    for (int64_t i = j + 1; i < m; ++i) {
      const double v = a[i * n + j];
      for (int64_t col = 0; col < qcols; ++col) w[col] += v * q[i * qcols + col];
    }
    for (int64_t col = 0; col < qcols; ++col) q[j * qcols + col] -= t * w[col];
    for (int64_t i = j + 1; i < m; ++i) {
      const double tv = t * a[i * n + j];
      for (int64_t col = 0; col < qcols; ++col) q[i * qcols + col] -= tv * w[col];
    }
  }
}

void QrKernel(OpCall& c) {
  const Matrices mat = Batch(c.tensor(arg::_linalg_qr::A));
  const int64_t m = mat.rows, n = mat.cols, k = std::min(m, n);
  const std::string& mode = c.args[arg::_linalg_qr::mode].str();
  const bool want_q = mode != "r";
  const int64_t qcols = mode == "complete" ? m : k;
  const int64_t rrows = mode == "complete" ? m : k;
  DispatchLinalg(c.compute_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    ForEachMatrix(mat.count, m * n * std::max(m, n), [&](int64_t i) -> int64_t {
      std::vector<double> a(m * n), tau, q(want_q ? m * qcols : 0), r(rrows * n, 0.0);
      LoadMatrix<T>(mat, i, a.data());
      HouseholderQr(a.data(), m, n, &tau);
      for (int64_t row = 0; row < std::min(rrows, m); ++row) {
        for (int64_t col = row; col < n; ++col) r[row * n + col] = a[row * n + col];
      }
      StoreMatrix<T>(c.outputs[1], i, rrows * n, r.data());
      if (want_q) {
        FormQ(a.data(), m, n, tau, qcols, q.data());
        StoreMatrix<T>(c.outputs[0], i, m * qcols, q.data());
      }
      return 0;
    });
  });
}
OF_KERNEL("_linalg_qr", kCPU, kLinalgDTypes, &QrKernel);

// ---- SVD -------------------------------------------------------------------------------

// Extends the orthonormal columns cols[0..have) (each of length m) to `want`
// columns by Gram-Schmidt (twice, for accuracy) on the unit vectors.
void CompleteBasis(std::vector<std::vector<double>>* cols, int64_t m, int64_t want) {
  for (int64_t e = 0; e < m && static_cast<int64_t>(cols->size()) < want; ++e) {
    std::vector<double> v(m, 0.0);
    v[e] = 1;
    for (int pass = 0; pass < 2; ++pass) {
      for (const auto& u : *cols) {
        double d = 0;
        for (int64_t i = 0; i < m; ++i) d += u[i] * v[i];
        for (int64_t i = 0; i < m; ++i) v[i] -= d * u[i];
      }
    }
    double norm = 0;
    for (double x : v) norm += x * x;
    norm = std::sqrt(norm);
    if (norm < 1e-6) continue;
    for (double& x : v) x /= norm;
    cols->push_back(std::move(v));
  }
}

// One-sided Jacobi SVD of a tall m x n (m >= n) matrix given by its columns
// g (n columns of length m, overwritten): orthogonalizes the columns with
// plane rotations, accumulated in V. Returns the singular values (descending)
// with U's columns (m x ucols, completed to an orthonormal set where singular
// values vanish or ucols > n) and V's columns (n x n).
void JacobiSvdTall(std::vector<std::vector<double>> g, int64_t m, int64_t n, int64_t ucols,
                   std::vector<double>* s, std::vector<std::vector<double>>* u,
                   std::vector<std::vector<double>>* v) {
  std::vector<std::vector<double>> vc(n, std::vector<double>(n, 0.0));
  for (int64_t j = 0; j < n; ++j) vc[j][j] = 1;
  auto dot = [m](const std::vector<double>& a, const std::vector<double>& b) {
    double d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    int64_t i = 0;
    for (; i + 4 <= m; i += 4) {
      d0 += a[i] * b[i];
      d1 += a[i + 1] * b[i + 1];
      d2 += a[i + 2] * b[i + 2];
      d3 += a[i + 3] * b[i + 3];
    }
    for (; i < m; ++i) d0 += a[i] * b[i];
    return (d0 + d1) + (d2 + d3);
  };
  // Squared column norms, kept up to date through each rotation and
  // recomputed every sweep.
  std::vector<double> sq(n);
  for (int sweep = 0; sweep < 80; ++sweep) {
    for (int64_t j = 0; j < n; ++j) sq[j] = dot(g[j], g[j]);
    bool rotated = false;
    for (int64_t p = 0; p + 1 < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const double alpha = sq[p], beta = sq[q], gamma = dot(g[p], g[q]);
        if (gamma == 0 || std::abs(gamma) <= kEps * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        const double cs = 1 / std::sqrt(1 + t * t), sn = cs * t;
        double* gp = g[p].data();
        double* gq = g[q].data();
        for (int64_t i = 0; i < m; ++i) {
          const double x = gp[i], y = gq[i];
          gp[i] = cs * x - sn * y;
          gq[i] = sn * x + cs * y;
        }
        sq[p] = std::max(0.0, alpha - t * gamma);
        sq[q] = beta + t * gamma;
        double* vp = vc[p].data();
        double* vq = vc[q].data();
        for (int64_t i = 0; i < n; ++i) {
          const double x = vp[i], y = vq[i];
          vp[i] = cs * x - sn * y;
          vq[i] = sn * x + cs * y;
        }
      }
    }
    if (!rotated) break;
  }
  std::vector<double> norms(n);
  for (int64_t j = 0; j < n; ++j) norms[j] = std::sqrt(dot(g[j], g[j]));
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return norms[a] > norms[b]; });
  const double top = n > 0 ? norms[order[0]] : 0;
  const double tiny = top * kEps * static_cast<double>(std::max<int64_t>(m, 1));
  s->resize(n);
  u->clear();
  v->clear();
  for (int64_t j = 0; j < n; ++j) {
    const int64_t src = order[j];
    (*s)[j] = norms[src];
    v->push_back(vc[src]);
  }
  // U's columns for the nonvanishing singular values, then a completion.
  for (int64_t j = 0; j < n; ++j) {
    const double sj = (*s)[j];
    if (!(sj > tiny) || sj == 0) break;
    std::vector<double> col = g[order[j]];
    for (double& x : col) x /= sj;
    u->push_back(std::move(col));
  }
  CompleteBasis(u, m, ucols);
}

void SvdKernel(OpCall& c) {
  const Matrices mat = Batch(c.tensor(arg::_linalg_svd::A));
  const int64_t m = mat.rows, n = mat.cols, k = std::min(m, n);
  const bool full = c.get(arg::_linalg_svd::full_matrices);
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  DispatchLinalg(c.compute_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    ForEachMatrix(mat.count, m * n * std::max(m, n) * 8, [&](int64_t i) -> int64_t {
      std::vector<double> a(m * n);
      LoadMatrix<T>(mat, i, a.data());
      // Work on the tall one of A and A^T: A = U S V^T, or A^T = U' S V'^T.
      const bool wide = m < n;
      const int64_t tm = wide ? n : m, tn = wide ? m : n;
      std::vector<std::vector<double>> g(tn, std::vector<double>(tm));
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t col = 0; col < n; ++col) {
          if (wide) {
            g[r][col] = a[r * n + col];
          } else {
            g[col][r] = a[r * n + col];
          }
        }
      }
      std::vector<double> s;
      std::vector<std::vector<double>> left, right;
      JacobiSvdTall(std::move(g), tm, tn, wide ? vrows : ucols, &s, &left, &right);
      // U (m x ucols) and Vh (vrows x n), row-major.
      std::vector<double> uo(m * ucols, 0.0), vo(vrows * n, 0.0);
      const auto& ucol = wide ? right : left;  // columns of U, each of length m
      const auto& vcol = wide ? left : right;  // columns of V, each of length n
      for (int64_t j = 0; j < ucols && j < static_cast<int64_t>(ucol.size()); ++j) {
        for (int64_t r = 0; r < m; ++r) uo[r * ucols + j] = ucol[j][r];
      }
      for (int64_t j = 0; j < vrows && j < static_cast<int64_t>(vcol.size()); ++j) {
        for (int64_t col = 0; col < n; ++col) vo[j * n + col] = vcol[j][col];
      }
      StoreMatrix<T>(c.outputs[0], i, m * ucols, uo.data());
      StoreMatrix<T>(c.outputs[1], i, k, s.data());
      StoreMatrix<T>(c.outputs[2], i, vrows * n, vo.data());
      return 0;
    });
  });
}
OF_KERNEL("_linalg_svd", kCPU, kLinalgDTypes, &SvdKernel);

// ---- symmetric eigendecomposition ---------------------------------------------------

// Cyclic Jacobi on the symmetric row-major n x n `a`: rotations J^T A J zero
// the off-diagonal entries one at a time until they are negligible; V
// accumulates the rotations (its columns become the eigenvectors).
void JacobiEigh(double* a, int64_t n, double* v) {
  std::fill(v, v + n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) v[i * n + i] = 1;
  double total = 0;
  for (int64_t i = 0; i < n * n; ++i) total += a[i] * a[i];
  // Entries this small against the whole matrix are dropped (LAPACK's eigh is
  // accurate to about eps * |A| too).
  const double small = 0.01 * kEps * std::sqrt(total);
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p + 1 < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (std::abs(apq) <= small) {
          a[p * n + q] = a[q * n + p] = 0;
          continue;
        }
        rotated = true;
        const double app = a[p * n + p], aqq = a[q * n + q];
        const double theta = (aqq - app) / (2 * apq);
        const double t =
            (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double cs = 1 / std::sqrt(t * t + 1), sn = t * cs;
        for (int64_t r = 0; r < n; ++r) {
          const double x = a[r * n + p], y = a[r * n + q];
          a[r * n + p] = cs * x - sn * y;
          a[r * n + q] = sn * x + cs * y;
        }
        for (int64_t r = 0; r < n; ++r) {
          const double x = a[p * n + r], y = a[q * n + r];
          a[p * n + r] = cs * x - sn * y;
          a[q * n + r] = sn * x + cs * y;
        }
        a[p * n + q] = a[q * n + p] = 0;
        for (int64_t r = 0; r < n; ++r) {
          const double x = v[r * n + p], y = v[r * n + q];
          v[r * n + p] = cs * x - sn * y;
          v[r * n + q] = sn * x + cs * y;
        }
      }
    }
    if (!rotated) break;
  }
}

void EighKernel(OpCall& c) {
  const Matrices mat = Batch(c.tensor(arg::_linalg_eigh::A));
  const int64_t n = mat.rows;
  const std::string& uplo = c.args[arg::_linalg_eigh::UPLO].str();
  const bool lower = uplo == "L" || uplo == "l";
  DispatchLinalg(c.compute_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    ForEachMatrix(mat.count, n * n * n * 8, [&](int64_t i) -> int64_t {
      std::vector<double> a(n * n), v(n * n), w(n), vo(n * n);
      LoadMatrix<T>(mat, i, a.data());
      // Mirror the referenced triangle.
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t s = 0; s < r; ++s) {
          if (lower) {
            a[s * n + r] = a[r * n + s];
          } else {
            a[r * n + s] = a[s * n + r];
          }
        }
      }
      JacobiEigh(a.data(), n, v.data());
      std::vector<int64_t> order(n);
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t x, int64_t y) { return a[x * n + x] < a[y * n + y]; });
      for (int64_t j = 0; j < n; ++j) {
        w[j] = a[order[j] * n + order[j]];
        for (int64_t r = 0; r < n; ++r) vo[r * n + j] = v[r * n + order[j]];
      }
      StoreMatrix<T>(c.outputs[0], i, n, w.data());
      StoreMatrix<T>(c.outputs[1], i, n * n, vo.data());
      return 0;
    });
  });
}
OF_KERNEL("_linalg_eigh", kCPU, kLinalgDTypes, &EighKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
