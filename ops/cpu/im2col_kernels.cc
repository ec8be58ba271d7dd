// CPU kernels of im2col / col2im (F.unfold / F.fold, ops/defs/vision.cc).
// Loops run over (batch * channels) planes with ParallelFor; the input is made
// contiguous first. float and double are computed in their own type (as
// PyTorch does), Half and BFloat16 through float copies.

#include <algorithm>

#include "ops/cpu/loops.h"
#include "ops/cpu/vision_common.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// ---- im2col / col2im ---------------------------------------------------------------

// Window arguments and sizes of one im2col / col2im call. The image side is
// (planes, h, w) with planes = N * C; the column side is (planes, kh * kw, L).
struct Cols {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
  int64_t planes, h, w, oh, ow;
};

Cols ParseCols(const DimVector& image, const DimVector& ks, const DimVector& di,
               const DimVector& pa, const DimVector& st) {
  Cols k;
  k.kh = ks[0], k.kw = ks[1], k.dh = di[0], k.dw = di[1];
  k.ph = pa[0], k.pw = pa[1], k.sh = st[0], k.sw = st[1];
  const int64_t nd = static_cast<int64_t>(image.size());
  k.h = image[nd - 2];
  k.w = image[nd - 1];
  k.planes = Numel(image) / std::max<int64_t>(1, k.h * k.w);
  k.oh = (k.h + 2 * k.ph - (k.dh * (k.kh - 1) + 1)) / k.sh + 1;
  k.ow = (k.w + 2 * k.pw - (k.dw * (k.kw - 1) + 1)) / k.sw + 1;
  return k;
}

// kToCols: cols[row][l] = image[...] (or 0 in the padding); else
// image[...] += cols[row][l].
template <bool kToCols, typename T>
void Im2colTyped(const Cols& k, const T* image, const T* cols_in, T* image_out, T* cols) {
  const int64_t l = k.oh * k.ow, rows = k.kh * k.kw;
  ParallelFor(k.planes, Grain(rows * l), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const T* img = kToCols ? image + p * k.h * k.w : nullptr;
      T* img_out = kToCols ? nullptr : image_out + p * k.h * k.w;
      for (int64_t i = 0; i < k.kh; ++i) {
        for (int64_t j = 0; j < k.kw; ++j) {
          const int64_t row = (p * rows + i * k.kw + j) * l;
          for (int64_t y = 0; y < k.oh; ++y) {
            const int64_t iy = y * k.sh - k.ph + i * k.dh;
            const bool row_in = iy >= 0 && iy < k.h;
            for (int64_t x = 0; x < k.ow; ++x) {
              const int64_t ix = x * k.sw - k.pw + j * k.dw;
              const bool in = row_in && ix >= 0 && ix < k.w;
              if constexpr (kToCols) {
                cols[row + y * k.ow + x] = in ? img[iy * k.w + ix] : T(0);
              } else {
                if (in) img_out[iy * k.w + ix] += cols_in[row + y * k.ow + x];
              }
            }
          }
        }
      }
    }
  });
}

void Im2colKernel(OpCall& c) {
  namespace a = arg::_im2col;
  const TensorImplPtr x = Contiguous(c.tensor(a::self));
  const Cols k =
      ParseCols(x->shape(), c.args[a::kernel_size].int_list(), c.args[a::dilation].int_list(),
                c.args[a::padding].int_list(), c.args[a::stride].int_list());
  if (c.outputs[0]->numel() == 0) return;
  DispatchFloatDouble(c.compute_dtype, "im2col", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Im2colTyped<true, T>(k, Ptr<T>(x), nullptr, nullptr, MutPtr<T>(c.outputs[0]));
  });
}

void Col2imKernel(OpCall& c) {
  namespace a = arg::_col2im;
  const TensorImplPtr cols = Contiguous(c.tensor(a::self));
  const TensorImplPtr& out = c.outputs[0];
  Fill(out, Scalar::Int(0));
  const Cols k =
      ParseCols(out->shape(), c.args[a::kernel_size].int_list(), c.args[a::dilation].int_list(),
                c.args[a::padding].int_list(), c.args[a::stride].int_list());

  if (out->numel() == 0) return;
  DispatchFloatDouble(c.compute_dtype, "col2im", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Im2colTyped<false, T>(k, nullptr, Ptr<T>(cols), MutPtr<T>(out), nullptr);
  });
}
OF_KERNEL("_im2col", kCPU, kFloatingDTypes, &ViaFloat<&Im2colKernel>);
OF_KERNEL("_col2im", kCPU, kFloatingDTypes, &ViaFloat<&Col2imKernel>);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
