#include "core/runtime/dtype.h"

#include <array>

namespace oneflow {
namespace {

struct DTypeInfo {
  const char* name;
  const char* legacy_name;
  int64_t itemsize;
  bool floating;
  bool is_signed;
};

// Indexed by DType; kept in sync with enum class DType.
constexpr std::array<DTypeInfo, kNumDTypes> kInfo = {{
    {"bool", "Bool", 1, false, false},
    {"uint8", "Byte", 1, false, false},
    {"int8", "Char", 1, false, true},
    {"int16", "Short", 2, false, true},
    {"int32", "Int", 4, false, true},
    {"int64", "Long", 8, false, true},
    {"float16", "Half", 2, true, true},
    {"bfloat16", "BFloat16", 2, true, true},
    {"float32", "Float", 4, true, true},
    {"float64", "Double", 8, true, true},
}};

const DTypeInfo& Info(DType dtype) { return kInfo[static_cast<int>(dtype)]; }

}  // namespace

int64_t ItemSize(DType dtype) { return Info(dtype).itemsize; }
const char* DTypeName(DType dtype) { return Info(dtype).name; }
const char* LegacyTypeName(DType dtype) { return Info(dtype).legacy_name; }
bool IsFloatingPoint(DType dtype) { return Info(dtype).floating; }
bool IsSigned(DType dtype) { return Info(dtype).is_signed; }

std::optional<DType> DTypeFromName(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (name == kInfo[i].name) return static_cast<DType>(i);
  }
  static constexpr std::pair<std::string_view, DType> kAliases[] = {
      {"float", DType::kFloat32}, {"double", DType::kFloat64}, {"half", DType::kFloat16},
      {"long", DType::kInt64},    {"int", DType::kInt32},      {"short", DType::kInt16},
      {"byte", DType::kUInt8},    {"char", DType::kInt8},
  };
  for (const auto& [alias, dtype] : kAliases) {
    if (name == alias) return dtype;
  }
  return std::nullopt;
}

}  // namespace oneflow
