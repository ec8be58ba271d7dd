#ifndef DISTRIBUTED_CSRC_REDUCE_OPS_H_
#define DISTRIBUTED_CSRC_REDUCE_OPS_H_

// The reductions of the communication layer, on the core's element types.
//
// Buffers reach the process group as raw bytes plus a dtype name, the core's
// (str(oneflow.float32) without the "oneflow." prefix). The dtype enum, its
// table and the float16/bfloat16 conversions are the core's (core/runtime:dtype,
// a leaf library of its own), not the core runtime's. float16 and bfloat16
// reduce in float32 (convert, reduce, round once).

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/runtime/dtype.h"

namespace oneflow {
namespace distributed {

// Kept in sync with ReduceOp in oneflow/distributed/_process_group.py.
enum class ReduceOp { kSum, kProduct, kMin, kMax, kAvg, kBand, kBor, kBxor };

// Both throw std::invalid_argument (a Python ValueError) for unknown names.
DType ParseDType(const std::string& name);
ReduceOp ParseReduceOp(const std::string& name);
const char* ReduceOpName(ReduceOp op);

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
