#ifndef CORE_RUNTIME_HALF_H_
#define CORE_RUNTIME_HALF_H_

// IEEE binary16 and bfloat16 storage types with round-to-nearest-even
// conversion from float, as PyTorch and NumPy convert.

#include <cstdint>
#include <cstring>

namespace oneflow {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) {  // NOLINT: implicit like a builtin float type.
    // Rounded to nearest even; NaN kept quiet with its sign. A select, not a
    // branch, so that loops converting to bfloat16 vectorize.
    uint32_t u = FloatBits(f);
    uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    uint32_t quiet_nan = (u >> 16) | 0x0040u;
    bits = static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
  }
  operator float() const { return BitsToFloat(static_cast<uint32_t>(bits) << 16); }  // NOLINT
};

struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) { bits = FromFloat(f); }            // NOLINT
  operator float() const { return ToFloat(bits); }  // NOLINT

  static uint16_t FromFloat(float f) {
    uint32_t u = FloatBits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
    if (abs < 0x38800000u) {
      // Subnormal half (or zero): add a magic number so the FPU rounds to nearest even.
      float magic = BitsToFloat(0x3f000000u);  // 0.5f: aligns the half subnormal LSB
      float r = BitsToFloat(abs) + magic;
      return static_cast<uint16_t>(sign | (FloatBits(r) - FloatBits(magic)));
    }
    uint32_t mant_odd = (abs >> 13) & 1u;
    abs += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
    return static_cast<uint16_t>(sign | (abs >> 13));
  }

  static float ToFloat(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0x1fu) return BitsToFloat(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
      if (mant == 0) return BitsToFloat(sign);
      float f = static_cast<float>(mant) * BitsToFloat(0x33800000u);  // mant * 2^-24
      return sign ? -f : f;
    }
    return BitsToFloat(sign | ((exp + 112u) << 23) | (mant << 13));
  }
};

}  // namespace oneflow

#endif  // CORE_RUNTIME_HALF_H_
