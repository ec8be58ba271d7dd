// The generated op API against the registry it was generated for, and typed
// calls run end to end on the CPU kernels.

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/framework/dispatch.h"
#include "core/runtime/tensor_ops.h"
#include "ops/api/ops.h"

namespace oneflow {
namespace {

TEST(OpsApi, CoversExactlyTheDeclaredSchemas) {
  std::set<std::string> generated(std::begin(kApiSchemas), std::end(kApiSchemas));
  EXPECT_EQ(generated.size(), std::size(kApiSchemas)) << "a schema is generated twice";
  std::set<std::string> declared;
  for (const OpDef* op : OpRegistry::All()) {
    declared.insert(op->schema().text);
    EXPECT_TRUE(generated.count(op->schema().text))
        << op->schema().full_name() << " has no typed entry point: its schema must be a string "
        << "literal in OF_OP / OpRegistry::Declare (or a macro expanding to one) -- "
        << op->schema().text;
  }
  for (const std::string& s : generated) {
    EXPECT_TRUE(declared.count(s)) << "generated but never declared: " << s;
  }
}

TEST(OpsApi, ArgumentIndicesFollowTheSchema) {
  const Schema& add = OpRegistry::Get("add").schema();
  EXPECT_EQ(arg::add::alpha.index, add.ArgIndex("alpha"));
  const Schema& sum = OpRegistry::Get("sum.dim").schema();
  EXPECT_EQ(arg::sum_dim::keepdim.index, sum.ArgIndex("keepdim"));
  EXPECT_EQ(arg::add_::other.index, OpRegistry::Get("add_").schema().ArgIndex("other"));
}

TensorImplPtr Vector(std::initializer_list<float> values) {
  TensorImplPtr t =
      Full({static_cast<int64_t>(values.size())}, Scalar::Int(0), DType::kFloat32, Device{});
  float* p = reinterpret_cast<float*>(t->data());
  for (float v : values) *p++ = v;
  return t;
}

std::vector<float> Values(const TensorImplPtr& t) {
  TensorImplPtr c = Contiguous(t);
  const float* p = reinterpret_cast<const float*>(c->data());
  return std::vector<float>(p, p + c->numel());
}

TEST(OpsApi, TypedCallsRunTheOp) {
  TensorImplPtr x = Vector({1, 2, 3}), y = Vector({10, 20, 30});
  // alpha left out: the schema's default (1); given: used.
  EXPECT_EQ(Values(ops::add(x, y)), (std::vector<float>{11, 22, 33}));
  EXPECT_EQ(Values(ops::add(x, y, 2)), (std::vector<float>{21, 42, 63}));
  EXPECT_EQ(Values(ops::sum_dim(x, DimVector{0})), (std::vector<float>{6}));
  // Two outputs come back as an array.
  auto [values, indices] = ops::max_dim(y, 0, /*keepdim=*/true);
  EXPECT_EQ(values->shape(), (DimVector{1}));
  EXPECT_EQ(Values(values), (std::vector<float>{30}));
  EXPECT_EQ(indices->dtype(), DType::kInt64);
  // In-place twin: writes into its first argument.
  ops::mul_(x, Vector({2, 2, 2}));
  EXPECT_EQ(Values(x), (std::vector<float>{2, 4, 6}));
}

TEST(OpsApi, ArgumentsReadBackByName) {
  OpCall call;
  call.op = &OpRegistry::Get("sum.dim");
  call.args = {Value(Vector({1})), Value(DimVector{0}), Value(true), Value()};
  EXPECT_EQ(call.get(arg::sum_dim::dim), std::optional<DimVector>(DimVector{0}));
  EXPECT_TRUE(call.get(arg::sum_dim::keepdim));
  EXPECT_EQ(call.get(arg::sum_dim::dtype), std::nullopt);
}

}  // namespace
}  // namespace oneflow
