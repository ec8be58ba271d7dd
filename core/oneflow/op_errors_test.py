"""Bad input to ops raises PyTorch's exception type, with the op and the shapes in the message."""

import pytest
import torch

import oneflow as flow

CASES = [
    # (name, fn(m), words our message must contain)
    ("broadcast", lambda m: m.ones(2, 3) + m.ones(4), ["add", "[2, 3]", "[4]"]),
    ("broadcast_inplace", lambda m: m.ones(3).add_(m.ones(2, 3)), ["add", "[3]", "[2, 3]"]),
    ("bad_dim", lambda m: m.ones(2, 3).sum(5), ["range", "5"]),
    ("repeated_dim", lambda m: m.ones(2, 3).sum((0, 0)), ["sum", "dim 0"]),
    ("integer_only_op", lambda m: m.bitwise_and(m.ones(2), m.ones(2)), ["bitwise_and", "float32"]),
    ("int_result_into_float_only", lambda m: m.ones(2, dtype=m.int64).add_(1.5), ["float32", "int64"]),
    ("mean_of_ints", lambda m: m.ones(2, dtype=m.int64).mean(), ["mean", "int64"]),
    ("select_out_of_range", lambda m: m.ones(2, 3).select(1, 3), ["index 3", "size 3"]),
    ("getitem_out_of_range", lambda m: m.ones(2, 3)[5], ["index 5", "size 2"]),
    ("int_zero_division", lambda m: m.tensor([1, 2]) // m.tensor([1, 0]), ["ZeroDivisionError"]),
    ("bad_rounding_mode", lambda m: m.div(m.ones(2), m.ones(2), rounding_mode="up"), ["rounding_mode", "up"]),
    ("wrong_arg_type", lambda m: m.ones(2).sum("a"), ["sum"]),
    ("unexpected_kwarg", lambda m: m.add(m.ones(2), m.ones(2), beta=2), ["add", "beta"]),
    ("backward_without_grad", lambda m: m.ones(2).sum().backward(), ["does not require grad"]),
    ("where_condition_dtype", lambda m: m.where(m.ones(2), m.ones(2), m.ones(2)), ["where", "bool"]),
    ("view_shape", lambda m: m.ones(2, 3).view(4, 2), ["[4, 2]", "6"]),
    ("matmul_inner_dim", lambda m: m.ones(2, 3) @ m.ones(4, 5), ["2x3", "4x5"]),
    ("mm_inner_dim", lambda m: m.mm(m.ones(2, 3), m.ones(4, 5)), ["mm", "2x3", "4x5"]),
    ("bmm_ndim", lambda m: m.bmm(m.ones(2, 3), m.ones(3, 2)), ["bmm", "3"]),
    ("index_tensor_out_of_range", lambda m: m.ones(2, 3)[m.tensor([0, 5])], ["5", "2"]),
    ("gather_out_of_range", lambda m: m.gather(m.ones(2, 3), 1, m.tensor([[0, 7]])), ["gather", "7"]),
    ("cat_shapes", lambda m: m.cat([m.ones(2, 3), m.ones(2, 4)]), ["3", "4"]),
]


def _second_backward(m):
    x = m.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


CASES.append(("second_backward", _second_backward, ["second time", "retain_graph=True"]))


@pytest.mark.parametrize("name, fn, words", CASES, ids=[c[0] for c in CASES])
def test_error_matches_torch(name, fn, words):
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(Exception) as ours:
        fn(flow)
    assert isinstance(ours.value, type(theirs.value)) or type(ours.value).__name__ == type(theirs.value).__name__, (
        f"torch raised {type(theirs.value).__name__}: {theirs.value}; "
        f"we raised {type(ours.value).__name__}: {ours.value}"
    )
    for w in words:
        assert w in str(ours.value), f"{w!r} not in {ours.value!r}"
