#include "distributed/csrc/reduce_ops.h"

#include <cctype>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "distributed/csrc/comm_error.h"

namespace oneflow {
namespace distributed {
namespace {

struct DTypeInfo {
  const char* name;
  size_t size;
  bool floating;
};

// Indexed by DType.
constexpr DTypeInfo kDTypes[] = {
    {"bool", 1, false},   {"uint8", 1, false},  {"int8", 1, false},   {"int16", 2, false},
    {"int32", 4, false},  {"int64", 8, false},  {"float16", 2, true}, {"bfloat16", 2, true},
    {"float32", 4, true}, {"float64", 8, true},
};

// Indexed by ReduceOp.
constexpr const char* kOpNames[] = {"sum", "product", "min", "max", "avg", "band", "bor", "bxor"};

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0x1fu) return BitsFloat(sign | 0x7f800000u | (mant << 13));  // inf / NaN
  if (exp == 0) {                                                         // zero / subnormal
    const float f = static_cast<float>(mant) * 5.9604644775390625e-8f;    // mant * 2^-24
    return sign ? -f : f;
  }
  return BitsFloat(sign | ((exp + 112u) << 23) | (mant << 13));
}

// Round to nearest even, as NumPy and PyTorch convert.
uint16_t FloatToHalf(float f) {
  const uint32_t u = FloatBits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (abs < 0x38800000u) {
    // Below the smallest normal half: adding 0.5f makes the FPU round the
    // subnormal's last bit to nearest even, and the low bits are the result.
    const float magic = 0.5f;
    const float r = BitsFloat(abs) + magic;
    return static_cast<uint16_t>(sign | (FloatBits(r) - FloatBits(magic)));
  }
  const uint32_t odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + odd;  // rebias the exponent by -112 and round the 13 dropped bits
  return static_cast<uint16_t>(sign | (abs >> 13));
}

float BFloat16ToFloat(uint16_t b) { return BitsFloat(static_cast<uint32_t>(b) << 16); }

uint16_t FloatToBFloat16(float f) {
  const uint32_t u = FloatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// Integer sums and products wrap around, as in PyTorch; compute them unsigned
// so the wrap is defined behaviour.
template <typename T, bool = std::is_integral_v<T>>
struct WrapType {
  using type = T;
};
template <typename T>
struct WrapType<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using Wrap = typename WrapType<T>::type;

struct Sum {
  template <typename T>
  static T Apply(T a, T b) {
    return static_cast<T>(static_cast<Wrap<T>>(a) + static_cast<Wrap<T>>(b));
  }
};
struct Product {
  template <typename T>
  static T Apply(T a, T b) {
    return static_cast<T>(static_cast<Wrap<T>>(a) * static_cast<Wrap<T>>(b));
  }
};
// Min and max propagate NaN, like numpy.minimum and torch.minimum.
struct Min {
  template <typename T>
  static T Apply(T a, T b) {
    return (a < b || a != a) ? a : b;  // NOLINT: a != a is the NaN test
  }
};
struct Max {
  template <typename T>
  static T Apply(T a, T b) {
    return (a > b || a != a) ? a : b;  // NOLINT
  }
};
struct BitAnd {
  template <typename T>
  static T Apply(T a, T b) {
    return static_cast<T>(a & b);
  }
};
struct BitOr {
  template <typename T>
  static T Apply(T a, T b) {
    return static_cast<T>(a | b);
  }
};
struct BitXor {
  template <typename T>
  static T Apply(T a, T b) {
    return static_cast<T>(a ^ b);
  }
};

template <typename T, typename Op>
void Reduce(void* out, const void* a, const void* b, size_t n) {
  T* o = static_cast<T*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = Op::template Apply<T>(x[i], y[i]);
}

template <typename T>
ReduceFn ForOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return &Reduce<T, Sum>;
    case ReduceOp::kProduct:
      return &Reduce<T, Product>;
    case ReduceOp::kMin:
      return &Reduce<T, Min>;
    case ReduceOp::kMax:
      return &Reduce<T, Max>;
    case ReduceOp::kBand:
    case ReduceOp::kBor:
    case ReduceOp::kBxor:
      if constexpr (std::is_integral_v<T>) {
        return op == ReduceOp::kBand  ? &Reduce<T, BitAnd>
               : op == ReduceOp::kBor ? &Reduce<T, BitOr>
                                      : &Reduce<T, BitXor>;
      }
      break;
  }
  return nullptr;
}

template <typename T>
void Divide(void* data, size_t n, int64_t divisor) {
  T* p = static_cast<T*>(data);
  const T d = static_cast<T>(divisor);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<T>(p[i] / d);
}

}  // namespace

DType ParseDType(const std::string& name) {
  for (size_t i = 0; i < sizeof(kDTypes) / sizeof(kDTypes[0]); ++i) {
    if (name == kDTypes[i].name) return static_cast<DType>(i);
  }
  throw std::invalid_argument(StrCat("unsupported dtype '", name, "' for communication"));
}

ReduceOp ParseReduceOp(const std::string& name) {
  for (size_t i = 0; i < sizeof(kOpNames) / sizeof(kOpNames[0]); ++i) {
    if (name == kOpNames[i]) return static_cast<ReduceOp>(i);
  }
  throw std::invalid_argument(StrCat("unknown reduce op '", name, "'"));
}

const char* DTypeName(DType dtype) { return kDTypes[static_cast<int>(dtype)].name; }
const char* ReduceOpName(ReduceOp op) { return kOpNames[static_cast<int>(op)]; }
size_t ElementSize(DType dtype) { return kDTypes[static_cast<int>(dtype)].size; }
bool IsFloating(DType dtype) { return kDTypes[static_cast<int>(dtype)].floating; }

DType ComputeDType(DType dtype) {
  return dtype == DType::kFloat16 || dtype == DType::kBFloat16 ? DType::kFloat32 : dtype;
}

void CheckReduceOp(const char* what, DType dtype, ReduceOp op) {
  const bool bitwise = op == ReduceOp::kBand || op == ReduceOp::kBor || op == ReduceOp::kBxor;
  if (bitwise && IsFloating(dtype)) {
    std::string name = ReduceOpName(op);
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    throw std::invalid_argument(StrCat(what, ": ReduceOp.", name,
                                       " needs an integer or bool tensor, got ", DTypeName(dtype)));
  }
  if (op == ReduceOp::kAvg && dtype == DType::kBool) {
    throw std::invalid_argument(
        StrCat(what, ": ReduceOp.AVG is not defined for bool tensors (use MAX/BOR or MIN/BAND)"));
  }
}

ReduceFn GetReduceFn(DType dtype, ReduceOp op) {
  ReduceFn fn = nullptr;
  switch (dtype) {
    case DType::kBool:
      // bool as bytes 0/1: sum/max/or is "any", product/min/and is "all".
      switch (op) {
        case ReduceOp::kSum:
        case ReduceOp::kMax:
        case ReduceOp::kBor:
          fn = &Reduce<uint8_t, Max>;
          break;
        case ReduceOp::kProduct:
        case ReduceOp::kMin:
        case ReduceOp::kBand:
          fn = &Reduce<uint8_t, Min>;
          break;
        case ReduceOp::kBxor:
          fn = &Reduce<uint8_t, BitXor>;
          break;
        case ReduceOp::kAvg:
          break;
      }
      break;
    case DType::kUInt8:
      fn = ForOp<uint8_t>(op);
      break;
    case DType::kInt8:
      fn = ForOp<int8_t>(op);
      break;
    case DType::kInt16:
      fn = ForOp<int16_t>(op);
      break;
    case DType::kInt32:
      fn = ForOp<int32_t>(op);
      break;
    case DType::kInt64:
      fn = ForOp<int64_t>(op);
      break;
    case DType::kFloat32:
      fn = ForOp<float>(op);
      break;
    case DType::kFloat64:
      fn = ForOp<double>(op);
      break;
    case DType::kFloat16:
    case DType::kBFloat16:
      break;  // reduced as float32 copies
  }
  if (fn == nullptr) {
    throw std::invalid_argument(
        StrCat("no ", ReduceOpName(op), " reduction for dtype ", DTypeName(dtype)));
  }
  return fn;
}

void DivideBy(void* data, size_t n, DType dtype, int64_t divisor) {
  switch (dtype) {
    case DType::kUInt8:
      return Divide<uint8_t>(data, n, divisor);
    case DType::kInt8:
      return Divide<int8_t>(data, n, divisor);
    case DType::kInt16:
      return Divide<int16_t>(data, n, divisor);
    case DType::kInt32:
      return Divide<int32_t>(data, n, divisor);
    case DType::kInt64:
      return Divide<int64_t>(data, n, divisor);
    case DType::kFloat32:
      return Divide<float>(data, n, divisor);
    case DType::kFloat64:
      return Divide<double>(data, n, divisor);
    default:
      throw std::invalid_argument(StrCat("cannot average dtype ", DTypeName(dtype)));
  }
}

void WidenToFloat(const void* src, DType src_dtype, float* dst, size_t n) {
  const uint16_t* s = static_cast<const uint16_t*>(src);
  if (src_dtype == DType::kFloat16) {
    for (size_t i = 0; i < n; ++i) dst[i] = HalfToFloat(s[i]);
  } else {
    for (size_t i = 0; i < n; ++i) dst[i] = BFloat16ToFloat(s[i]);
  }
}

void NarrowFromFloat(const float* src, void* dst, DType dst_dtype, size_t n) {
  uint16_t* d = static_cast<uint16_t*>(dst);
  if (dst_dtype == DType::kFloat16) {
    for (size_t i = 0; i < n; ++i) d[i] = FloatToHalf(src[i]);
  } else {
    for (size_t i = 0; i < n; ++i) d[i] = FloatToBFloat16(src[i]);
  }
}

}  // namespace distributed
}  // namespace oneflow
