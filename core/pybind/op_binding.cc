// Python bindings generated from the op registry: oneflow._C.ops.<name> for
// every op, and Tensor.<name> for ops whose first argument is `self`.
// Overloads of one name ("sum", "sum.dim") are tried in declaration order.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/framework/autocast.h"
#include "core/framework/dispatch.h"
#include "core/framework/generator.h"
#include "core/framework/type_promotion.h"
#include "core/pybind/binding_registry.h"
#include "core/pybind/convert.h"
#include "core/runtime/error.h"
#include "core/runtime/tensor_ops.h"
#include "core/runtime/view_ops.h"

namespace py = pybind11;

namespace oneflow {
namespace {

// Names of the OpTrait bits, as op_info reports them.
const std::pair<uint32_t, const char*> kTraitNames[] = {
    {kRandom, "random"},
    {kElementwise, "elementwise"},
    {kFusedEpilogue, "fused_epilogue"},
    {kCrossDevice, "cross_device"},
    {kInplace, "inplace"},
    {kMutatesArgs, "mutates_args"},
    {kView, "view"},
};

std::string TypeName(py::handle obj) { return Py_TYPE(obj.ptr())->tp_name; }

bool IsTensor(py::handle obj) { return py::isinstance<TensorImpl>(obj); }

bool IsNumber(py::handle obj) {
  PyObject* p = obj.ptr();
  if (PyBool_Check(p) || PyLong_Check(p) || PyFloat_Check(p)) return true;
  // NumPy scalars.
  return PyNumber_Check(p) && !IsTensor(obj) && !PySequence_Check(p) && py::hasattr(obj, "dtype");
}

// A Python number as a 0-dim "wrapped number" tensor.
Value WrapNumber(py::handle obj, const char* op, const char* arg) {
  Scalar s = ToScalar(obj, op, arg);
  DType d = s.kind == Scalar::Kind::kBool  ? DType::kBool
            : s.kind == Scalar::Kind::kInt ? DType::kInt64
                                           : DType::kFloat64;
  return Value(Full({}, s, d, Device{}), /*wrapped_number=*/true);
}

// Converts one Python argument; returns false (with `err` set) on a type mismatch.
bool Convert(const ArgSpec& a, py::handle obj, const char* op, Value* out, std::string* err) {
  if (obj.is_none()) {
    if (a.optional) {
      *out = Value();
      return true;
    }
    *err = "must be " + std::string(ArgTypeName(a.type)) + ", not NoneType";
    return false;
  }
  PyObject* p = obj.ptr();
  switch (a.type) {
    case ArgType::kTensor:
      if (IsTensor(obj)) {
        *out = Value(obj.cast<TensorImplPtr>());
        return true;
      }
      if (IsNumber(obj)) {
        *out = WrapNumber(obj, op, a.name.c_str());
        return true;
      }
      break;
    case ArgType::kTensorList:
      if (PyTuple_Check(p) || PyList_Check(p)) {
        std::vector<TensorImplPtr> ts;
        for (py::handle item : obj) {
          if (!IsTensor(item)) {
            *err = "must be tuple of Tensors, but found element of type " + TypeName(item);
            return false;
          }
          ts.push_back(item.cast<TensorImplPtr>());
        }
        *out = Value(std::move(ts));
        return true;
      }
      break;
    case ArgType::kScalar:
      if (IsNumber(obj)) {
        *out = Value(ToScalar(obj, op, a.name.c_str()));
        return true;
      }
      if (IsTensor(obj) && obj.cast<TensorImplPtr>()->numel() == 1) {
        *out = Value(ToScalar(obj.attr("item")(), op, a.name.c_str()));
        return true;
      }
      break;
    case ArgType::kInt:
      // Tensors have __index__, but an int parameter takes a Python int (else
      // max(x, y) would bind y to max.dim's dim).
      if (!PyBool_Check(p) && PyIndex_Check(p) && !IsTensor(obj)) {
        *out = Value(ToInt(obj, op, a.name.c_str()));
        return true;
      }
      break;
    case ArgType::kIntList:
      if (!PyBool_Check(p) && PyIndex_Check(p) && !IsTensor(obj)) {
        int64_t v = ToInt(obj, op, a.name.c_str());
        *out = Value(DimVector(a.list_size > 0 ? a.list_size : 1, v));
        return true;
      }
      if (PyTuple_Check(p) || PyList_Check(p)) {
        size_t k = 0;
        for (py::handle item : obj) {
          if (PyBool_Check(item.ptr()) || !PyIndex_Check(item.ptr())) {
            *err = "must be tuple of ints, but found element of type " + TypeName(item) +
                   " at pos " + std::to_string(k);
            return false;
          }
          ++k;
        }
        *out = Value(ToIntList(obj, op, a.name.c_str()));
        return true;
      }
      break;
    case ArgType::kFloat:
      if (IsNumber(obj) && !PyBool_Check(p)) {
        *out = Value(obj.cast<double>());
        return true;
      }
      break;
    case ArgType::kBool:
      if (PyBool_Check(p)) {
        *out = Value(p == Py_True);
        return true;
      }
      break;
    case ArgType::kDType:
      if (py::isinstance<PyDType>(obj)) {
        *out = Value(obj.cast<const PyDType&>().value);
        return true;
      }
      break;
    case ArgType::kDevice:
      *out = Value(ToDevice(obj, op, a.name.c_str()));
      return true;
    case ArgType::kStr:
      if (PyUnicode_Check(p)) {
        *out = Value(obj.cast<std::string>());
        return true;
      }
      break;
    case ArgType::kGenerator:
      if (py::isinstance<Generator>(obj)) {
        *out = Value(obj.cast<std::shared_ptr<Generator>>());
        return true;
      }
      break;
  }
  *err = "must be " + std::string(ArgTypeName(a.type)) + ", not " + TypeName(obj);
  return false;
}

// Binds Python arguments to one schema; false (with `err`) if they do not fit.
// With `objects`, also records the Python object given for each argument
// (null where the default applies).
bool Bind(const Schema& s, const py::args& args, const py::kwargs& kwargs, std::vector<Value>* out,
          std::string* err, std::vector<py::object>* objects = nullptr) {
  const char* op = s.name.c_str();
  const size_t nargs = args.size();
  out->assign(s.args.size(), Value());
  std::vector<bool> given(s.args.size(), false);
  if (objects) objects->assign(s.args.size(), py::object());
  size_t pos = 0;
  for (size_t i = 0; i < nargs; ++i, ++pos) {
    if (pos >= s.args.size() || s.args[pos].kwarg_only) {
      *err = s.name + "() takes " + std::to_string(pos) + " positional arguments but " +
             std::to_string(nargs) + " were given";
      return false;
    }
    const ArgSpec& a = s.args[pos];
    // int[] may also be given as varargs when it is the last positional
    // parameter: x.view(2, 3), x.permute(1, 0).
    if (a.type == ArgType::kIntList && i + 1 < nargs &&
        (pos + 1 == s.args.size() || s.args[pos + 1].kwarg_only)) {
      py::tuple t(nargs - i);
      for (size_t k = i; k < nargs; ++k) t[k - i] = args[k];
      if (!Convert(a, t, op, &(*out)[pos], err)) {
        *err = s.name + "(): argument '" + a.name + "' " + *err;
        return false;
      }
      given[pos] = true;
      if (objects) (*objects)[pos] = t;
      break;
    }
    if (!Convert(a, args[i], op, &(*out)[pos], err)) {
      *err = s.name + "(): argument '" + a.name + "' (position " + std::to_string(pos + 1) + ") " +
             *err;
      return false;
    }
    given[pos] = true;
    if (objects) (*objects)[pos] = py::reinterpret_borrow<py::object>(args[i]);
  }
  for (auto item : kwargs) {
    std::string key = item.first.cast<std::string>();
    int idx = s.ArgIndex(key);
    if (idx < 0) {
      *err = s.name + "() got an unexpected keyword argument '" + key + "'";
      return false;
    }
    if (given[idx]) {
      *err = s.name + "() got multiple values for argument '" + key + "'";
      return false;
    }
    if (!Convert(s.args[idx], item.second, op, &(*out)[idx], err)) {
      *err = s.name + "(): argument '" + key + "' " + *err;
      return false;
    }
    given[idx] = true;
    if (objects) (*objects)[idx] = py::reinterpret_borrow<py::object>(item.second);
  }
  for (size_t i = 0; i < s.args.size(); ++i) {
    if (given[i]) continue;
    const ArgSpec& a = s.args[i];
    if (!a.has_default && !a.optional) {
      *err = s.name + "() missing 1 required positional argument: \"" + a.name + "\"";
      return false;
    }
    (*out)[i] = a.default_value;
  }
  return true;
}

std::string Signature(const Schema& s) {
  std::string text = "(";
  for (size_t i = 0; i < s.args.size(); ++i) {
    if (i) text += ", ";
    const ArgSpec& a = s.args[i];
    if (a.kwarg_only && (i == 0 || !s.args[i - 1].kwarg_only)) text += "*, ";
    text += std::string(ArgTypeName(a.type)) + (a.optional ? "? " : " ") + a.name;
  }
  return text + ")";
}

py::object& ReturnTypes() {
  static auto* types = new py::object();  // oneflow.return_types module, set from Python
  return *types;
}

py::object ToPython(const OpDef& op, std::vector<Value>&& outs) {
  const auto& returns = op.schema().returns;
  if (outs.size() == 1) {
    Value& v = outs[0];
    if (v.is_tensor()) return py::cast(v.tensor());
    py::tuple t(v.tensors().size());
    for (size_t i = 0; i < v.tensors().size(); ++i) t[i] = py::cast(v.tensors()[i]);
    return std::move(t);
  }
  py::tuple t(outs.size());
  for (size_t i = 0; i < outs.size(); ++i) t[i] = py::cast(outs[i].tensor());
  if (!returns.empty() && !returns[0].name.empty() && ReturnTypes()) {
    py::tuple names(returns.size());
    for (size_t i = 0; i < returns.size(); ++i) names[i] = returns[i].name;
    return ReturnTypes().attr("make")(op.schema().name, names, t);
  }
  return std::move(t);
}

// Global tensors live in the oneflow-distributed plugin: it registers its
// tensor subclass and a handler, and an op call with an instance of that class
// among its tensor arguments goes to handler(full_name, bound_arguments). With
// nothing registered the check is one pointer compare per call.
struct GlobalDispatch {
  PyTypeObject* type = nullptr;
  py::object handler;
};

GlobalDispatch& Global() {
  static auto* global = new GlobalDispatch();  // lives until exit
  return *global;
}

bool HoldsGlobal(py::handle obj, PyTypeObject* type) {
  PyObject* p = obj.ptr();
  if (PyObject_TypeCheck(p, type)) return true;
  if (PyList_Check(p) || PyTuple_Check(p)) {
    for (py::handle item : obj) {
      if (PyObject_TypeCheck(item.ptr(), type)) return true;
    }
  }
  return false;
}

bool AnyGlobal(const py::args& args, const py::kwargs& kwargs, PyTypeObject* type) {
  for (py::handle a : args) {
    if (HoldsGlobal(a, type)) return true;
  }
  for (auto item : kwargs) {
    if (HoldsGlobal(item.second, type)) return true;
  }
  return false;
}

py::object ScalarToPython(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::kBool:
      return py::bool_(s.b);
    case Scalar::Kind::kInt:
      return py::int_(s.i);
    case Scalar::Kind::kFloat:
      return py::float_(s.d);
  }
  return py::none();
}

py::object ValueToPython(const Value& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return py::none();
        } else if constexpr (std::is_same_v<T, Scalar>) {
          return ScalarToPython(x);
        } else if constexpr (std::is_same_v<T, DType>) {
          return DTypeObject(x);
        } else if constexpr (std::is_same_v<T, DimVector>) {
          py::list l;
          for (int64_t d : x) l.append(py::int_(d));
          return std::move(l);
        } else if constexpr (std::is_same_v<T, std::vector<TensorImplPtr>>) {
          py::list l;
          for (const auto& t : x) l.append(py::cast(t));
          return std::move(l);
        } else {
          return py::cast(x);
        }
      },
      v.storage());
}

// The arguments of one bound call, in schema order: tensor arguments as the
// objects given (so global tensors and Python numbers stay what they are),
// the others as their converted values (defaults filled in).
py::list BoundArguments(const Schema& s, const std::vector<Value>& values,
                        const std::vector<py::object>& objects) {
  py::list out;
  for (size_t i = 0; i < s.args.size(); ++i) {
    const ArgType type = s.args[i].type;
    bool tensors = type == ArgType::kTensor || type == ArgType::kTensorList;
    out.append(tensors && objects[i] ? objects[i] : ValueToPython(values[i]));
  }
  return out;
}

py::object CallOverloads(const std::vector<const OpDef*>& overloads, const py::args& args,
                         const py::kwargs& kwargs, bool not_implemented_on_mismatch = false) {
  PyTypeObject* global_type = Global().type;
  const bool global = global_type != nullptr && AnyGlobal(args, kwargs, global_type);
  std::vector<std::string> errors;
  for (const OpDef* op : overloads) {
    std::vector<Value> values;
    std::string err;
    std::vector<py::object> objects;
    if (!Bind(op->schema(), args, kwargs, &values, &err, global ? &objects : nullptr)) {
      errors.push_back(err);
      continue;
    }
    if (global) {
      return Global().handler(op->schema().full_name(),
                              BoundArguments(op->schema(), values, objects));
    }
    std::vector<Value> outs = Dispatch(*op, std::move(values));
    return ToPython(*op, std::move(outs));
  }
  if (not_implemented_on_mismatch) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  if (overloads.size() == 1) throw py::type_error(errors[0]);
  std::string got = "(";
  for (size_t i = 0; i < args.size(); ++i) {
    got += (i ? ", " : "") + (IsTensor(args[i]) ? std::string("Tensor") : TypeName(args[i]));
  }
  for (auto item : kwargs) {
    got += (got.size() > 1 ? ", " : "") + item.first.cast<std::string>() + "=" +
           (IsTensor(item.second) ? std::string("Tensor") : TypeName(item.second));
  }
  std::string msg = overloads[0]->schema().name +
                    "() received an invalid combination of arguments - got " + got +
                    "), but expected one of:";
  for (const OpDef* op : overloads) msg += "\n * " + Signature(op->schema());
  throw py::type_error(msg);
}

void BindOps(py::module_& m) {
  // Group overloads by Python name, keeping declaration order.
  std::vector<std::string> names;
  std::map<std::string, std::vector<const OpDef*>> groups;
  for (const OpDef* op : OpRegistry::All()) {
    const std::string& name = op->schema().name;
    if (!groups.count(name)) names.push_back(name);
    groups[name].push_back(op);
  }
  py::module_ ops = m.def_submodule("ops", "Every registered op, generated from its declaration.");
  py::object tensor_cls = m.attr("Tensor");
  py::list table;
  for (const std::string& name : names) {
    auto overloads = groups[name];
    std::string doc;
    for (const OpDef* op : overloads) doc += op->schema().text + "\n";
    auto fn = [overloads](py::args args, py::kwargs kwargs) {
      return CallOverloads(overloads, args, kwargs);
    };
    ops.attr(name.c_str()) = py::cpp_function(fn, py::name(name.c_str()), py::doc(doc.c_str()));
    const Schema& first = overloads[0]->schema();
    bool method = !first.args.empty() && first.args[0].name == "self";
    if (method) {
      tensor_cls.attr(name.c_str()) = py::cpp_function(
          fn, py::name(name.c_str()), py::is_method(tensor_cls), py::doc(doc.c_str()));
    }
    table.append(
        py::make_tuple(name, first.args.empty() ? "" : first.args[0].name, first.is_inplace()));
  }
  m.attr("op_table") = table;

  // Python operators. A reflected operator swaps the operands; an operand that
  // no overload accepts gives NotImplemented, so Python can try the other side.
  struct Operator {
    const char* dunder;
    const char* op;
    bool reflected;
  };
  static constexpr Operator kOperators[] = {
      {"__add__", "add", false},
      {"__radd__", "add", true},
      {"__iadd__", "add_", false},
      {"__sub__", "sub", false},
      {"__rsub__", "sub", true},
      {"__isub__", "sub_", false},
      {"__mul__", "mul", false},
      {"__rmul__", "mul", true},
      {"__imul__", "mul_", false},
      {"__truediv__", "div", false},
      {"__rtruediv__", "div", true},
      {"__itruediv__", "div_", false},
      {"__floordiv__", "floor_divide", false},
      {"__rfloordiv__", "floor_divide", true},
      {"__ifloordiv__", "floor_divide_", false},
      {"__mod__", "remainder", false},
      {"__rmod__", "remainder", true},
      {"__imod__", "remainder_", false},
      {"__pow__", "pow", false},
      {"__rpow__", "pow", true},
      {"__ipow__", "pow_", false},
      {"__matmul__", "matmul", false},
      {"__rmatmul__", "matmul", true},
      {"__eq__", "eq", false},
      {"__ne__", "ne", false},
      {"__lt__", "lt", false},
      {"__le__", "le", false},
      {"__gt__", "gt", false},
      {"__ge__", "ge", false},
      {"__and__", "bitwise_and", false},
      {"__rand__", "bitwise_and", true},
      {"__iand__", "bitwise_and_", false},
      {"__or__", "bitwise_or", false},
      {"__ror__", "bitwise_or", true},
      {"__ior__", "bitwise_or_", false},
      {"__xor__", "bitwise_xor", false},
      {"__rxor__", "bitwise_xor", true},
      {"__ixor__", "bitwise_xor_", false},
  };
  for (const Operator& o : kOperators) {
    if (!groups.count(o.op)) continue;
    auto overloads = groups[o.op];
    bool reflected = o.reflected;
    tensor_cls.attr(o.dunder) = py::cpp_function(
        [overloads, reflected](py::object self, py::object other) {
          py::tuple args = reflected ? py::make_tuple(other, self) : py::make_tuple(self, other);
          return CallOverloads(overloads, args, py::kwargs(), /*not_implemented_on_mismatch=*/true);
        },
        py::name(o.dunder), py::is_method(tensor_cls));
  }
  struct UnaryOperator {
    const char* dunder;
    const char* op;
  };
  static constexpr UnaryOperator kUnary[] = {
      {"__neg__", "neg"}, {"__abs__", "abs"}, {"__invert__", "bitwise_not"}, {"__pos__", "clone"}};
  for (const UnaryOperator& o : kUnary) {
    if (!groups.count(o.op)) continue;
    auto overloads = groups[o.op];
    tensor_cls.attr(o.dunder) = py::cpp_function(
        [overloads](py::object self) {
          return CallOverloads(overloads, py::make_tuple(self), py::kwargs());
        },
        py::name(o.dunder), py::is_method(tensor_cls));
  }
  // Tensors compare elementwise, so they hash by identity.
  tensor_cls.attr("__hash__") = py::module_::import("builtins").attr("object").attr("__hash__");
  m.def("_set_return_types", [](py::object module) { ReturnTypes() = std::move(module); });
  m.def("_validate_ops", [] { return OpRegistry::Validate(); });
  // ONEFLOW_DISABLE_VIEW (core/runtime/view_ops.h); the setter is per thread.
  m.def("_views_enabled", &ViewsEnabled);
  m.def("_set_views_enabled", &SetViewsEnabled, py::arg("enabled"));
  m.def("_op_schemas", [] {
    py::list out;
    for (const OpDef* op : OpRegistry::All()) out.append(op->schema().text);
    return out;
  });
  m.def(
      "_set_global_dispatch",
      [](py::object type, py::object handler) {
        OF_CHECK(type.is_none() || PyType_Check(type.ptr()), TypeError,
                 "_set_global_dispatch: expected a type or None");
        GlobalDispatch& g = Global();
        g.type = type.is_none() ? nullptr : reinterpret_cast<PyTypeObject*>(type.ptr());
        g.handler = type.is_none() ? py::object() : std::move(handler);
        if (g.type) Py_INCREF(type.ptr());  // registered types live until exit
      },
      "Routes op calls with an instance of `type` among their tensor arguments to "
      "handler(full_name, bound_arguments); (None, None) stops it.");
  m.def(
      "_call_op",
      [](const std::string& full_name, py::sequence arguments) {
        const OpDef& op = OpRegistry::Get(full_name);
        const Schema& s = op.schema();
        OF_CHECK(static_cast<size_t>(py::len(arguments)) == s.args.size(), TypeError, full_name,
                 "(): _call_op expects ", s.args.size(), " arguments in schema order, got ",
                 py::len(arguments));
        std::vector<Value> values(s.args.size());
        for (size_t i = 0; i < s.args.size(); ++i) {
          std::string err;
          if (!Convert(s.args[i], arguments[i], s.name.c_str(), &values[i], &err)) {
            throw py::type_error(s.name + "(): argument '" + s.args[i].name + "' " + err);
          }
        }
        return ToPython(op, Dispatch(op, std::move(values)));
      },
      "Runs the op of this full name on arguments in schema order, with no global dispatch.");
  m.def("_op_schema_info", [](const std::string& full_name) {
    const Schema& s = OpRegistry::Get(full_name).schema();
    py::list args, returns;
    for (const ArgSpec& a : s.args) {
      // (name, type, optional, kwarg_only, mutated, has_default, default)
      bool has_default = a.has_default || a.optional;
      args.append(py::make_tuple(a.name, ArgTypeName(a.type), a.optional, a.kwarg_only, a.mutated,
                                 has_default, ValueToPython(a.default_value)));
    }
    for (const ReturnSpec& r : s.returns) {
      returns.append(py::make_tuple(r.name, ArgTypeName(r.type), r.aliases_input));
    }
    return py::make_tuple(s.name, s.overload, args, returns);
  });
  m.def(
      "op_info",
      [](const std::string& full_name) {
        const OpDef& op = OpRegistry::Get(full_name);
        const Schema& s = op.schema();
        py::dict sbp, amp, info;
        sbp["family"] = op.sbp_rule().family;
        sbp["params"] = op.sbp_rule().params;
        sbp["reason"] = op.sbp_rule().reason;
        amp["cpu"] = AutocastPolicyName(op.autocast(DeviceType::kCPU));
        amp["cuda"] = AutocastPolicyName(op.autocast(DeviceType::kCUDA));
        py::list traits;
        for (const auto& [bit, trait_name] : kTraitNames) {
          if (op.traits() & bit) traits.append(trait_name);
        }
        py::list kernels;
        if (op.kernel(DeviceType::kCPU).fn) kernels.append("cpu");
        if (op.kernel(DeviceType::kCUDA).fn) kernels.append("cuda");
        info["full_name"] = s.full_name();
        info["name"] = s.name;
        info["overload"] = s.overload;
        info["schema"] = s.text;
        info["sbp"] = sbp;
        info["autocast"] = amp;
        info["traits"] = traits;
        info["differentiable"] = op.differentiable();
        info["composite"] = op.composite() != nullptr;
        info["kernels"] = kernels;
        return info;
      },
      py::arg("name"),
      "op_info(name) -> dict\n\nWhat the op `name` (a full name such as 'max.dim') declares: its "
      "schema, its SBP rule (family, params, reason), its autocast class per device type, its "
      "traits, whether it is differentiable or composite, and the devices with a kernel.");
  m.def("set_default_float_dtype",
        [](py::handle d) { SetDefaultFloatDType(ToDType(d, "set_default_dtype", "d")); });
}

const BindingRegistrar registrar(10, &BindOps);

}  // namespace

bool ConvertOpArg(const ArgSpec& a, py::handle obj, const char* op, Value* out, std::string* err) {
  if (a.type == ArgType::kTensor && !obj.is_none() && IsNumber(obj)) {
    *out = WrapNumber(obj, op, a.name.c_str());
    return true;
  }
  return Convert(a, obj, op, out, err);
}

py::object OpValueToPython(const Value& v) { return ValueToPython(v); }

}  // namespace oneflow
