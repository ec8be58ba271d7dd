// oneflow.dtype and oneflow.device.

#include <pybind11/operators.h>

#include <functional>

#include "core/pybind/binding_registry.h"
#include "core/pybind/convert.h"
#include "core/runtime/error.h"

namespace py = pybind11;

namespace oneflow {
namespace {

void BindDTypeAndDevice(py::module_& m) {
  py::class_<PyDType>(m, "dtype", "The element type of a tensor, e.g. oneflow.float32.")
      .def("__repr__",
           [](const PyDType& d) { return std::string("oneflow.") + DTypeName(d.value); })
      .def_property_readonly("is_floating_point",
                             [](const PyDType& d) { return IsFloatingPoint(d.value); })
      .def_property_readonly("is_signed", [](const PyDType& d) { return IsSigned(d.value); })
      .def_property_readonly("itemsize", [](const PyDType& d) { return ItemSize(d.value); })
      .def_property_readonly("_name", [](const PyDType& d) { return DTypeName(d.value); })
      .def("__reduce__", [](const PyDType& d) { return std::string(DTypeName(d.value)); });
  py::list dtypes;
  for (int i = 0; i < kNumDTypes; ++i) dtypes.append(DTypeObject(static_cast<DType>(i)));
  m.attr("dtypes") = dtypes;
  m.def("dtype_from_name", [](const std::string& name) -> py::object {
    auto d = DTypeFromName(name);
    if (!d) return py::none();
    return DTypeObject(*d);
  });

  py::class_<Device>(m, "device", R"doc(device(type, index=None) or device("cuda:1")

A device on which a tensor lives: ``cpu`` or ``cuda`` with an optional index.

    >>> oneflow.device("cuda:1")
    device(type='cuda', index=1)
)doc")
      .def(py::init([](py::object spec, py::object index) {
             if (py::isinstance<Device>(spec)) return spec.cast<Device>();
             if (py::isinstance<py::str>(spec)) {
               std::string s = spec.cast<std::string>();
               if (index.is_none()) return Device::Parse(s);
               OF_CHECK(s.find(':') == std::string::npos, RuntimeError,
                        "device(): type (string) must not include an index because index was "
                        "passed explicitly: ",
                        s);
               return Device::Make(s, static_cast<int>(ToInt(index, "device", "index")));
             }
             return ToDevice(spec, "device", "type");
           }),
           py::arg("type"), py::arg("index") = py::none())
      .def_property_readonly("type", [](const Device& d) { return std::string(d.type_name()); })
      .def_property_readonly("index",
                             [](const Device& d) -> py::object {
                               if (d.index < 0) return py::none();
                               return py::int_(d.index);
                             })
      .def("__str__", &Device::ToString)
      .def("__repr__",
           [](const Device& d) {
             std::string s = std::string("device(type='") + d.type_name() + "'";
             if (d.index >= 0) s += ", index=" + std::to_string(d.index);
             return s + ")";
           })
      .def("__eq__",
           [](const Device& a, py::object b) {
             return py::isinstance<Device>(b) && a == b.cast<Device>();
           })
      .def("__hash__",
           [](const Device& d) {
             return std::hash<int>()(static_cast<int>(d.type) * 1024 + d.index);
           })
      .def("__reduce__", [](const Device& d) {
        return py::make_tuple(py::module_::import("oneflow").attr("device"),
                              py::make_tuple(d.ToString()));
      });
}

const BindingRegistrar registrar(0, &BindDTypeAndDevice);

}  // namespace
}  // namespace oneflow
