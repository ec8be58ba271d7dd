// Autograd from Python: Tensor.grad/grad_fn/is_leaf/retain_grad/register_hook,
// backward and autograd.grad, grad mode, and nodes for autograd.Function.

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "core/framework/dispatch.h"
#include "core/framework/engine.h"
#include "core/framework/grad_mode.h"
#include "core/pybind/binding_registry.h"
#include "core/pybind/convert.h"
#include "core/runtime/error.h"
#include "core/runtime/tensor_ops.h"

namespace py = pybind11;

namespace oneflow {
namespace {

// A node whose backward is a Python autograd.Function's.
class PyFunctionNode final : public Node {
 public:
  PyFunctionNode(py::object ctx, py::object backward, std::string name)
      : ctx_(std::move(ctx)), backward_(std::move(backward)), name_(std::move(name)) {}

  TensorList Apply(TensorList&& grads) override {
    py::gil_scoped_acquire gil;
    OF_CHECK(
        ctx_, RuntimeError,
        "cannot backward through the graph a second time: the values it saved were freed by the "
        "first backward; pass retain_graph=True to that call to keep them (function: ",
        name_, ")");
    py::tuple args(grads.size() + 1);
    args[0] = ctx_;
    for (size_t i = 0; i < grads.size(); ++i) {
      TensorImplPtr g = grads[i];
      if (!g) g = Full(output_meta_[i].first, Scalar::Int(0), output_meta_[i].second, Device{});
      args[i + 1] = py::cast(g);
    }
    py::object result = backward_(*args);
    py::tuple results =
        py::isinstance<py::tuple>(result) ? result.cast<py::tuple>() : py::make_tuple(result);
    OF_CHECK(results.size() == input_is_tensor_.size(), RuntimeError, "function ", name_,
             "Backward returned an incorrect number of gradients (expected ",
             input_is_tensor_.size(), ", got ", results.size(), ")");
    TensorList out;
    for (size_t i = 0; i < results.size(); ++i) {
      if (!input_is_tensor_[i]) {
        OF_CHECK(results[i].is_none(), RuntimeError, "function ", name_,
                 "Backward returned a gradient different than None at position ", i + 1,
                 ", but the corresponding forward input was not a Tensor");
        continue;
      }
      out.push_back(results[i].is_none() ? nullptr : results[i].cast<TensorImplPtr>());
    }
    return out;
  }

  std::string name() const override { return name_ + "Backward"; }
  void ReleaseSaved() override {
    py::gil_scoped_acquire gil;
    if (ctx_ && py::hasattr(ctx_, "_release")) ctx_.attr("_release")();
  }

  std::vector<bool> input_is_tensor_;
  std::vector<std::pair<DimVector, DType>> output_meta_;

 private:
  py::object ctx_;
  py::object backward_;
  std::string name_;
};

TensorList ToTensorList(py::handle seq) {
  TensorList out;
  for (py::handle h : seq) out.push_back(h.is_none() ? nullptr : h.cast<TensorImplPtr>());
  return out;
}

// Seeds: ones for scalar roots when no gradient is given.
TensorList Seeds(const TensorList& roots, const TensorList& given) {
  TensorList out;
  for (size_t i = 0; i < roots.size(); ++i) {
    if (i < given.size() && given[i]) {
      out.push_back(given[i]);
      continue;
    }
    OF_CHECK(roots[i]->numel() == 1, RuntimeError,
             "backward: a gradient must be given for a non-scalar output (one of shape ",
             ShapeToString(roots[i]->shape()), "); it is implied only for scalar outputs");
    out.push_back(Full(roots[i]->shape(), Scalar::Int(1), roots[i]->dtype(), roots[i]->device()));
  }
  return out;
}

void BindAutograd(py::module_& m) {
  py::class_<Node, std::shared_ptr<Node>>(m, "Node",
                                          "A node of the autograd graph (Tensor.grad_fn).")
      .def("name", &Node::name)
      .def_property_readonly(
          "next_functions",
          [](const Node& n) {
            py::list out;
            for (const Edge& e : n.next_edges()) {
              out.append(py::make_tuple(e.fn ? py::cast(e.fn) : py::none(), e.input_nr));
            }
            return py::tuple(out);
          })
      .def_property_readonly(
          "variable",
          [](const Node& n) -> py::object {
            // As torch's AccumulateGrad.variable: the leaf a gradient-accumulator node feeds
            // (DistributedDataParallel finds the parameters a forward used this way).
            const auto* acc = dynamic_cast<const AccumulateGrad*>(&n);
            if (!acc)
              throw py::attribute_error("'" + n.name() + "' object has no attribute 'variable'");
            TensorImplPtr leaf = acc->leaf();
            return leaf ? py::cast(leaf) : py::none();
          })
      .def("__repr__", [](const Node& n) {
        return "<" + n.name() + " object at " + std::to_string(reinterpret_cast<uintptr_t>(&n)) +
               ">";
      });

  py::object tensor = m.attr("Tensor");
  auto cls = py::reinterpret_borrow<py::class_<TensorImpl, TensorImplPtr>>(tensor);
  cls.def_property(
         "grad",
         [](const TensorImplPtr& t) -> py::object {
           const AutogradMeta* meta = t->autograd_if_any();
           if (!meta || !meta->grad) return py::none();
           return py::cast(meta->grad);
         },
         [](const TensorImplPtr& t, py::object g) {
           if (g.is_none()) {
             if (t->autograd_if_any()) t->autograd().grad.reset();
             return;
           }
           TensorImplPtr grad = g.cast<TensorImplPtr>();
           OF_CHECK(grad->shape() == t->shape(), RuntimeError,
                    "assigned grad has data of a different size: ", ShapeToString(grad->shape()),
                    " vs ", ShapeToString(t->shape()));
           OF_CHECK(grad->dtype() == t->dtype(), RuntimeError,
                    "assigned grad has data of a different type: oneflow.",
                    DTypeName(grad->dtype()), " vs oneflow.", DTypeName(t->dtype()));
           t->autograd().grad = grad;
         })
      .def_property_readonly("grad_fn",
                             [](const TensorImplPtr& t) -> py::object {
                               if (!t->grad_fn()) return py::none();
                               return py::cast(t->grad_fn());
                             })
      .def_property_readonly("is_leaf", &TensorImpl::is_leaf)
      .def_property_readonly("output_nr",
                             [](const TensorImplPtr& t) {
                               return t->autograd_if_any() ? t->autograd_if_any()->output_nr : 0;
                             })
      .def("retain_grad",
           [](const TensorImplPtr& t) {
             OF_CHECK(t->requires_grad(), RuntimeError,
                      "can't retain_grad on Tensor that has requires_grad=False");
             if (t->is_leaf()) return;
             AutogradMeta& meta = t->autograd();
             meta.retains_grad = true;
             meta.grad_fn->AddRetainGrad(meta.output_nr, t);
           })
      .def_property_readonly("retains_grad",
                             [](const TensorImplPtr& t) {
                               return t->autograd_if_any() && t->autograd_if_any()->retains_grad;
                             })
      .def("_register_hook", [](const TensorImplPtr& t, py::function fn) {
        OF_CHECK(t->requires_grad(), RuntimeError,
                 "cannot register a hook on a tensor that doesn't require gradient");
        auto hook = [fn](const TensorImplPtr& g) -> TensorImplPtr {
          py::gil_scoped_acquire gil;
          py::object r = fn(py::cast(g));
          return r.is_none() ? nullptr : r.cast<TensorImplPtr>();
        };
        if (t->is_leaf()) {
          t->autograd().hooks.push_back(hook);
        } else {
          t->grad_fn()->AddOutputHook(t->autograd().output_nr, hook);
        }
      });

  m.def("_run_backward",
        [](py::sequence tensors, py::sequence grads, bool keep_graph, bool create_graph) {
          TensorList roots = ToTensorList(tensors);
          TensorList seeds = Seeds(roots, ToTensorList(grads));
          // The graph runs without the GIL, as torch's engine does: hooks and Function nodes
          // take it back, and other Python threads (DistributedDataParallel's all-reduce
          // worker) run alongside the C++ backward.
          py::gil_scoped_release nogil;
          RunBackward(roots, seeds, keep_graph, create_graph);
        });
  m.def("_run_grad", [](py::sequence outputs, py::sequence inputs, py::sequence grads,
                        bool keep_graph, bool create_graph, bool allow_unused) {
    TensorList roots = ToTensorList(outputs);
    TensorList seeds = Seeds(roots, ToTensorList(grads));
    TensorList wrt = ToTensorList(inputs);
    TensorList result;
    {
      py::gil_scoped_release nogil;  // as in _run_backward
      result = RunBackward(roots, seeds, keep_graph, create_graph, wrt, allow_unused);
    }
    py::tuple out(result.size());
    for (size_t i = 0; i < result.size(); ++i) {
      out[i] = result[i] ? py::cast(result[i]) : py::none();
    }
    return out;
  });
  // fn(node_name, grads) raises on a bad gradient; None turns anomaly detection off. The Python
  // callable is leaked on purpose: the check may outlive the interpreter's teardown.
  m.def("_set_anomaly_check", [](py::object fn) {
    if (fn.is_none()) {
      SetAnomalyCheck(nullptr);
      return;
    }
    auto* held = new py::object(std::move(fn));
    SetAnomalyCheck([held](const Node& node, const TensorList& grads) {
      py::gil_scoped_acquire gil;
      py::list values;
      for (const auto& g : grads) values.append(g ? py::cast(g) : py::none());
      (*held)(node.name(), values);
    });
  });
  m.def("is_grad_enabled", &GradMode::is_enabled);
  m.def("_set_grad_enabled", &GradMode::set_enabled);

  // autograd.Function: connects `outputs` to a node running `backward(ctx, *grads)`.
  m.def("_attach_function_node",
        [](py::object ctx, py::object backward, std::string name, py::sequence inputs,
           py::sequence outputs, py::sequence non_differentiable) {
          auto node = std::make_shared<PyFunctionNode>(ctx, backward, name);
          for (py::handle in : inputs) {
            bool is_tensor = py::isinstance<TensorImpl>(in);
            node->input_is_tensor_.push_back(is_tensor);
            if (is_tensor)
              node->mutable_next_edges().push_back(GradientEdge(in.cast<TensorImplPtr>()));
          }
          std::vector<TensorImplPtr> outs = ToTensorList(outputs);
          node->set_num_outputs(static_cast<uint32_t>(outs.size()));
          std::vector<TensorImplPtr> nondiff = ToTensorList(non_differentiable);
          for (size_t i = 0; i < outs.size(); ++i) {
            node->output_meta_.emplace_back(outs[i]->shape(), outs[i]->dtype());
            bool skip = !IsFloatingPoint(outs[i]->dtype());
            for (const auto& nd : nondiff) skip = skip || nd == outs[i];
            if (!skip) SetHistory(outs[i], node, static_cast<uint32_t>(i));
          }
        });
}

const BindingRegistrar registrar(20, &BindAutograd);

}  // namespace
}  // namespace oneflow
