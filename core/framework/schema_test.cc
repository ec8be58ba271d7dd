#include "core/framework/schema.h"

#include <gtest/gtest.h>

#include "core/runtime/error.h"

namespace oneflow {
namespace {

TEST(SchemaTest, NameOverloadArgsAndReturns) {
  Schema s = ParseSchema(
      "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  EXPECT_EQ(s.name, "max");
  EXPECT_EQ(s.overload, "dim");
  EXPECT_EQ(s.full_name(), "max.dim");
  ASSERT_EQ(s.args.size(), 3u);
  EXPECT_EQ(s.args[0].type, ArgType::kTensor);
  EXPECT_EQ(s.args[1].type, ArgType::kInt);
  EXPECT_FALSE(s.args[1].has_default);
  EXPECT_EQ(s.args[2].type, ArgType::kBool);
  ASSERT_TRUE(s.args[2].has_default);
  EXPECT_FALSE(s.args[2].default_value.to_bool());
  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_EQ(s.returns[0].name, "values");
  EXPECT_EQ(s.returns[1].name, "indices");
  EXPECT_EQ(s.ArgIndex("keepdim"), 2);
  EXPECT_EQ(s.ArgIndex("nope"), -1);
  EXPECT_FALSE(s.is_inplace());
  EXPECT_FALSE(s.is_view());
}

TEST(SchemaTest, KeywordOnlyAndScalarDefaults) {
  Schema s = ParseSchema("add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(s.full_name(), "add");
  ASSERT_EQ(s.args.size(), 3u);
  EXPECT_FALSE(s.args[1].kwarg_only);
  EXPECT_TRUE(s.args[2].kwarg_only);
  EXPECT_EQ(s.args[2].type, ArgType::kScalar);
  EXPECT_EQ(s.args[2].default_value.scalar().kind, Scalar::Kind::kInt);
  EXPECT_EQ(s.args[2].default_value.scalar().i, 1);
  Schema f = ParseSchema("leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor");
  EXPECT_EQ(f.args[1].default_value.scalar().kind, Scalar::Kind::kFloat);
  // Booleans contain an 'e' and infinities no '.': neither is read as the wrong kind.
  Schema b =
      ParseSchema("f(Tensor self, Scalar flag=True, Scalar lim=inf, Scalar neg=-inf) -> Tensor");
  EXPECT_EQ(b.args[1].default_value.scalar().kind, Scalar::Kind::kBool);
  EXPECT_EQ(b.args[2].default_value.scalar().kind, Scalar::Kind::kFloat);
  EXPECT_EQ(b.args[3].default_value.scalar().kind, Scalar::Kind::kFloat);
  EXPECT_DOUBLE_EQ(f.args[1].default_value.scalar().d, 0.01);
}

TEST(SchemaTest, InplaceAndViewAliases) {
  Schema inplace =
      ParseSchema("add_(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  EXPECT_TRUE(inplace.args[0].mutated);
  EXPECT_TRUE(inplace.is_inplace());
  EXPECT_FALSE(inplace.is_view());
  EXPECT_TRUE(inplace.returns[0].aliases_input);
  Schema view = ParseSchema("view(Tensor(a) self, int[] size) -> Tensor(a)");
  EXPECT_FALSE(view.args[0].mutated);
  EXPECT_FALSE(view.is_inplace());
  EXPECT_TRUE(view.is_view());
}

TEST(SchemaTest, ListsOptionalsAndOtherTypes) {
  Schema s = ParseSchema(
      "conv(Tensor input, Tensor? bias=None, int[2] stride=1, int[] pad=[0, 1], float eps=1e-05, "
      "ScalarType? dtype=None, Device? device=None, str mode='zeros', Generator? generator=None, "
      "Tensor[] tensors, SymInt n=3) -> Tensor");
  ASSERT_EQ(s.args.size(), 11u);
  EXPECT_TRUE(s.args[1].optional);
  EXPECT_TRUE(s.args[1].default_value.is_none());
  EXPECT_EQ(s.args[2].type, ArgType::kIntList);
  EXPECT_EQ(s.args[2].list_size, 2);
  EXPECT_EQ(s.args[2].default_value.int_list(), (DimVector{1, 1}));  // a single int is repeated
  EXPECT_EQ(s.args[3].default_value.int_list(), (DimVector{0, 1}));
  EXPECT_EQ(s.args[4].type, ArgType::kFloat);
  EXPECT_DOUBLE_EQ(s.args[4].default_value.to_double(), 1e-05);
  EXPECT_EQ(s.args[5].type, ArgType::kDType);
  EXPECT_EQ(s.args[6].type, ArgType::kDevice);
  EXPECT_EQ(s.args[7].type, ArgType::kStr);
  EXPECT_EQ(s.args[7].default_value.str(), "zeros");
  EXPECT_EQ(s.args[8].type, ArgType::kGenerator);
  EXPECT_EQ(s.args[9].type, ArgType::kTensorList);
  EXPECT_EQ(s.args[10].type, ArgType::kInt);
  EXPECT_EQ(s.args[10].default_value.to_int(), 3);
  EXPECT_STREQ(ArgTypeName(ArgType::kIntList), "tuple of ints");
  EXPECT_STREQ(ArgTypeName(ArgType::kScalar), "Number");
}

TEST(SchemaTest, MalformedTextThrowsValueError) {
  EXPECT_THROW(ParseSchema("add(Tensor self -> Tensor"), ValueError);             // no ')'
  EXPECT_THROW(ParseSchema("add(Tensor self) Tensor"), ValueError);               // no '->'
  EXPECT_THROW(ParseSchema("add(Tensour self) -> Tensor"), ValueError);           // unknown type
  EXPECT_THROW(ParseSchema("add(Tensor self) -> Tensor junk junk"), ValueError);  // trailing text
  EXPECT_THROW(ParseSchema("add(Tensor self, int k=None) -> Tensor"),
               ValueError);  // None, not optional
  EXPECT_THROW(ParseSchema("add(Tensor self, bool k=yes) -> Tensor"), ValueError);  // bad bool
  EXPECT_THROW(ParseSchema("add(Tensor self, float[] k) -> Tensor"), ValueError);   // float list
  try {
    ParseSchema("add(Tensour self) -> Tensor");
    FAIL() << "no exception";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown type 'Tensour'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace oneflow
