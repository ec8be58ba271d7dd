"""OneFlow's module paths (issue 15): oneflow.nn.modules.utils, oneflow.framework, oneflow.jit,
oneflow.cuda and oneflow.backends, on a build without CUDA."""

import importlib

import pytest
import torch
import torch.nn.modules.utils as torch_utils

import oneflow as flow


@pytest.mark.parametrize(
    "path",
    [
        "oneflow.nn.modules.utils",
        "oneflow.nn.module",
        "oneflow.framework",
        "oneflow.framework.tensor",
        "oneflow.framework.check_point_v2",
        "oneflow.jit",
        "oneflow.cuda",
        "oneflow.backends",
        "oneflow.backends.cudnn",
        "oneflow.backends.cuda",
        "oneflow.backends.mps",
        "oneflow.utils.tensor",
    ],
)
def test_module_path_imports(path):
    module = importlib.import_module(path)
    parent, _, leaf = path.rpartition(".")
    assert getattr(importlib.import_module(parent), leaf) is module


def test_nn_module_path_names_the_layer_base_class():
    from oneflow.nn.module import Module

    assert Module is flow.nn.Module


@pytest.mark.parametrize("name", ["_single", "_pair", "_triple", "_quadruple"])
@pytest.mark.parametrize("value", [3, 2.5, (1, 2), [4, 5, 6], range(2), "ab", None])
def test_ntuple_parsers_match_torch(name, value):
    from oneflow.nn.modules import utils

    assert getattr(utils, name)(value) == getattr(torch_utils, name)(value)


def test_ntuple_and_helpers_match_torch():
    from oneflow.nn.modules import utils

    assert utils._ntuple(5)(7) == torch_utils._ntuple(5)(7) == (7,) * 5
    assert utils._reverse_repeat_tuple((1, 2, 3), 2) == torch_utils._reverse_repeat_tuple((1, 2, 3), 2)
    assert utils._list_with_default([None, 4], [1, 2, 3, 5]) == torch_utils._list_with_default([None, 4], [1, 2, 3, 5])
    with pytest.raises(TypeError, match="_ntuple.*'n'"):
        utils._ntuple("2")


def test_nn_modules_utils_reexports_nothing():
    from oneflow.nn.modules import utils

    assert utils.__all__ == []
    assert not hasattr(flow.nn, "_pair") and not hasattr(flow.nn, "_ntuple")


def test_framework_tensor_and_register_tensor_op():
    from oneflow.framework.tensor import Tensor, register_tensor_op

    assert Tensor is flow.Tensor

    @register_tensor_op("_issue15_twice")
    def twice(self):
        return self * 2

    try:
        assert flow.ones(2)._issue15_twice().tolist() == [2.0, 2.0]
    finally:
        del flow.Tensor._issue15_twice
    with pytest.raises(TypeError, match="register_tensor_op.*op_name"):
        register_tensor_op(3)
    with pytest.raises(TypeError, match="register_tensor_op"):
        register_tensor_op("x")(42)


def test_check_point_v2(tmp_path):
    from oneflow.framework import check_point_v2

    assert check_point_v2.save is flow.save and check_point_v2.load is flow.load
    obj = {"a": [1, 2]}
    assert check_point_v2._broadcast_py_object(obj, 0) is obj
    with pytest.raises(TypeError, match="'src'"):
        check_point_v2._broadcast_py_object(obj, "0")


def test_jit_decorators_pass_through():
    def f(x):
        return x + 1

    m = flow.nn.Linear(2, 2)
    assert flow.jit.script(m) is m and flow.jit.script(f) is f
    assert flow.jit.ignore(f) is f and flow.jit.ignore(drop=True)(f) is f
    assert flow.jit.unused(f) is f and flow.jit.export(f) is f and flow.jit.interface(f) is f
    assert flow.jit.is_scripting() is False and flow.jit.is_tracing() is False
    assert flow.jit.Final[int] is not None

    class M(flow.nn.Module):
        @flow.jit.ignore
        def helper(self, x):
            return x * 3

        @flow.jit.unused
        def other(self, x):
            return x

        def forward(self, x):
            return self.helper(x)

    assert flow.jit.script(M())(flow.ones(1)).tolist() == [3.0]
    with pytest.raises(NotImplementedError, match="nn.Graph"):
        flow.jit.trace(f, flow.ones(1))
    with pytest.raises(TypeError, match="ignore.*'drop'"):
        flow.jit.ignore(drop="yes")
    with pytest.raises(TypeError, match="unused"):
        flow.jit.unused(3)


def test_cuda_without_cuda(monkeypatch):
    assert flow.cuda.is_available() is False
    assert flow.cuda.device_count() == 0
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    assert flow.cuda.current_device() == 0
    monkeypatch.setenv("LOCAL_RANK", "3")  # OneFlow: the local rank, not a selected device
    assert flow.cuda.current_device() == 3
    state = flow.get_rng_state()
    flow.cuda.manual_seed(1)
    flow.cuda.manual_seed_all(2)  # silently ignored without CUDA: the CPU generator is untouched
    assert flow.get_rng_state().tolist() == state.tolist()
    flow.cuda.synchronize()
    flow.cuda.synchronize(0)
    flow.cuda.synchronize("cuda:0")
    flow.cuda.empty_cache()
    flow.cuda.set_device(-1)  # negative: a no-op, as in PyTorch
    with pytest.raises(RuntimeError, match="set_device.*cuda:0.*0 CUDA device"):
        flow.cuda.set_device(0)
    with pytest.raises(TypeError, match="set_device.*'device'"):
        flow.cuda.set_device(1.5)
    with pytest.raises(ValueError, match="synchronize.*cuda device"):
        flow.cuda.synchronize("cpu")
    with pytest.raises(TypeError, match="manual_seed.*'seed'"):
        flow.cuda.manual_seed("x")
    assert flow.cuda.is_available() == torch.cuda.is_available()  # both CPU-only builds here


def test_backends_flags():
    cudnn = flow.backends.cudnn
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (True, False, False)  # torch's defaults
    old = cudnn.benchmark
    try:
        cudnn.benchmark = True
        cudnn.deterministic = True
        import oneflow.backends.cudnn as again

        assert again.benchmark is True and again.deterministic is True
    finally:
        cudnn.benchmark, cudnn.deterministic = old, False
    assert cudnn.is_available() is False and cudnn.version() is None
    cudnn.set_reserved_mem_mbytes(1024)
    with pytest.raises(TypeError, match="set_reserved_mem_mbytes.*'mbytes'"):
        cudnn.set_reserved_mem_mbytes(-1)
    matmul = flow.backends.cuda.matmul
    assert matmul.allow_tf32 == torch.backends.cuda.matmul.allow_tf32 is False
    fp16 = "allow_fp16_reduced_precision_reduction"
    assert getattr(matmul, fp16) == getattr(torch.backends.cuda.matmul, fp16)
    matmul.allow_tf32 = True
    assert matmul.allow_tf32 is True
    matmul.allow_tf32 = False
    with pytest.raises(AttributeError, match="no flag 'allow_tf64'"):
        matmul.allow_tf64 = True
    with pytest.raises(TypeError, match="allow_tf32 must be bool"):
        matmul.allow_tf32 = 1
    assert flow.backends.mps.is_available() is False
