"""oneflow.nn.Module, Parameter and the containers, against PyTorch.

Each test builds the same structure with ``m = oneflow`` and ``m = torch`` and
compares what both report: registration order, state_dict keys, reprs (with
``torch.`` read as ``oneflow.``), load_state_dict errors, hook order, gradients.
"""

import copy
import pickle
import re
from collections import OrderedDict

import numpy as np
import pytest
import torch

import oneflow as flow


def both(fn):
    return fn(flow), fn(torch)


def as_flow_text(text: str) -> str:
    """torch's text in oneflow's words."""
    return text.replace("torch.", "oneflow.")


def strip_default_dtype(text: str) -> str:
    # Our tensor repr names float32 where torch leaves it implied.
    return text.replace(", dtype=oneflow.float32", "")


def np_of(t):
    return t.detach().numpy()


class Block:
    """Defines the same custom modules for either framework."""

    @staticmethod
    def make(m):
        nn = m.nn

        class Inner(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(m.ones(2, 3))
                self.register_buffer("running", m.zeros(3))
                self.register_buffer("scratch", m.zeros(1), persistent=False)
                self.fc = nn.Linear(3, 2)
                self.none_param = None
                self.register_parameter("maybe", None)

            def forward(self, x):
                return self.fc(x * self.w.sum(0)) + self.running.sum()

            def extra_repr(self):
                return "width=3,\nheight=2"

        class Outer(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Inner()
                self.seq = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 2))
                self.bias = nn.Parameter(m.zeros(2))
                self.shared = self.seq[0]

            def forward(self, x):
                return self.seq(self.inner(x)) + self.bias

        return Outer()


def copy_weights(src_torch, dst_flow):
    dst_flow.load_state_dict({k: v.numpy() for k, v in src_torch.state_dict().items()})


# ---- Parameter ----------------------------------------------------------------------------


def test_parameter_is_a_tensor_sharing_memory():
    t = flow.ones(2, 3)
    p = flow.nn.Parameter(t)
    assert isinstance(p, flow.Tensor) and isinstance(p, flow.nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert p.data_ptr() == t.data_ptr()
    with flow.no_grad():
        t.add_(1)
    assert p.tolist() == [[2.0] * 3] * 2
    assert not flow.nn.Parameter(t, requires_grad=False).requires_grad
    assert tuple(flow.nn.Parameter().shape) == tuple(torch.nn.Parameter().shape) == (0,)


def test_parameter_of_integers_needs_requires_grad_false():
    with pytest.raises(RuntimeError):
        torch.nn.Parameter(torch.tensor([1, 2]))
    with pytest.raises(RuntimeError):
        flow.nn.Parameter(flow.tensor([1, 2]))
    p = flow.nn.Parameter(flow.tensor([1, 2]), requires_grad=False)
    assert p.dtype == flow.int64 and not p.requires_grad


def test_parameter_inplace_ops_return_the_parameter_itself():
    p = flow.nn.Parameter(flow.ones(3))
    with flow.no_grad():
        assert p.add_(1) is p
        assert p.mul_(2) is p
        assert p.zero_() is p
    out = p * 2
    assert type(out) is flow.Tensor and type(p.detach()) is flow.Tensor and type(p.data) is flow.Tensor


def test_parameter_repr():
    def run(m):
        return str(m.nn.Parameter(m.tensor([[1.0, 2.0], [3.0, 4.5]]))), repr(m.nn.Parameter(m.zeros(2), False))

    ours, theirs = both(run)
    assert [strip_default_dtype(o) for o in ours] == [as_flow_text(t) for t in theirs]
    assert ours[0].startswith("Parameter containing:\ntensor(")


def test_parameter_deepcopy_and_pickle():
    p = flow.nn.Parameter(flow.tensor([1.0, 2.0]))
    p.custom = "tag"
    q = copy.deepcopy(p)
    assert type(q) is flow.nn.Parameter and q.requires_grad and q.data_ptr() != p.data_ptr()
    assert q.tolist() == [1.0, 2.0]
    memo = {}
    assert copy.deepcopy([p, p], memo)[0] is memo[id(p)]
    r = pickle.loads(pickle.dumps(flow.nn.Parameter(flow.tensor([3.0]), requires_grad=False)))
    assert type(r) is flow.nn.Parameter and not r.requires_grad and r.tolist() == [3.0]
    assert pickle.loads(pickle.dumps(p)).custom == "tag"


def test_parameter_data_setter_keeps_identity():
    p = flow.nn.Parameter(flow.ones(2))
    before = id(p)
    p.data = flow.zeros(3, 4, dtype=flow.float64)
    assert id(p) == before and tuple(p.shape) == (3, 4) and p.dtype == flow.float64 and p.requires_grad
    (p * 2).sum().backward()
    assert p.grad.dtype == flow.float64 and tuple(p.grad.shape) == (3, 4)


# ---- registration and attribute routing ---------------------------------------------------


def test_named_members_and_state_dict_keys_match_torch():
    def run(m):
        net = Block.make(m)
        return (
            [n for n, _ in net.named_parameters()],
            [n for n, _ in net.named_parameters(remove_duplicate=False)],
            [n for n, _ in net.named_parameters(prefix="model", recurse=False)],
            [n for n, _ in net.named_buffers()],
            [n for n, _ in net.named_children()],
            [n for n, _ in net.named_modules()],
            [n for n, _ in net.named_modules(remove_duplicate=False)],
            [n for n, _ in net.named_modules(prefix="root")],
            list(net.state_dict().keys()),
            list(net.state_dict(prefix="p.").keys()),
            dict(net.state_dict()._metadata),
            len(list(net.parameters())),
            len(list(net.buffers(recurse=False))),
            len(list(net.modules())),
            len(list(net.children())),
        )

    ours, theirs = both(run)
    assert ours == theirs


def test_setattr_routing_and_deletion():
    def run(m):
        net = m.nn.Module()
        net.a = m.nn.Parameter(m.ones(1))
        net.b = m.nn.Linear(1, 1)
        net.register_buffer("c", m.ones(1))
        net.plain = 3
        out = [sorted(net._parameters), sorted(net._modules), sorted(net._buffers), "plain" in net.__dict__]
        net.a = None  # stays a registered (None) parameter
        net.c = m.zeros(2)  # a registered buffer takes any tensor
        net.b = None
        out += [net.a, net.b, list(net._parameters), tuple(net.c.shape)]
        net.b = m.nn.Parameter(m.ones(2))  # a parameter replaces the module
        out += [sorted(net._modules), sorted(net._parameters)]
        del net.b
        del net.c
        del net.plain
        out += [sorted(net._parameters), sorted(net._buffers), hasattr(net, "plain")]
        net.buf = m.nn.Buffer(m.ones(2), persistent=False)
        out += [list(net._buffers), sorted(net._non_persistent_buffers_set), list(net.state_dict())]
        return out

    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.parametrize(
    "action",
    [
        lambda m, net: net.register_parameter("x.y", None),
        lambda m, net: net.register_parameter("", None),
        lambda m, net: net.register_parameter(3, None),
        lambda m, net: net.register_parameter("fc", None),
        lambda m, net: net.register_parameter("t", m.ones(1)),
        lambda m, net: net.register_buffer("a.b", None),
        lambda m, net: net.register_buffer("b", 3),
        lambda m, net: net.register_buffer("fc", m.ones(1)),
        lambda m, net: net.add_module("x.y", m.nn.ReLU()),
        lambda m, net: net.add_module("", m.nn.ReLU()),
        lambda m, net: net.add_module("r", 3),
        lambda m, net: setattr(net, "p", m.ones(1)),
        lambda m, net: setattr(net, "fc", 3),
        lambda m, net: setattr(net, "buf", 3),
        lambda m, net: net.get_submodule("fc.nope"),
        lambda m, net: net.get_submodule("p"),
        lambda m, net: net.get_parameter("fc.nope"),
        lambda m, net: net.get_parameter("buf"),
        lambda m, net: net.get_buffer("p"),
        lambda m, net: net.missing,
        lambda m, net: net.train("yes"),
        lambda m, net: net.to(m.int64),
        lambda m, net: net(1),
        lambda m, net: m.nn.Module(3),
        lambda m, net: m.nn.Module(x=3),
    ],
)
def test_registration_errors_have_torch_types(action):
    def run(m):
        net = m.nn.Module()
        net.fc = m.nn.Linear(1, 1)
        net.p = m.nn.Parameter(m.ones(1))
        net.register_buffer("buf", m.ones(1))
        try:
            action(m, net)
        except Exception as e:  # the type is compared below
            return type(e)
        return None

    ours, theirs = both(run)
    assert theirs is not None and ours is theirs


def test_setattr_before_init_raises_attribute_error():
    class Bad(flow.nn.Module):
        def __init__(self):
            self.p = flow.nn.Parameter(flow.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Bad()


def test_get_submodule_and_parameter():
    def run(m):
        net = Block.make(m)
        return (
            net.get_submodule("inner.fc") is net.inner.fc,
            net.get_submodule("") is net,
            net.get_parameter("inner.fc.weight") is net.inner.fc.weight,
            net.get_parameter("bias") is net.bias,
            net.get_buffer("inner.running") is net.inner.running,
            tuple(net.get_parameter("seq.2.weight").shape),
        )

    ours, theirs = both(run)
    assert ours == theirs


def test_set_submodule():
    def run(m):
        net = Block.make(m)
        net.set_submodule("seq.1", m.nn.Tanh())
        return type(net.seq[1]).__name__

    ours, theirs = both(run)
    assert ours == theirs == "Tanh"


def test_dir_lists_registered_members():
    net = Block.make(flow)
    names = dir(net)
    for name in ("inner", "seq", "bias", "forward", "training", "state_dict"):
        assert name in names
    assert "running" in dir(net.inner) and "0" not in dir(net.seq)
    assert names == sorted(names)


# ---- modes, apply, conversion -------------------------------------------------------------


def test_train_eval_apply_requires_grad_zero_grad():
    def run(m):
        net = Block.make(m)
        visited = []
        net.apply(lambda mod: visited.append(type(mod).__name__))
        net.eval()
        modes = [mod.training for mod in net.modules()]
        net.train()
        modes2 = [mod.training for mod in net.modules()]
        net.inner.train(False)
        modes3 = [mod.training for mod in net.modules()]
        net.requires_grad_(False)
        rg = [p.requires_grad for p in net.parameters()]
        net.requires_grad_()
        x = m.ones(4, 3)
        net(x).sum().backward()
        had = [p.grad is not None for p in net.parameters()]
        net.zero_grad(set_to_none=False)
        zeros = [float(p.grad.abs().sum()) for p in net.parameters()]
        net.zero_grad()
        none = [p.grad is None for p in net.parameters()]
        return visited, modes, modes2, modes3, rg, had, zeros, none

    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.parametrize("method", ["double", "half", "bfloat16", "float"])
def test_dtype_conversion_keeps_parameter_objects(method):
    def run(m):
        net = Block.make(m)
        net.register_buffer("count", m.tensor(3))
        ids = [id(p) for p in net.parameters()]
        net.float()
        x = m.ones(4, 3)
        net(x).sum().backward()
        out = getattr(net, method)()
        same = [id(p) for p in net.parameters()] == ids
        return (
            out is net,
            same,
            [str(p.dtype) for p in net.parameters()],
            [str(p.grad.dtype) for p in net.parameters()],
            [str(b.dtype) for b in net.buffers()],
        )

    ours, theirs = both(run)
    assert ours[:2] == theirs[:2] == (True, True)
    assert ours[2:] == tuple([as_flow_text(s) for s in lst] for lst in theirs[2:])


def test_to_forms():
    net = Block.make(flow)
    p = net.bias
    assert net.to(flow.float64) is net and p.dtype == flow.float64 and net.bias is p
    net.to("cpu", flow.float32)
    assert p.dtype == flow.float32
    net.to(flow.zeros(1, dtype=flow.float64))
    assert p.dtype == flow.float64
    net.to(dtype=flow.float32, device=flow.device("cpu"))
    assert p.dtype == flow.float32
    assert net.cpu() is net and net.share_memory() is net
    x = flow.ones(4, 3)
    assert net(x).dtype == flow.float32
    with pytest.raises(TypeError):
        net.to(flow.int32)


def test_cuda_without_a_gpu_raises():
    net = flow.nn.Linear(2, 2)
    with pytest.raises(RuntimeError):
        net.cuda()


def test_to_empty():
    net = flow.nn.Linear(2, 3).to_empty(device="cpu")
    assert tuple(net.weight.shape) == (3, 2) and isinstance(net.weight, flow.nn.Parameter)


# ---- state_dict / load_state_dict ---------------------------------------------------------


def test_state_dict_values_and_detach():
    net = Block.make(flow)
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert not sd["bias"].requires_grad and sd["bias"].data_ptr() == net.bias.data_ptr()
    assert net.state_dict(keep_vars=True)["bias"] is net.bias
    dest = OrderedDict()
    assert net.state_dict(destination=dest, prefix="x.") is dest and "x.bias" in dest


def test_load_state_dict_from_torch_numpy_reproduces_outputs():
    torch.manual_seed(0)
    theirs = Block.make(torch)
    ours = Block.make(flow)
    result = ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == repr(theirs.load_state_dict(theirs.state_dict())) == "<All keys matched successfully>"
    x = np.random.RandomState(0).randn(5, 3).astype(np.float32)
    np.testing.assert_allclose(np_of(ours(flow.tensor(x))), np_of(theirs(torch.tensor(x))), rtol=1e-5, atol=1e-6)
    # oneflow tensors load as well, and so does a torch tensor directly.
    ours.load_state_dict(ours.state_dict())
    ours.inner.fc.load_state_dict({"weight": theirs.inner.fc.weight, "bias": theirs.inner.fc.bias})
    np.testing.assert_array_equal(np_of(ours.inner.fc.weight), np_of(theirs.inner.fc.weight))


def test_load_state_dict_error_lists_everything_like_torch():
    def run(m):
        net = Block.make(m)
        sd = {k: v.clone() for k, v in net.state_dict().items()}
        del sd["inner.fc.bias"]
        sd["inner.extra"] = m.ones(1)
        sd["nothere.weight"] = m.ones(1)
        sd["seq.0.weight"] = m.ones(5, 5)
        sd["bias"] = m.ones(3)
        try:
            net.load_state_dict(sd)
        except RuntimeError as e:
            return str(e)
        return None

    ours, theirs = both(run)
    assert theirs is not None and ours == as_flow_text(theirs)
    assert "size mismatch for seq.0.weight" in ours and "oneflow.Size([5, 5])" in ours


def test_load_state_dict_non_strict_and_return_value():
    def run(m):
        net = Block.make(m)
        sd = net.state_dict()
        sd.pop("bias")
        sd["junk"] = m.ones(1)
        res = net.load_state_dict(sd, strict=False)
        return res.missing_keys, res.unexpected_keys, repr(res), type(res).__name__

    ours, theirs = both(run)
    assert ours == theirs


def test_load_state_dict_shape_error_is_reported_even_when_not_strict():
    def run(m):
        net = m.nn.Linear(2, 2)
        try:
            net.load_state_dict({"weight": m.ones(3, 2)}, strict=False)
        except RuntimeError as e:
            return str(e)

    ours, theirs = both(run)
    assert ours == as_flow_text(theirs)


def test_load_state_dict_bad_value_and_bad_container():
    with pytest.raises(RuntimeError, match="expected oneflow.Tensor"):
        flow.nn.Linear(1, 1).load_state_dict({"weight": "abc", "bias": flow.zeros(1)})
    with pytest.raises(TypeError):
        flow.nn.Linear(1, 1).load_state_dict([1, 2])
    with pytest.raises(TypeError):
        torch.nn.Linear(1, 1).load_state_dict([1, 2])


def test_load_state_dict_assign_takes_the_tensors():
    net = flow.nn.Linear(2, 2)
    w = flow.ones(2, 2)
    net.load_state_dict({"weight": w, "bias": flow.zeros(2)}, assign=True)
    assert isinstance(net.weight, flow.nn.Parameter) and net.weight.requires_grad
    assert net.weight.data_ptr() == w.data_ptr()
    net2 = flow.nn.Linear(2, 2)
    old = net2.weight
    net2.load_state_dict({"weight": w, "bias": flow.zeros(2)})
    assert net2.weight is old and net2.weight.data_ptr() != w.data_ptr()


def test_load_state_dict_zero_dim_from_one_element():
    def run(m):
        net = m.nn.Module()
        net.register_buffer("step", m.tensor(0.0))
        net.load_state_dict({"step": m.tensor([7.0])})
        return float(net.step), tuple(net.step.shape)

    assert both(run)[0] == both(run)[1]


def test_non_persistent_buffer_is_not_saved_or_loaded():
    def run(m):
        net = m.nn.Module()
        net.register_buffer("a", m.ones(1), persistent=False)
        net.register_buffer("b", m.ones(1))
        keys = list(net.state_dict())
        try:
            net.load_state_dict({"b": m.zeros(1), "a": m.zeros(1)})
        except RuntimeError as e:
            return keys, str(e)
        return keys, None

    ours, theirs = both(run)
    assert ours[0] == theirs[0] == ["b"] and ours[1] == as_flow_text(theirs[1])


def test_subclass_load_and_save_hooks():
    def run(m):
        class Renamed(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = m.nn.Parameter(m.zeros(2))

            def _save_to_state_dict(self, destination, prefix, keep_vars):
                super()._save_to_state_dict(destination, prefix, keep_vars)
                destination[prefix + "note"] = m.tensor(1.0)

            def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
                old = prefix + "old_w"
                if old in state_dict:
                    state_dict[prefix + "w"] = state_dict.pop(old)
                state_dict.pop(prefix + "note", None)
                super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing, unexpected, errors)

        outer = m.nn.Sequential(Renamed())
        keys = list(outer.state_dict())
        outer.load_state_dict({"0.old_w": m.tensor([1.0, 2.0]), "0.note": m.tensor(0.0)})
        return keys, outer[0].w.tolist()

    ours, theirs = both(run)
    assert ours == theirs


def test_extra_state():
    def run(m):
        class WithState(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.value = 0

            def get_extra_state(self):
                return {"value": self.value}

            def set_extra_state(self, state):
                self.value = state["value"]

        a = WithState()
        a.value = 5
        b = WithState()
        b.load_state_dict(a.state_dict())
        return list(a.state_dict()), b.value

    ours, theirs = both(run)
    assert ours == theirs


def test_state_dict_and_load_hooks():
    def run(m):
        log = []
        net = m.nn.Linear(1, 1)
        net.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre", prefix)))
        net.register_load_state_dict_post_hook(lambda mod, keys: log.append(("post", list(keys.missing_keys))))
        h = net.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *rest: log.append(("lpre", sorted(sd))))
        sd = net.state_dict(prefix="x.")
        net.load_state_dict({"weight": m.ones(1, 1)}, strict=False)
        h.remove()
        net.load_state_dict({"weight": m.ones(1, 1)}, strict=False)
        return log, list(sd)

    ours, theirs = both(run)
    assert ours == theirs


# ---- calling and hooks --------------------------------------------------------------------


def test_forward_hooks_order_and_replacement():
    def run(m):
        log = []
        net = m.nn.Linear(2, 2)
        m.nn.init.ones_(net.weight)
        m.nn.init.zeros_(net.bias)
        h1 = net.register_forward_pre_hook(lambda mod, args: log.append("pre1"))
        net.register_forward_pre_hook(lambda mod, args: (log.append("pre2"), (args[0] * 2,))[1])
        net.register_forward_pre_hook(lambda mod, args: log.append("pre0"), prepend=True)

        def pre_kw(mod, args, kwargs):
            log.append(("prekw", sorted(kwargs)))
            return args, kwargs

        net.register_forward_pre_hook(pre_kw, with_kwargs=True)
        net.register_forward_hook(lambda mod, args, out: log.append(("fwd", tuple(args[0].tolist()[0]))))
        net.register_forward_hook(lambda mod, args, kwargs, out: out + 1, with_kwargs=True)
        net.register_forward_hook(lambda mod, args, out: log.append("fwd0"), prepend=True)
        y = net(m.ones(1, 2))
        h1.remove()
        h1.remove()
        y2 = net(m.ones(1, 2))
        return log, y.tolist(), y2.tolist()

    ours, theirs = both(run)
    assert ours == theirs


def test_forward_hook_single_value_from_pre_hook_and_handle_context():
    def run(m):
        net = m.nn.Identity()
        with net.register_forward_pre_hook(lambda mod, args: args[0] + 1):
            a = net(m.zeros(1)).tolist()
        b = net(m.zeros(1)).tolist()
        return a, b

    ours, theirs = both(run)
    assert ours == theirs == ([1.0], [0.0])


def test_always_call_forward_hook_runs_on_error():
    def run(m):
        log = []

        class Boom(m.nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        net = Boom()
        net.register_forward_hook(lambda mod, args, out: log.append(("always", out)), always_call=True)
        net.register_forward_hook(lambda mod, args, out: log.append("normal"))
        with pytest.raises(ValueError):
            net(m.ones(1))
        return log

    ours, theirs = both(run)
    assert ours == theirs == [("always", None)]


def test_global_forward_hooks_run_first():
    def run(m):
        from importlib import import_module

        mod = import_module(m.__name__ + ".nn.modules.module")
        log = []
        net = m.nn.Identity()
        net.register_forward_pre_hook(lambda mod_, args: log.append("local pre"))
        net.register_forward_hook(lambda mod_, args, out: log.append("local"))
        g1 = mod.register_module_forward_pre_hook(lambda mod_, args: log.append("global pre"))
        g2 = mod.register_module_forward_hook(lambda mod_, args, out: log.append("global"))
        try:
            net(m.ones(1))
        finally:
            g1.remove()
            g2.remove()
        net(m.ones(1))
        return log

    ours, theirs = both(run)
    assert ours == theirs


def test_full_backward_hooks_see_torch_gradients():
    torch.manual_seed(1)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    ours = flow.nn.Sequential(flow.nn.Linear(3, 4), flow.nn.Tanh(), flow.nn.Linear(4, 2))
    copy_weights(theirs, ours)
    x = np.random.RandomState(2).randn(5, 3).astype(np.float32)

    def run(m, net):
        log = []
        for name, layer in net.named_children():
            layer.register_full_backward_pre_hook(lambda mod, go, name=name: log.append(("pre", name, np_of(go[0]))))
            layer.register_full_backward_hook(
                lambda mod, gi, go, name=name: log.append(("hook", name, [None if g is None else np_of(g) for g in gi]))
            )
        net[1].register_full_backward_hook(lambda mod, gi, go: (gi[0] * 3,))
        inp = m.tensor(x, requires_grad=True)
        (net(inp) ** 2).sum().backward()
        return log, np_of(inp.grad), np_of(net[0].weight.grad)

    (ours_log, ours_gx, ours_gw), (their_log, their_gx, their_gw) = run(flow, ours), run(torch, theirs)
    assert [e[:2] for e in ours_log] == [e[:2] for e in their_log]
    for a, b in zip(ours_log, their_log):
        if a[0] == "pre":
            np.testing.assert_allclose(a[2], b[2], rtol=1e-5, atol=1e-6)
        else:
            assert len(a[2]) == len(b[2])
            for ga, gb in zip(a[2], b[2]):
                np.testing.assert_allclose(ga, gb, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours_gx, their_gx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours_gw, their_gw, rtol=1e-5, atol=1e-6)


def test_full_backward_hook_without_input_grad():
    def run(m):
        log = []
        net = m.nn.Linear(2, 2)
        net.register_full_backward_hook(lambda mod, gi, go: log.append((gi, tuple(go[0].shape))))
        with pytest.warns(UserWarning):
            net(m.ones(3, 2)).sum().backward()
        return log

    ours, theirs = both(run)
    assert ours == theirs == [((None,), (3, 2))]


def test_forward_is_required():
    with pytest.raises(NotImplementedError, match="forward"):
        flow.nn.Module()(1)


# ---- repr ---------------------------------------------------------------------------------


def test_repr_matches_torch():
    def run(m):
        nn = m.nn
        dict_mod = nn.ModuleDict({"act": nn.ReLU(), "lin": nn.Linear(2, 3, bias=False)})
        dict_mod["nested"] = nn.ModuleList([nn.Identity(), nn.Identity(), nn.Tanh()])
        return [
            repr(Block.make(m)),
            repr(nn.Module()),
            repr(nn.Sequential()),
            repr(nn.ModuleList()),
            repr(nn.ModuleDict()),
            repr(nn.ParameterList()),
            repr(nn.ParameterDict()),
            repr(dict_mod),
            repr(nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2), nn.Linear(2, 2)])),
            repr(nn.ModuleList([nn.Sequential(nn.Linear(1, 1), nn.ReLU())] * 3)),
            repr(nn.Sequential(OrderedDict([("conv", nn.Conv2d(1, 2, 3)), ("none", None), ("id", nn.Identity())]))),
            repr(nn.ParameterList([nn.Parameter(m.ones(2, 3)), m.zeros(4, dtype=m.float64), "text", None])),
            repr(nn.ParameterDict({"b": nn.Parameter(m.ones(1)), "a": m.zeros(2, 2, dtype=m.float64), "c": "x"})),
        ]

    ours, theirs = both(run)
    for a, b in zip(ours, theirs):
        assert a == as_flow_text(b)


def test_extra_repr_single_line_is_inline():
    def run(m):
        class One(m.nn.Module):
            def extra_repr(self):
                return "k=1"

        class Two(One):
            def __init__(self):
                super().__init__()
                self.child = One()

        return repr(One()), repr(Two())

    ours, theirs = both(run)
    assert ours == theirs


# ---- copy and pickle ----------------------------------------------------------------------


def test_deepcopy_keeps_sharing_and_separates_memory():
    net = Block.make(flow)
    clone = copy.deepcopy(net)
    assert clone.shared is clone.seq[0] and clone.seq[0].weight is not net.seq[0].weight
    assert [n for n, _ in clone.named_parameters()] == [n for n, _ in net.named_parameters()]
    for a, b in zip(net.parameters(), clone.parameters()):
        assert type(b) is flow.nn.Parameter and a.data_ptr() != b.data_ptr()
        np.testing.assert_array_equal(np_of(a), np_of(b))
    x = flow.ones(2, 3)
    np.testing.assert_array_equal(np_of(net(x)), np_of(clone(x)))


class PicklableNet(flow.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = flow.nn.Linear(2, 2)
        self.register_buffer("steps", flow.tensor(4))
        self.tag = "x"

    def forward(self, x):
        return self.fc(x)


def test_pickle_round_trip():
    net = PicklableNet()
    net.eval()
    back = pickle.loads(pickle.dumps(net))
    assert back.tag == "x" and not back.training and int(back.steps) == 4
    assert list(back.state_dict()) == list(net.state_dict())
    np.testing.assert_array_equal(np_of(back.fc.weight), np_of(net.fc.weight))
    assert isinstance(back.fc.weight, flow.nn.Parameter) and back.fc.weight.requires_grad
    state = net.__getstate__()
    assert "_parameters" in state and state is not net.__dict__


# ---- containers ---------------------------------------------------------------------------


def layer_names(seq):
    return [(k, type(v).__name__ if v is not None else None) for k, v in seq._modules.items()]


def test_sequential_behaviour():
    def run(m):
        nn = m.nn
        out = []
        s = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.Identity())
        out.append((len(s), type(s[-1]).__name__, type(s[1]).__name__))
        out.append(layer_names(s[1:3]))
        out.append(type(s[::2]).__name__)
        del s[1]
        out.append(layer_names(s))
        s.append(nn.ELU())
        s.insert(0, nn.GELU())
        s.insert(-1, nn.SiLU())
        out.append(layer_names(s))
        s.extend([nn.ReLU6()])
        s[0] = nn.Softsign()
        out.append(layer_names(s))
        out.append(type(s.pop(1)).__name__)
        del s[1:3]
        out.append(layer_names(s))
        out.append(layer_names(s + nn.Sequential(nn.ReLU())))
        out.append(len(s * 2))
        out.append(len(2 * s))
        t = nn.Sequential(nn.ReLU())
        t += nn.Sequential(nn.Tanh())
        t *= 2
        out.append(layer_names(t))
        named = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
        out.append(layer_names(named))
        out.append([type(x).__name__ for x in named])
        del named[0]
        out.append(layer_names(named))
        out.append(nn.Sequential(nn.Linear(2, 2), nn.ReLU())(m.ones(1, 2)).shape[1])
        for bad in (lambda: s[10], lambda: s.insert(10, nn.ReLU()), lambda: s + 1, lambda: s * 0,
                    lambda: s.insert(0, 3)):
            try:
                bad()
                out.append(None)
            except Exception as e:
                out.append(type(e).__name__)
        return out

    ours, theirs = both(run)
    assert ours == theirs


def test_module_list_behaviour():
    def run(m):
        nn = m.nn
        out = []
        ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
        ml.append(nn.Sigmoid())
        ml.extend([nn.GELU(), nn.ELU()])
        ml.insert(1, nn.SiLU())
        out.append(layer_names(ml))
        out.append((type(ml[-1]).__name__, len(ml), type(ml[1:3]).__name__, len(ml[1:3])))
        ml[0] = nn.Identity()
        del ml[2]
        out.append(layer_names(ml))
        del ml[::2]
        out.append(layer_names(ml))
        out.append(type(ml.pop(0)).__name__)
        ml += [nn.ReLU()]
        out.append(layer_names(ml + nn.ModuleList([nn.Tanh()])))
        out.append([type(x).__name__ for x in ml])
        for bad in (lambda: ml[7], lambda: ml.extend(3), lambda: ml.append(3), lambda: ml(1)):
            try:
                bad()
                out.append(None)
            except Exception as e:
                out.append(type(e).__name__)
        return out

    ours, theirs = both(run)
    assert ours == theirs


def test_module_dict_behaviour():
    def run(m):
        nn = m.nn
        out = []
        md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
        md.update([("c", nn.GELU())])
        md.update(nn.ModuleDict({"d": nn.ELU()}))
        md["e"] = nn.Identity()
        out.append((list(md.keys()), [type(v).__name__ for v in md.values()], list(md), len(md), "a" in md))
        out.append(type(md.pop("a")).__name__)
        del md["b"]
        out.append([(k, type(v).__name__) for k, v in md.items()])
        md.clear()
        out.append(len(md))
        for bad in (lambda: md.update(3), lambda: md.update([("x",)]), lambda: md.update([3]), lambda: md["zz"]):
            try:
                bad()
                out.append(None)
            except Exception as e:
                out.append(type(e).__name__)
        return out

    ours, theirs = both(run)
    assert ours == theirs


def test_parameter_list_behaviour():
    def run(m):
        nn = m.nn
        out = []
        pl = nn.ParameterList([m.ones(2), nn.Parameter(m.zeros(3))])
        pl.append(m.ones(1))
        pl.extend([m.ones(4)])
        out.append((len(pl), [type(p).__name__ for p in pl], [tuple(p.shape) for p in pl]))
        out.append([n for n, _ in pl.named_parameters()])
        out.append([tuple(p.shape) for p in pl[1:3]])
        out.append(type(pl[1:3]).__name__)
        pl[0] = m.ones(5)
        out.append(tuple(pl[-4].shape))
        out.append(list(pl.state_dict()))
        for bad in (lambda: pl[9], lambda: pl.extend(m.ones(2)), lambda: pl(1)):
            try:
                bad()
                out.append(None)
            except Exception as e:
                out.append(type(e).__name__)
        return out

    ours, theirs = both(run)
    assert ours == theirs


def test_parameter_dict_behaviour():
    def run(m):
        nn = m.nn
        out = []
        pd = nn.ParameterDict({"z": m.ones(1), "a": m.ones(2)})  # a plain dict is taken in key order
        pd.update(OrderedDict([("y", m.ones(3)), ("b", m.ones(4))]))  # an OrderedDict in its own order
        pd["m"] = nn.Parameter(m.ones(5))
        out.append((list(pd.keys()), len(pd), "a" in pd, [type(v).__name__ for v in pd.values()]))
        out.append([n for n, _ in pd.named_parameters()])
        out.append(tuple(pd.pop("a").shape))
        out.append(pd.get("missing", 7))
        out.append(tuple(pd.setdefault("n", m.ones(6)).shape))
        out.append(list(pd.copy().keys()))
        out.append(pd.popitem()[0])
        out.append(list(reversed(pd)))
        out.append(list((pd | nn.ParameterDict({"q": m.ones(1)})).keys()))
        pd.clear()
        out.append(len(pd))
        for bad in (lambda: pd[3], lambda: pd.update(3), lambda: pd.update([("x",)]), lambda: pd(1)):
            try:
                bad()
                out.append(None)
            except Exception as e:
                out.append(type(e).__name__)
        return out

    ours, theirs = both(run)
    assert ours == theirs


def test_identity_ignores_arguments():
    net = flow.nn.Identity(3, key=4)
    x = flow.ones(2)
    assert net(x) is x and repr(net) == "Identity()"


def test_modules_package_reexports():
    import oneflow.nn.modules as modules

    for name in ("Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Identity"):
        assert name in modules.__all__ and getattr(flow.nn, name) is getattr(modules, name)
    assert flow.nn.Parameter.__module__ == "oneflow.nn.parameter"
    assert re.match(r"<module 'oneflow.nn.functional'", repr(flow.nn.functional))
