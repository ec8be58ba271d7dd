// CPU kernels of the padding ops declared in ops/defs/pad.cc.
//
// constant_pad_nd fills the output and copies the part of the input that
// survives negative padding into place. Reflect and replicate padding are
// separable gathers: along each padded dim, output index o reads input index
// map(o - left) (reflect: mirrored at the ends without repeating the edge;
// replicate: clamped to the edge). The forward moves elements by size (any
// dtype); the backward adds each output gradient into its source element.
// Both run in parallel over the planes in front of the padded dims.

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/runtime/view_ops.h"
#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// ---- constant ----------------------------------------------------------------------

void ConstantPadKernel(OpCall& c) {
  const TensorImplPtr& x = c.tensor(arg::constant_pad_nd::input);
  const TensorImplPtr& out = c.outputs[0];
  const DimVector pad = c.get(arg::constant_pad_nd::pad);
  const Scalar value = c.get(arg::constant_pad_nd::value);
  if (out->numel() == 0) return;
  TensorImplPtr src = x, dst = out;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = x->ndim() - 1 - static_cast<int64_t>(i);
    const int64_t l = pad[2 * i], r = pad[2 * i + 1];
    const int64_t lo = std::max<int64_t>(0, -l);
    const int64_t len = x->shape()[d] - lo - std::max<int64_t>(0, -r);
    if (len <= 0) {
      // Nothing of the input survives: all padding.
      Fill(out, value);
      return;
    }
    src = Narrow(src, d, lo, len);
    dst = Narrow(dst, d, std::max<int64_t>(0, l), len);
  }
  if (dst->numel() != out->numel()) Fill(out, value);
  CopyInto(src, dst);
}
OF_KERNEL("constant_pad_nd", kCPU, kAllDTypes, &ConstantPadKernel);

// ---- reflect / replicate -----------------------------------------------------------

// The padded dims as three (leading ones of size 1), the planes before them,
// and per dim the input index each output index reads.
struct PadPlan {
  int64_t planes = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  std::vector<int64_t> index[3];
  int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

// `shape` is the input's; `reflect` picks mirroring over clamping.
PadPlan MakePlan(const DimVector& shape, const DimVector& pad, bool reflect) {
  PadPlan p;
  const int64_t k = static_cast<int64_t>(pad.size()) / 2;
  const int64_t nd = static_cast<int64_t>(shape.size());
  for (int64_t d = 0; d < nd - k; ++d) p.planes *= shape[d];
  for (int64_t i = 0; i < k; ++i) {
    const int64_t slot = 2 - i;  // pad pair i belongs to dim nd - 1 - i
    const int64_t n = shape[nd - 1 - i], l = pad[2 * i], r = pad[2 * i + 1];
    p.in[slot] = n;
    p.out[slot] = n + l + r;
    p.index[slot].resize(p.out[slot]);
    for (int64_t o = 0; o < p.out[slot]; ++o) {
      int64_t s = o - l;
      if (reflect) {
        if (s < 0) s = -s;
        if (s >= n) s = 2 * (n - 1) - s;
      } else {
        s = std::clamp<int64_t>(s, 0, n - 1);
      }
      p.index[slot][o] = s;
    }
  }
  for (int64_t slot = 0; slot < 3; ++slot) {
    if (p.index[slot].empty()) p.index[slot] = {0};
  }
  return p;
}

// Calls fn(plane, output offset in plane, input offset in plane) for every
// output element, planes split across threads.
template <typename Fn>
void ForEachPadded(const PadPlan& p, Fn&& fn) {
  const int64_t out_plane = p.out_plane();
  ParallelFor(p.planes, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, out_plane)),
              [&](int64_t b, int64_t e) {
                for (int64_t plane = b; plane < e; ++plane) {
                  int64_t o = 0;
                  for (int64_t od = 0; od < p.out[0]; ++od) {
                    const int64_t bd = p.index[0][od] * p.in[1];
                    for (int64_t oh = 0; oh < p.out[1]; ++oh) {
                      const int64_t bh = (bd + p.index[1][oh]) * p.in[2];
                      const int64_t* iw = p.index[2].data();
                      for (int64_t ow = 0; ow < p.out[2]; ++ow, ++o) fn(plane, o, bh + iw[ow]);
                    }
                  }
                }
              });
}

// Elements of `size` bytes as one unsigned integer type.
template <typename Fn>
void DispatchElementSize(int64_t size, Fn&& fn) {
  switch (size) {
    case 1:
      return fn(TypeTag<uint8_t>{});
    case 2:
      return fn(TypeTag<uint16_t>{});
    case 4:
      return fn(TypeTag<uint32_t>{});
    default:
      return fn(TypeTag<uint64_t>{});
  }
}

// _reflection_pad and _replication_pad: same argument indices.
template <bool kReflect>
void PadForwardKernel(OpCall& c) {
  const TensorImplPtr x = Contiguous(c.tensor(arg::_reflection_pad::self));
  const TensorImplPtr& out = c.outputs[0];
  if (out->numel() == 0) return;
  const PadPlan p = MakePlan(x->shape(), c.get(arg::_reflection_pad::padding), kReflect);
  const int64_t in_plane = p.in_plane(), out_plane = p.out_plane();
  DispatchElementSize(x->itemsize(), [&](auto tag) {
    using E = typename decltype(tag)::type;
    const E* src = reinterpret_cast<const E*>(x->data());
    E* dst = reinterpret_cast<E*>(out->data());
    ForEachPadded(p, [&](int64_t plane, int64_t o, int64_t i) {
      dst[plane * out_plane + o] = src[plane * in_plane + i];
    });
  });
}

// grad_input (the output, zeroed) from grad_output: the input's shape is the
// gradient's minus the padding. _reflection_pad_backward and
// _replication_pad_backward: same argument indices.
template <bool kReflect, typename T>
void PadBackwardTyped(OpCall& c) {
  const TensorImplPtr g = Contiguous(c.tensor(arg::_reflection_pad_backward::grad_output));
  const TensorImplPtr& gx = c.outputs[0];
  Fill(gx, Scalar::Int(0));
  if (g->numel() == 0) return;
  const PadPlan p = MakePlan(gx->shape(), c.get(arg::_reflection_pad_backward::padding), kReflect);
  const int64_t in_plane = p.in_plane(), out_plane = p.out_plane();
  const T* src = reinterpret_cast<const T*>(g->data());
  T* dst = reinterpret_cast<T*>(gx->data());
  ForEachPadded(p, [&](int64_t plane, int64_t o, int64_t i) {
    dst[plane * in_plane + i] += src[plane * out_plane + o];
  });
}

// Half and BFloat16 gradients accumulate in float.
template <bool kReflect>
void PadBackwardKernel(OpCall& c) {
  const DType d = c.compute_dtype;
  if (d == DType::kFloat32) return PadBackwardTyped<kReflect, float>(c);
  if (d == DType::kFloat64) return PadBackwardTyped<kReflect, double>(c);
  OF_CHECK(d == DType::kFloat16 || d == DType::kBFloat16, NotImplementedError, "\"", c.name(),
           "\" not implemented for '", DTypeName(d), "'");
  OpCall f = c;
  constexpr int kGrad = arg::_reflection_pad_backward::grad_output;
  f.args[kGrad] = Value(ToDType(c.tensor(kGrad), DType::kFloat32, false));
  f.outputs = {TensorImpl::Empty(c.outputs[0]->shape(), DType::kFloat32, c.outputs[0]->device())};
  f.compute_dtype = DType::kFloat32;
  PadBackwardTyped<kReflect, float>(f);
  CopyInto(f.outputs[0], c.outputs[0]);
}

OF_KERNEL("_reflection_pad", kCPU, kNumericDTypes, &PadForwardKernel<true>);
OF_KERNEL("_replication_pad", kCPU, kNumericDTypes, &PadForwardKernel<false>);
OF_KERNEL("_reflection_pad_backward", kCPU, kFloatingDTypes, &PadBackwardKernel<true>);
OF_KERNEL("_replication_pad_backward", kCPU, kFloatingDTypes, &PadBackwardKernel<false>);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
