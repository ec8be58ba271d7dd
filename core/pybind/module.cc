// The `oneflow._C` extension module.

#include <algorithm>
#include <utility>
#include <vector>

#include "core/pybind/binding_registry.h"
#include "core/pybind/version.h"
#include "core/runtime/error.h"

namespace py = pybind11;

namespace oneflow {
namespace {

std::vector<std::pair<int, BindFn>>& Bindings() {
  static std::vector<std::pair<int, BindFn>> bindings;
  return bindings;
}

}  // namespace

BindingRegistrar::BindingRegistrar(int order, BindFn fn) { Bindings().emplace_back(order, fn); }

void RunBindings(py::module_& m) {
  auto& all = Bindings();
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [order, fn] : all) fn(m);
}

}  // namespace oneflow

PYBIND11_MODULE(_C, m) {
  m.doc() = "oneflow's C++ runtime (tensor core, kernels). Use the `oneflow` package instead.";
  m.attr("__version__") = ONEFLOW_VERSION;
  // Docstrings carry PyTorch-style signatures of their own.
  py::options options;
  options.disable_function_signatures();
  // Each C++ error class becomes the Python exception PyTorch raises for it.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const oneflow::IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const oneflow::ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const oneflow::TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const oneflow::NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const oneflow::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  oneflow::RunBindings(m);
}
