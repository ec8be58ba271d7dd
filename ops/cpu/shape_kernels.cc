// CPU kernels of the shape ops declared in ops/defs/shape.cc. They move whole
// elements, so most are dtype independent (copies through the device kernels or
// byte copies of one element).

#include <cstring>

#include "core/runtime/view_ops.h"
#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// ---- cat -------------------------------------------------------------------

bool SkippedByCat(const TensorImplPtr& t) { return t->ndim() == 1 && t->shape()[0] == 0; }

// Copies (and casts) each input into its slice of the output.
void CatKernel(OpCall& c) {
  const TensorList& ts = c.args[arg::_cat::tensors].tensors();
  const TensorImplPtr& out = c.outputs[0];
  int64_t dim = -1;
  for (const auto& t : ts) {
    if (!SkippedByCat(t)) {
      dim = WrapDim(c.get(arg::_cat::dim), t->ndim());
      break;
    }
  }
  if (dim < 0) return;
  int64_t offset = 0;
  for (const auto& t : ts) {
    if (SkippedByCat(t)) continue;
    const int64_t n = t->shape()[dim];
    if (n > 0 && t->numel() > 0) CopyInto(t, Narrow(out, dim, offset, n));
    offset += n;
  }
}
OF_KERNEL("_cat", kCPU, kAllDTypes, &CatKernel);

// ---- repeat ------------------------------------------------------------------

// The input seen as (r0, s0, r1, s1, ...) with stride 0 over the r's, copied
// into the output seen the same way.
void RepeatKernel(OpCall& c) {
  const TensorImplPtr& x = c.tensor(arg::_repeat::self);
  const TensorImplPtr& out = c.outputs[0];
  if (out->numel() == 0) return;
  const DimVector& repeats = c.args[arg::_repeat::repeats].int_list();
  const int64_t lead = static_cast<int64_t>(repeats.size()) - x->ndim();
  DimVector shape, stride;
  for (int64_t i = 0; i < static_cast<int64_t>(repeats.size()); ++i) {
    shape.push_back(repeats[i]);
    stride.push_back(0);
    shape.push_back(i < lead ? 1 : x->shape()[i - lead]);
    stride.push_back(i < lead ? 0 : x->stride()[i - lead]);
  }
  TensorImplPtr src = x->AsStrided(shape, stride, x->storage_offset());
  TensorImplPtr dst = out->AsStrided(shape, ContiguousStrides(shape), out->storage_offset());
  CopyInto(src, dst);
}
OF_KERNEL("_repeat", kCPU, kAllDTypes, &RepeatKernel);

// ---- flip --------------------------------------------------------------------

// Reads the input with the flipped dims' strides negated, from their last element.
void FlipKernel(OpCall& c) {
  const TensorImplPtr& x = c.tensor(arg::flip::self);
  const TensorImplPtr& out = c.outputs[0];
  if (out->numel() == 0) return;
  DimVector stride = x->stride();
  int64_t base = 0;
  for (int64_t d : c.args[arg::flip::dims].int_list()) {
    if (x->ndim() == 0) break;
    const int64_t w = WrapDim(d, x->ndim());
    base += (x->shape()[w] - 1) * x->stride()[w];
    stride[w] = -x->stride()[w];
  }
  const int64_t is = x->itemsize();
  const char* src = x->data() + base * is;
  char* dst = out->data();
  ForEachIndex<2>(x->shape(), {out->stride(), stride},
                  [&](const DimVector&, const std::array<int64_t, 2>& off) {
                    CopyElem(dst + off[0] * is, src + off[1] * is, is);
                  });
}
OF_KERNEL("flip", kCPU, kAllDTypes, &FlipKernel);

// ---- tril / triu ---------------------------------------------------------------

// Copies the input (unless in place) and zeroes the elements outside the
// triangle: below diagonal k for triu, above it for tril. (tril, triu and their
// in-place twins have their arguments at the same places: tril's names.)
template <bool kLower>
void TriangleKernel(OpCall& c) {
  const TensorImplPtr& x = c.tensor(arg::tril::self);
  const TensorImplPtr& out = c.outputs[0];
  if (out != x) CopyInto(x, out);
  const int64_t k = c.get(arg::tril::diagonal);

  const int64_t nd = out->ndim();
  const int64_t is = out->itemsize();
  char* base = out->data();
  ForEachIndex<1>(out->shape(), {out->stride()},
                  [&](const DimVector& index, const std::array<int64_t, 1>& off) {
                    const int64_t diff = index[nd - 1] - index[nd - 2];
                    if (kLower ? diff > k : diff < k) std::memset(base + off[0] * is, 0, is);
                  });
}
OF_KERNEL_WITH_INPLACE("tril", kCPU, kAllDTypes, &TriangleKernel<true>);
OF_KERNEL_WITH_INPLACE("triu", kCPU, kAllDTypes, &TriangleKernel<false>);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
