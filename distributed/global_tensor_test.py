"""Global tensors: placement and sbp objects, creation, to_global/to_local, printing, oneflow.env,
oneflow.comm, the core's hooks, bad input; the seed's 2-D example through the launcher."""

import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest
from global_testing import Checks, assert_check, child_env, launch, worker_main

import oneflow as flow

CHECKS = Checks()
B, P, S = flow.sbp.broadcast, flow.sbp.partial_sum, flow.sbp.split
SCRIPT = os.path.abspath(__file__)


# ---- one process -------------------------------------------------------------------------------


def test_placement_and_sbp_print_as_in_the_seed():
    assert repr(flow.placement(type="cpu", ranks=[0])) == 'oneflow.placement(type="cpu", ranks=[0])'
    assert repr((S(0), S(1))) == "(oneflow.sbp.split(axis=0), oneflow.sbp.split(axis=1))"
    assert repr(B) == "oneflow.sbp.broadcast" and repr(P) == "oneflow.sbp.partial_sum"
    assert flow.placement.all("cpu") == flow.placement("cpu", [0])
    assert flow.placement("cpu", [0]) == flow.placement(type="cpu", ranks=[0])
    assert hash(S(1)) == hash(flow.sbp.split(1)) and S(1) != S(0) and B != P
    assert flow.placement("cpu", [[0]]).hierarchy == (1, 1)


def test_view_of_a_global_tensor_reshapes_as_in_oneflow():
    # A global tensor is never a strided view of another in OneFlow, so view() of a transposed
    # one reshapes (libai's attention does this); a local tensor keeps PyTorch's strict view().
    x = flow.arange(24.0).reshape(2, 3, 4).requires_grad_()
    g = x.to_global(placement=flow.placement("cpu", [0]), sbp=B).transpose(1, 2)
    y = g.view(2, 12)
    assert y.is_global and y.sbp == (B,) and tuple(y.shape) == (2, 12)
    np.testing.assert_array_equal(y.to_local().numpy(), x.detach().numpy().transpose(0, 2, 1).reshape(2, 12))
    (y * flow.arange(24.0).reshape(2, 12).to_global(placement=y.placement, sbp=B)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(24.0).reshape(2, 4, 3).transpose(0, 2, 1))
    with pytest.raises(RuntimeError, match="view"):
        x.detach().transpose(1, 2).view(2, 12)


def test_oneflow_functional_names_on_global_tensors():
    pl = flow.placement("cpu", [0])
    r = flow._C.global_arange(0, 6, 2, dtype=flow.float32, placement=pl, sbp=B)
    assert r.is_global and r.sbp == (B,) and r.dtype == flow.float32
    np.testing.assert_array_equal(r.to_local().numpy(), [0.0, 2.0, 4.0])
    weight = flow.arange(12.0).reshape(4, 3).to_global(placement=pl, sbp=B)
    ids = flow.tensor([[3, 0]]).to_global(placement=pl, sbp=B)
    looked_up = flow._C.gather(weight, ids, axis=0)
    assert looked_up.is_global and tuple(looked_up.shape) == (1, 2, 3)
    np.testing.assert_array_equal(looked_up.to_local().numpy(), [[[9.0, 10.0, 11.0], [0.0, 1.0, 2.0]]])


def test_bad_placements_and_sbp():
    with pytest.raises(ValueError, match=r"rank \[3\] is outside the job \(world size 1"):
        flow.placement("cpu", [0, 3])
    with pytest.raises(ValueError, match="distinct"):
        flow.placement("cpu", [0, 0])
    with pytest.raises(ValueError, match="'cpu' or 'cuda'"):
        flow.placement("tpu", [0])
    with pytest.raises(TypeError, match="ints"):
        flow.placement("cpu", [0.5])
    with pytest.raises(ValueError, match="rectangular"):
        flow.placement("cpu", [[0], [1, 2]])
    pl = flow.placement("cpu", [0])
    with pytest.raises(ValueError, match="2 entries but the placement has 1 dimension"):
        flow.zeros(2, 2, placement=pl, sbp=(S(0), S(1)))
    with pytest.raises(IndexError, match="split axis 2 is out of range for a tensor with 2 dimensions"):
        flow.zeros(2, 2, placement=pl, sbp=S(2))
    with pytest.raises(TypeError, match="oneflow.sbp.sbp"):
        flow.zeros(2, placement=pl, sbp="S(0)")
    with pytest.raises(ValueError, match="needs both placement= and sbp="):
        flow.zeros(2, placement=pl)
    with pytest.raises(TypeError):
        S(1.5)


def test_local_tensors_answer_the_global_questions():
    t = flow.ones(2)
    assert t.is_global is False and t.is_local is True
    assert t.to_local() is t
    with pytest.raises(RuntimeError, match="local tensor has no placement"):
        _ = t.placement
    with pytest.raises(RuntimeError, match="local tensor has no sbp"):
        _ = t.sbp
    with pytest.raises(RuntimeError, match="expected a global tensor"):
        t.global_to_global(sbp=B)


def test_core_does_not_import_the_plugin():
    code = "import sys, oneflow; assert 'oneflow.distributed' not in sys.modules; print(oneflow.ones(1).is_global)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env(), timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_clear_import_error_without_the_plugin():
    # A oneflow package made of the core's files only.
    core_dir = next(p for p in flow.__path__ if os.path.exists(os.path.join(p, "_C.so")))
    with tempfile.TemporaryDirectory() as tmp:
        pkg = os.path.join(tmp, "oneflow")
        os.mkdir(pkg)
        for entry in os.listdir(core_dir):
            if entry != "distributed":
                os.symlink(os.path.join(core_dir, entry), os.path.join(pkg, entry))
        code = textwrap.dedent("""
            import oneflow as flow
            uses = (lambda: flow.placement, lambda: flow.sbp, lambda: flow.zeros(2, placement=1, sbp=2),
                    lambda: flow.nn.Linear(1, 1).to_global(None, None))
            for use in uses:
                try:
                    use()
                    print("no error")
                except ImportError as e:
                    print("ImportError:", e)
            print(flow.ones(1).is_global)
        """)
        env = dict(os.environ, PYTHONPATH=tmp)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60,
                             cwd=tmp)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 5 and lines[-1] == "False", out.stdout
    for line in lines[:4]:
        assert line.startswith("ImportError:") and "oneflow-distributed" in line, line


def test_one_process_global_tensors():
    pl = flow.placement("cpu", [0])
    flow.manual_seed(7)
    ref = flow.randn(4, 5)
    flow.manual_seed(7)
    x = flow.randn(4, 5, placement=pl, sbp=S(1), requires_grad=True)
    assert x.is_global and not x.is_local and x.placement == pl and x.sbp == (S(1),)
    assert x.shape == (4, 5) and x.size(1) == 5 and x.numel() == 20 and x.ndim == 2 and len(x) == 4
    np.testing.assert_array_equal(x.detach().numpy(), ref.numpy())
    y = (x * 2).sum()
    assert y.sbp == (P,)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((4, 5), 2.0, np.float32))
    local = x.to_local()
    assert not local.is_global and local.shape == (4, 5)
    text = repr(x.detach())
    assert text.endswith('placement=oneflow.placement(type="cpu", ranks=[0]),\n'
                         '       sbp=(oneflow.sbp.split(axis=1),), dtype=oneflow.float32)'), text
    z = flow.zeros_like(x)
    assert z.is_global and z.sbp == x.sbp
    assert flow.arange(6, placement=pl, sbp=B).tolist() == list(range(6))
    assert flow.tensor([[1, 2]], placement=pl, sbp=S(0)).to_local().tolist() == [[1, 2]]


def test_optimizers_step_global_parameters_and_fused_kernels_refuse_them():
    pl = flow.placement("cpu", [0])
    w0 = np.arange(6, dtype=np.float32).reshape(2, 3) / 6
    results = []
    for make_global in (False, True):
        w = flow.nn.Parameter(flow.from_numpy(w0.copy()))
        if make_global:
            w = flow.nn.Parameter(w.detach().to_global(placement=pl, sbp=B))
        opt = flow.optim.Adam([w], lr=0.1)  # fused by default for local parameters
        for _ in range(3):
            opt.zero_grad()
            (w * w).sum().backward()
            opt.step()
        results.append(w.detach().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)
    g = flow.ones(2, 3).to_global(placement=pl, sbp=B)
    with pytest.raises(NotImplementedError, match="fused multi-tensor kernels take local tensors only"):
        flow._C.ops._fused_sgd_([g.clone()], [g], [], weight_decay=0.0, momentum=0.0, lr=0.1, dampening=0.0,
                                nesterov=False, maximize=False, is_first_step=False)


def test_core_delegates_instead_of_being_patched():
    # Module.to_global, nn.Parameter(global) and oneflow.autograd are the core's own code, which
    # calls the plugin; importing the plugin replaces none of them.
    import oneflow.distributed.global_tensor as gt

    assert flow.nn.Module.to_global.__module__ == "oneflow.nn.modules.module"
    assert flow.nn.Parameter.__new__.__module__ == "oneflow.nn.parameter"
    assert flow.autograd.backward.__module__ == flow.autograd.grad.__module__ == "oneflow.autograd"
    pl = flow.placement("cpu", [0])
    p = flow.nn.Parameter(flow.ones(2, placement=pl, sbp=B), requires_grad=False)
    assert type(p) is gt.GlobalParameter and not p.requires_grad and p.sbp == (B,)
    assert type(flow.nn.Parameter(flow.ones(2))) is flow.nn.Parameter

    class Sub(flow.nn.Parameter):
        pass

    assert type(Sub(flow.ones(1))) is Sub
    m = flow.nn.Linear(2, 3)
    assert m.to_global(pl, lambda name, t: S(0) if name == "weight" else B) is m
    assert isinstance(m.weight, gt.GlobalParameter) and m.weight.sbp == (S(0),) and m.bias.sbp == (B,)


def test_layout_and_plans():
    from oneflow.distributed import _layout, boxing

    assert _layout.chunk_sizes(7, 3) == [3, 2, 2]
    assert _layout.local_shape((5, 4), (S(0), S(0)), (2, 2), (1, 1)) == (1, 4)  # 5 -> [3, 2] -> [1, 1]
    assert _layout.local_box((5, 4), (S(0), S(1)), (2, 2), (1, 1)) == [(3, 2), (2, 2)]
    assert [repr(s) for s in boxing.plan((S(0),), (B,))] == ["axis 0: S(0) -> B (all-gather)"]
    assert [repr(s) for s in boxing.plan((P, S(1)), (B, S(1)))] == ["axis 0: P -> B (all-reduce)"]
    # Both axes split dim 0: the inner one goes to B first, then back.
    steps = [repr(s) for s in boxing.plan((S(0), S(0)), (B, S(0)))]
    assert steps == ["axis 1: S(0) -> B (all-gather)", "axis 0: S(0) -> B (all-gather)",
                     "axis 1: B -> S(0) (local slice)"], steps
    text = flow.boxing.explain((S(0), S(1)), (B, B), (8, 4), flow.placement("cpu", [[0]]))
    assert "axis 1: S(1) -> B (all-gather)" in text


def test_env_in_one_process():
    assert flow.env.get_rank() == 0 and flow.env.get_world_size() == 1
    assert flow.env.get_local_rank() == 0 and flow.env.get_node_size() == 1


# ---- real processes ------------------------------------------------------------------------------

SEED_EXAMPLE = """
import oneflow as flow
from oneflow import nn

class Noise(nn.Module):
    def __init__(self):
        super().__init__()
        self.noise_tensor = flow.randn(
            16, 8,
            sbp=(flow.sbp.split(0), flow.sbp.split(1)),
            placement=flow.placement("cpu", ranks=[[0, 1],[2, 3]])
        )

    def forward(self, x):
        return x + self.noise_tensor

Noise = Noise()
x = flow.zeros(
    16, 8,
    sbp=(flow.sbp.split(0), flow.sbp.split(1)),
    placement=flow.placement("cpu", ranks=[[0, 1],[2, 3]]))
y = Noise(x)
print(f"rank: {flow.env.get_rank()}, global tensor: shape {y.shape} sbp {y.sbp} placement {y.placement}, "
      f"local tensor shape: {y.to_local().shape}")
"""


def test_seed_2d_example_through_the_launcher():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "test.py")
        with open(path, "w") as f:
            f.write(SEED_EXAMPLE)
        logs = os.path.join(tmp, "logs")
        out = launch(path, 4, timeout=120, launcher_args=["--logdir", logs, "--redirects", "1"])
        assert out.returncode == 0, out.stderr
        for r in range(4):
            with open(os.path.join(logs, f"rank_{r}", "stdout.log")) as f:
                got = f.read()
            want = (
                f"rank: {r}, global tensor: shape oneflow.Size([16, 8]) sbp (oneflow.sbp.split(axis=0), "
                "oneflow.sbp.split(axis=1)) placement oneflow.placement(type=\"cpu\", ranks=[[0, 1], [2, 3]]), local "
                "tensor shape: oneflow.Size([8, 4])\n"
            )
            assert got == want, got


@CHECKS()
def random_creation_equals_one_process(f):
    n = flow.env.get_world_size()
    placements = [flow.placement("cpu", list(range(n)))]
    if n == 4:
        placements.append(flow.placement("cpu", [[0, 1], [2, 3]]))
    makers = {
        "randn": lambda **kw: flow.randn(5, 6, **kw),
        "rand": lambda **kw: flow.rand(5, 6, **kw),
        "randint": lambda **kw: flow.randint(0, 9, (5, 6), **kw),
        "normal": lambda **kw: flow.normal(1.0, 2.0, (5, 6), **kw),
        "randperm": lambda **kw: flow.randperm(7, **kw),
        "arange": lambda **kw: flow.arange(0, 12, 2, **kw),
        "eye": lambda **kw: flow.eye(5, 6, **kw),
        "full": lambda **kw: flow.full((5, 6), 2.5, **kw),
        "ones": lambda **kw: flow.ones(5, 6, **kw),
        "zeros": lambda **kw: flow.zeros(5, 6, **kw),
        "tensor": lambda **kw: flow.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], **kw),
    }
    for pl in placements:
        for name, make in makers.items():
            flow.manual_seed(11)
            ref = make().numpy()
            opts = [S(d) for d in range(ref.ndim)] + [B, P]
            sbps = [(s,) for s in opts] if pl.ndim == 1 else [(a, b) for a in opts for b in opts]
            for sbp in sbps:
                flow.manual_seed(11)
                g = make(placement=pl, sbp=sbp)
                f.true(f"{name} meta", g.sbp == sbp and tuple(g.shape) == ref.shape, f"{g.sbp} {g.shape}")
                f.close(f"{name} {sbp}", g.numpy(), ref, exact=True)
            # The generators stay in step on every rank.
            draws = [flow.empty(3) for _ in range(n)]
            flow.comm.all_gather(draws, flow.rand(3))
            f.true(f"{name} generators in step", all(np.array_equal(d.numpy(), draws[0].numpy()) for d in draws), "")


@CHECKS()
def conversions_and_values(f):
    n, rank = flow.env.get_world_size(), flow.env.get_rank()
    pl = flow.placement("cpu", list(range(n)))
    x = flow.tensor(np.arange(12, dtype=np.float32).reshape(4, 3), placement=pl, sbp=S(0))
    f.close("numpy", x.numpy(), np.arange(12).reshape(4, 3))
    f.true("item", x.sum().item() == 66.0, str(x.sum().item()))
    f.true("tolist", x.tolist() == np.arange(12).reshape(4, 3).tolist(), "")
    f.true("float", float(x[1, 1]) == 4.0, "")
    y = x.to_global(sbp=B)
    f.true("to_global keeps values", np.array_equal(y.to_local().numpy(), np.arange(12).reshape(4, 3)), "")
    f.true("same sbp is the same tensor", x.to_global(sbp=S(0)) is x, "")
    text = repr(x)
    want_tail = (f"placement=oneflow.placement(type=\"cpu\", ranks={list(range(n))}),\n"
                 "       sbp=(oneflow.sbp.split(axis=0),), dtype=oneflow.float32)")
    f.true("repr", text.startswith("tensor([[ 0.,  1.,  2.],") and text.endswith(want_tail), text)
    d = x.detach()
    f.true("detach is global", d.is_global and d.sbp == x.sbp, "")
    h = x.to(flow.float64)
    f.true("to dtype", h.is_global and h.dtype == flow.float64, "")
    f.true("new_zeros", x.new_zeros(2).is_global, "")
    f.true("to_local", x.to_local().shape == tuple(np.array_split(np.zeros(4), n)[rank].shape) + (3,), "")


@CHECKS(min_world=2)
def env_and_comm(f):
    n, rank = flow.env.get_world_size(), flow.env.get_rank()
    f.true("env", flow.env.get_local_rank() == rank and flow.env.get_node_size() == 1, "")
    t = flow.ones(3) * (rank + 1)
    flow.comm.all_reduce(t)
    f.close("all_reduce", t.numpy(), np.full(3, n * (n + 1) / 2))
    parts = [flow.empty(r + 1) for r in range(n)]
    flow.comm.all_gather(parts, flow.full((rank + 1,), float(rank)))
    f.true("all_gather uneven", all(p.tolist() == [float(r)] * (r + 1) for r, p in enumerate(parts)), "")
    b = flow.full((2,), float(rank))
    flow.comm.broadcast(b, n - 1)
    f.close("broadcast", b.numpy(), np.full(2, n - 1.0))
    out = flow.empty(2)
    flow.comm.reduce_scatter(out, [flow.full((2,), float(i)) for i in range(n)])
    f.close("reduce_scatter", out.numpy(), np.full(2, float(rank * n)))
    outs = [flow.empty(1) for _ in range(n)]
    flow.comm.all_to_all(outs, [flow.full((1,), float(rank * 10 + j)) for j in range(n)])
    f.true("all_to_all", [o.item() for o in outs] == [float(i * 10 + rank) for i in range(n)], "")
    if rank == 0:
        flow.comm.send(flow.arange(5), 1)
    elif rank == 1:
        got = flow.comm.recv(0)
        f.true("send/recv with meta", got.tolist() == list(range(5)), str(got))
    flow.comm.barrier()
    try:
        flow.comm.all_reduce(flow.ones(2, placement=flow.placement.all("cpu"), sbp=B))
        f.true("comm rejects global tensors", False, "no error")
    except TypeError as e:
        f.true("comm message", "global" in str(e), str(e))


@CHECKS(min_world=2)
def bad_input_raises_on_every_rank(f):
    n = flow.env.get_world_size()
    cases = {
        "ranks outside the world": lambda: flow.placement("cpu", list(range(n + 1))),
        "sbp length": lambda: flow.zeros(4, placement=flow.placement.all("cpu"), sbp=(B, B)),
        "split dim": lambda: flow.zeros(4, placement=flow.placement.all("cpu"), sbp=S(1)),
        "to_global sbp length": lambda: flow.ones(4).to_global(flow.placement.all("cpu"), (B, S(0))),
        "mixing": lambda: flow.ones(4, placement=flow.placement.all("cpu"), sbp=B) + flow.ones(4),
        "placements": lambda: (flow.ones(2, placement=flow.placement.all("cpu"), sbp=B)
                               * flow.ones(2, placement=flow.placement("cpu", [0]), sbp=B)),
    }
    for name, fn in cases.items():
        try:
            fn()
            f.true(name, False, "no error")
        except (ValueError, IndexError, RuntimeError) as e:
            f.true(name, len(str(e)) > 20, str(e))
    # Still in step afterwards.
    t = flow.ones(2)
    flow.comm.all_reduce(t)
    f.close("in step", t.numpy(), np.full(2, float(n)))


@CHECKS(worlds=[3, 4])
def ranks_outside_the_placement(f):
    """Every rank runs the program; ranks outside the placement hold stand-ins and skip the
    collectives, and backward still reaches the transfers between placements."""
    n, rank = flow.env.get_world_size(), flow.env.get_rank()
    stage0 = flow.placement("cpu", [0, 1])
    stage1 = flow.placement("cpu", list(range(2, n)))
    flow.manual_seed(2)
    w0 = flow.randn(6, 4, placement=stage0, sbp=B, requires_grad=True)
    w1 = flow.randn(3, 6, placement=stage1, sbp=B, requires_grad=True)
    x = flow.randn(5, 4, placement=stage0, sbp=S(0))
    h = flow.tanh(x @ w0.T)
    h1 = h.to_global(placement=stage1, sbp=B)
    loss = (h1 @ w1.T).pow(2).mean()
    loss.backward()
    flow.manual_seed(2)
    rw0, rw1, rx = flow.randn(6, 4, requires_grad=True), flow.randn(3, 6, requires_grad=True), flow.randn(5, 4)
    rloss = (flow.tanh(rx @ rw0.T) @ rw1.T).pow(2).mean()
    rloss.backward()
    if rank in stage0.flat_ranks:
        f.close("stage 0 grad", w0.grad.numpy(), rw0.grad.numpy())
        f.true("not on stage 1", w1.to_local().numel() == 0, "")
    else:
        f.close("stage 1 grad", w1.grad.numpy(), rw1.grad.numpy())
        f.close("loss", loss.item(), rloss.item())


@CHECKS(min_world=2)
def module_to_global_and_parameters(f):
    n = flow.env.get_world_size()
    pl = flow.placement("cpu", list(range(n)))
    flow.manual_seed(3)
    m = flow.nn.Linear(4, 3)
    ref_w = m.weight.detach().numpy().copy()
    m.to_global(pl, B)
    f.true("parameters global", all(p.is_global and isinstance(p, flow.nn.Parameter) for p in m.parameters()), "")
    f.close("values kept", m.weight.detach().numpy(), ref_w)
    p = flow.nn.Parameter(flow.zeros(4, placement=pl, sbp=S(0)))
    f.true("Parameter(global)", p.is_global and p.is_leaf and p.requires_grad and p.sbp == (S(0),), repr(type(p)))
    f.true("parameter repr", repr(p.detach()).startswith("tensor(") and "Parameter containing" in repr(p), repr(p))


@CHECKS(min_world=2)
def autograd_backward_and_grad_with_global_roots(f):
    """oneflow.autograd.backward/grad seed global roots and return global gradients as
    GlobalTensor.backward does; the values equal one process's."""
    n, rank = flow.env.get_world_size(), flow.env.get_rank()
    pl = flow.placement("cpu", list(range(n)))
    flow.manual_seed(4)
    w_ref, x_ref = flow.randn(3, 2), flow.randn(5, 3)
    w_ref.requires_grad_(True)

    def make():
        w = w_ref.detach().to_global(pl, B).requires_grad_(True)
        return w, x_ref.to_global(pl, B).to_global(sbp=S(0))

    ref_loss = (x_ref @ w_ref).tanh().sum()
    (ref_gw,) = flow.autograd.grad(ref_loss, w_ref)
    # backward of a partial-sum scalar, and of several roots with given gradients.
    w, x = make()
    loss = (x @ w).tanh().sum()
    f.true("loss is partial", loss.sbp == (P,), str(loss.sbp))
    flow.autograd.backward(loss)
    f.close("backward .grad", w.grad.numpy(), ref_gw.numpy())
    f.true("backward .grad sbp", w.grad.sbp == (B,), str(w.grad.sbp))
    w, x = make()
    y = x @ w
    flow.autograd.backward([y, y.sum()], [flow.ones(5, 2, placement=pl, sbp=B), None])
    f.close("two roots", w.grad.numpy(), 2 * (x_ref.T @ flow.ones(5, 2)).numpy())
    # grad: global results with the sbp .grad would have, nothing accumulated.
    w, x = make()
    (gw,) = flow.autograd.grad((x @ w).tanh().sum(), w)
    f.true("grad global", gw.is_global and gw.sbp == (B,) and w.grad is None, f"{gw.sbp} {w.grad}")
    f.close("grad value", gw.numpy(), ref_gw.numpy())
    xs = x_ref.to_global(pl, B).to_global(sbp=S(0)).detach().requires_grad_(True)
    gx, gw = flow.autograd.grad((xs @ w).sum(), [xs, w])
    f.true("split input", gx.sbp == (S(0),) and gw.sbp == (B,), f"{gx.sbp} {gw.sbp}")
    f.close("split input value", gx.numpy(), (flow.ones(5, 2) @ w_ref.detach().T).numpy())
    # Second order through a broadcast leaf: the hook's sum over ranks keeps its history.
    w, _ = make()
    (g1,) = flow.autograd.grad(w.pow(3).sum(), w, create_graph=True)
    (g2,) = flow.autograd.grad(g1.sum(), w)
    f.close("second order", g2.numpy(), (6 * w_ref.detach()).numpy(), atol=1e-5)
    # A local input converted to global: its gradient is local (this rank's part).
    local = flow.full((2, 3), float(rank + 1), requires_grad=True)
    g = local.to_global(pl, S(0))
    (gl,) = flow.autograd.grad((g * g).sum(), local)
    f.true("local input", not gl.is_global and gl.shape == (2, 3), str(gl))
    f.close("local input value", gl.numpy(), np.full((2, 3), 2.0 * (rank + 1)))
    # Bad seeds raise on every rank, before any collective.
    w, x = make()
    y = x @ w
    for name, call, exc in [
        ("local seed", lambda: flow.autograd.backward(y, flow.ones(5, 2)), TypeError),
        ("non-scalar", lambda: flow.autograd.grad(y, w), RuntimeError),
        ("seed count", lambda: flow.autograd.backward([y], [None, None]), RuntimeError),
        ("seed shape", lambda: flow.autograd.backward(y, flow.ones(2, 5, placement=pl, sbp=B)), RuntimeError),
    ]:
        try:
            call()
            f.true(name, False, "no error")
        except exc as e:
            f.true(name, "global" in str(e) or "gradient" in str(e), str(e))
    flow.autograd.backward(y, flow.ones(5, 2, placement=pl, sbp=B))  # still usable, in step
    f.close("after errors", w.grad.numpy(), (x_ref.T @ flow.ones(5, 2)).numpy())


TEST_CASES = CHECKS.cases()


@pytest.mark.parametrize("n,name", TEST_CASES, ids=[f"{n}ranks-{name}" for n, name in TEST_CASES])
def test_global_tensor(n, name):
    assert_check(SCRIPT, n, name)


if __name__ == "__main__":
    if sys.argv[1:] == ["checks"]:
        worker_main(CHECKS)
