#include "core/pybind/convert.h"

#include <array>

#include "core/runtime/error.h"

namespace py = pybind11;

namespace oneflow {
namespace {

std::string TypeName(py::handle obj) { return Py_TYPE(obj.ptr())->tp_name; }

std::array<py::object, kNumDTypes>& DTypeObjects() {
  static auto* objects = new std::array<py::object, kNumDTypes>();  // lives until exit
  return *objects;
}

}  // namespace

py::object DTypeObject(DType dtype) {
  py::object& obj = DTypeObjects()[static_cast<int>(dtype)];
  if (!obj) obj = py::cast(PyDType{dtype}, py::return_value_policy::move);
  return obj;
}

DType ToDType(py::handle obj, const char* op, const char* arg) {
  if (py::isinstance<PyDType>(obj)) return obj.cast<const PyDType&>().value;
  OF_THROW(TypeError, op, "(): argument '", arg, "' must be oneflow.dtype, not ", TypeName(obj));
}

Device ToDevice(py::handle obj, const char* op, const char* arg) {
  if (py::isinstance<Device>(obj)) return obj.cast<Device>();
  if (py::isinstance<py::str>(obj)) return Device::Parse(obj.cast<std::string>());
  if (PyLong_Check(obj.ptr()) && !PyBool_Check(obj.ptr())) {
    return Device::Make("cuda", static_cast<int>(ToInt(obj, op, arg)));
  }
  OF_THROW(TypeError, op, "(): argument '", arg, "' must be oneflow.device, str or int, not ",
           TypeName(obj));
}

Scalar ToScalar(py::handle obj, const char* op, const char* arg) {
  PyObject* p = obj.ptr();
  if (PyBool_Check(p)) return Scalar::Bool(p == Py_True);
  if (PyLong_Check(p)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    OF_CHECK(overflow == 0, RuntimeError, op, "(): argument '", arg, "' value ",
             py::str(obj).cast<std::string>(), " cannot be converted to int64 without overflow");
    return Scalar::Int(v);
  }
  if (PyFloat_Check(p)) return Scalar::Float(PyFloat_AS_DOUBLE(p));
  // NumPy scalars and other numbers: bool-likes first, then integers, then floats.
  std::string type = TypeName(obj);
  if (type == "numpy.bool" || type == "numpy.bool_") return Scalar::Bool(obj.cast<bool>());
  if (PyIndex_Check(p)) return Scalar::Int(ToInt(obj, op, arg));
  if (PyNumber_Check(p) && py::hasattr(obj, "__float__") && !py::hasattr(obj, "__len__")) {
    return Scalar::Float(obj.cast<double>());
  }
  OF_THROW(TypeError, op, "(): argument '", arg, "' must be a Number, not ", type);
}

int64_t ToInt(py::handle obj, const char* op, const char* arg) {
  PyObject* p = obj.ptr();
  OF_CHECK(!PyBool_Check(p) && PyIndex_Check(p), TypeError, op, "(): argument '", arg,
           "' must be int, not ", TypeName(obj));
  PyObject* index = PyNumber_Index(p);
  if (index == nullptr) throw py::error_already_set();
  py::int_ v = py::reinterpret_steal<py::int_>(index);
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  OF_CHECK(overflow == 0, RuntimeError, op, "(): argument '", arg, "' value ",
           py::str(obj).cast<std::string>(), " does not fit in int64");
  return x;
}

DimVector ToIntList(py::handle seq, const char* op, const char* arg) {
  OF_CHECK(py::isinstance<py::tuple>(seq) || py::isinstance<py::list>(seq), TypeError, op,
           "(): argument '", arg, "' must be tuple of ints, not ", TypeName(seq));
  DimVector out;
  py::sequence s = py::reinterpret_borrow<py::sequence>(seq);
  for (size_t i = 0; i < s.size(); ++i) {
    py::object item = s[i];
    OF_CHECK(!PyBool_Check(item.ptr()) && PyIndex_Check(item.ptr()), TypeError, op,
             "(): argument '", arg, "' must be tuple of ints, but found element of type ",
             TypeName(item), " at pos ", i);
    out.push_back(ToInt(item, op, arg));
  }
  return out;
}

DimVector ToIntList(const py::args& args, const char* op, const char* arg) {
  if (args.size() == 1 &&
      (py::isinstance<py::tuple>(args[0]) || py::isinstance<py::list>(args[0]))) {
    return ToIntList(static_cast<py::handle>(args[0]), op, arg);
  }
  return ToIntList(static_cast<py::handle>(args), op, arg);
}

}  // namespace oneflow
