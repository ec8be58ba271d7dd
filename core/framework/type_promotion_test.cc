#include "core/framework/type_promotion.h"

#include <gtest/gtest.h>

#include "core/runtime/tensor_impl.h"

namespace oneflow {
namespace {

TEST(TypePromotionTest, PromoteTypes) {
  EXPECT_EQ(PromoteTypes(DType::kFloat32, DType::kFloat32), DType::kFloat32);
  EXPECT_EQ(PromoteTypes(DType::kBool, DType::kUInt8), DType::kUInt8);       // higher category
  EXPECT_EQ(PromoteTypes(DType::kInt64, DType::kFloat16), DType::kFloat16);  // higher category
  EXPECT_EQ(PromoteTypes(DType::kFloat16, DType::kInt64), DType::kFloat16);
  EXPECT_EQ(PromoteTypes(DType::kUInt8, DType::kInt8), DType::kInt16);  // both fit int16
  EXPECT_EQ(PromoteTypes(DType::kInt8, DType::kUInt8), DType::kInt16);
  EXPECT_EQ(PromoteTypes(DType::kUInt8, DType::kInt32), DType::kInt32);
  EXPECT_EQ(PromoteTypes(DType::kFloat16, DType::kBFloat16), DType::kFloat32);
  EXPECT_EQ(PromoteTypes(DType::kBFloat16, DType::kFloat16), DType::kFloat32);
  EXPECT_EQ(PromoteTypes(DType::kInt32, DType::kInt64), DType::kInt64);  // the wider
  EXPECT_EQ(PromoteTypes(DType::kFloat64, DType::kFloat32), DType::kFloat64);
  EXPECT_EQ(PromoteTypes(DType::kBFloat16, DType::kFloat32), DType::kFloat32);
}

TEST(TypePromotionTest, PromoteTypesIsSymmetric) {
  for (int a = 0; a < kNumDTypes; ++a) {
    for (int b = 0; b < kNumDTypes; ++b) {
      DType da = static_cast<DType>(a), db = static_cast<DType>(b);
      EXPECT_EQ(PromoteTypes(da, db), PromoteTypes(db, da)) << a << " " << b;
      // The result holds both operands without a category demotion.
      EXPECT_TRUE(CanCast(da, PromoteTypes(da, db))) << a << " " << b;
    }
  }
}

TEST(TypePromotionTest, ScalarDTypeAndDefaultFloat) {
  EXPECT_EQ(ScalarDType(Scalar::Bool(true)), DType::kBool);
  EXPECT_EQ(ScalarDType(Scalar::Int(3)), DType::kInt64);
  EXPECT_EQ(DefaultFloatDType(), DType::kFloat32);
  EXPECT_EQ(ScalarDType(Scalar::Float(1.5)), DType::kFloat32);
  SetDefaultFloatDType(DType::kFloat64);
  EXPECT_EQ(ScalarDType(Scalar::Float(1.5)), DType::kFloat64);
  SetDefaultFloatDType(DType::kFloat32);
}

TEST(TypePromotionTest, CanCast) {
  EXPECT_TRUE(CanCast(DType::kBool, DType::kInt8));
  EXPECT_TRUE(CanCast(DType::kInt64, DType::kInt8));  // same category: allowed (wraps)
  EXPECT_TRUE(CanCast(DType::kInt64, DType::kFloat16));
  EXPECT_FALSE(CanCast(DType::kFloat32, DType::kInt64));
  EXPECT_FALSE(CanCast(DType::kInt32, DType::kBool));
}

TensorImplPtr MakeTensor(DimVector shape, DType dtype) {
  return TensorImpl::Empty(shape, dtype, Device{});
}

DType Result(const std::vector<Value>& values) {
  std::vector<const Value*> ptrs;
  for (const Value& v : values) ptrs.push_back(&v);
  return ResultType(ptrs);
}

TEST(TypePromotionTest, ResultTypeDimensionedTensorsDecide) {
  EXPECT_EQ(Result({MakeTensor({2}, DType::kInt32), MakeTensor({2}, DType::kInt64)}),
            DType::kInt64);
  // A zero-dim tensor of the same category does not widen a dimensioned one.
  EXPECT_EQ(Result({MakeTensor({2}, DType::kFloat16), MakeTensor({}, DType::kFloat64)}),
            DType::kFloat16);
  EXPECT_EQ(Result({MakeTensor({2}, DType::kInt8), MakeTensor({}, DType::kInt64)}), DType::kInt8);
  // ... but one of a higher category does.
  EXPECT_EQ(Result({MakeTensor({2}, DType::kInt32), MakeTensor({}, DType::kFloat64)}),
            DType::kFloat64);
  // Tensor lists count like their tensors.
  EXPECT_EQ(Result({Value(std::vector<TensorImplPtr>{MakeTensor({2}, DType::kInt16),
                                                     MakeTensor({2}, DType::kInt32)})}),
            DType::kInt32);
}

TEST(TypePromotionTest, ResultTypeWithNumbers) {
  // float16_tensor + 1.0 stays float16; int_tensor + 1.5 becomes the default float dtype.
  EXPECT_EQ(Result({MakeTensor({2}, DType::kFloat16), Value(Scalar::Float(1.0))}), DType::kFloat16);
  EXPECT_EQ(Result({MakeTensor({2}, DType::kInt32), Value(Scalar::Float(1.5))}), DType::kFloat32);
  EXPECT_EQ(Result({MakeTensor({2}, DType::kInt32), Value(Scalar::Int(7))}), DType::kInt32);
  EXPECT_EQ(Result({MakeTensor({2}, DType::kBool), Value(Scalar::Int(7))}), DType::kInt64);
  EXPECT_EQ(Result({MakeTensor({2}, DType::kUInt8), Value(Scalar::Bool(true))}), DType::kUInt8);
  // A wrapped number (a tensor made from a Python float) counts as the default float dtype.
  EXPECT_EQ(Result({MakeTensor({2}, DType::kInt64), Value(MakeTensor({}, DType::kFloat64), true)}),
            DType::kFloat32);
  EXPECT_EQ(Result({Value(Scalar::Int(1)), Value(Scalar::Float(2.0))}), DType::kFloat32);
  EXPECT_EQ(Result({}), DType::kFloat32);  // nothing decides: the default float dtype
}

}  // namespace
}  // namespace oneflow
