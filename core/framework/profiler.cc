#include "core/framework/profiler.h"

#include <mutex>
#include <unordered_map>

namespace oneflow {
namespace profiler {

std::atomic<bool> g_enabled{false};

namespace {

std::mutex& TableMutex() {
  static std::mutex mu;
  return mu;
}
std::unordered_map<std::string, OpStat>& Table() {
  static auto* table = new std::unordered_map<std::string, OpStat>();
  return *table;
}

// Per thread: the children's time of each open scope, innermost last.
thread_local std::vector<int64_t> t_child_ns;

}  // namespace

void SetEnabled(bool on) { g_enabled.store(on, std::memory_order_relaxed); }

void Reset() {
  std::lock_guard<std::mutex> lock(TableMutex());
  Table().clear();
}

std::vector<OpStat> Snapshot() {
  std::lock_guard<std::mutex> lock(TableMutex());
  std::vector<OpStat> rows;
  rows.reserve(Table().size());
  for (const auto& kv : Table()) rows.push_back(kv.second);
  return rows;
}

KernelScope::KernelScope(const std::string& name)
    : name_(name), start_(std::chrono::steady_clock::now()) {
  t_child_ns.push_back(0);
}

KernelScope::~KernelScope() {
  const int64_t total = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now() - start_)
                            .count();
  const int64_t self = total - t_child_ns.back();
  t_child_ns.pop_back();
  if (!t_child_ns.empty()) t_child_ns.back() += total;
  std::lock_guard<std::mutex> lock(TableMutex());
  OpStat& s = Table()[name_];
  if (s.name.empty()) s.name = name_;
  ++s.calls;
  s.total_ns += total;
  s.self_ns += self;
}

}  // namespace profiler
}  // namespace oneflow
