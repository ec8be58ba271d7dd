"""Recurrent layers: ``RNN`` (tanh or relu), ``LSTM`` (with optional projections) and ``GRU``,
multi-layer and bidirectional, and the single-step cells ``RNNCell``, ``LSTMCell`` and
``GRUCell``.

Parameters have PyTorch's names (``weight_ih_l0``, ``bias_hh_l1_reverse``,
``weight_hr_l0``, ...), shapes, gate order (LSTM: input, forget, cell, output; GRU:
reset, update, new) and initialisation :math:`\\mathcal{U}(-1/\\sqrt{H}, 1/\\sqrt{H})`.
The recurrences are written with ``linear`` and elementwise ops: the input projection
of a whole sequence is one matrix product, then each time step adds the hidden
projection; autograd provides the backward pass.

The layers also take a :class:`~oneflow.nn.utils.rnn.PackedSequence` and then return one.
Both kinds of input run through the same loop over packed data: a padded ``(L, N, *)``
input is the packed sequence whose every step has all N sequences. At a step with fewer
sequences than the one before, the sequences that ended keep their last state as their
final one; the reverse direction starts each sequence from the initial state at its own
last element.
"""

from __future__ import annotations

import math
import numbers
import warnings

import oneflow
from oneflow.nn import functional as F
from oneflow.nn import init
from oneflow.nn.modules.module import Module
from oneflow.nn.parameter import Parameter
from oneflow.nn.utils.rnn import PackedSequence

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]

Tensor = oneflow.Tensor

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _rnn_step(activation):
    def step(gi, h, w_hh, b_hh):
        return activation(gi + F.linear(h, w_hh, b_hh))

    return step


def _lstm_step(gi, h, c, w_hh, b_hh, w_hr):
    gates = gi + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c = oneflow.sigmoid(f) * c + oneflow.sigmoid(i) * oneflow.tanh(g)
    h = oneflow.sigmoid(o) * oneflow.tanh(c)
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _gru_step(gi, h, w_hh, b_hh):
    gh = F.linear(h, w_hh, b_hh)
    i_r, i_z, i_n = gi.chunk(3, -1)
    h_r, h_z, h_n = gh.chunk(3, -1)
    r = oneflow.sigmoid(i_r + h_r)
    z = oneflow.sigmoid(i_z + h_z)
    n = oneflow.tanh(i_n + r * h_n)
    return n + z * (h - n)


class RNNBase(Module):
    """The parameters, checks and multi-layer, bidirectional loop shared by RNN, LSTM and GRU.

    Args:
        mode: ``'RNN_TANH'``, ``'RNN_RELU'``, ``'LSTM'`` or ``'GRU'``.
        input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
        proj_size: as documented on :class:`LSTM`.
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout) if isinstance(dropout, numbers.Number) else dropout
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being "
                "zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                f"dropout={dropout} with num_layers=1 has no effect: dropout is applied between stacked "
                "recurrent layers, after every layer but the last.", stacklevel=3)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        gate_size = _GATES[mode] * hidden_size

        kw = {"device": device, "dtype": dtype}
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                suffix = "_reverse" if direction == 1 else ""
                params = [(f"weight_ih_l{layer}{suffix}", (gate_size, layer_input_size)),
                          (f"weight_hh_l{layer}{suffix}", (gate_size, real_hidden_size))]
                if bias:
                    params += [(f"bias_ih_l{layer}{suffix}", (gate_size,)),
                               (f"bias_hh_l{layer}{suffix}", (gate_size,))]
                if proj_size > 0:
                    params.append((f"weight_hr_l{layer}{suffix}", (proj_size, hidden_size)))
                for name, shape in params:
                    setattr(self, name, Parameter(oneflow.empty(shape, **kw)))
                names = [name for name, _ in params]
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraws every weight and bias from :math:`\\mathcal{U}(-1/\\sqrt{H}, 1/\\sqrt{H})`."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """Kept for PyTorch compatibility; the weights need no flat buffer here."""

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters of each layer and direction, in registration order."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # --- checks -----------------------------------------------------------------------------

    def _name(self) -> str:
        return type(self).__name__

    def _check_input(self, input: Tensor) -> None:
        weight_dtype = getattr(self, self._flat_weights_names[0]).dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"input must have the type {weight_dtype}, got type {input.dtype}")
        if input.size(-1) != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}")
        if input.size(1 if self.batch_first else 0) == 0:
            raise RuntimeError(f"{self._name()}: expected a sequence length larger than 0")

    def _expected_hidden_size(self, input: Tensor, hidden_size: int) -> tuple:
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, hidden_size)

    @staticmethod
    def _check_hidden_size(hx: Tensor, expected: tuple, msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    def _prepare_input(self, input: Tensor):
        if input.dim() not in (2, 3):
            raise ValueError(f"{self._name()}: Expected input to be 2D or 3D, got {input.dim()}D tensor instead")
        is_batched = input.dim() == 3
        if not is_batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        return input, is_batched

    # --- the recurrence ---------------------------------------------------------------------

    def _layer_weights(self, layer: int, direction: int) -> dict:
        suffix = "_reverse" if direction == 1 else ""
        kinds = {"w_ih": "weight_ih", "w_hh": "weight_hh", "b_ih": "bias_ih", "b_hh": "bias_hh", "w_hr": "weight_hr"}
        # Without bias or projection those parameters are not registered at all, as in PyTorch.
        return {key: getattr(self, f"{kind}_l{layer}{suffix}", None) for key, kind in kinds.items()}

    def _run_direction(self, x: Tensor, batch_sizes: list[int], state: tuple, w: dict, reverse: bool):
        """One layer in one direction over packed data ``x`` (``(sum(batch_sizes), H_in)``, step t
        holding the first ``batch_sizes[t]`` sequences); returns the outputs
        ``(sum(batch_sizes), H_out)`` and the final state of every sequence."""
        gi_all = F.linear(x, w["w_ih"], w["b_ih"])  # the input projection of every step at once
        offsets, start = [], 0
        for bs in batch_sizes:
            offsets.append(start)
            start += bs
        steps = range(len(batch_sizes) - 1, -1, -1) if reverse else range(len(batch_sizes))
        if self.mode == "LSTM":
            step = _lstm_step
            extra = (w["w_hh"], w["b_hh"], w["w_hr"])
        else:
            if self.mode == "GRU":
                step = _gru_step
            else:
                step = _rnn_step(oneflow.tanh if self.mode == "RNN_TANH" else oneflow.relu)
            extra = (w["w_hh"], w["b_hh"])
        lstm = self.mode == "LSTM"
        outputs = [None] * len(batch_sizes)
        # Forward, sequences end as the batch shrinks: their rows leave the running state and
        # are kept as final states. Reverse, sequences join as the batch grows, from their
        # initial state.
        full = state[0].size(0)
        active = 0 if reverse else full
        cur = tuple(s[:0] for s in state) if reverse else state
        ended: list[tuple] = []
        for t in steps:
            bs = batch_sizes[t]
            if bs > active:
                joining = tuple(s[active:bs] for s in state)
                cur = joining if active == 0 else tuple(oneflow.cat([c, j]) for c, j in zip(cur, joining))
            elif bs < active:
                ended.append(tuple(c[bs:] for c in cur))
                cur = tuple(c[:bs] for c in cur)
            active = bs
            gi = gi_all[offsets[t]:offsets[t] + bs]
            cur = step(gi, *cur, *extra) if lstm else (step(gi, *cur, *extra),)
            outputs[t] = cur[0]
        if reverse and active < full:
            # Rows that no step reached (only without any step): their initial state.
            ended.append(tuple(s[active:] for s in state))
        if ended:
            # Rows ended in order of decreasing index; the running rows come first.
            cur = tuple(oneflow.cat([c, *(e[k] for e in reversed(ended))]) for k, c in enumerate(cur))
        if not outputs:
            return x.new_zeros((0, cur[0].size(-1))), cur
        return oneflow.cat(outputs), cur

    def _run(self, x: Tensor, batch_sizes: list[int], states: list[Tensor]):
        """The stacked layers over packed data ``x`` (see :meth:`_run_direction`); ``states``
        holds the initial hidden states (and for LSTM cell states), each
        ``(num_layers * D, N, *)``."""
        num_directions = 2 if self.bidirectional else 1
        finals: list[list[Tensor]] = [[] for _ in states]
        layer_input = x
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                idx = layer * num_directions + direction
                state = tuple(s[idx] for s in states)
                out, final = self._run_direction(layer_input, batch_sizes, state,
                                                 self._layer_weights(layer, direction), reverse=direction == 1)
                outputs.append(out)
                for k, f in enumerate(final):
                    finals[k].append(f)
            layer_input = outputs[0] if num_directions == 1 else oneflow.cat(outputs, dim=1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, [oneflow.stack(f) for f in finals]

    def _run_padded(self, input: Tensor, states: list[Tensor]):
        """The layers over a padded batch ``(L, N, H_in)`` (``(N, L, H_in)`` with batch_first)."""
        x = input.transpose(0, 1) if self.batch_first else input
        steps, batch = x.size(0), x.size(1)
        out, finals = self._run(x.reshape(steps * batch, x.size(2)), [batch] * steps, states)
        out = out.view(steps, batch, out.size(-1))
        return (out.transpose(0, 1) if self.batch_first else out), finals

    def _run_packed(self, input: PackedSequence, hx: list[Tensor] | None, sizes: list[int]):
        """The layers over a packed sequence; ``hx`` (in the caller's batch order) or zeros
        start the states, whose last dims are ``sizes``. Returns the packed output and the
        final states in the caller's batch order."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        weight_dtype = getattr(self, self._flat_weights_names[0]).dtype
        if data.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({data.dtype}) does not match weight dtype ({weight_dtype}). "
                             f"Convert input: input.to({weight_dtype}), or convert model: model.to({data.dtype})")
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        if data.size(-1) != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {data.size(-1)}")
        sizes_list = batch_sizes.tolist()
        num_directions = 2 if self.bidirectional else 1
        max_batch = sizes_list[0] if sizes_list else 0
        expected = [(self.num_layers * num_directions, max_batch, n) for n in sizes]
        if hx is None:
            hx = [oneflow.zeros(e, dtype=data.dtype, device=data.device) for e in expected]
        else:
            msgs = (["Expected hidden size {}, got {}"] if len(hx) == 1
                    else ["Expected hidden[0] size {}, got {}", "Expected hidden[1] size {}, got {}"])
            for h, e, msg in zip(hx, expected, msgs):
                self._check_hidden_size(h, e, msg)
            if sorted_indices is not None:  # hx is in the caller's batch order
                hx = [h.index_select(1, sorted_indices) for h in hx]
        out, finals = self._run(data, sizes_list, hx)
        if unsorted_indices is not None:
            finals = [f.index_select(1, unsorted_indices) for f in finals]
        return PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices), finals


class RNN(RNNBase):
    r"""Multi-layer Elman RNN: :math:`h_t = \tanh(x_t W_{ih}^T + b_{ih} + h_{t-1} W_{hh}^T + b_{hh})`
    (or ReLU).

    Args:
        input_size: features of the input :math:`x`.
        hidden_size: features of the hidden state :math:`h`.
        num_layers: number of stacked layers. Default: 1.
        nonlinearity: ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.
        bias: learn ``b_ih`` and ``b_hh``. Default: ``True``.
        batch_first: input and output are ``(N, L, H)`` instead of ``(L, N, H)``. Default: ``False``.
        dropout: dropout on the outputs of every layer but the last (training only). Default: 0.
        bidirectional: also run the sequence backwards and concatenate. Default: ``False``.

    ``forward(input, hx=None)`` returns ``(output, h_n)``: the last layer's hidden states at every
    step, ``(L, N, D * H)``, and the final hidden state of every layer and direction,
    ``(num_layers * D, N, H)``. Unbatched inputs ``(L, H_in)`` give unbatched results.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device=None, dtype=None, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if kwargs:
            raise TypeError(f"RNN.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor | PackedSequence, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        if isinstance(input, PackedSequence):
            output, (h_n,) = self._run_packed(input, None if hx is None else [hx], [self.hidden_size])
            return output, h_n
        input, is_batched = self._prepare_input(input)
        if hx is not None:
            if is_batched and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            if not is_batched:
                if hx.dim() != 2:
                    raise RuntimeError(
                        f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        self._check_input(input)
        expected = self._expected_hidden_size(input, self.hidden_size)
        if hx is None:
            hx = oneflow.zeros(expected, dtype=input.dtype, device=input.device)
        self._check_hidden_size(hx, expected)
        output, (h_n,) = self._run_padded(input, [hx])
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
            h_n = h_n.squeeze(1)
        return output, h_n


class LSTM(RNNBase):
    r"""Multi-layer long short-term memory RNN. Per step, with gates from
    :math:`x_t W_{ih}^T + b_{ih} + h_{t-1} W_{hh}^T + b_{hh}` split into :math:`i, f, g, o`:
    :math:`c_t = \sigma(f) c_{t-1} + \sigma(i) \tanh(g)`, :math:`h_t = \sigma(o) \tanh(c_t)`
    (then :math:`h_t W_{hr}^T` when ``proj_size > 0``).

    Args:
        input_size: features of the input :math:`x`.
        hidden_size: features of the cell state (and of :math:`h` without projection).
        num_layers: number of stacked layers. Default: 1.
        bias: learn ``b_ih`` and ``b_hh``. Default: ``True``.
        batch_first: input and output are ``(N, L, H)`` instead of ``(L, N, H)``. Default: ``False``.
        dropout: dropout on the outputs of every layer but the last (training only). Default: 0.
        bidirectional: also run the sequence backwards and concatenate. Default: ``False``.
        proj_size: if positive, project :math:`h` to this size with ``weight_hr``. Default: 0.

    ``forward(input, (h_0, c_0)=None)`` returns ``(output, (h_n, c_n))``.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device=device, dtype=dtype)

    def forward(self, input: Tensor | PackedSequence, hx: tuple[Tensor, Tensor] | None = None):
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if isinstance(input, PackedSequence):
            states = None if hx is None else [hx[0], hx[1]]
            output, (h_n, c_n) = self._run_packed(input, states, [real_hidden_size, self.hidden_size])
            return output, (h_n, c_n)
        input, is_batched = self._prepare_input(input)
        if hx is not None:
            h0, c0 = hx[0], hx[1]
            if is_batched and (h0.dim() != 3 or c0.dim() != 3):
                raise RuntimeError(
                    f"For batched 3-D input, hx and cx should also be 3-D but got ({h0.dim()}-D, {c0.dim()}-D) "
                    "tensors")
            if not is_batched:
                if h0.dim() != 2 or c0.dim() != 2:
                    raise RuntimeError(
                        f"For unbatched 2-D input, hx and cx should also be 2-D but got ({h0.dim()}-D, "
                        f"{c0.dim()}-D) tensors")
                h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1)
        self._check_input(input)
        expected_h = self._expected_hidden_size(input, real_hidden_size)
        expected_c = self._expected_hidden_size(input, self.hidden_size)
        if hx is None:
            h0 = oneflow.zeros(expected_h, dtype=input.dtype, device=input.device)
            c0 = oneflow.zeros(expected_c, dtype=input.dtype, device=input.device)
        self._check_hidden_size(h0, expected_h, "Expected hidden[0] size {}, got {}")
        self._check_hidden_size(c0, expected_c, "Expected hidden[1] size {}, got {}")
        output, (h_n, c_n) = self._run_padded(input, [h0, c0])
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return output, (h_n, c_n)


class GRU(RNNBase):
    r"""Multi-layer gated recurrent unit RNN. Per step, with :math:`r, z, n` the reset, update and
    new gates: :math:`r = \sigma(W_{ir} x + b_{ir} + W_{hr} h + b_{hr})`, :math:`z` likewise,
    :math:`n = \tanh(W_{in} x + b_{in} + r (W_{hn} h + b_{hn}))`, :math:`h' = (1 - z) n + z h`.

    Arguments are those of :class:`RNN` without ``nonlinearity``. ``forward(input, hx=None)``
    returns ``(output, h_n)``.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, device=None,
                 dtype=None, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if kwargs:
            raise TypeError(f"GRU.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)

    forward = RNN.forward


class RNNCellBase(Module):
    """Parameters and checks shared by the single-step cells."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kw = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(oneflow.empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(oneflow.empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(oneflow.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(oneflow.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = self.__dict__.get("nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        """Redraws every weight and bias from :math:`\\mathcal{U}(-1/\\sqrt{H}, 1/\\sqrt{H})`."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _check_dims(self, input: Tensor, hx, hidden_names) -> bool:
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for label, h in zip(hidden_names, hx):
            if h is not None and h.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {h.dim()}D instead")
        return input.dim() == 2

    def _check_sizes(self, input: Tensor, hx: Tensor, label: str) -> None:
        if input.size(1) != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.size(1)} expected {self.input_size}")
        if input.size(0) != hx.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} batch size "
                               f"{hx.size(0)}")
        if hx.size(1) != self.hidden_size:
            raise RuntimeError(
                f"hidden{label} has inconsistent hidden_size: got {hx.size(1)}, expected {self.hidden_size}")

    def _zeros(self, input: Tensor) -> Tensor:
        return oneflow.zeros((input.size(0), self.hidden_size), dtype=input.dtype, device=input.device)


class RNNCell(RNNCellBase):
    r"""One step of an Elman RNN: :math:`h' = \tanh(x W_{ih}^T + b_{ih} + h W_{hh}^T + b_{hh})` (or ReLU).

    Args:
        input_size: features of the input.
        hidden_size: features of the hidden state.
        bias: learn ``bias_ih`` and ``bias_hh``. Default: ``True``.
        nonlinearity: ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.

    ``forward(input, hx=None)``: ``input`` :math:`(N, H_{in})` or :math:`(H_{in})`, ``hx`` the
    previous hidden state (zeros by default); returns the next hidden state.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        is_batched = self._check_dims(input, (hx,), ("hidden",))
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = self._zeros(input)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        self._check_sizes(input, hx, "")
        if self.nonlinearity == "tanh":
            activation = oneflow.tanh
        elif self.nonlinearity == "relu":
            activation = oneflow.relu
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        h = activation(F.linear(input, self.weight_ih, self.bias_ih) + F.linear(hx, self.weight_hh, self.bias_hh))
        return h if is_batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    r"""One step of an LSTM (gates input, forget, cell, output as in :class:`LSTM`).

    Args:
        input_size: features of the input.
        hidden_size: features of the hidden and cell states.
        bias: learn ``bias_ih`` and ``bias_hh``. Default: ``True``.

    ``forward(input, hx=None)``: ``hx`` is ``(h, c)`` (zeros by default); returns ``(h', c')``.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        is_batched = self._check_dims(input, hx if hx is not None else (), ("hx[0]", "hx[1]"))
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            h, c = self._zeros(input), self._zeros(input)
        else:
            h, c = hx
            if not is_batched:
                h, c = h.unsqueeze(0), c.unsqueeze(0)
        self._check_sizes(input, h, "[0]")
        self._check_sizes(input, c, "[1]")
        h, c = _lstm_step(F.linear(input, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh, None)
        if not is_batched:
            h, c = h.squeeze(0), c.squeeze(0)
        return h, c


class GRUCell(RNNCellBase):
    r"""One step of a GRU (reset, update and new gates as in :class:`GRU`).

    Args:
        input_size: features of the input.
        hidden_size: features of the hidden state.
        bias: learn ``bias_ih`` and ``bias_hh``. Default: ``True``.

    ``forward(input, hx=None)`` returns the next hidden state.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        is_batched = self._check_dims(input, (hx,), ("hidden",))
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = self._zeros(input)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        self._check_sizes(input, hx, "")
        h = _gru_step(F.linear(input, self.weight_ih, self.bias_ih), hx, self.weight_hh, self.bias_hh)
        return h if is_batched else h.squeeze(0)
