// oneflow.set_num_threads / get_num_threads: the CPU thread pool (OpenMP,
// shared with oneDNN).

#include "core/pybind/binding_registry.h"
#include "core/runtime/parallel.h"

namespace py = pybind11;

namespace oneflow {
namespace {

void BindParallel(py::module_& m) {
  m.def("set_num_threads", &SetNumThreads, py::arg("int"),
        "set_num_threads(int) -> None\n\nSets the number of threads CPU ops use.");
  m.def("get_num_threads", &GetNumThreads,
        "get_num_threads() -> int\n\nThe number of threads CPU ops use.");
}

const BindingRegistrar registrar(2, &BindParallel);

}  // namespace
}  // namespace oneflow
