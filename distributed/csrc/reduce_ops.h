#ifndef DISTRIBUTED_CSRC_REDUCE_OPS_H_
#define DISTRIBUTED_CSRC_REDUCE_OPS_H_

// Element types and reductions of the communication layer.
//
// Buffers reach the process group as raw bytes plus a dtype name, so this
// extension does not link the core runtime; the names are the core's
// (str(oneflow.float32) without the "oneflow." prefix). float16 and bfloat16
// reduce in float32 (convert, reduce, round once), so a sum over ranks equals
// the float32 sum rounded to the 16-bit type, whatever the ring order.

#include <cstddef>
#include <cstdint>
#include <string>

namespace oneflow {
namespace distributed {

// Kept in sync with the names in ParseDType (reduce_ops.cc).
enum class DType {
  kBool,
  kUInt8,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
};

// Kept in sync with ReduceOp in oneflow/distributed/_process_group.py.
enum class ReduceOp { kSum, kProduct, kMin, kMax, kAvg, kBand, kBor, kBxor };

// Both throw std::invalid_argument (a Python ValueError) for unknown names.
DType ParseDType(const std::string& name);
ReduceOp ParseReduceOp(const std::string& name);
const char* DTypeName(DType dtype);
const char* ReduceOpName(ReduceOp op);
size_t ElementSize(DType dtype);
bool IsFloating(DType dtype);

// The dtype a reduction computes in: float32 for the 16-bit floats, else the dtype.
DType ComputeDType(DType dtype);

// Throws std::invalid_argument when `op` is not defined for `dtype` (bitwise
// ops on floats, AVG on bool). `what` names the collective in the message.
void CheckReduceOp(const char* what, DType dtype, ReduceOp op);

// out[i] = a[i] (op) b[i] for n elements of `dtype` (a compute dtype); out may
// alias a or b. AVG reduces as a sum: the caller divides with DivideBy. The
// signature is the one gloo's reduction options take.
using ReduceFn = void (*)(void* out, const void* a, const void* b, size_t n);
ReduceFn GetReduceFn(DType dtype, ReduceOp op);

// data[i] /= divisor for n elements of a compute dtype (integers truncate, as NCCL's AVG does).
void DivideBy(void* data, size_t n, DType dtype, int64_t divisor);

// Converts n float16/bfloat16 elements (src_dtype) to float32 and back.
void WidenToFloat(const void* src, DType src_dtype, float* dst, size_t n);
void NarrowFromFloat(const float* src, void* dst, DType dst_dtype, size_t n);

}  // namespace distributed
}  // namespace oneflow

#endif  // DISTRIBUTED_CSRC_REDUCE_OPS_H_
