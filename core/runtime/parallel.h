#ifndef CORE_RUNTIME_PARALLEL_H_
#define CORE_RUNTIME_PARALLEL_H_

// CPU parallelism: one OpenMP thread pool, shared with oneDNN (Debian's oneDNN
// is built with OpenMP), sized by oneflow.set_num_threads. Kernel libraries
// compile with -fopenmp (see ops/cpu/BUILD); without it ParallelFor runs
// serially.

#include <omp.h>

#include <cstdint>

namespace oneflow {

void SetNumThreads(int n);
int GetNumThreads();

// Runs fn(begin, end) over [0, n) in contiguous chunks of at least `grain`
// elements, one per thread, when there is enough work and we are not already
// inside a parallel region.
template <typename Fn>
void ParallelFor(int64_t n, int64_t grain, Fn&& fn) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  const int64_t max_chunks = (n + grain - 1) / grain;
  const int threads = static_cast<int>(max_chunks < GetNumThreads() ? max_chunks : GetNumThreads());
  if (threads <= 1 || omp_in_parallel()) {
    fn(int64_t{0}, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t per = (n + nt - 1) / nt;
    const int64_t b = t * per;
    const int64_t e = b + per < n ? b + per : n;
    if (b < e) fn(b, e);
  }
}

}  // namespace oneflow

#endif  // CORE_RUNTIME_PARALLEL_H_
