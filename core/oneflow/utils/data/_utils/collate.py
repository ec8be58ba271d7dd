"""Turning a list of samples into a batch (``default_collate``) and converting one
sample (``default_convert``), with PyTorch's rules.

``collate(batch, collate_fn_map=...)`` dispatches on the type of ``batch[0]``:
first an exact match in ``collate_fn_map``, then the first ``isinstance`` match
(in the map's order), then mappings, namedtuples and sequences, whose fields are
collated recursively. ``default_collate_fn_map`` may be extended (or copied and
extended) to teach collation about new types.

Numbers and NumPy data go through NumPy before becoming tensors: building a tensor
from a list of Python numbers element by element is much slower, and the dtypes
come out the same as ``oneflow.tensor`` would infer.
"""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable
from typing import Any

import numpy as np

import oneflow

# NumPy dtype strings of bytes, str, unicode and object arrays, which cannot be tensors.
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)

CollateFnMap = dict[type | tuple[type, ...], Callable]


def _is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def _rebuild_mapping(elem: Any, items: dict) -> Any:
    """A mapping of ``elem``'s type holding ``items``, or a plain dict when that type cannot be built."""
    try:
        if isinstance(elem, collections.abc.MutableMapping):
            # A copy keeps the attributes and the key order of a custom mapping.
            clone = copy.copy(elem)
            clone.update(items)
            return clone
        return type(elem)(items)
    except TypeError:
        return items


def _rebuild_sequence(elem: Any, items: list) -> Any:
    """A sequence of ``elem``'s type holding ``items``, or a list when that type cannot be built."""
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(elem)(items)
    except TypeError:
        return items


def collate(batch: list | tuple, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    """Collates ``batch``, a sequence of samples of the same structure, into one batch.

    Args:
        batch: the samples.
        collate_fn_map: maps a type (or a tuple of types) to the function that collates
            a batch whose first element has that type; the function is called as
            ``fn(batch, collate_fn_map=collate_fn_map)``.

    Mappings give a mapping of collated values per key, namedtuples a namedtuple of
    collated fields, and other sequences a list (or, for mutable sequences and types
    that can be built from a list, their own type) of collated positions.

    Raises:
        RuntimeError: the sequences in the batch differ in length.
        TypeError: the samples hold a type that has no collate function.
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type, fn in collate_fn_map.items():
            if isinstance(elem, collate_type):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        items = {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
        return _rebuild_mapping(elem, items)
    if _is_namedtuple(elem):
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return transposed  # tuples become lists, as in PyTorch
        return _rebuild_sequence(elem, transposed)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map: CollateFnMap | None = None) -> oneflow.Tensor:
    """Stacks tensors of the same shape along a new first dimension."""
    return oneflow.stack(list(batch), 0)


def collate_numpy_array_fn(batch, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    """Stacks NumPy arrays into one tensor of their dtype; string and object arrays are refused."""
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    if all(type(b) is type(elem) and b.dtype == elem.dtype for b in batch):
        try:
            return oneflow.from_numpy(np.ascontiguousarray(np.stack(batch)))
        except (ValueError, TypeError):
            pass  # unequal shapes or a dtype without a tensor twin: the tensor path reports it
    return collate([oneflow.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map: CollateFnMap | None = None) -> oneflow.Tensor:
    """NumPy scalars become a 1-D tensor of their dtype."""
    elem_type = type(batch[0])
    if all(type(b) is elem_type for b in batch):
        try:
            return oneflow.from_numpy(np.array(batch, dtype=elem_type))
        except (TypeError, ValueError):
            pass
    return oneflow.as_tensor(list(batch))


def collate_float_fn(batch, *, collate_fn_map: CollateFnMap | None = None) -> oneflow.Tensor:
    """Python floats become a float64 tensor."""
    if all(type(b) in (float, int) for b in batch):
        return oneflow.from_numpy(np.array(batch, dtype=np.float64))
    return oneflow.tensor(list(batch), dtype=oneflow.float64)


def collate_int_fn(batch, *, collate_fn_map: CollateFnMap | None = None) -> oneflow.Tensor:
    """Python ints become an int64 tensor (bools a bool tensor; a float among them makes it floating)."""
    if all(type(b) is int for b in batch):
        try:
            return oneflow.from_numpy(np.array(batch, dtype=np.int64))
        except OverflowError:
            pass  # oneflow.tensor reports the value that does not fit
    return oneflow.tensor(list(batch))


def collate_str_fn(batch, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    """Strings and bytes are kept as they are: the batch is returned unchanged."""
    return batch


default_collate_fn_map: CollateFnMap = {
    oneflow.Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    np.memmap: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch: list | tuple) -> Any:
    """The DataLoader's default ``collate_fn``: merges a list of samples into a batch.

    * tensors are stacked along a new first dimension;
    * NumPy arrays and NumPy scalars become tensors (stacked) of their dtype;
    * Python floats become a float64 tensor, ints an int64 tensor;
    * strings and bytes are kept (the batch's sequence of them is returned);
    * mappings, namedtuples and sequences keep their structure, with each key, field
      or position collated across the samples (tuples become lists).

    Example::

        >>> default_collate([(0, "a"), (1, "b")])
        [tensor([0, 1], dtype=oneflow.int64), ('a', 'b')]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data: Any) -> Any:
    """The DataLoader's ``collate_fn`` when automatic batching is off (``batch_size=None``).

    Converts NumPy arrays (other than string and object arrays) and NumPy scalars in
    ``data`` to tensors, keeping everything else; mappings, namedtuples and sequences
    are converted element by element (tuples become lists).
    """
    if isinstance(data, oneflow.Tensor):
        return data
    if isinstance(data, np.ndarray):
        if np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return oneflow.as_tensor(data)
    if isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_)):
        return oneflow.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data
