// oneflow.profiler's kernel table: enable/disable, reset and read the per-op
// kernel times the dispatcher collects (core/framework/profiler.h). The
// Python-facing API lives in oneflow/profiler.py.

#include "core/framework/profiler.h"
#include "core/pybind/binding_registry.h"

namespace py = pybind11;

namespace oneflow {
namespace {

void BindProfiler(py::module_& m) {
  m.def("_profiler_set_enabled", &profiler::SetEnabled, py::arg("enabled"));
  m.def("_profiler_enabled", &profiler::Enabled);
  m.def("_profiler_reset", &profiler::Reset);
  m.def(
      "_profiler_table",
      [] {
        py::list rows;
        for (const profiler::OpStat& s : profiler::Snapshot()) {
          rows.append(py::make_tuple(s.name, s.calls, s.total_ns, s.self_ns));
        }
        return rows;
      },
      "_profiler_table() -> list[(op, calls, total_ns, self_ns)]");
}

const BindingRegistrar registrar(3, &BindProfiler);

}  // namespace
}  // namespace oneflow
