#include "core/runtime/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace oneflow {
namespace {

TEST(DTypeTest, NamesSizesAndAliases) {
  EXPECT_STREQ(DTypeName(DType::kFloat32), "float32");
  EXPECT_STREQ(DTypeName(DType::kBFloat16), "bfloat16");
  EXPECT_EQ(ItemSize(DType::kInt64), 8);
  EXPECT_EQ(ItemSize(DType::kFloat16), 2);
  EXPECT_EQ(ItemSize(DType::kBool), 1);
  EXPECT_TRUE(IsFloatingPoint(DType::kBFloat16));
  EXPECT_FALSE(IsFloatingPoint(DType::kInt32));
  EXPECT_FALSE(IsSigned(DType::kUInt8));
  EXPECT_EQ(DTypeFromName("double"), DType::kFloat64);
  EXPECT_EQ(DTypeFromName("long"), DType::kInt64);
  EXPECT_EQ(DTypeFromName("half"), DType::kFloat16);
  EXPECT_EQ(DTypeFromName("float64"), DType::kFloat64);
  EXPECT_FALSE(DTypeFromName("float128").has_value());
  for (int i = 0; i < kNumDTypes; ++i) {
    auto d = static_cast<DType>(i);
    EXPECT_EQ(DTypeFromName(DTypeName(d)), d);
  }
}

TEST(HalfTest, RoundTripsEveryHalfValue) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float f = Half::ToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(f)) continue;
    EXPECT_EQ(Half::FromFloat(f), bits) << "bits " << bits;
  }
}

TEST(HalfTest, RoundsToNearestEven) {
  EXPECT_EQ(static_cast<float>(Half(1.0f + 1.0f / 2048)), 1.0f);  // tie -> even (down)
  EXPECT_EQ(static_cast<float>(Half(1.0f + 3.0f / 2048)), 1.0f + 2.0f / 1024);  // tie -> even (up)
  EXPECT_EQ(static_cast<float>(Half(65504.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(static_cast<float>(Half(65520.0f))));
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(static_cast<float>(Half(5.9604645e-08f)), 5.9604645e-08f);  // smallest subnormal
  EXPECT_EQ(static_cast<float>(Half(-2.0f)), -2.0f);
}

TEST(BFloat16Test, RoundsToNearestEven) {
  EXPECT_EQ(static_cast<float>(BFloat16(1.0f)), 1.0f);
  EXPECT_EQ(static_cast<float>(BFloat16(1.0f + 1.0f / 256)), 1.0f);              // tie -> even
  EXPECT_EQ(static_cast<float>(BFloat16(1.0f + 3.0f / 256)), 1.0f + 1.0f / 64);  // tie -> even
  EXPECT_EQ(static_cast<float>(BFloat16(3.140625f)), 3.140625f);
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(std::nanf("")))));
  EXPECT_TRUE(std::isinf(static_cast<float>(BFloat16(std::numeric_limits<float>::infinity()))));
}

}  // namespace
}  // namespace oneflow
