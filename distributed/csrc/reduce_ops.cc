#include "distributed/csrc/reduce_ops.h"

#include <cctype>
#include <stdexcept>
#include <type_traits>

#include "distributed/csrc/comm_error.h"

namespace oneflow {
namespace distributed {
namespace {

// Indexed by ReduceOp.
constexpr const char* kOpNames[] = {"sum", "product", "min", "max", "avg", "band", "bor", "bxor"};

template <typename T>
constexpr bool kIs16BitFloat = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

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

// bool as bytes 0/1: sum/max/or is "any", product/min/and is "all".
ReduceFn ForBool(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kMax:
    case ReduceOp::kBor:
      return &Reduce<uint8_t, Max>;
    case ReduceOp::kProduct:
    case ReduceOp::kMin:
    case ReduceOp::kBand:
      return &Reduce<uint8_t, Min>;
    case ReduceOp::kBxor:
      return &Reduce<uint8_t, BitXor>;
    case ReduceOp::kAvg:
      break;
  }
  return nullptr;
}

template <typename T>
ReduceFn ForOp(ReduceOp op) {
  if constexpr (std::is_same_v<T, bool>) {
    return ForBool(op);
  } else if constexpr (kIs16BitFloat<T>) {
    return nullptr;  // reduced as float32 copies
  } else {
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
}

template <typename T>
void Widen(const T* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

template <typename T>
void Narrow(const float* src, T* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = T(src[i]);
}

}  // namespace

DType ParseDType(const std::string& name) {
  if (auto dtype = DTypeFromName(name)) return *dtype;
  throw std::invalid_argument(StrCat("unsupported dtype '", name, "' for communication"));
}

ReduceOp ParseReduceOp(const std::string& name) {
  for (size_t i = 0; i < sizeof(kOpNames) / sizeof(kOpNames[0]); ++i) {
    if (name == kOpNames[i]) return static_cast<ReduceOp>(i);
  }
  throw std::invalid_argument(StrCat("unknown reduce op '", name, "'"));
}

const char* ReduceOpName(ReduceOp op) { return kOpNames[static_cast<int>(op)]; }

DType ComputeDType(DType dtype) {
  return dtype == DType::kFloat16 || dtype == DType::kBFloat16 ? DType::kFloat32 : dtype;
}

void CheckReduceOp(const char* what, DType dtype, ReduceOp op) {
  const bool bitwise = op == ReduceOp::kBand || op == ReduceOp::kBor || op == ReduceOp::kBxor;
  if (bitwise && IsFloatingPoint(dtype)) {
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
  const ReduceFn fn =
      DispatchDType(dtype, [&](auto tag) { return ForOp<typename decltype(tag)::type>(op); });
  if (fn == nullptr) {
    throw std::invalid_argument(
        StrCat("no ", ReduceOpName(op), " reduction for dtype ", DTypeName(dtype)));
  }
  return fn;
}

void DivideBy(void* data, size_t n, DType dtype, int64_t divisor) {
  DispatchDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || kIs16BitFloat<T>) {
      throw std::invalid_argument(StrCat("cannot average dtype ", DTypeName(dtype)));
    } else {
      T* p = static_cast<T*>(data);
      const T d = static_cast<T>(divisor);
      for (size_t i = 0; i < n; ++i) p[i] = static_cast<T>(p[i] / d);
    }
  });
}

void WidenToFloat(const void* src, DType src_dtype, float* dst, size_t n) {
  if (src_dtype == DType::kFloat16) return Widen(static_cast<const Half*>(src), dst, n);
  Widen(static_cast<const BFloat16*>(src), dst, n);
}

void NarrowFromFloat(const float* src, void* dst, DType dst_dtype, size_t n) {
  if (dst_dtype == DType::kFloat16) return Narrow(src, static_cast<Half*>(dst), n);
  Narrow(src, static_cast<BFloat16*>(dst), n);
}

}  // namespace distributed
}  // namespace oneflow
