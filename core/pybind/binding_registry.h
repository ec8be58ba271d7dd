#ifndef CORE_PYBIND_BINDING_REGISTRY_H_
#define CORE_PYBIND_BINDING_REGISTRY_H_

// Binding files register a function that adds their names to the `_C`
// module; module.cc runs them in `order` (lower first), so no central file
// lists every binding.

#include <pybind11/pybind11.h>

namespace oneflow {

using BindFn = void (*)(pybind11::module_& m);

struct BindingRegistrar {
  BindingRegistrar(int order, BindFn fn);
};

void RunBindings(pybind11::module_& m);

}  // namespace oneflow

#endif  // CORE_PYBIND_BINDING_REGISTRY_H_
