#ifndef CORE_FRAMEWORK_PROFILER_H_
#define CORE_FRAMEWORK_PROFILER_H_

// Per-op kernel timing for oneflow.profiler: while enabled, every kernel the
// dispatcher runs is timed and its total and self time (total minus the
// kernels it ran itself, e.g. a reorder inside a convolution) is added to a
// table keyed by op name. Disabled, the cost is one relaxed atomic load per
// kernel.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace oneflow {
namespace profiler {

struct OpStat {
  std::string name;
  int64_t calls = 0;
  int64_t total_ns = 0;  // wall time inside the op's kernel, children included
  int64_t self_ns = 0;   // children excluded
};

extern std::atomic<bool> g_enabled;
inline bool Enabled() { return g_enabled.load(std::memory_order_relaxed); }

void SetEnabled(bool on);
void Reset();
// The table, one row per op name that ran since the last Reset().
std::vector<OpStat> Snapshot();

// Times one kernel run of op `name` (which must outlive the scope).
class KernelScope {
 public:
  explicit KernelScope(const std::string& name);
  ~KernelScope();
  KernelScope(const KernelScope&) = delete;
  KernelScope& operator=(const KernelScope&) = delete;

 private:
  const std::string& name_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace profiler
}  // namespace oneflow

#endif  // CORE_FRAMEWORK_PROFILER_H_
