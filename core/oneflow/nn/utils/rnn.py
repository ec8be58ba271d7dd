"""Variable-length sequences: padding (``pad_sequence``, ``unpad_sequence``) and packing
(``PackedSequence``, ``pack_padded_sequence``, ``pad_packed_sequence``, ``pack_sequence``,
``unpack_sequence``).

A packed sequence stores a batch of sequences time step by time step, leaving out the padding:
``data`` holds the elements of step 0 of every sequence, then of step 1 of the sequences still
running, and so on, and ``batch_sizes[t]`` says how many sequences step ``t`` has. The
sequences are ordered by decreasing length; ``sorted_indices`` maps that order back to the
caller's batch (``None`` when the caller's batch was already sorted). The recurrent layers
(``oneflow.nn.RNN``, ``LSTM``, ``GRU``) take and return packed sequences. Packing and padding
are gathers (``index_select``), so gradients flow through them.
"""

from __future__ import annotations

import builtins
from collections import namedtuple
from collections.abc import Iterable

import oneflow

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]

_PackedSequenceFields = namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


def invert_permutation(permutation: oneflow.Tensor | None) -> oneflow.Tensor | None:
    """The inverse of a permutation given as an index tensor (``None`` stays ``None``)."""
    if permutation is None:
        return None
    return oneflow.argsort(permutation)


class PackedSequence(_PackedSequenceFields):
    """A batch of variable-length sequences packed time step by time step (a named tuple of
    ``data``, ``batch_sizes``, ``sorted_indices``, ``unsorted_indices``).

    Build one with :func:`pack_padded_sequence` or :func:`pack_sequence` rather than directly.

    Attributes:
        data (Tensor): the packed elements, ``(sum of lengths, *)``.
        batch_sizes (Tensor): int64 CPU tensor, the number of sequences at each time step.
        sorted_indices (Tensor, optional): the caller's batch index of each sorted sequence.
        unsorted_indices (Tensor, optional): the inverse permutation of ``sorted_indices``.

    ``PackedSequence(data, batch_sizes, sorted_indices=None, unsorted_indices=None)`` (or with
    ``(data, batch_sizes)`` as its one argument) fills ``unsorted_indices`` in when left out.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise TypeError("PackedSequence(): without batch_sizes, data must be a (data, batch_sizes) pair")
            data, batch_sizes = data
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                "manually. They should be instantiated by functions like pack_sequence and pack_padded_sequence "
                "in nn.utils.rnn.")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with_data(self, data: oneflow.Tensor, **kwargs) -> PackedSequence:
        """This sequence with ``data`` replaced; the permutations follow it to its device
        (``batch_sizes`` stays on the CPU)."""
        if data is self.data:
            return self

        def move(t):
            return None if t is None else t.to(data.device, **kwargs)

        return type(self)(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def to(self, *args, **kwargs) -> PackedSequence:
        """``data.to(*args, **kwargs)``, the index tensors moved to its device; ``self`` when
        nothing changes."""
        data = self.data.to(*args, **kwargs)
        rest = {k: v for k, v in kwargs.items() if k not in ("device", "dtype")}
        return self._with_data(data, **rest)

    def cuda(self, *args, **kwargs) -> PackedSequence:
        """The sequence on a CUDA device (``data.cuda(*args, **kwargs)``)."""
        return self._with_data(self.data.cuda(*args, **kwargs))

    def cpu(self, *args, **kwargs) -> PackedSequence:
        """The sequence on the CPU."""
        return self._with_data(self.data.cpu(*args, **kwargs))

    def double(self) -> PackedSequence:
        """``data`` as float64."""
        return self.to(dtype=oneflow.float64)

    def float(self) -> PackedSequence:
        """``data`` as float32."""
        return self.to(dtype=oneflow.float32)

    def half(self) -> PackedSequence:
        """``data`` as float16."""
        return self.to(dtype=oneflow.float16)

    def long(self) -> PackedSequence:
        """``data`` as int64."""
        return self.to(dtype=oneflow.int64)

    def int(self) -> PackedSequence:
        """``data`` as int32."""
        return self.to(dtype=oneflow.int32)

    def short(self) -> PackedSequence:
        """``data`` as int16."""
        return self.to(dtype=oneflow.int16)

    def char(self) -> PackedSequence:
        """``data`` as int8."""
        return self.to(dtype=oneflow.int8)

    def byte(self) -> PackedSequence:
        """``data`` as uint8."""
        return self.to(dtype=oneflow.uint8)

    @property
    def is_cuda(self) -> builtins.bool:
        """Whether ``data`` is on a CUDA device."""
        return self.data.is_cuda


def _lengths_tensor(lengths) -> oneflow.Tensor:
    """``lengths`` as an int64 tensor (a float tensor is truncated, as PyTorch does)."""
    if isinstance(lengths, oneflow.Tensor):
        return lengths.to(dtype=oneflow.int64)
    return oneflow.as_tensor(lengths, dtype=oneflow.int64, device="cpu")


def _dtype_name(dtype) -> str:
    return str(dtype).split(".")[-1]


def pack_padded_sequence(input: oneflow.Tensor, lengths: oneflow.Tensor | list, batch_first: builtins.bool = False,
                         enforce_sorted: builtins.bool = True) -> PackedSequence:
    """Packs a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) of sequences whose
    lengths are ``lengths``.

    Args:
        input: the padded batch.
        lengths: the length of each sequence (a list, or a 1-D CPU tensor, cast to int64); each
            must be positive and at most ``T``.
        batch_first (bool): whether ``input`` is batch-major. Default: False.
        enforce_sorted (bool): require ``lengths`` in decreasing order; otherwise the batch is
            sorted here and the permutation kept in the result. Default: True.

    Differentiable with respect to ``input``.
    """
    lengths = _lengths_tensor(lengths)
    if lengths.dim() != 1 or lengths.device.type != "cpu":
        raise RuntimeError(
            f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D {lengths.device} "
            f"{_dtype_name(lengths.dtype)} tensor")
    if input.dim() < 2:
        raise IndexError(f"pack_padded_sequence(): expected an input with a time and a batch dim, but got an input "
                         f"of size {list(input.shape)}")
    sorted_indices = None
    if not enforce_sorted:
        # A stable sort: equal lengths keep the caller's order (PyTorch's order among equal
        # lengths is unspecified).
        lengths, sorted_indices = oneflow.sort(lengths, descending=True, stable=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    t_dim, b_dim = (1, 0) if batch_first else (0, 1)
    steps, batch = input.shape[t_dim], input.shape[b_dim]
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    lens = lengths.tolist()
    if len(lens) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                           f"(batch_size={batch})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    for a, b in zip(lens, lens[1:]):
        if b > a:
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability.")
    if lens[0] > steps:
        raise RuntimeError(f"pack_padded_sequence(): a sequence of length {lens[0]} does not fit in an input of "
                           f"{steps} time steps (input of size {list(input.shape)})")
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(lens[0])]
    # Row of element (t, b) in the input with its time and batch dims flattened together.
    row = (lambda t, b: b * steps + t) if batch_first else (lambda t, b: t * batch + b)
    index = [row(t, b) for t, bs in enumerate(batch_sizes) for b in range(bs)]
    flat = input.reshape(steps * batch, *input.shape[2:])
    data = flat.index_select(0, oneflow.tensor(index, dtype=oneflow.int64, device=input.device))
    return PackedSequence(data, oneflow.tensor(batch_sizes, dtype=oneflow.int64), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: builtins.bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[oneflow.Tensor, oneflow.Tensor]:
    """Unpacks a :class:`PackedSequence` into a padded batch; the inverse of
    :func:`pack_padded_sequence`.

    Args:
        sequence: the packed batch.
        batch_first (bool): return ``(B, T, *)`` instead of ``(T, B, *)``. Default: False.
        padding_value (float): the value of the padding. Default: 0.
        total_length (int, optional): pad to this many time steps (at least the longest
            sequence's length) instead of the longest sequence's length.

    Returns ``(padded, lengths)``, in the batch order of the sequences before packing;
    ``lengths`` is an int64 CPU tensor. Differentiable with respect to ``sequence.data``.
    """
    data, batch_sizes = sequence.data, sequence.batch_sizes
    sizes = batch_sizes.tolist()
    max_len = len(sizes)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {max_len}")
        steps = total_length
    else:
        steps = max_len
    batch = sizes[0] if sizes else 0
    offsets, start = [], 0
    for bs in sizes:
        offsets.append(start)
        start += bs
    pad_row = data.shape[0]
    order = sequence.unsorted_indices.tolist() if sequence.unsorted_indices is not None else list(range(batch))

    def row(t, b):  # the data row of sorted sequence b at step t, or the padding row
        return offsets[t] + b if t < max_len and b < sizes[t] else pad_row

    # Batch-first output is batch-major in memory after a reordering, and a transposed view
    # of the time-major result without one (as PyTorch returns it).
    batch_major = batch_first and sequence.unsorted_indices is not None
    if batch_major:
        index = [row(t, b) for b in order for t in range(steps)]
    else:
        index = [row(t, b) for t in range(steps) for b in order]
    trailing = tuple(data.shape[1:])
    pad = oneflow.full((1, *trailing), padding_value, dtype=data.dtype, device=data.device)
    gathered = oneflow.cat([data, pad]).index_select(0, oneflow.tensor(index, dtype=oneflow.int64,
                                                                       device=data.device))
    if batch_major:
        padded = gathered.view(batch, steps, *trailing)
    else:
        padded = gathered.view(steps, batch, *trailing)
        if batch_first:
            padded = padded.transpose(0, 1)
    lengths = [sum(1 for bs in sizes if bs > b) for b in order]
    return padded, oneflow.tensor(lengths, dtype=oneflow.int64)


def pack_sequence(sequences: list, enforce_sorted: builtins.bool = True) -> PackedSequence:
    """Packs a list of ``(L_i, *)`` tensors (in decreasing length order unless
    ``enforce_sorted=False``): :func:`pad_sequence` then :func:`pack_padded_sequence`."""
    lengths = oneflow.tensor([s.size(0) for s in sequences], dtype=oneflow.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of ``(L_i, *)`` tensors of a :class:`PackedSequence`, in the order they had
    before packing; the inverse of :func:`pack_sequence`."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


def pad_sequence(sequences: oneflow.Tensor | Iterable[oneflow.Tensor], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> oneflow.Tensor:
    """Stacks tensors of shape ``(L_i, *)`` into one of shape ``(max L, B, *)`` (or
    ``(B, max L, *)`` with ``batch_first``), filling the gaps with ``padding_value``.

    Args:
        sequences: the tensors (their trailing dims must agree), or one tensor whose first
            dim is unbound into them.
        batch_first (bool): put the batch dim first. Default: False.
        padding_value (float): the fill value. Default: 0.
        padding_side (str): ``"right"`` (after each sequence, the default) or ``"left"``.

    Differentiable with respect to the sequences.
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, oneflow.Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    for i, s in enumerate(sequences):
        if not isinstance(s, oneflow.Tensor):
            raise TypeError(f"pad_sequence(): expected a sequence of Tensors, got {type(s).__name__} at {i}")
    max_len = max(s.shape[0] for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    padded = []
    for s in sequences:
        if tuple(s.shape[1:]) != trailing:
            raise RuntimeError(
                f"pad_sequence(): the sequences' trailing dims differ: {tuple(sequences[0].shape)} "
                f"and {tuple(s.shape)}"
            )
        gap = max_len - s.shape[0]
        if gap:
            pad = oneflow.full((gap, *trailing), padding_value, dtype=s.dtype, device=s.device)
            s = oneflow.cat([s, pad] if padding_side == "right" else [pad, s])
        padded.append(s)
    return oneflow.stack(padded, dim=0 if batch_first else 1)


def unpad_sequence(padded_sequences: oneflow.Tensor, lengths: oneflow.Tensor | list,
                   batch_first: bool = False) -> list:
    """The inverse of :func:`pad_sequence` (right padding): the list of ``(L_i, *)`` tensors."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    if isinstance(lengths, oneflow.Tensor):
        lengths = lengths.tolist()
    return [seq[: int(n)] for seq, n in zip(padded_sequences, lengths)]
