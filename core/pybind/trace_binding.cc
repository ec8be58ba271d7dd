// nn.Graph's tracer and compiled plans (core/framework/trace.h). The Python
// side (the oneflow-graph package) drives them: _trace_begin, _trace_input per
// input tensor, the build function, then _trace_end with the outputs.

#include <pybind11/stl.h>

#include "core/framework/trace.h"
#include "core/pybind/binding_registry.h"
#include "core/runtime/error.h"

namespace py = pybind11;

namespace oneflow {
namespace {

void BindTrace(py::module_& m) {
  m.def("_trace_begin", &Trace::Begin, "Starts recording the op calls of this thread.");
  m.def(
      "_trace_input",
      [](const TensorImplPtr& t) {
        Trace* trace = Trace::Active();
        OF_CHECK(trace != nullptr, RuntimeError, "nn.Graph: no trace is active");
        trace->AddInput(t);
      },
      py::arg("tensor"));
  m.def("_trace_end", &Trace::End, py::arg("outputs"),
        "Stops recording; returns the plan computing `outputs` from the inputs.");
  m.def("_trace_abort", &Trace::Abort);
  m.def("_trace_active", [] { return Trace::Active() != nullptr; });

  py::class_<Plan, std::shared_ptr<Plan>>(m, "_GraphPlan")
      .def("run", &Plan::Run, py::arg("inputs"),
           "Runs the recorded ops on new inputs; returns the outputs.")
      .def_property_readonly("num_nodes", [](const Plan& p) { return p.nodes().size(); })
      .def_property_readonly("num_constants", [](const Plan& p) { return p.constants().size(); })
      .def_property_readonly("op_names",
                             [](const Plan& p) {
                               std::vector<std::string> names;
                               for (const TraceNode& n : p.nodes()) {
                                 names.push_back(n.op->schema().name);
                               }
                               return names;
                             })
      .def("__str__", &Plan::ToString);
}

const BindingRegistrar registrar(4, &BindTrace);

}  // namespace
}  // namespace oneflow
