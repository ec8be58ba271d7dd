#include "core/runtime/view_ops.h"

#include <gtest/gtest.h>

#include "core/runtime/error.h"
#include "core/runtime/tensor_ops.h"

namespace oneflow {
namespace {

// A contiguous float32 tensor holding 0, 1, 2, ... in row-major order.
TensorImplPtr Iota(const DimVector& shape) {
  auto t =
      Arange(Scalar::Int(0), Scalar::Int(Numel(shape)), Scalar::Int(1), DType::kFloat32, Device{});
  return View(t, shape);
}

float At(const TensorImplPtr& t, const DimVector& index) {
  int64_t off = 0;
  for (size_t i = 0; i < index.size(); ++i) off += index[i] * t->stride()[i];
  return reinterpret_cast<const float*>(t->data())[off];
}

TEST(ViewOpsTest, ViewSharesStorageAndVersion) {
  auto t = Iota({2, 3});
  auto v = View(t, {3, 2});
  EXPECT_EQ(v->storage(), t->storage());
  EXPECT_TRUE(v->shares_version_with(*t));
  EXPECT_EQ(v->stride(), (DimVector{2, 1}));
  Fill(v, Scalar::Float(7));
  EXPECT_EQ(t->version(), 1);
  EXPECT_EQ(At(t, {1, 2}), 7.0f);
}

TEST(ViewOpsTest, TransposeAndPermute) {
  auto t = Iota({2, 3, 4});
  auto tr = Transpose(t, 0, -1);
  EXPECT_EQ(tr->shape(), (DimVector{4, 3, 2}));
  EXPECT_EQ(tr->stride(), (DimVector{1, 4, 12}));
  EXPECT_EQ(At(tr, {3, 1, 1}), At(t, {1, 1, 3}));
  auto p = Permute(t, {2, 0, 1});
  EXPECT_EQ(p->shape(), (DimVector{4, 2, 3}));
  EXPECT_EQ(p->stride(), (DimVector{1, 12, 4}));
  EXPECT_THROW(Permute(t, {0, 0, 1}), RuntimeError);
  EXPECT_THROW(Permute(t, {0, 1}), RuntimeError);
  EXPECT_THROW(Transpose(t, 0, 3), IndexError);
}

TEST(ViewOpsTest, ViewOfTransposedFailsReshapeCopies) {
  auto tr = Transpose(Iota({3, 4}), 0, 1);
  EXPECT_THROW(View(tr, {12}), RuntimeError);
  auto r = Reshape(tr, {12});
  EXPECT_NE(r->storage(), tr->storage());
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(At(r, {i}), At(tr, {i / 3, i % 3}));
  auto ok = Reshape(tr, {2, 2, 3});  // splitting a dim is still a view
  EXPECT_EQ(ok->storage(), tr->storage());
}

TEST(ViewOpsTest, SliceNarrowSelect) {
  auto t = Iota({4, 5});
  auto s = Slice(t, 1, 1, std::nullopt, 2);  // t[:, 1::2]
  EXPECT_EQ(s->shape(), (DimVector{4, 2}));
  EXPECT_EQ(s->stride(), (DimVector{5, 2}));
  EXPECT_EQ(At(s, {2, 1}), 13.0f);
  auto e = Slice(t, 0, 10, 20, 1);  // clamped: empty
  EXPECT_EQ(e->shape(), (DimVector{0, 5}));
  auto neg = Slice(t, 0, -3, -1, 1);
  EXPECT_EQ(neg->shape(), (DimVector{2, 5}));
  EXPECT_EQ(At(neg, {0, 0}), 5.0f);
  EXPECT_THROW(Slice(t, 0, 0, 4, 0), ValueError);
  EXPECT_THROW(Slice(t, 0, 0, 4, -1), ValueError);
  auto n = Narrow(t, 0, -2, 2);
  EXPECT_EQ(At(n, {0, 0}), 10.0f);
  EXPECT_THROW(Narrow(t, 0, 3, 2), RuntimeError);
  auto sel = Select(t, 1, -1);
  EXPECT_EQ(sel->shape(), (DimVector{4}));
  EXPECT_EQ(At(sel, {3}), 19.0f);
  EXPECT_THROW(Select(t, 0, 4), IndexError);
}

TEST(ViewOpsTest, ExpandSqueezeUnsqueezeFlatten) {
  auto t = Iota({3, 1});
  auto ex = Expand(t, {2, 3, 4});
  EXPECT_EQ(ex->stride(), (DimVector{0, 1, 0}));
  EXPECT_EQ(At(ex, {1, 2, 3}), 2.0f);
  EXPECT_EQ(Expand(t, {-1, 5})->shape(), (DimVector{3, 5}));
  EXPECT_THROW(Expand(t, {4, 4}), RuntimeError);
  EXPECT_THROW(Expand(t, {4}), RuntimeError);
  EXPECT_EQ(Squeeze(t, std::nullopt)->shape(), (DimVector{3}));
  EXPECT_EQ(Squeeze(t, DimVector{0})->shape(), (DimVector{3, 1}));  // size 3: kept
  auto u = Unsqueeze(t, -1);
  EXPECT_EQ(u->shape(), (DimVector{3, 1, 1}));
  EXPECT_THROW(Unsqueeze(t, 3), IndexError);
  auto f = Flatten(Iota({2, 3, 4}), 1, 2);
  EXPECT_EQ(f->shape(), (DimVector{2, 12}));
  EXPECT_THROW(Flatten(Iota({2, 3}), 1, 0), RuntimeError);
  EXPECT_EQ(Flatten(Iota({}), 0, -1)->shape(), (DimVector{1}));
}

TEST(ViewOpsTest, CloneKeepsDenseStrideOrder) {
  auto tr = Transpose(Iota({3, 4}), 0, 1);
  auto c = Clone(tr);
  EXPECT_EQ(c->stride(), tr->stride());
  EXPECT_NE(c->storage(), tr->storage());
  auto strided = Slice(Iota({6}), 0, 0, std::nullopt, 2);
  EXPECT_EQ(Clone(strided)->stride(), (DimVector{1}));
  EXPECT_EQ(At(Clone(strided), {2}), 4.0f);
}

TEST(ViewOpsTest, CastCopies) {
  auto f = Full({3}, Scalar::Float(2.75), DType::kFloat32, Device{});
  auto i = ToDType(f, DType::kInt32, false);
  EXPECT_EQ(reinterpret_cast<const int32_t*>(i->data())[2], 2);
  auto h = ToDType(f, DType::kFloat16, false);
  EXPECT_EQ(static_cast<float>(reinterpret_cast<const Half*>(h->data())[0]), 2.75f);
  EXPECT_EQ(ToDType(f, DType::kFloat32, false), f);
  EXPECT_NE(ToDType(f, DType::kFloat32, true), f);
  auto e = Eye(2, 3, DType::kInt64, Device{});
  const int64_t* p = reinterpret_cast<const int64_t*>(e->data());
  EXPECT_EQ(std::vector<int64_t>(p, p + 6), (std::vector<int64_t>{1, 0, 0, 0, 1, 0}));
}

TEST(ViewOpsTest, OutOfBoundsViewsAreRejected) {
  auto t = Iota({4});
  EXPECT_THROW(t->AsStrided({5}, {1}, 0), RuntimeError);
  EXPECT_THROW(t->AsStrided({2}, {3}, 1), RuntimeError);
  EXPECT_NO_THROW(t->AsStrided({2}, {2}, 0));
}

}  // namespace
}  // namespace oneflow
