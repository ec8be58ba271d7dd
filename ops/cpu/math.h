#ifndef OPS_CPU_MATH_H_
#define OPS_CPU_MATH_H_

// Scalar math functions the C++ library lacks.

#include <cmath>
#include <limits>

namespace oneflow {
namespace cpu {

// The digamma function psi(x) = d/dx log Gamma(x).
inline double Digamma(double x) {
  if (x == 0)
    return std::signbit(x) ? std::numeric_limits<double>::infinity()
                           : -std::numeric_limits<double>::infinity();
  if (x < 0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
    // Reflection: psi(1 - x) - psi(x) = pi / tan(pi x).
    const double pi = 3.14159265358979323846;
    return Digamma(1 - x) - pi / std::tan(pi * x);
  }
  double result = 0;
  while (x < 6) {
    result -= 1 / x;
    x += 1;
  }
  // Asymptotic series.
  double f = 1 / (x * x);
  double t =
      f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132)))));
  return result + std::log(x) - 0.5 / x + t;
}

// The inverse error function: a rational first guess refined by Newton steps.
inline double Erfinv(double y) {
  if (y <= -1)
    return y == -1 ? -std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::quiet_NaN();
  if (y >= 1)
    return y == 1 ? std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(y)) return y;
  // Giles' single-precision approximation as the starting point.
  double w = -std::log((1.0 - y) * (1.0 + y));
  double x;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
    x = p * y;
  } else {
    w = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
    x = p * y;
  }
  const double two_over_sqrt_pi = 1.12837916709551257390;
  for (int i = 0; i < 3; ++i) {
    double err = std::erf(x) - y;
    x -= err / (two_over_sqrt_pi * std::exp(-x * x));
  }
  return x;
}

}  // namespace cpu
}  // namespace oneflow

#endif  // OPS_CPU_MATH_H_
