// Measures this machine's fp32 FMA peak (GFLOP/s): every OpenMP thread runs a
// loop of independent fused multiply-adds that never touches memory, with
// enough accumulators to cover the FMA latency on all FMA pipes (Zen 5: 2
// 512-bit pipes x 4 cycles = 8 in flight; 16 leave margin). The widest ISA
// the CPU reports is used (AVX-512F, else AVX2+FMA). Prints a human line, or
// only the peak with --value (tools/bench/gemm.py reads that). The peak is
// taken per second of each thread's CPU time, so a busy machine does not
// lower it; the wall-clock figure is printed beside it.
//
//   ./tools/bazel run //tools/bench/peak -- [--seconds 1.0] [--value]

#include <immintrin.h>
#include <omp.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr int kAcc = 16;  // independent accumulator registers per thread

// Runs `iters` rounds of kAcc independent vector FMAs; returns a value that
// depends on every accumulator so the compiler keeps the loop.
__attribute__((target("avx512f"))) float FmaLoop512(long iters) {
  __m512 acc[kAcc];
  for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_set1_ps(0.001f * i);
  const __m512 a = _mm512_set1_ps(0.999999f);
  const __m512 b = _mm512_set1_ps(1e-7f);
  for (long it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kAcc; ++i) sum = _mm512_add_ps(sum, acc[i]);
  return _mm512_reduce_add_ps(sum);
}

__attribute__((target("avx2,fma"))) float FmaLoop256(long iters) {
  __m256 acc[kAcc];
  for (int i = 0; i < kAcc; ++i) acc[i] = _mm256_set1_ps(0.001f * i);
  const __m256 a = _mm256_set1_ps(0.999999f);
  const __m256 b = _mm256_set1_ps(1e-7f);
  for (long it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < kAcc; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kAcc; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct Result {
  double gflops;      // all threads' FLOPs over the wall time
  double cpu_gflops;  // the sum over threads of FLOPs per second of that thread's CPU time
  double seconds;
};

// All threads run `iters` rounds at once. The wall-clock figure is what the
// cores delivered together; the CPU-time figure is what they deliver while
// they run, which stays right when other processes share the machine.
Result RunOnce(bool avx512, long iters) {
  const int lanes = avx512 ? 16 : 8;
  const double flops_per_thread = 2.0 * lanes * kAcc * static_cast<double>(iters);
  int threads = 1;
  double cpu_gflops = 0;
  volatile float sink = 0;
  auto start = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : cpu_gflops)
  {
#pragma omp single
    threads = omp_get_num_threads();
    double t0 = ThreadCpuSeconds();
    float v = avx512 ? FmaLoop512(iters) : FmaLoop256(iters);
    cpu_gflops += flops_per_thread / (ThreadCpuSeconds() - t0) * 1e-9;
#pragma omp critical
    sink = sink + v;
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {flops_per_thread * threads / s * 1e-9, cpu_gflops, s};
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 1.0;
  bool value_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--value") == 0) {
      value_only = true;
    } else if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--seconds S] [--value]\n", argv[0]);
      return 2;
    }
  }
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f");
  if (!avx512 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
    std::fprintf(stderr, "peak: this CPU has neither AVX-512F nor AVX2+FMA\n");
    return 1;
  }
  // Calibrate the round count to ~0.1 s (this also warms up clocks and threads),
  // then take the best of several runs of about `seconds` / 5 each.
  long iters = 1 << 16;
  while (RunOnce(avx512, iters).seconds < 0.1) iters *= 2;
  iters = static_cast<long>(iters * (seconds / 5) / 0.1) + 1;
  double best_wall = 0, best_cpu = 0;
  for (int r = 0; r < 5; ++r) {
    Result res = RunOnce(avx512, iters);
    best_wall = std::max(best_wall, res.gflops);
    best_cpu = std::max(best_cpu, res.cpu_gflops);
  }
  if (value_only) {
    std::printf("%.1f\n", best_cpu);
  } else {
    std::printf("fp32 FMA peak: %.1f GFLOP/s (%s, %d threads, %d accumulators; per CPU second)\n",
                best_cpu, avx512 ? "AVX-512F" : "AVX2+FMA", omp_get_max_threads(), kAcc);
    std::printf("wall clock: %.1f GFLOP/s (lower than the peak when other processes run)\n",
                best_wall);
  }
  return 0;
}
