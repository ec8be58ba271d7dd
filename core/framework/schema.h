#ifndef CORE_FRAMEWORK_SCHEMA_H_
#define CORE_FRAMEWORK_SCHEMA_H_

// Op signatures in PyTorch's schema language, e.g.
//   "add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
//   "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
//   "add_(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"
// Types: Tensor, Tensor[], Scalar, int, int[], int[N], float, bool, ScalarType,
// Device, str, Generator; a trailing '?' makes an argument optional (None).

#include <string>
#include <string_view>
#include <vector>

#include "core/framework/value.h"

namespace oneflow {

enum class ArgType : int8_t {
  kTensor,
  kTensorList,
  kScalar,
  kInt,
  kIntList,
  kFloat,
  kBool,
  kDType,
  kDevice,
  kStr,
  kGenerator,
};

const char* ArgTypeName(ArgType type);

struct ArgSpec {
  std::string name;
  ArgType type = ArgType::kTensor;
  bool optional = false;    // Type?
  bool kwarg_only = false;  // after '*'
  bool mutated = false;     // Tensor(a!)
  int list_size = 0;        // int[2]: a single int is repeated
  bool has_default = false;
  Value default_value;
};

struct ReturnSpec {
  std::string name;  // empty when unnamed
  ArgType type = ArgType::kTensor;
  bool aliases_input = false;  // Tensor(a) or Tensor(a!): shares memory with an input
};

struct Schema {
  std::string name;      // "max"
  std::string overload;  // "dim" in "max.dim"
  std::vector<ArgSpec> args;
  std::vector<ReturnSpec> returns;
  std::string text;  // as written

  // "max.dim", or "max" without overload.
  std::string full_name() const { return overload.empty() ? name : name + "." + overload; }
  // In-place ops end in '_' and mutate their first argument.
  bool is_inplace() const { return !args.empty() && args[0].mutated; }
  // View ops return Tensor(a): an alias of their first argument's memory.
  bool is_view() const { return !is_inplace() && !returns.empty() && returns[0].aliases_input; }
  // Index of the argument named `name`, or -1.
  int ArgIndex(std::string_view arg_name) const;
};

// Parses a schema; throws ValueError on malformed text.
Schema ParseSchema(std::string_view text);

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_SCHEMA_H_
