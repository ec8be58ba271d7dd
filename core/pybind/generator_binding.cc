// oneflow._C.Generator: the Philox random number generator (core/framework/generator.h)
// as a Python object, the default CPU generator, and a known-answer hook for
// the Philox block function.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "core/framework/generator.h"
#include "core/pybind/binding_registry.h"
#include "core/pybind/convert.h"
#include "core/runtime/error.h"

namespace py = pybind11;

namespace oneflow {
namespace {

// A Python int as a 64-bit seed: [-2^63, 2^64) with negative values taken
// modulo 2^64, as PyTorch does.
uint64_t ToSeed(py::handle obj) {
  PyObject* p = obj.ptr();
  if (PyBool_Check(p) || !PyIndex_Check(p)) {
    throw py::type_error(std::string("manual_seed expected an int seed, got ") +
                         Py_TYPE(p)->tp_name);
  }
  py::int_ v = py::reinterpret_steal<py::int_>(PyNumber_Index(p));
  if (!v) throw py::error_already_set();
  int overflow = 0;
  long long s = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow == 0) {
    if (s == -1 && PyErr_Occurred()) throw py::error_already_set();
    return static_cast<uint64_t>(s);
  }
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
    if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) return u;
    PyErr_Clear();
  }
  throw py::value_error(
      "manual_seed expected a seed in [-0x8000_0000_0000_0000, "
      "0xffff_ffff_ffff_ffff], got " +
      py::str(obj).cast<std::string>());
}

void BindGenerator(py::module_& m) {
  py::class_<Generator, std::shared_ptr<Generator>> cls(m, "Generator",
                                                        R"doc(Generator(device="cpu")

A random number generator (Philox4x32-10): pass it as ``generator=`` to
random functions to draw from its own stream instead of the default one.
Its state is a seed and an offset into the seed's stream.)doc");
  cls.def(py::init([](py::handle device) {
            return std::make_shared<Generator>(ToDevice(device, "Generator", "device"));
          }),
          py::arg("device") = "cpu")
      .def_property_readonly(
          "device", [](const Generator& g) { return g.device(); }, "The device it generates for.")
      .def(
          "manual_seed",
          [](py::object self, py::handle seed) {
            self.cast<Generator&>().ManualSeed(ToSeed(seed));
            return self;
          },
          py::arg("seed"), "Sets the seed (and restarts its stream); returns the generator.")
      .def(
          "seed", [](Generator& g) { return g.Seed(); },
          "Seeds from a non-deterministic source; returns the new seed.")
      .def(
          "initial_seed", [](const Generator& g) { return g.initial_seed(); },
          "The seed of the current stream.")
      .def(
          "get_state", [](const Generator& g) { return g.GetState(); },
          "The state as a uint8 tensor (16 bytes: seed, offset).")
      .def(
          "set_state",
          [](py::object self, py::handle state) {
            if (!py::isinstance<TensorImpl>(state)) {
              throw py::type_error(std::string("expected a oneflow.ByteTensor, but got ") +
                                   Py_TYPE(state.ptr())->tp_name);
            }
            self.cast<Generator&>().SetState(state.cast<TensorImplPtr>());
            return self;
          },
          py::arg("new_state"), "Restores a state from get_state(); returns the generator.")
      .def(
          "get_offset", [](const Generator& g) { return g.offset(); },
          "The number of Philox counters used since seeding.")
      .def(
          "set_offset",
          [](py::object self, uint64_t offset) {
            self.cast<Generator&>().set_offset(offset);
            return self;
          },
          py::arg("offset"), "Moves the stream to `offset` counters; returns the generator.");
  m.attr("default_generator") = py::cast(DefaultGenerator(DeviceType::kCPU));
  m.def(
      "_philox4x32_10",
      [](std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key) {
        return Philox4x32_10(counter, key);
      },
      "One Philox4x32-10 block (for known-answer tests).");
}

const BindingRegistrar registrar(5, &BindGenerator);

}  // namespace
}  // namespace oneflow
