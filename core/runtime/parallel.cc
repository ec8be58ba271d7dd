#include "core/runtime/parallel.h"

#include "core/runtime/error.h"

namespace oneflow {

void SetNumThreads(int n) {
  OF_CHECK(n > 0, RuntimeError, "set_num_threads(): number of threads must be positive, got ", n);
  omp_set_num_threads(n);
}

int GetNumThreads() { return omp_get_max_threads(); }

}  // namespace oneflow
