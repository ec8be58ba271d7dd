#include "core/runtime/shape.h"

#include <gtest/gtest.h>

#include "core/runtime/error.h"

namespace oneflow {
namespace {

TEST(ShapeTest, NumelAndContiguousStrides) {
  EXPECT_EQ(Numel({}), 1);
  EXPECT_EQ(Numel({2, 3, 4}), 24);
  EXPECT_EQ(Numel({2, 0, 4}), 0);
  EXPECT_THROW(Numel({2, -1}), RuntimeError);
  EXPECT_THROW(Numel({1LL << 40, 1LL << 40}), RuntimeError);
  EXPECT_EQ(ContiguousStrides({2, 3, 4}), (DimVector{12, 4, 1}));
  EXPECT_EQ(ContiguousStrides({2, 0, 4}), (DimVector{4, 4, 1}));
  EXPECT_EQ(ContiguousStrides({}), DimVector{});
}

TEST(ShapeTest, Contiguity) {
  EXPECT_TRUE(IsContiguous({2, 3}, {3, 1}));
  EXPECT_FALSE(IsContiguous({2, 3}, {1, 2}));
  EXPECT_TRUE(IsContiguous({2, 1, 3}, {3, 100, 1}));       // size-1 dims may have any stride
  EXPECT_TRUE(IsContiguous({0, 3}, {7, 9}));               // empty tensors are contiguous
  EXPECT_FALSE(IsContiguous({2, 3}, {6, 2}));              // every other element
  EXPECT_TRUE(IsNonOverlappingAndDense({2, 3}, {1, 2}));   // a transpose
  EXPECT_FALSE(IsNonOverlappingAndDense({2, 3}, {0, 1}));  // an expand overlaps
  EXPECT_FALSE(IsNonOverlappingAndDense({2, 3}, {6, 2}));  // a strided slice has holes
  EXPECT_EQ(StrideOrder({2, 3, 4}, {1, 8, 2}), (std::vector<int>{1, 2, 0}));
}

TEST(ShapeTest, DenseStridesLikeKeepsDimOrder) {
  // Dense layouts are kept as they are.
  EXPECT_EQ(DenseStridesLike({3, 4}, {1, 3}), (DimVector{1, 3}));
  EXPECT_EQ(DenseStridesLike({1, 3}, {1, 1}), (DimVector{1, 1}));
  // Holes are squeezed out in the same dim order (values from PyTorch's clone()).
  EXPECT_EQ(DenseStridesLike({1, 3}, {1, 4}), (DimVector{1, 1}));
  EXPECT_EQ(DenseStridesLike({1, 3}, {12, 4}), (DimVector{3, 1}));
  EXPECT_EQ(DenseStridesLike({3, 1, 4}, {1, 6, 12}), (DimVector{1, 3, 3}));
  EXPECT_EQ(DenseStridesLike({1, 1, 3, 4}, {6, 6, 1, 12}), (DimVector{3, 3, 1, 3}));
  // Expanded (stride 0) dims keep their row-major place.
  EXPECT_EQ(DenseStridesLike({3, 4}, {0, 1}), (DimVector{4, 1}));
}

TEST(ShapeTest, WrapDim) {
  EXPECT_EQ(WrapDim(-1, 3), 2);
  EXPECT_EQ(WrapDim(0, 3), 0);
  EXPECT_EQ(WrapDim(-1, 0), 0);  // scalars accept -1 and 0
  EXPECT_THROW(WrapDim(3, 3), IndexError);
  EXPECT_THROW(WrapDim(-4, 3), IndexError);
  try {
    WrapDim(2, 2);
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(),
                 "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  }
}

TEST(ShapeTest, InferSize) {
  EXPECT_EQ(InferSize({2, -1}, 6, "view"), (DimVector{2, 3}));
  EXPECT_EQ(InferSize({-1}, 0, "view"), (DimVector{0}));
  EXPECT_THROW(InferSize({-1, -1}, 6, "view"), RuntimeError);
  EXPECT_THROW(InferSize({4, -1}, 6, "view"), RuntimeError);
  EXPECT_THROW(InferSize({0, -1}, 6, "view"), RuntimeError);
  EXPECT_THROW(InferSize({5}, 6, "view"), RuntimeError);
  EXPECT_THROW(InferSize({-2, 3}, 6, "view"), RuntimeError);
  try {
    InferSize({2, -1}, 7, "view");
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_STREQ(e.what(), "view(): shape '[2, -1]' is invalid for input of size 7");
  }
}

TEST(ShapeTest, ViewStridesOfContiguous) {
  EXPECT_EQ(*ComputeViewStrides({2, 3, 4}, {12, 4, 1}, {6, 4}), (DimVector{4, 1}));
  EXPECT_EQ(*ComputeViewStrides({2, 3, 4}, {12, 4, 1}, {24}), (DimVector{1}));
  EXPECT_EQ(*ComputeViewStrides({6}, {1}, {1, 2, 1, 3, 1}), (DimVector{6, 3, 3, 1, 1}));
  EXPECT_EQ(*ComputeViewStrides({}, {}, {1, 1}), (DimVector{1, 1}));
}

TEST(ShapeTest, ViewStridesOfNonContiguous) {
  // A transposed (3, 4) tensor: shape (4, 3), strides (1, 4). Splitting a dim works,
  // merging the two does not.
  EXPECT_EQ(*ComputeViewStrides({4, 3}, {1, 4}, {2, 2, 3}), (DimVector{2, 1, 4}));
  EXPECT_FALSE(ComputeViewStrides({4, 3}, {1, 4}, {12}).has_value());
  // An expanded tensor (stride 0) can gain unit dims but not merge.
  EXPECT_EQ(*ComputeViewStrides({3, 4}, {0, 1}, {3, 1, 4}), (DimVector{0, 4, 1}));
  EXPECT_FALSE(ComputeViewStrides({3, 4}, {0, 1}, {12}).has_value());
  // t[:, ::2] of a (2, 6) tensor is evenly strided, so it flattens; of a (2, 8) it does not.
  EXPECT_EQ(*ComputeViewStrides({2, 3}, {6, 2}, {2, 3, 1}), (DimVector{6, 2, 2}));
  EXPECT_EQ(*ComputeViewStrides({2, 3}, {6, 2}, {6}), (DimVector{2}));
  EXPECT_FALSE(ComputeViewStrides({2, 3}, {8, 2}, {6}).has_value());
}

}  // namespace
}  // namespace oneflow
