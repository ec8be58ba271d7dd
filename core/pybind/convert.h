#ifndef CORE_PYBIND_CONVERT_H_
#define CORE_PYBIND_CONVERT_H_

// Conversions between Python objects and runtime values, each raising the
// TypeError PyTorch raises for a wrong argument, naming the op and argument.

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "core/framework/schema.h"
#include "core/framework/value.h"
#include "core/runtime/device.h"
#include "core/runtime/dtype.h"
#include "core/runtime/scalar.h"
#include "core/runtime/shape.h"

namespace oneflow {

// The Python object behind `oneflow.float32` etc.: one instance per DType.
struct PyDType {
  DType value;
};

// The unique Python object for `dtype`.
pybind11::object DTypeObject(DType dtype);
// A oneflow.dtype object -> DType; TypeError otherwise.
DType ToDType(pybind11::handle obj, const char* op, const char* arg);
// A oneflow.device, a string like "cuda:1", or an int (a CUDA index) -> Device.
Device ToDevice(pybind11::handle obj, const char* op, const char* arg);
// A Python bool / int / float (or NumPy scalar) -> Scalar.
Scalar ToScalar(pybind11::handle obj, const char* op, const char* arg);
// An int (or an object with __index__, but not bool) -> int64.
int64_t ToInt(pybind11::handle obj, const char* op, const char* arg);
// Sizes given as ints or as one sequence: f(2, 3), f((2, 3)), f([2, 3]).
DimVector ToIntList(const pybind11::args& args, const char* op, const char* arg);
DimVector ToIntList(pybind11::handle seq, const char* op, const char* arg);

// One op argument from Python by its schema type, as op calls convert them (a
// number for a Tensor argument is a wrapped number); false with `err` set on a
// type mismatch. Defined in op_binding.cc.
bool ConvertOpArg(const ArgSpec& a, pybind11::handle obj, const char* op, Value* out,
                  std::string* err);
// An op argument or result value as a Python object (tensors as Tensors).
pybind11::object OpValueToPython(const Value& v);

}  // namespace oneflow

#endif  // CORE_PYBIND_CONVERT_H_
