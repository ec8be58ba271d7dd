// nn.Graph's tracer and compiled plans (core/framework/trace.h). The Python
// side (the oneflow-graph package) drives them: _trace_begin, _trace_input per
// input tensor, the build function, then _trace_end with the outputs.

#include <pybind11/stl.h>

#include "core/framework/trace.h"
#include "core/pybind/binding_registry.h"
#include "core/pybind/convert.h"
#include "core/runtime/error.h"

namespace py = pybind11;

namespace oneflow {
namespace {

// The number a wrapped-number tensor holds (0-d, on the CPU, bool/int64/float64).
Scalar ScalarOfNumber(const TensorImplPtr& t) {
  switch (t->dtype()) {
    case DType::kBool:
      return Scalar::Bool(*reinterpret_cast<const bool*>(t->data()));
    case DType::kInt64:
      return Scalar::Int(*reinterpret_cast<const int64_t*>(t->data()));
    default:
      OF_CHECK(t->dtype() == DType::kFloat64, RuntimeError, "nn.Graph: a number argument of dtype ",
               DTypeName(t->dtype()));
      return Scalar::Float(*reinterpret_cast<const double*>(t->data()));
  }
}

py::tuple ExportPlan(const Plan& plan) {
  py::list nodes;
  for (const TraceNode& node : plan.nodes()) {
    py::list args;
    for (const Value& v : node.args) {
      if (v.is_tensor() && v.is_wrapped_number()) {
        args.append(py::make_tuple("number", OpValueToPython(Value(ScalarOfNumber(v.tensor())))));
      } else if (v.is_tensor() || v.is_tensor_list()) {
        args.append(py::none());
      } else {
        args.append(OpValueToPython(v));
      }
    }
    nodes.append(py::make_tuple(node.op->schema().full_name(), args, py::cast(node.tensor_ids),
                                py::cast(node.outputs)));
  }
  py::list constants;
  for (const auto& [id, t] : plan.constants()) constants.append(py::make_tuple(id, t));
  return py::make_tuple(nodes, plan.num_values(), py::cast(plan.inputs()), py::cast(plan.outputs()),
                        constants);
}

std::shared_ptr<Plan> ImportPlan(py::list nodes, int num_values, std::vector<int> inputs,
                                 std::vector<int> outputs, py::list constants) {
  std::vector<TraceNode> parsed;
  for (py::handle item : nodes) {
    auto entry = item.cast<py::tuple>();
    OF_CHECK(entry.size() == 4, ValueError, "nn.Graph: a saved node has ", entry.size(),
             " fields, expected 4 (op, args, tensor_ids, outputs)");
    TraceNode node;
    const std::string name = entry[0].cast<std::string>();
    node.op = &OpRegistry::Get(name);
    const Schema& schema = node.op->schema();
    auto args = entry[1].cast<py::list>();
    node.tensor_ids = entry[2].cast<std::vector<std::vector<int>>>();
    node.outputs = entry[3].cast<std::vector<int>>();
    OF_CHECK(args.size() == schema.args.size() && node.tensor_ids.size() == schema.args.size(),
             ValueError, "nn.Graph: saved node ", name, " has ", args.size(), " arguments, its op ",
             schema.args.size());
    for (size_t i = 0; i < schema.args.size(); ++i) {
      const ArgSpec& a = schema.args[i];
      py::handle obj = args[i];
      const bool tensor_arg = a.type == ArgType::kTensor || a.type == ArgType::kTensorList;
      if (tensor_arg && !node.tensor_ids[i].empty()) {
        node.args.push_back(a.type == ArgType::kTensorList ? Value(std::vector<TensorImplPtr>())
                                                           : Value());
        continue;
      }
      if (py::isinstance<py::tuple>(obj) && py::len(obj) == 2 &&
          py::str(obj.cast<py::tuple>()[0]).cast<std::string>() == "number") {
        obj = obj.cast<py::tuple>()[1];
      }
      Value v;
      std::string err;
      OF_CHECK(ConvertOpArg(a, obj, name.c_str(), &v, &err), ValueError, "nn.Graph: saved node ",
               name, ", argument '", a.name, "' ", err);
      node.args.push_back(std::move(v));
    }
    parsed.push_back(std::move(node));
  }
  std::vector<std::pair<int, TensorImplPtr>> consts;
  for (py::handle item : constants) {
    auto pair = item.cast<py::tuple>();
    consts.emplace_back(pair[0].cast<int>(), pair[1].cast<TensorImplPtr>());
  }
  return Plan::Make(std::move(parsed), num_values, std::move(inputs), std::move(outputs),
                    std::move(consts));
}

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
  m.def("_trace_num_nodes", [] {
    Trace* trace = Trace::Active();
    OF_CHECK(trace != nullptr, RuntimeError, "nn.Graph: no trace is active");
    return trace->num_nodes();
  });

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
      .def("__str__", &Plan::ToString)
      .def(
          "set_float_arg",
          [](Plan& p, size_t node, size_t arg, double value) { p.SetArg(node, arg, Value(value)); },
          py::arg("node"), py::arg("arg"), py::arg("value"),
          "Replaces a float argument of a node (a learning rate).")
      .def("export", &ExportPlan,
           "The plan as Python data: (nodes, num_values, inputs, outputs, constants), each node "
           "(op, args, tensor_ids, outputs) with tensor arguments as None and numbers given for a "
           "Tensor argument as ('number', value).");
  m.def("_plan_import", &ImportPlan, py::arg("nodes"), py::arg("num_values"), py::arg("inputs"),
        py::arg("outputs"), py::arg("constants"),
        "A plan from export()'s data (a saved graph), its constants given as tensors.");
}

const BindingRegistrar registrar(4, &BindTrace);

}  // namespace
}  // namespace oneflow
