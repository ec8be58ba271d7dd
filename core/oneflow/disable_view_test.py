"""OneFlow's ``ONEFLOW_DISABLE_VIEW`` switch: the view ops copy, as OneFlow <= 0.8's did.

Code written for OneFlow 0.8 (libai 0.1.1's Swin among it) calls ``x.permute(...).view(...)``;
in that mode permute returns a contiguous tensor of its own, so the view succeeds. Assignment
through ``t[index] = v`` still writes into ``t``.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import oneflow as flow


@pytest.fixture
def views_disabled():
    flow._C._set_views_enabled(False)
    yield
    flow._C._set_views_enabled(True)


def test_views_are_on_by_default():
    assert flow._C._views_enabled()
    x = flow.arange(12.0).reshape(3, 4)
    y = x.t()
    y[0, 0] = 5.0
    assert x[0, 0].item() == 5.0  # a view: writes reach x
    with pytest.raises(RuntimeError, match="view"):
        y.view(12)


VIEW_OPS = [
    ("permute", lambda x: x.permute(2, 0, 1)),
    ("transpose", lambda x: x.transpose(0, 2)),
    ("t", lambda x: x[0].t()),
    ("narrow", lambda x: x.narrow(2, 1, 2)),
    ("select", lambda x: x.select(1, 1)),
    ("slice", lambda x: x[:, 1:, ::2]),
    ("expand", lambda x: x[:, :1].expand(2, 3, 4)),
    ("squeeze", lambda x: x[:, :1].squeeze(1)),
    ("unsqueeze", lambda x: x.unsqueeze(0)),
    ("view", lambda x: x.view(6, 4)),
    ("reshape", lambda x: x.reshape(4, 6)),
    ("flatten", lambda x: x.flatten(1)),
]


@pytest.mark.parametrize("name,fn", VIEW_OPS, ids=[n for n, _ in VIEW_OPS])
def test_view_ops_copy_when_disabled(views_disabled, name, fn):
    base = np.arange(24.0).reshape(2, 3, 4)
    x = flow.tensor(base)
    y = fn(x)
    np.testing.assert_array_equal(y.numpy(), fn(flow.tensor(base)).numpy())
    assert y.is_contiguous(), name
    y.fill_(-1.0)
    np.testing.assert_array_equal(x.numpy(), base)  # a copy: x is untouched


def test_permute_then_view_works_when_disabled(views_disabled):
    # libai 0.1.1's Swin window mask: x.permute(...).view(...) on a plain tensor.
    x = flow.arange(2 * 4 * 6.0).reshape(2, 4, 6)
    y = x.permute(0, 2, 1).view(2, 24)
    np.testing.assert_array_equal(y.numpy(), np.arange(48.0).reshape(2, 4, 6).transpose(0, 2, 1).reshape(2, 24))


def test_setitem_still_writes_when_disabled(views_disabled):
    x = flow.zeros(3, 4)
    x[1] = 2.0
    x[:, 2] = flow.tensor([7.0, 8.0, 9.0])
    x[0, flow.tensor([0, 3])] = 5.0
    expected = np.zeros((3, 4))
    expected[1] = 2.0
    expected[:, 2] = [7.0, 8.0, 9.0]
    expected[0, [0, 3]] = 5.0
    np.testing.assert_array_equal(x.numpy(), expected)
    assert not flow._C._views_enabled()  # setitem restored the mode


def test_gradients_flow_through_copying_views(views_disabled):
    a = flow.ones(3, 4, requires_grad=True)
    a.t().reshape(12).mul(flow.arange(12.0)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.arange(12.0).reshape(4, 3).T)


def test_the_environment_variable_disables_views():
    code = textwrap.dedent(
        """
        import oneflow as flow
        x = flow.arange(24.0).reshape(2, 3, 4)
        y = x.permute(2, 0, 1)
        y.fill_(0.0)
        print(flow._C._views_enabled(), y.view(4, 6).shape == (4, 6), x.sum().item())
        """
    )
    for value, expected in [("1", "False True 276.0"), ("true", "False True 276.0"), ("0", "True True 0.0")]:
        env = dict(os.environ, ONEFLOW_DISABLE_VIEW=value)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split("\n")[-2] == expected, (value, out.stdout)
