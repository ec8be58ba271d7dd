// Matrix products on cuBLAS: one strided-batched GEMM for mm, bmm, matmul and
// addmm. Operands are read in place when one of their two inner strides is 1
// (a transposed view needs no copy); anything else is made contiguous first.
// float32 computes in float32 (no TF32, as PyTorch's default); 16-bit floats
// accumulate in float32.

#include <cublas_v2.h>

#include <mutex>
#include <vector>

#include "core/runtime/error.h"
#include "core/runtime/tensor_ops.h"
#include "core/runtime/view_ops.h"
#include "ops/cuda/cuda_runtime.h"

namespace oneflow {
namespace cuda {
namespace {

const char* CublasStatus(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    default:
      return "CUBLAS error";
  }
}

#define OF_CUBLAS_CHECK(expr, op)                                                          \
  do {                                                                                     \
    cublasStatus_t of_st_ = (expr);                                                        \
    OF_CHECK(of_st_ == CUBLAS_STATUS_SUCCESS, RuntimeError, op, "(): cuBLAS failed with ", \
             CublasStatus(of_st_), " (", #expr, ")");                                      \
  } while (0)

// One handle per device, bound to that device's stream.
cublasHandle_t Handle(int device) {
  static std::mutex mu;
  static std::vector<cublasHandle_t> handles;
  std::lock_guard<std::mutex> lock(mu);
  if (handles.size() <= static_cast<size_t>(device)) handles.resize(device + 1, nullptr);
  if (handles[device] == nullptr) {
    OF_CUBLAS_CHECK(cublasCreate(&handles[device]), "cublas");
    OF_CUBLAS_CHECK(cublasSetStream(handles[device], StreamOf(device)), "cublas");
    OF_CUBLAS_CHECK(cublasSetMathMode(handles[device], CUBLAS_DEFAULT_MATH), "cublas");
  }
  return handles[device];
}

// A (batch, rows, cols) operand as cuBLAS reads it: data, whether it is
// row-major (inner stride 1) or column-major, its leading dimension and batch stride.
struct Mat {
  TensorImplPtr t;  // keeps a contiguous copy alive
  bool row_major = true;
  int64_t ld = 0, batch_stride = 0, rows = 0, cols = 0;
};

Mat View(const TensorImplPtr& in) {
  TensorImplPtr t = in->ndim() == 2 ? Unsqueeze(in, 0) : in;
  const int64_t r = t->shape()[1], c = t->shape()[2];
  const int64_t sr = t->stride()[1], sc = t->stride()[2];
  Mat m;
  m.rows = r;
  m.cols = c;
  if ((sc == 1 || c == 1) && sr >= std::max<int64_t>(c, 1)) {
    m.row_major = true;
    m.ld = std::max<int64_t>(sr, std::max<int64_t>(c, 1));
  } else if ((sr == 1 || r == 1) && sc >= std::max<int64_t>(r, 1)) {
    m.row_major = false;
    m.ld = std::max<int64_t>(sc, std::max<int64_t>(r, 1));
  } else {
    t = Contiguous(t);
    m.row_major = true;
    m.ld = std::max<int64_t>(c, 1);
  }
  m.t = t;
  m.batch_stride = t->shape()[0] == 1 ? 0 : t->stride()[0];
  return m;
}

cudaDataType CudaType(DType d, const char* op) {
  switch (d) {
    case DType::kFloat32:
      return CUDA_R_32F;
    case DType::kFloat64:
      return CUDA_R_64F;
    case DType::kFloat16:
      return CUDA_R_16F;
    case DType::kBFloat16:
      return CUDA_R_16BF;
    default:
      OF_THROW(NotImplementedError, "\"", op, "_cuda\" not implemented for '", DTypeName(d), "'");
  }
}

}  // namespace

// out (batch, n, m) = alpha * a (batch, n, k) @ b (batch, k, m) + beta * out;
// 2-d operands are a batch of one. out is written in place when dense.
void Gemm(const TensorImplPtr& a_in, const TensorImplPtr& b_in, const TensorImplPtr& out_in,
          double alpha, double beta, const char* op) {
  DeviceGuard guard(out_in->device().index);
  const DType dtype = out_in->dtype();
  OF_CHECK(a_in->dtype() == dtype && b_in->dtype() == dtype, RuntimeError, op,
           "(): expected both operands to have the output's dtype ", DTypeName(dtype), ", got ",
           DTypeName(a_in->dtype()), " and ", DTypeName(b_in->dtype()));
  const Mat a = View(a_in), b = View(b_in);
  TensorImplPtr out = out_in->ndim() == 2 ? Unsqueeze(out_in, 0) : out_in;
  const bool dense = out->is_contiguous();
  TensorImplPtr dst = dense ? out : Contiguous(out);
  const int64_t batch = dst->shape()[0], n = dst->shape()[1], m = dst->shape()[2], k = a.cols;
  OF_CHECK(a.rows == n && b.rows == k && b.cols == m, RuntimeError, op,
           "(): mat1 and mat2 shapes cannot be multiplied (", n, "x", k, " and ", b.rows, "x",
           b.cols, ")");
  if (dst->numel() > 0) {
    if (k == 0) {
      // An empty sum: out = beta * out.
      OF_CHECK(beta == 0 || beta == 1, NotImplementedError, op,
               "(): an empty inner dimension with beta other than 0 or 1 on CUDA");
      if (beta == 0) Fill(dst, Scalar::Int(0));
    } else {
      // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS's first operand is b.
      const cublasOperation_t tb = b.row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
      const cublasOperation_t ta = a.row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
      const cudaDataType type = CudaType(dtype, op);
      const bool f64 = dtype == DType::kFloat64;
      const double alpha_d = alpha, beta_d = beta;
      const float alpha_f = static_cast<float>(alpha), beta_f = static_cast<float>(beta);
      const void* pa = f64 ? static_cast<const void*>(&alpha_d) : &alpha_f;
      const void* pb = f64 ? static_cast<const void*>(&beta_d) : &beta_f;
      OF_CUBLAS_CHECK(
          cublasGemmStridedBatchedEx(
              Handle(CurrentDevice()), tb, ta, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), pa, b.t->data(), type, static_cast<int>(b.ld), b.batch_stride,
              a.t->data(), type, static_cast<int>(a.ld), a.batch_stride, pb, dst->data(), type,
              static_cast<int>(m), n * m, static_cast<int>(batch),
              f64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          op);
    }
  }
  if (!dense) CopyInto(dst, out);
}

}  // namespace cuda
}  // namespace oneflow
