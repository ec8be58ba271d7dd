// oneflow.Tensor: the C++ TensorImpl exposed to Python: metadata, NumPy
// interop and the creation primitives. Op methods (view, add, ...) are added
// from the op registry (op_binding.cc); Python-level ones (repr, tolist,
// indexing) by oneflow/_tensor.py.

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <type_traits>

#include "core/framework/trace.h"
#include "core/framework/type_promotion.h"
#include "core/pybind/binding_registry.h"
#include "core/pybind/convert.h"
#include "core/runtime/error.h"
#include "core/runtime/tensor_ops.h"

namespace py = pybind11;

namespace oneflow {
namespace {

py::object& SizeType() {
  static auto* size_type = new py::object();  // oneflow.Size, set from Python
  return *size_type;
}

py::object MakeSize(const DimVector& shape) {
  py::tuple t(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) t[i] = py::int_(shape[i]);
  if (!SizeType()) return std::move(t);
  return SizeType()(t);
}

py::tuple MakeTuple(const DimVector& v) {
  py::tuple t(v.size());
  for (size_t i = 0; i < v.size(); ++i) t[i] = py::int_(v[i]);
  return t;
}

const char* NumpyFormat(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "?";
    case DType::kUInt8:
      return "B";
    case DType::kInt8:
      return "b";
    case DType::kInt16:
      return "h";
    case DType::kInt32:
      return "i";
    case DType::kInt64:
      return "q";
    case DType::kFloat16:
      return "e";
    case DType::kFloat32:
      return "f";
    case DType::kFloat64:
      return "d";
    case DType::kBFloat16:
      return nullptr;
  }
  return nullptr;
}

std::optional<DType> DTypeOfNumpy(const py::dtype& dt) {
  char kind = dt.kind();
  auto size = dt.itemsize();
  if (kind == 'b') return DType::kBool;
  if (kind == 'u' && size == 1) return DType::kUInt8;
  if (kind == 'i') {
    if (size == 1) return DType::kInt8;
    if (size == 2) return DType::kInt16;
    if (size == 4) return DType::kInt32;
    if (size == 8) return DType::kInt64;
  }
  if (kind == 'f') {
    if (size == 2) return DType::kFloat16;
    if (size == 4) return DType::kFloat32;
    if (size == 8) return DType::kFloat64;
  }
  return std::nullopt;
}

py::array ToNumpy(const TensorImplPtr& t_in) {
  CheckNotTracing("numpy()/tolist()");
  // OneFlow's numpy() copies a device tensor to the host (PyTorch asks for .cpu() first);
  // a CPU tensor shares its memory with the array.
  const TensorImplPtr t =
      t_in->device().type == DeviceType::kCPU ? t_in : ToDevice(t_in, Device{DeviceType::kCPU, -1});
  OF_CHECK(!t_in->requires_grad(), RuntimeError,
           "numpy(): the tensor requires grad; call tensor.detach().numpy() to get its values");
  const char* format = NumpyFormat(t->dtype());
  OF_CHECK(format != nullptr, TypeError, "numpy(): NumPy has no ", DTypeName(t->dtype()),
           " type; convert first, e.g. tensor.float().numpy()");
  std::vector<py::ssize_t> shape(t->shape().begin(), t->shape().end());
  std::vector<py::ssize_t> strides;
  for (int64_t s : t->stride()) strides.push_back(s * t->itemsize());
  // The array shares the memory and keeps the tensor (and so its storage)
  // alive through its base; while it lives, writes through it are invisible
  // to oneflow, so the storage counts as exported until the base dies.
  t->storage()->AddExport();
  py::capsule base(new TensorImplPtr(t), [](void* p) {
    auto* held = static_cast<TensorImplPtr*>(p);
    (*held)->storage()->ReleaseExport();
    delete held;
  });
  return py::array(py::dtype(format), shape, strides, t->data(), base);
}

TensorImplPtr FromNumpy(py::handle obj) {
  OF_CHECK(py::isinstance<py::array>(obj), TypeError, "from_numpy(): expected np.ndarray (got ",
           Py_TYPE(obj.ptr())->tp_name, ")");
  py::array arr = py::reinterpret_borrow<py::array>(obj);
  auto dtype = DTypeOfNumpy(arr.dtype());
  OF_CHECK(dtype.has_value(), TypeError, "can't convert np.ndarray of type ",
           py::str(arr.dtype()).cast<std::string>(),
           ". The only supported types are: float64, float32, float16, int64, int32, int16, int8, "
           "uint8, and bool.");
  OF_CHECK(arr.dtype().byteorder() != '>', ValueError,
           "from_numpy(): the array is big-endian; convert it with "
           "arr.astype(arr.dtype.newbyteorder('='))");
  const int64_t itemsize = ItemSize(*dtype);
  DimVector shape, stride;
  int64_t span = 1;  // elements from the first to one past the last
  bool empty = false;
  for (py::ssize_t i = 0; i < arr.ndim(); ++i) {
    int64_t bytes = arr.strides(i);
    OF_CHECK(bytes >= 0, ValueError,
             "from_numpy(): the array has a negative stride, which tensors do not support; pass "
             "a copy (array.copy())");
    OF_CHECK(bytes % itemsize == 0, ValueError,
             "from_numpy(): the array's strides are not multiples "
             "of its item size; pass a copy (array.copy())");
    shape.push_back(arr.shape(i));
    stride.push_back(bytes / itemsize);
    empty = empty || arr.shape(i) == 0;
    if (arr.shape(i) > 0) span += (arr.shape(i) - 1) * (bytes / itemsize);
  }
  if (empty) span = 0;
  if (!arr.writeable()) {
    // PyTorch shares the memory anyway and warns; so do we.
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "The given NumPy array is not writable, and oneflow does not support "
                     "non-writable tensors: writing to the tensor is undefined behavior. Copy the "
                     "array (arr.copy()) or make it writable before from_numpy.",
                     1) != 0) {
      throw py::error_already_set();
    }
  }
  py::object keep = py::reinterpret_borrow<py::object>(obj);
  auto* holder = new py::object(std::move(keep));
  auto storage = Storage::Wrap(const_cast<void*>(arr.data()), static_cast<size_t>(span * itemsize),
                               Device{}, [holder] {
                                 py::gil_scoped_acquire gil;
                                 delete holder;
                               });
  return TensorImpl::FromStorage(std::move(storage), 0, shape, stride, *dtype);
}

template <typename T>
py::object ScalarToPython(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(v));
  if constexpr (std::is_same_v<T, bool>) {
    return py::bool_(v);
  } else if constexpr (std::is_integral_v<T>) {
    return py::int_(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return py::float_(v);
  } else {
    return py::float_(static_cast<double>(static_cast<float>(v)));
  }
}

py::object Item(const TensorImplPtr& t) {
  CheckNotTracing("item() (or bool(), int(), float() of a tensor)");
  OF_CHECK(t->numel() == 1, RuntimeError, "a Tensor with ", t->numel(),
           " elements cannot be converted to Scalar");
  const TensorImplPtr h =
      t->device().type == DeviceType::kCPU ? t : ToDevice(t, Device{DeviceType::kCPU, -1});
  return DispatchDType(h->dtype(), [&](auto tag) {
    return ScalarToPython<typename decltype(tag)::type>(h->data());
  });
}

// oneflow.Tensor(...): PyTorch's legacy constructor forms, and the way Python
// subclasses (nn.Parameter) wrap a tensor with `super().__init__(tensor)`.
//   Tensor()          -> an empty float tensor
//   Tensor(tensor)    -> a new tensor object sharing tensor's memory (no history)
//   Tensor(*sizes)    -> uninitialized memory of that shape (also one oneflow.Size)
//   Tensor(sequence)  -> a copy of the data (a list, tuple or NumPy array)
// Made from sizes or data, the dtype is the default floating dtype, as
// torch.Tensor's is.
TensorImplPtr ConstructTensor(const py::args& args, const py::kwargs& kwargs) {
  Device device{};
  for (auto item : kwargs) {
    std::string key = item.first.cast<std::string>();
    OF_CHECK(key == "device", TypeError, "Tensor(): got an unexpected keyword argument '", key,
             "'");
    if (!item.second.is_none()) device = ToDevice(item.second, "Tensor", "device");
  }
  const DType dtype = DefaultFloatDType();
  if (args.size() == 0) return TensorImpl::Empty(DimVector{0}, dtype, device);
  if (args.size() == 1 && py::isinstance<TensorImpl>(args[0])) {
    // Any dtype: subclasses wrap the tensor they are given as it is.
    TensorImplPtr t = args[0].cast<TensorImplPtr>();
    TensorImplPtr wrapped = t->Detach();
    NoteAlias(t, wrapped);
    return wrapped;
  }
  bool sizes = true;  // ints (or one oneflow.Size) rather than data
  if (args.size() == 1) {
    py::handle a = args[0];
    bool is_size = SizeType() && py::isinstance(a, SizeType());
    bool is_int = PyIndex_Check(a.ptr()) && !PyBool_Check(a.ptr()) && !py::isinstance<py::array>(a);
    sizes = is_size || is_int;
  }
  if (sizes) {
    DimVector shape;
    if (args.size() == 1 && SizeType() && py::isinstance(args[0], SizeType())) {
      shape = ToIntList(py::handle(args[0]), "Tensor", "size");
    } else {
      for (size_t i = 0; i < args.size(); ++i) {
        py::handle a = args[i];
        OF_CHECK(PyIndex_Check(a.ptr()) && !PyBool_Check(a.ptr()), TypeError,
                 "Tensor(): expected sizes as ints, a sequence of data or a tensor, but got ",
                 Py_TYPE(a.ptr())->tp_name, " at position ", i);
        shape.push_back(ToInt(a, "Tensor", "size"));
      }
    }
    return TensorImpl::Empty(shape, dtype, device);
  }
  py::handle data = args[0];
  OF_CHECK((PySequence_Check(data.ptr()) && !py::isinstance<py::str>(data) &&
            !py::isinstance<py::bytes>(data)) ||
               py::isinstance<py::array>(data),
           TypeError, "Tensor(): data must be a sequence (got ", Py_TYPE(data.ptr())->tp_name, ")");
  py::object made = py::module_::import("oneflow").attr("tensor")(
      data, py::arg("dtype") = DTypeObject(dtype), py::arg("device") = py::cast(device));
  // A fresh object of our own: the temporary's Python wrapper must not be shared.
  return made.cast<TensorImplPtr>()->Detach();
}

void SetData(const TensorImplPtr& t, py::handle value) {
  OF_CHECK(py::isinstance<TensorImpl>(value), TypeError,
           "Tensor.data must be set to a Tensor, not ", Py_TYPE(value.ptr())->tp_name);
  TensorImplPtr src = value.cast<TensorImplPtr>();
  OF_CHECK(!t->requires_grad() || IsFloatingPoint(src->dtype()), RuntimeError,
           "data set to a tensor that requires gradients must be floating point, got ",
           DTypeName(src->dtype()));
  t->SetData(*src);
}

void BindTensor(py::module_& m) {
  py::class_<TensorImpl, TensorImplPtr> cls(m, "Tensor", py::dynamic_attr());
  cls.doc() = "A multi-dimensional array of one dtype on one device (see oneflow.tensor).";
  cls.def(py::init(&ConstructTensor),
          R"doc(Tensor(*sizes) / Tensor(sequence) / Tensor(tensor) / Tensor()

PyTorch's legacy constructor: uninitialized memory of the given sizes, a copy of
``sequence``, or a new tensor object sharing ``tensor``'s memory, all of the
default floating dtype. Subclasses call ``super().__init__(tensor)``.)doc");
  cls.def_property(
         "data",
         [](const TensorImplPtr& t) {
           TensorImplPtr d = t->DetachUntracked();
           NoteAlias(t, d);
           return d;
         },
         &SetData,
         R"doc(The tensor's values without autograd history: an alias whose in-place changes
autograd does not track (unlike detach()). Setting it replaces the values, shape and
dtype in place while keeping the tensor object.)doc")
      .def("set_data", &SetData, py::arg("data"),
           R"doc(set_data(data) -> None

Makes this tensor show ``data``'s memory, shape and dtype (``tensor.data = data``).)doc");
  cls.def_property_readonly("shape", [](const TensorImplPtr& t) { return MakeSize(t->shape()); })
      .def(
          "size",
          [](const TensorImplPtr& t, py::object dim) -> py::object {
            if (dim.is_none()) return MakeSize(t->shape());
            if (t->ndim() == 0)
              OF_THROW(IndexError, "size(): dimension specified as ", ToInt(dim, "size", "dim"),
                       " but tensor has no dimensions");
            return py::int_(t->shape()[WrapDim(ToInt(dim, "size", "dim"), t->ndim())]);
          },
          py::arg("dim") = py::none(),
          R"doc(size(dim=None) -> oneflow.Size or int

The shape of the tensor, or the size of dimension ``dim``.)doc")
      .def(
          "stride",
          [](const TensorImplPtr& t, py::object dim) -> py::object {
            if (dim.is_none()) return MakeTuple(t->stride());
            if (t->ndim() == 0)
              OF_THROW(IndexError, "stride(): dimension specified as ", ToInt(dim, "stride", "dim"),
                       " but tensor has no dimensions");
            return py::int_(t->stride()[WrapDim(ToInt(dim, "stride", "dim"), t->ndim())]);
          },
          py::arg("dim") = py::none(),
          R"doc(stride(dim=None) -> tuple or int

Elements to skip in memory to step once along each dimension (or along ``dim``).)doc")
      .def_property_readonly("dtype",
                             [](const TensorImplPtr& t) { return DTypeObject(t->dtype()); })
      .def_property_readonly("device", [](const TensorImplPtr& t) { return t->device(); })
      .def_property_readonly(
          "is_cuda", [](const TensorImplPtr& t) { return t->device().type == DeviceType::kCUDA; })
      .def_property_readonly("ndim", &TensorImpl::ndim)
      .def("dim", &TensorImpl::ndim,
           R"doc(dim() -> int

The number of dimensions.)doc")
      .def("numel", &TensorImpl::numel,
           R"doc(numel() -> int

The number of elements.)doc")
      .def("nelement", &TensorImpl::numel,
           R"doc(nelement() -> int

Alias of numel().)doc")
      .def("element_size", &TensorImpl::itemsize,
           R"doc(element_size() -> int

Bytes per element.)doc")
      .def(
          "is_contiguous",
          [](const TensorImplPtr& t, py::handle format) {
            if (format.is_none()) return t->is_contiguous();
            return IsContiguousAs(
                t->shape(), t->stride(),
                ToMemoryFormat(ToInt(format, "is_contiguous", "memory_format"), "is_contiguous"));
          },
          py::arg("memory_format") = py::none(),
          R"doc(is_contiguous(memory_format=oneflow.contiguous_format) -> bool

True when the elements are laid out in row-major order without gaps (or, for
``memory_format=oneflow.channels_last``, in NHWC order: strides (HWC, 1, WC, C);
the strides of size-1 dims do not matter).)doc")
      .def(
          "_suggest_memory_format",
          [](const TensorImplPtr& t) {
            return static_cast<int64_t>(SuggestMemoryFormat(t->shape(), t->stride()));
          },
          R"doc(_suggest_memory_format() -> int

The code of the memory format the strides look like (PyTorch's suggest_memory_format:
channels_last[_3d] or contiguous).)doc")
      .def(
          "data_ptr",
          [](const TensorImplPtr& t) {
            t->storage()->MarkExternal();  // raw writes through it are invisible to oneflow
            return reinterpret_cast<uintptr_t>(t->data());
          },
          R"doc(data_ptr() -> int

Address of the first element.)doc")
      .def(
          "_data_ptr_read",
          [](const TensorImplPtr& t) { return reinterpret_cast<uintptr_t>(t->data()); },
          R"doc(_data_ptr_read() -> int

The address of the first element, for reading only (or for filling a tensor
nothing has used yet): unlike data_ptr(), the storage stays eligible for
caches of derived data such as packed GEMM weights.)doc")
      .def("storage_offset", &TensorImpl::storage_offset,
           R"doc(storage_offset() -> int

Offset of the first element in the underlying storage, in elements.)doc")
      .def("_storage_ptr",
           [](const TensorImplPtr& t) { return reinterpret_cast<uintptr_t>(t->storage()->data()); })
      .def_property_readonly("_version", &TensorImpl::version)
      .def_property("requires_grad", &TensorImpl::requires_grad, &TensorImpl::set_requires_grad)
      .def(
          "requires_grad_",
          [](const TensorImplPtr& t, bool r) {
            t->set_requires_grad(r);
            return t;
          },
          py::arg("requires_grad") = true,
          R"doc(requires_grad_(requires_grad=True) -> Tensor

Sets requires_grad in place (floating point dtypes only) and returns self.)doc")
      .def(
          "detach",
          [](const TensorImplPtr& t) {
            TensorImplPtr d = t->Detach();
            NoteAlias(t, d);
            return d;
          },
          R"doc(detach() -> Tensor

A view of the same data that does not require grad.)doc")
      .def("numpy", &ToNumpy,
           R"doc(numpy() -> numpy.ndarray

A NumPy array sharing this CPU tensor's memory.)doc")
      .def("item", &Item,
           R"doc(item() -> number

The value of a one-element tensor as a Python bool, int or float.)doc");

  m.def("_set_size_type", [](py::object t) { SizeType() = std::move(t); });
  m.def("from_numpy", &FromNumpy, py::arg("ndarray"));
  // memory_format: None or a oneflow.memory_format (an int code, see MemoryFormat).
  auto format_of = [](py::handle format, MemoryFormat fallback, const char* op) {
    if (format.is_none()) return fallback;
    return ToMemoryFormat(ToInt(format, op, "memory_format"), op);
  };
  m.def(
      "empty",
      [format_of](py::handle shape, py::handle dtype, py::handle device, py::handle format) {
        DimVector sizes = ToIntList(shape, "empty", "size");
        MemoryFormat f = format_of(format, MemoryFormat::kContiguous, "empty");
        OF_CHECK(f != MemoryFormat::kPreserve, RuntimeError,
                 "empty(): preserve memory format is unsupported by empty");
        return TensorImpl::EmptyStrided(sizes, MemoryFormatStrides(sizes, f),
                                        ToDType(dtype, "empty", "dtype"),
                                        ToDevice(device, "empty", "device"));
      },
      py::arg("shape"), py::arg("dtype"), py::arg("device"), py::arg("memory_format") = py::none());
  m.def(
      "empty_like",
      [format_of](const TensorImplPtr& t, py::handle dtype, py::handle device, py::handle format) {
        return EmptyAs(t, format_of(format, MemoryFormat::kPreserve, "empty_like"),
                       ToDType(dtype, "empty_like", "dtype"),
                       ToDevice(device, "empty_like", "device"));
      },
      py::arg("input"), py::arg("dtype"), py::arg("device"), py::arg("memory_format") = py::none());
  m.def(
      "full_like",
      [format_of](const TensorImplPtr& t, py::handle value, py::handle dtype, py::handle device,
                  py::handle format) {
        auto out =
            EmptyAs(t, format_of(format, MemoryFormat::kPreserve, "full_like"),
                    ToDType(dtype, "full_like", "dtype"), ToDevice(device, "full_like", "device"));
        Fill(out, ToScalar(value, "full_like", "fill_value"));
        return out;
      },
      py::arg("input"), py::arg("fill_value"), py::arg("dtype"), py::arg("device"),
      py::arg("memory_format") = py::none());
  m.def("full", [](py::handle shape, py::handle value, py::handle dtype, py::handle device) {
    return Full(ToIntList(shape, "full", "size"), ToScalar(value, "full", "fill_value"),
                ToDType(dtype, "full", "dtype"), ToDevice(device, "full", "device"));
  });
  m.def("arange",
        [](py::handle start, py::handle end, py::handle step, py::handle dtype, py::handle device) {
          return Arange(ToScalar(start, "arange", "start"), ToScalar(end, "arange", "end"),
                        ToScalar(step, "arange", "step"), ToDType(dtype, "arange", "dtype"),
                        ToDevice(device, "arange", "device"));
        });
  m.def("linspace", [](double start, double end, py::handle steps, py::handle dtype,
                       py::handle device) {
    return Linspace(start, end, ToInt(steps, "linspace", "steps"),
                    ToDType(dtype, "linspace", "dtype"), ToDevice(device, "linspace", "device"));
  });
  m.def("eye", [](py::handle n, py::handle m_, py::handle dtype, py::handle device) {
    std::optional<int64_t> cols;
    if (!m_.is_none()) cols = ToInt(m_, "eye", "m");
    return Eye(ToInt(n, "eye", "n"), cols, ToDType(dtype, "eye", "dtype"),
               ToDevice(device, "eye", "device"));
  });
}

const BindingRegistrar registrar(1, &BindTensor);

}  // namespace
}  // namespace oneflow
