"""Parity rows for shape ops: cat/stack, splitting, repeat/tile, flip/roll, tril/triu (ops/defs/shape.cc)."""

import pytest
from parity import OpCase, run_case

ALL = ("float32", "float64", "int64", "bool")
FLOAT_INT = ("float32", "float64", "int32")


def _inplace(name, *args):
    """x * 1 (a non-leaf, so the in-place op records) then the in-place op, then a use of x."""

    def fn(m, x):
        y = x * 1 if x.dtype != m.bool else x.clone()
        getattr(y, name)(*args)
        return y

    return fn


CASES = [
    # cat: promotion, negative dims, the legacy rule for 1-D empty tensors, errors.
    OpCase(ops=("cat", "_cat"), fn=lambda m, a, b: m.cat([a, b]), shapes=[((2, 3), (4, 3)), ((0, 3), (2, 3))], dtypes=ALL),
    OpCase(ops=("cat", "_cat"), name="cat_dim", fn=lambda m, a, b, c: m.cat((a, b, c), dim=-1),
           shapes=[((2, 1, 3), (2, 1, 2), (2, 1, 0)), ((3, 2), (3, 4), (3, 1))]),
    OpCase(ops=("cat", "_cat"), name="cat_single", fn=lambda m, a: m.cat([a], 1), shapes=[((2, 3),)]),
    OpCase(ops=("cat", "_cat"), name="cat_promote", fn=lambda m, a, b: m.cat([a, b.long()]), shapes=[((2, 3), (1, 3))]),
    OpCase(ops=("cat", "_cat"), name="cat_promote_int", fn=lambda m, a, b: m.cat([a.int(), b.bool()]).float() * a.sum(),
           shapes=[((2, 3), (1, 3))]),
    OpCase(ops=("cat", "_cat"), name="cat_legacy_empty", fn=lambda m, a, b: m.cat([a, b, a], 1), shapes=[((2, 3), (0,))]),
    OpCase(ops=("cat", "_cat"), name="cat_all_empty", fn=lambda m, a, b: m.cat([a, b], 1), shapes=[((0,), (0,))]),
    OpCase(ops=("cat", "_cat"), name="cat_empty_rows", fn=lambda m, a, b: m.cat([a, b]), shapes=[((0,), (0, 4))]),
    OpCase(ops=("cat", "_cat"), name="cat_bad_size", fn=lambda m, a, b: m.cat([a, b]), shapes=[((2, 3), (2, 4)), ((2, 3), (3,))]),
    OpCase(ops=("cat", "_cat"), name="cat_bad_dim", fn=lambda m, a, b: m.cat([a, b], 2), shapes=[((2, 3), (2, 3))]),
    OpCase(ops=("cat", "_cat"), name="cat_scalar", fn=lambda m, a, b: m.cat([a, b]), shapes=[((), ())]),
    OpCase(ops=("cat", "_cat"), name="cat_empty_list", fn=lambda m, a: m.cat([]), shapes=[((2,),)]),
    OpCase(ops=("stack",), fn=lambda m, a, b: m.stack([a, b]), shapes=[((2, 3), (2, 3)), ((), ()), ((0, 2), (0, 2))], dtypes=ALL),
    OpCase(ops=("stack",), name="stack_dim", fn=lambda m, a, b, c: m.stack((a, b, c), -1), shapes=[((2, 3), (2, 3), (2, 3))]),
    OpCase(ops=("stack",), name="stack_mid", fn=lambda m, a, b: m.stack([a, b], dim=1), shapes=[((2, 3, 4), (2, 3, 4))]),
    OpCase(ops=("stack",), name="stack_bad", fn=lambda m, a, b: m.stack([a, b]), shapes=[((2, 3), (3, 2))]),
    OpCase(ops=("stack",), name="stack_bad_dim", fn=lambda m, a, b: m.stack([a, b], 3), shapes=[((2, 3), (2, 3))]),
    OpCase(ops=("stack",), name="stack_empty", fn=lambda m, a: m.stack([]), shapes=[((2,),)]),
    # splitting: the pieces are views; gradients of unused pieces are zero.
    OpCase(ops=("split",), fn=lambda m, x: x.split(2), shapes=[((5, 3),), ((4, 2),), ((0, 3),)], dtypes=ALL),
    OpCase(ops=("split",), name="split_dim", fn=lambda m, x: m.split(x, 3, dim=-1)[1:], shapes=[((2, 7),), ((2, 3, 6),)]),
    OpCase(ops=("split",), name="split_big", fn=lambda m, x: x.split(10), shapes=[((4, 3),)]),
    OpCase(ops=("split",), name="split_sizes", fn=lambda m, x: x.split([1, 3, 0, 2], 1), shapes=[((3, 6),)], dtypes=ALL),
    OpCase(ops=("split",), name="split_sizes_tuple", fn=lambda m, x: m.split(x, (2, 1)), shapes=[((3, 2),)]),
    OpCase(ops=("split",), name="split_zero", fn=lambda m, x: x.split(0), shapes=[((3, 2),), ((0, 2),)]),
    OpCase(ops=("split",), name="split_negative", fn=lambda m, x: x.split(-1), shapes=[((3, 2),)]),
    OpCase(ops=("split",), name="split_bad_sizes", fn=lambda m, x: x.split([1, 1]), shapes=[((3, 2),)]),
    OpCase(ops=("split",), name="split_negative_sizes", fn=lambda m, x: x.split([4, -1]), shapes=[((3, 2),)]),
    OpCase(ops=("split",), name="split_scalar", fn=lambda m, x: x.split(1), shapes=[((),)]),
    OpCase(ops=("chunk",), fn=lambda m, x: x.chunk(3), shapes=[((7, 2),), ((6,),), ((2, 3),), ((0, 2),)], dtypes=ALL),
    OpCase(ops=("chunk",), name="chunk_dim", fn=lambda m, x: m.chunk(x, 4, dim=1), shapes=[((2, 6),), ((2, 4),)]),
    OpCase(ops=("chunk",), name="chunk_bad", fn=lambda m, x: x.chunk(0), shapes=[((2, 6),)]),
    OpCase(ops=("chunk",), name="chunk_scalar", fn=lambda m, x: x.chunk(1), shapes=[((),)]),
    OpCase(ops=("tensor_split",), fn=lambda m, x: x.tensor_split(3), shapes=[((7, 2),), ((2, 3),), ((1,),)], dtypes=ALL),
    OpCase(ops=("tensor_split",), name="tensor_split_indices", fn=lambda m, x: m.tensor_split(x, [1, 5, 3, -1, 9], dim=0),
           shapes=[((7, 2),)]),
    OpCase(ops=("tensor_split",), name="tensor_split_dim", fn=lambda m, x: x.tensor_split((1,), 1), shapes=[((2, 3),)]),
    OpCase(ops=("tensor_split",), name="tensor_split_tensor",
           fn=lambda m, x: x.tensor_split(m.tensor([2, 3]), 1) + x.tensor_split(m.tensor(2), 1), shapes=[((2, 5),)]),
    OpCase(ops=("tensor_split",), name="tensor_split_bad", fn=lambda m, x: x.tensor_split(0), shapes=[((2, 5),), ((),)]),
    OpCase(ops=("tensor_split",), name="tensor_split_bad_tensor", fn=lambda m, x: x.tensor_split(m.tensor([1.0])),
           shapes=[((2, 5),)]),
    OpCase(ops=("unbind",), fn=lambda m, x: x.unbind(), shapes=[((3, 2),), ((2,),)], dtypes=ALL),
    OpCase(ops=("unbind",), name="unbind_dim", fn=lambda m, x: m.unbind(x, -1), shapes=[((3, 2, 4),)]),
    OpCase(ops=("unbind",), name="unbind_scalar", fn=lambda m, x: x.unbind(0), shapes=[((),)]),
    OpCase(ops=("unbind",), name="unbind_bad_dim", fn=lambda m, x: x.unbind(2), shapes=[((3, 2),)]),
    # repeat / tile: repeat's gradient sums the tiles.
    OpCase(ops=("repeat", "_repeat"), fn=lambda m, x: x.repeat(2, 3), shapes=[((2, 3),), ((3,),), ((),), ((0, 2),)], dtypes=ALL),
    OpCase(ops=("repeat", "_repeat"), name="repeat_more_dims", fn=lambda m, x: x.repeat((2, 1, 3, 2)), shapes=[((2, 3),), ((2, 1, 3),)]),
    OpCase(ops=("repeat", "_repeat"), name="repeat_zero", fn=lambda m, x: x.repeat(0, 2), shapes=[((2, 3),)]),
    OpCase(ops=("repeat", "_repeat"), name="repeat_scalar_empty", fn=lambda m, x: x.repeat([]), shapes=[((),), ((2,),)]),
    OpCase(ops=("repeat", "_repeat"), name="repeat_negative", fn=lambda m, x: x.repeat(-1, 2), shapes=[((2, 3),)]),
    OpCase(ops=("tile",), fn=lambda m, x: x.tile(2), shapes=[((2, 3),), ((3,),), ((),)], dtypes=ALL),
    OpCase(ops=("tile",), name="tile_more_dims", fn=lambda m, x: m.tile(x, (2, 1, 2)), shapes=[((2, 3),)]),
    OpCase(ops=("tile",), name="tile_empty", fn=lambda m, x: x.tile(()), shapes=[((2, 3),)]),
    # flip / roll
    OpCase(ops=("flip",), fn=lambda m, x: x.flip(0, -1), shapes=[((3, 4),), ((2, 3, 4),), ((0, 2),)], dtypes=ALL),
    OpCase(ops=("flip",), name="flip_list", fn=lambda m, x: m.flip(x, [1]), shapes=[((2, 3, 4),), ((3, 1),)]),
    OpCase(ops=("flip",), name="flip_none", fn=lambda m, x: m.flip(x, []), shapes=[((2, 3),)]),
    OpCase(ops=("flip",), name="flip_scalar", fn=lambda m, x: x.flip(0), shapes=[((),)]),
    OpCase(ops=("flip",), name="flip_bad", fn=lambda m, x: x.flip(0, -2), shapes=[((2, 3),)]),
    OpCase(ops=("flip",), name="flip_bad_dim", fn=lambda m, x: x.flip(2), shapes=[((2, 3),)]),
    OpCase(ops=("roll",), fn=lambda m, x: x.roll(1), shapes=[((3, 4),), ((5,),), ((),), ((0, 2),)], dtypes=ALL),
    OpCase(ops=("roll",), name="roll_dim", fn=lambda m, x: m.roll(x, -5, 1), shapes=[((3, 4),)]),
    OpCase(ops=("roll",), name="roll_dims", fn=lambda m, x: x.roll((1, 2), (0, -1)), shapes=[((3, 4),), ((2, 3, 4),)]),
    OpCase(ops=("roll",), name="roll_zero", fn=lambda m, x: x.roll(0, 0) * 1, shapes=[((3, 4),)]),
    OpCase(ops=("roll",), name="roll_same_dim", fn=lambda m, x: x.roll(shifts=(1, 2), dims=(1, 1)), shapes=[((3, 4),)]),
    OpCase(ops=("roll",), name="roll_misaligned", fn=lambda m, x: x.roll((1, 2), 0), shapes=[((3, 4),)]),
    OpCase(ops=("roll",), name="roll_bad_dim", fn=lambda m, x: x.roll(1, 2), shapes=[((3, 4),), ((),)]),
    # tril / triu, with in-place variants
    OpCase(ops=("tril",), fn=lambda m, x: x.tril(), shapes=[((3, 4),), ((2, 4, 3),), ((0, 2),)], dtypes=ALL),
    OpCase(ops=("tril",), name="tril_diag", fn=lambda m, x: m.tril(x, 1) + m.tril(x, diagonal=-2) + x.tril(10) + x.tril(-10),
           shapes=[((4, 5),), ((5, 3),)]),
    OpCase(ops=("tril",), name="tril_1d", fn=lambda m, x: x.tril(), shapes=[((3,),)]),
    OpCase(ops=("triu",), fn=lambda m, x: x.triu(), shapes=[((3, 4),), ((2, 4, 3),)], dtypes=ALL),
    OpCase(ops=("triu",), name="triu_diag", fn=lambda m, x: m.triu(x, -1) + x.triu(diagonal=2), shapes=[((4, 5),)]),
    OpCase(ops=("triu",), name="triu_1d", fn=lambda m, x: x.triu(), shapes=[((),)]),
    OpCase(ops=("tril_",), fn=_inplace("tril_", 1), shapes=[((3, 4),), ((2, 3, 3),)], dtypes=ALL),
    OpCase(ops=("triu_",), fn=_inplace("triu_", -1), shapes=[((3, 4),), ((2, 3, 3),)], dtypes=ALL),
    OpCase(ops=("triu_",), name="triu_on_view", fn=lambda m, x: _triu_view(x), shapes=[((3, 4, 4),)]),
]


def _triu_view(x):
    y = x * 2
    y[1].triu_()
    return y


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0
