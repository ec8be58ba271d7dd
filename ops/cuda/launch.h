#ifndef OPS_CUDA_LAUNCH_H_
#define OPS_CUDA_LAUNCH_H_

// The interface between the CUDA kernels (*.cu, compiled by nvcc) and their
// host side (*.cc, compiled by the C++ compiler, which reads the op calls):
// plain structs and functions, no CUDA types and no framework headers, so
// nvcc only ever sees this file, the dtypes and the kernels themselves. Every
// launch goes to the current device's stream (cuda_runtime.h).

#include <cstdint>

#include "core/runtime/dtype.h"

namespace oneflow {
namespace cuda {

// The most dims a strided launch takes (the host side checks, naming the op).
inline constexpr int kMaxDims = 10;

// One operand of an elementwise launch: memory with strides in elements (0
// on broadcast dims), or a number read on the host (a 0-d CPU tensor).
struct Operand {
  void* data = nullptr;
  DType dtype = DType::kFloat32;
  int64_t stride[kMaxDims] = {};
  bool is_scalar = false;
  double scalar = 0;
};

// The iteration space of a launch (the output's shape) and up to four
// operands; operand 0 is the output.
struct ElemArgs {
  int ndim = 0;
  int64_t size[kMaxDims] = {};
  int64_t numel = 0;
  int num_operands = 0;
  Operand op[4];
};

// ---- memory ------------------------------------------------------------------
// out = cast(in), any strides (operand 0 out, 1 in).
void LaunchCopy(const ElemArgs& args);
// out = value (operand 0, any strides).
void LaunchFill(const ElemArgs& args, double value, int64_t ivalue, bool is_int);
// 1-d ramps: out[i] = start + i * step (integers exactly when is_int).
void LaunchArange(void* out, DType dtype, int64_t n, double start, double step, int64_t istart,
                  int64_t istep, bool is_int);
void LaunchLinspace(void* out, DType dtype, int64_t n, double start, double end);

// ---- elementwise -----------------------------------------------------------
// Unary, binary and ternary ops by name ("exp", "add", "where", "clamp",
// "activation:<kind>", "activation_backward:<kind>"), computed in `compute`
// (operands already in that dtype, except bool outputs of comparisons and the
// condition of where). p holds the op's numbers (alpha, bounds, activation
// parameters). False when the name is unknown.
bool LaunchElementwise(const char* name, DType compute, const ElemArgs& args, const double* p);
// Whether LaunchElementwise knows `name`, and for which dtypes (a DTypeSet).
uint32_t ElementwiseDTypes(const char* name);
// The names LaunchElementwise knows, null-terminated.
const char* const* ElementwiseNames();

// ---- reductions --------------------------------------------------------------
// in viewed as (outer, inner) after the host moved the reduced dims last and
// made it contiguous: out[o] = reduce(in[o, 0..inner)). op: "sum", "mean",
// "amax", "amin", "prod", "norm" (p in `p`), "any", "all". Output dtype may
// differ from the input's (sum of ints to int64, any/all to bool).
bool LaunchReduceRows(const char* op, const void* in, DType in_dtype, void* out, DType out_dtype,
                      int64_t outer, int64_t inner, double p);

// ---- rows (softmax, layer norm, cross entropy) ---------------------------
// x viewed as (outer, n, inner), contiguous: softmax or log-softmax along n.
void LaunchSoftmax(const void* x, void* y, DType dtype, int64_t outer, int64_t n, int64_t inner,
                   bool log);
// gx = y * (g - sum(g * y)) (softmax) or g - exp(y) * sum(g) (log-softmax).
void LaunchSoftmaxBackward(const void* g, const void* y, void* gx, DType dtype, int64_t outer,
                           int64_t n, int64_t inner, bool log);
// clamp with tensor bounds: operands (out, x, lo, hi); p = {has_lo, has_hi}.
// (A missing bound's operand may be any operand; it is not read.)

// Layer norm over rows of n: y, mean and rstd (float32 for half inputs; the
// dtype of mean/rstd is stat_dtype); w and b may be null.
void LaunchLayerNorm(const void* x, const void* w, const void* b, void* y, void* mean, void* rstd,
                     DType dtype, DType stat_dtype, int64_t rows, int64_t n, double eps);
// The gradients of layer norm: gx (may be null), gw and gb (may be null).
// workspace holds 2 * ColumnChunks(rows) * n floats (the column sums' partials).
void LaunchLayerNormBackward(const void* g, const void* x, const void* mean, const void* rstd,
                             const void* w, void* gx, void* gw, void* gb, DType dtype,
                             DType stat_dtype, int64_t rows, int64_t n, float* workspace);

// Column sums over many rows run as chunks of rows in parallel, then one pass
// over the chunks' partial sums: the number of chunks for `rows` rows.
inline int64_t ColumnChunks(int64_t rows) {
  const int64_t c = (rows + 255) / 256;
  return c < 1 ? 1 : (c > 64 ? 64 : c);
}
// out[j] = sum (or mean) over r of in[r, j] for a contiguous (rows, cols)
// floating input; workspace holds ColumnChunks(rows) * cols floats.
// False for dtypes it does not take.
bool LaunchSumColumns(const void* in, void* out, DType dtype, int64_t rows, int64_t cols, bool mean,
                      float* workspace);

// ---- indexing ----------------------------------------------------------------
// out[i, :] = weight[idx[i], :] (idx int64 or int32).
void LaunchEmbedding(const void* weight, const void* idx, DType idx_dtype, void* out, DType dtype,
                     int64_t num, int64_t dim, int64_t num_weights);
// grad_weight (zeroed, float32 accumulation buffer) += grad rows at idx;
// rows equal to padding_idx are skipped; counts scale when given.
void LaunchEmbeddingBackward(const void* grad, DType dtype, const void* idx, DType idx_dtype,
                             float* acc, int64_t num, int64_t dim, int64_t padding_idx,
                             const int32_t* counts);
void LaunchCountIndices(const void* idx, DType idx_dtype, int32_t* counts, int64_t num);
// Cross entropy with class indices over (rows, classes) logits, as PyTorch's:
// loss[r] = (1-eps) w[t] (lse - x[t]) + eps/C sum_c w[c] (lse - x[c]), 0 where
// t == ignore; lse per row; w[t] per row (1 without weight, 0 ignored) in wrow.
void LaunchSoftmaxCrossEntropy(const void* x, const int64_t* target, const void* weight,
                               DType dtype, int64_t rows, int64_t classes, int64_t ignore_index,
                               double label_smoothing, double* loss, double* lse, double* wrow);
// gx[r, c] = g[r] ((1-eps) w[t] (p[r, c] - [c == t]) + eps/C (W p[r, c] - w[c]))
// with p the softmax and W the sum of the class weights; rows with t ==
// ignore give 0; g is per row (already divided for "mean").
void LaunchSoftmaxCrossEntropyBackward(const double* g, const void* x, const int64_t* target,
                                       const void* weight, const double* lse, DType dtype,
                                       int64_t rows, int64_t classes, int64_t ignore_index,
                                       double label_smoothing, double wsum, void* gx);
// Concatenation: copies a contiguous (outer, n_i, inner) input into the
// output's slab at column offset `at` of (outer, total, inner).
void LaunchCatPiece(const void* in, void* out, int64_t itemsize, int64_t outer, int64_t n_i,
                    int64_t total, int64_t at, int64_t inner);

// ---- pooling (planes of up to 3 spatial dims; 1-d and 2-d pad the leading dims with 1) ----
struct PoolShape {
  int64_t planes = 0;          // N * C
  int64_t in[3] = {1, 1, 1};   // input D, H, W
  int64_t out[3] = {1, 1, 1};  // output D, H, W
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1};
};
// y and the flat in-plane index of each maximum (int64), as PyTorch's.
void LaunchMaxPool(const void* x, void* y, int64_t* indices, DType dtype, const PoolShape& s);
// acc (zeroed float32, the input's size) += g at the indices.
void LaunchMaxPoolBackward(const void* g, const int64_t* indices, float* acc, DType dtype,
                           const PoolShape& s);
// Adaptive average pooling: output cell o covers [floor(o I / O), ceil((o + 1) I / O)).
void LaunchAdaptiveAvgPool(const void* x, void* y, DType dtype, const PoolShape& s);
// acc (zeroed float32, the input's size) += g / cell size over each cell.
void LaunchAdaptiveAvgPoolBackward(const void* g, float* acc, DType dtype, const PoolShape& s);

// ---- batch norm over (N, C, S) contiguous inputs (S: the spatial size) --------------------
// Training statistics: mean and invstd per channel (stat dtype: T, or float32 for 16-bit T);
// running_mean/var (may be null, of the stat dtype) move by momentum towards the batch mean
// and the unbiased variance. workspace: 2 * ChannelChunks(n) * c doubles.
inline int64_t ChannelChunks(int64_t n) {
  const int64_t k = (n + 15) / 16;
  return k < 1 ? 1 : (k > 32 ? 32 : k);
}
void LaunchBatchNormStats(const void* x, DType dtype, DType stat_dtype, int64_t n, int64_t c,
                          int64_t s, double eps, double momentum, void* mean, void* invstd,
                          void* running_mean, void* running_var, double* workspace);
// y = (x - mean) * invstd * w + b per channel (w, b may be null; mean/invstd of stat dtype).
void LaunchBatchNormApply(const void* x, void* y, DType dtype, DType stat_dtype, int64_t n,
                          int64_t c, int64_t s, const void* mean, const void* invstd, const void* w,
                          const void* b);
// Gradients: gw = sum(g xhat), gb = sum(g) per channel (either may be null), and gx (may be
// null): training w invstd (g - mean(g) - xhat mean(g xhat)), evaluation w invstd g.
void LaunchBatchNormBackward(const void* g, const void* x, DType dtype, DType stat_dtype, int64_t n,
                             int64_t c, int64_t s, const void* mean, const void* invstd,
                             const void* w, bool training, void* gx, void* gw, void* gb,
                             double* workspace);

// ---- random (Philox4x32-10, one counter per 4 values) ----------------------
// out[i] = uniform in [lo, hi) or normal(mean, std) for the stream (seed,
// offset + i / 4).
void LaunchUniform(void* out, DType dtype, int64_t n, uint64_t seed, uint64_t offset, double lo,
                   double hi);
void LaunchNormal(void* out, DType dtype, int64_t n, uint64_t seed, uint64_t offset, double mean,
                  double std);
// mask[i] = uniform >= p (bool); y = x * mask / (1 - p).
void LaunchDropout(const void* x, void* y, bool* mask, DType dtype, int64_t n, double p,
                   uint64_t seed, uint64_t offset);
// gx = mask ? g * scale : 0 (contiguous).
void LaunchMaskScale(const void* g, const bool* mask, void* gx, DType dtype, int64_t n,
                     double scale);

// ---- optimizers --------------------------------------------------------------
// One Adam step on n contiguous elements (state in the param's dtype, computed
// in float32 for half types): decoupled (AdamW) or coupled weight decay; step is
// the step count after this update.
void LaunchAdam(void* param, const void* grad, void* exp_avg, void* exp_avg_sq,
                void* max_exp_avg_sq, DType dtype, int64_t n, double lr, double beta1, double beta2,
                double weight_decay, double eps, bool amsgrad, bool maximize, bool decoupled,
                double step);

}  // namespace cuda
}  // namespace oneflow

#endif  // OPS_CUDA_LAUNCH_H_
