"""OneFlow's quantization-aware training modules: the observers that compute a tensor's
quantization parameters (``MinMaxObserver``, ``MovingAverageMinMaxObserver``), the simulated
quantize-dequantize of training (``FakeQuantization``), the quantize of inference
(``Quantization``), and convolutions that fake-quantize their input and weight (``QatConv1d/2d/3d``).

Two formulas, as OneFlow's:

- ``"google"``: ``scale`` (and ``zero_point``) per layer or per output channel (dim 0), with
  ``"symmetric"`` (signed ``[-2^(b-1), 2^(b-1) - 1]``) or ``"affine"`` (unsigned ``[0, 2^b - 1]``)
  integers of ``b = quantization_bit`` bits;
- ``"cambricon"``: per layer, a power-of-two step: the "scale" is the shift
  ``floor(log2(max|x|)) - (b - 2)`` and values are quantized with the step ``2^shift``.

Rounding is half to even (``std::nearbyint``), as OneFlow's kernels; the zero point of
``FakeQuantization``/``Quantization`` is first rounded half away from zero. The observers' results
take no gradient; ``FakeQuantization`` passes its input's gradient straight through.
"""

from __future__ import annotations

import numbers

import oneflow
from oneflow.nn.modules.conv import Conv1d, Conv2d, Conv3d
from oneflow.nn.modules.module import Module

__all__ = [
    "FakeQuantization",
    "MinMaxObserver",
    "MovingAverageMinMaxObserver",
    "QatConv1d",
    "QatConv2d",
    "QatConv3d",
    "Quantization",
]

_FORMULAS = ("google", "cambricon")
_SCHEMES = ("symmetric", "affine")


def _check_config(name: str, quantization_formula, quantization_bit, quantization_scheme) -> None:
    if quantization_formula not in _FORMULAS:
        raise ValueError(f"{name}: quantization_formula must be one of {_FORMULAS}, got {quantization_formula!r}")
    if isinstance(quantization_bit, bool) or not isinstance(quantization_bit, numbers.Integral):
        raise TypeError(f"{name}: quantization_bit must be an int, got {type(quantization_bit).__name__}")
    if not 2 <= quantization_bit <= 8:
        raise ValueError(f"{name}: quantization_bit must be in [2, 8], got {quantization_bit}")
    if quantization_scheme not in _SCHEMES:
        raise ValueError(f"{name}: quantization_scheme must be one of {_SCHEMES}, got {quantization_scheme!r}")


def _check_float_tensor(name: str, arg: str, t) -> None:
    if not isinstance(t, oneflow.Tensor):
        raise TypeError(f"{name}: {arg} must be a Tensor, got {type(t).__name__}")
    if not t.is_floating_point():
        raise TypeError(f"{name}: {arg} must be a floating-point tensor, got {t.dtype}")
    if t.numel() == 0:
        raise ValueError(f"{name}: {arg} must not be empty, got shape {tuple(t.shape)}")


def _symmetric_max(bit: int) -> float:
    return 2.0 ** (bit - 1) - 1


def _cambricon_shift(abs_max: oneflow.Tensor, bit: int) -> oneflow.Tensor:
    return oneflow.floor(oneflow.log2(abs_max)) - (bit - 2)


def _round_half_away(t: oneflow.Tensor) -> oneflow.Tensor:
    return oneflow.sign(t) * oneflow.floor(t.abs() + 0.5)


class MinMaxObserver(Module):
    r"""Computes the quantization parameters of a tensor from its min and max.

    With ``"google"``, per layer (or, with ``per_layer_quantization=False``, per slice
    ``input[c]`` along dim 0):

    - ``"symmetric"``: ``scale = max(|max(x)|, |min(x)|) / (2^(b-1) - 1)``, ``zero_point = 0``;
    - ``"affine"``: ``scale = (max(x) - min(x)) / (2^b - 1)``,
      ``zero_point = -round(min(x) / scale)``.

    With ``"cambricon"`` (per layer only): ``scale = floor(log2(max|x|)) - (b - 2)`` (a shift),
    ``zero_point = 0``.

    Args:
        quantization_formula: ``"google"`` or ``"cambricon"``. Default: ``"google"``.
        quantization_bit: the integer width ``b``, in [2, 8]. Default: 8.
        quantization_scheme: ``"symmetric"`` (signed) or ``"affine"`` (unsigned). Default: ``"symmetric"``.
        per_layer_quantization: one scale for the whole tensor (``True``) or one per channel of
            dim 0. Default: ``True``.

    Returns:
        ``(scale, zero_point)``: tensors of the input's dtype and shape ``(1,)`` (per layer) or
        ``(input.shape[0],)`` (per channel).
    """

    def __init__(self, quantization_formula: str = "google", quantization_bit: int = 8,
                 quantization_scheme: str = "symmetric", per_layer_quantization: bool = True) -> None:
        super().__init__()
        _check_config("MinMaxObserver", quantization_formula, quantization_bit, quantization_scheme)
        if not isinstance(per_layer_quantization, bool):
            raise TypeError("MinMaxObserver: per_layer_quantization must be a bool, "
                            f"got {type(per_layer_quantization).__name__}")
        if quantization_formula == "cambricon" and not per_layer_quantization:
            raise ValueError("MinMaxObserver: the cambricon formula supports per-layer quantization only "
                             "(per_layer_quantization=True)")
        self.quantization_formula = quantization_formula
        self.quantization_bit = int(quantization_bit)
        self.quantization_scheme = quantization_scheme
        self.per_layer_quantization = per_layer_quantization

    def forward(self, input: oneflow.Tensor) -> tuple[oneflow.Tensor, oneflow.Tensor]:
        _check_float_tensor("MinMaxObserver", "input", input)
        bit = self.quantization_bit
        with oneflow.no_grad():
            if self.per_layer_quantization:
                rows = input.reshape(1, -1)
            else:
                if input.dim() == 0:
                    raise ValueError("MinMaxObserver: per-channel quantization needs an input with a dim 0, "
                                     "got a 0-d tensor")
                rows = input.reshape(input.shape[0], -1)
            in_max, in_min = rows.amax(dim=1), rows.amin(dim=1)
            if self.quantization_formula == "cambricon":
                scale = _cambricon_shift(oneflow.maximum(in_max.abs(), in_min.abs()), bit)
                zero_point = oneflow.zeros_like(scale)
            elif self.quantization_scheme == "symmetric":
                scale = oneflow.maximum(in_max.abs(), in_min.abs()) / _symmetric_max(bit)
                zero_point = oneflow.zeros_like(scale)
            else:
                scale = (in_max - in_min) / (2.0 ** bit - 1)
                zero_point = -oneflow.round(in_min / scale)
        return scale, zero_point

    def extra_repr(self) -> str:
        return (f"quantization_formula={self.quantization_formula!r}, quantization_bit={self.quantization_bit}, "
                f"quantization_scheme={self.quantization_scheme!r}, "
                f"per_layer_quantization={self.per_layer_quantization}")


class MovingAverageMinMaxObserver(Module):
    r"""Computes per-layer quantization parameters from moving averages of a tensor's max and min.

    While training and ``current_train_step <= stop_update_after_iters``, each call updates the
    buffers ``moving_max`` / ``moving_min`` (a buffer still 0 takes the batch's value as is):

    - ``"symmetric"`` and ``"cambricon"``: ``moving_max = moving_max * momentum + max|x| * (1 - momentum)``,
      ``moving_min = moving_max``;
    - ``"affine"``: the same average for ``max(x)`` and ``min(x)`` separately.

    Then ``"symmetric"``: ``scale = moving_max / (2^(b-1) - 1)``, ``zero_point = 0``;
    ``"affine"``: ``scale = (moving_max - moving_min) / (2^b - 1)``,
    ``zero_point = -moving_min / scale`` (not rounded); ``"cambricon"``:
    ``scale = floor(log2(moving_max)) - (b - 2)``, ``zero_point = 0``. In eval mode the buffers
    are used as they are.

    Args:
        training: the module's initial mode (``.train()``/``.eval()`` change it). Default: ``False``.
        quantization_formula: ``"google"`` or ``"cambricon"``. Default: ``"google"``.
        stop_update_after_iters: the last step at which the averages are updated. Default: 0.
        quantization_bit: the integer width ``b``, in [2, 8]. Default: 8.
        quantization_scheme: ``"symmetric"`` or ``"affine"``. Default: ``"symmetric"``.
        momentum: the weight of the old average. Default: 0.

    ``forward(input, current_train_step)``: ``current_train_step`` is an integer tensor with one
    element (for instance an optimizer's step count) or an int. Returns ``(scale, zero_point)``,
    of shape ``(1,)`` and the input's dtype.
    """

    def __init__(self, training: bool = False, quantization_formula: str = "google",
                 stop_update_after_iters: int = 0, quantization_bit: int = 8,
                 quantization_scheme: str = "symmetric", momentum: float = 0) -> None:
        super().__init__()
        name = "MovingAverageMinMaxObserver"
        _check_config(name, quantization_formula, quantization_bit, quantization_scheme)
        if not isinstance(training, bool):
            raise TypeError(f"{name}: training must be a bool, got {type(training).__name__}")
        if isinstance(stop_update_after_iters, bool) or not isinstance(stop_update_after_iters, numbers.Integral):
            raise TypeError(f"{name}: stop_update_after_iters must be an int, "
                            f"got {type(stop_update_after_iters).__name__}")
        if isinstance(momentum, bool) or not isinstance(momentum, numbers.Real):
            raise TypeError(f"{name}: momentum must be a float, got {type(momentum).__name__}")
        if not 0.0 <= float(momentum) <= 1.0:
            raise ValueError(f"{name}: momentum must be in [0, 1], got {momentum}")
        self.training = training
        self.quantization_formula = quantization_formula
        self.stop_update_after_iters = int(stop_update_after_iters)
        self.quantization_bit = int(quantization_bit)
        self.quantization_scheme = quantization_scheme
        self.momentum = float(momentum)
        self.register_buffer("moving_max", oneflow.zeros(1))
        self.register_buffer("moving_min", oneflow.zeros(1))

    def reset_running_stats(self) -> None:
        """Sets ``moving_max`` and ``moving_min`` back to 0 (the next update starts afresh)."""
        with oneflow.no_grad():
            self.moving_max.zero_()
            self.moving_min.zero_()

    def _step(self, current_train_step) -> int:
        name = "MovingAverageMinMaxObserver"
        if isinstance(current_train_step, oneflow.Tensor):
            if current_train_step.is_floating_point() or current_train_step.dtype == oneflow.bool:
                raise TypeError(f"{name}: current_train_step must be an integer tensor, got {current_train_step.dtype}")
            if current_train_step.numel() != 1:
                raise ValueError(f"{name}: current_train_step must have one element, "
                                 f"got shape {tuple(current_train_step.shape)}")
            return int(current_train_step.reshape(-1)[0].item())
        if isinstance(current_train_step, bool) or not isinstance(current_train_step, numbers.Integral):
            raise TypeError(f"{name}: current_train_step must be an integer tensor or an int, "
                            f"got {type(current_train_step).__name__}")
        return int(current_train_step)

    def _update(self, input: oneflow.Tensor) -> None:
        m = self.momentum

        def average(buffer, value):
            old = buffer.to(value.dtype)
            new = value if float(old.item()) == 0 else old * m + value * (1 - m)
            buffer.copy_(new.reshape(1).to(buffer.dtype))

        flat = input.reshape(-1)
        in_max, in_min = flat.amax(), flat.amin()
        if self.quantization_scheme == "affine" and self.quantization_formula == "google":
            average(self.moving_max, in_max)
            average(self.moving_min, in_min)
        else:
            average(self.moving_max, oneflow.maximum(in_max.abs(), in_min.abs()))
            self.moving_min.copy_(self.moving_max)

    def forward(self, input: oneflow.Tensor, current_train_step) -> tuple[oneflow.Tensor, oneflow.Tensor]:
        _check_float_tensor("MovingAverageMinMaxObserver", "input", input)
        step = self._step(current_train_step)
        bit = self.quantization_bit
        with oneflow.no_grad():
            if self.training and step <= self.stop_update_after_iters:
                self._update(input)
            moving_max = self.moving_max.to(device=input.device, dtype=input.dtype)
            moving_min = self.moving_min.to(device=input.device, dtype=input.dtype)
            if self.quantization_formula == "cambricon":
                scale = _cambricon_shift(moving_max, bit)
                zero_point = oneflow.zeros_like(scale)
            elif self.quantization_scheme == "symmetric":
                scale = moving_max / _symmetric_max(bit)
                zero_point = oneflow.zeros_like(scale)
            else:
                scale = (moving_max - moving_min) / (2.0 ** bit - 1)
                zero_point = -moving_min / scale
        return scale, zero_point

    def extra_repr(self) -> str:
        return (f"quantization_formula={self.quantization_formula!r}, quantization_bit={self.quantization_bit}, "
                f"quantization_scheme={self.quantization_scheme!r}, momentum={self.momentum}, "
                f"stop_update_after_iters={self.stop_update_after_iters}")


def _quantize(name: str, input, scale, zero_point, formula: str, bit: int, scheme: str, dequantize: bool):
    """The integer grid values of ``input`` (``dequantize=False``) or their real values."""
    _check_float_tensor(name, "input", input)
    _check_float_tensor(name, "scale", scale)
    if scheme == "affine" and formula == "google":
        _check_float_tensor(name, "zero_point", zero_point)
    with oneflow.no_grad():
        x = input.detach()
        if formula == "cambricon":
            if scale.numel() != 1:
                raise ValueError(f"{name}: the cambricon formula takes one shift as scale, "
                                 f"got shape {tuple(scale.shape)}")
            step = oneflow.pow(2.0, oneflow.trunc(scale.reshape(()).to(x.dtype)))
            q = oneflow.clamp(oneflow.round(x / step), -_symmetric_max(bit) - 1, _symmetric_max(bit))
            return q * step if dequantize else q
        channels = scale.numel()
        if channels > 1 and (x.dim() == 0 or channels != x.shape[0]):
            raise ValueError(f"{name}: a per-channel scale needs one value per slice of the input's dim 0 "
                             f"(input shape {tuple(x.shape)}), got scale of shape {tuple(scale.shape)}")
        view = (channels,) + (1,) * (x.dim() - 1) if channels > 1 else ()
        s = scale.reshape(view).to(x.dtype)
        if scheme == "symmetric":
            q = oneflow.clamp(oneflow.round(x / s), -_symmetric_max(bit) - 1, _symmetric_max(bit))
            return q * s if dequantize else q
        if zero_point.numel() != channels:
            raise ValueError(f"{name}: zero_point must have as many elements as scale ({channels}), "
                             f"got shape {tuple(zero_point.shape)}")
        zp = _round_half_away(zero_point.reshape(view).to(x.dtype))
        q = oneflow.clamp(oneflow.round(x / s + zp), 0, 2.0 ** bit - 1)
        return (q - zp) * s if dequantize else q


class _StraightThrough(oneflow.autograd.Function):
    """``forward(x, y)`` is ``y``; the gradient goes to ``x`` unchanged (the straight-through
    estimator of quantization-aware training)."""

    @staticmethod
    def forward(ctx, x, y):
        return y.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class FakeQuantization(Module):
    r"""Simulates quantization in training: quantizes and dequantizes the input.

    - ``"symmetric"``: ``clamp(round(x / scale), -2^(b-1), 2^(b-1) - 1) * scale``;
    - ``"affine"``: ``(clamp(round(x / scale + zp), 0, 2^b - 1) - zp) * scale`` with ``zp`` the
      zero point rounded half away from zero;
    - ``"cambricon"``: as symmetric with the step ``2^scale`` (``scale`` is the observer's shift).

    A per-channel ``scale`` (more than one element) applies to the slices of dim 0. The gradient
    with respect to the input passes straight through (it is the identity).

    Args:
        quantization_formula: ``"google"`` or ``"cambricon"``. Default: ``"google"``.
        quantization_bit: the integer width ``b``, in [2, 8]. Default: 8.
        quantization_scheme: ``"symmetric"`` or ``"affine"``. Default: ``"symmetric"``.

    ``forward(input, scale, zero_point)`` with ``scale``/``zero_point`` as an observer returns them.
    """

    def __init__(self, quantization_formula: str = "google", quantization_bit: int = 8,
                 quantization_scheme: str = "symmetric") -> None:
        super().__init__()
        _check_config("FakeQuantization", quantization_formula, quantization_bit, quantization_scheme)
        self.quantization_formula = quantization_formula
        self.quantization_bit = int(quantization_bit)
        self.quantization_scheme = quantization_scheme

    def forward(self, input: oneflow.Tensor, scale: oneflow.Tensor, zero_point: oneflow.Tensor) -> oneflow.Tensor:
        out = _quantize("FakeQuantization", input, scale, zero_point, self.quantization_formula,
                        self.quantization_bit, self.quantization_scheme, dequantize=True)
        if not (oneflow.is_grad_enabled() and input.requires_grad):
            return out
        return _StraightThrough.apply(input, out)

    def extra_repr(self) -> str:
        return (f"quantization_formula={self.quantization_formula!r}, quantization_bit={self.quantization_bit}, "
                f"quantization_scheme={self.quantization_scheme!r}")


class Quantization(Module):
    r"""Quantizes the input for inference: its values on the integer grid (as floats).

    - ``"symmetric"``: ``clamp(round(x / scale), -2^(b-1), 2^(b-1) - 1)``;
    - ``"affine"``: ``clamp(round(x / scale + zp), 0, 2^b - 1)`` with ``zp`` the zero point
      rounded half away from zero (OneFlow's kernel returns the unsigned grid value; its docstring
      also subtracts the zero point);
    - ``"cambricon"``: as symmetric with the step ``2^scale``.

    Arguments and ``forward(input, scale, zero_point)`` as :class:`FakeQuantization`; the result
    takes no gradient.
    """

    def __init__(self, quantization_formula: str = "google", quantization_bit: int = 8,
                 quantization_scheme: str = "symmetric") -> None:
        super().__init__()
        _check_config("Quantization", quantization_formula, quantization_bit, quantization_scheme)
        self.quantization_formula = quantization_formula
        self.quantization_bit = int(quantization_bit)
        self.quantization_scheme = quantization_scheme

    def forward(self, input: oneflow.Tensor, scale: oneflow.Tensor, zero_point: oneflow.Tensor) -> oneflow.Tensor:
        return _quantize("Quantization", input, scale, zero_point, self.quantization_formula,
                         self.quantization_bit, self.quantization_scheme, dequantize=False)

    def extra_repr(self) -> str:
        return (f"quantization_formula={self.quantization_formula!r}, quantization_bit={self.quantization_bit}, "
                f"quantization_scheme={self.quantization_scheme!r}")


class _QatConv:
    """The fake-quantization half of ``QatConv1d/2d/3d``, mixed into the convolution classes."""

    def _init_fake_quants(self, quantization_formula: str, quantization_bit: int, quantization_scheme: str,
                          weight_quant_per_layer: bool, input_quant_momentum: float) -> None:
        # The input's statistics follow the module's mode (train() / eval()); a fresh module trains.
        self.input_min_max_observer = MovingAverageMinMaxObserver(
            training=True, quantization_formula=quantization_formula, stop_update_after_iters=1,
            quantization_bit=quantization_bit, quantization_scheme=quantization_scheme,
            momentum=input_quant_momentum)
        self.register_buffer("current_train_step", oneflow.zeros(1, dtype=oneflow.int64))
        self.weight_min_max_observer = MinMaxObserver(
            quantization_formula=quantization_formula, quantization_bit=quantization_bit,
            quantization_scheme=quantization_scheme, per_layer_quantization=weight_quant_per_layer)
        self.fake_quantizer = FakeQuantization(quantization_formula=quantization_formula,
                                               quantization_bit=quantization_bit,
                                               quantization_scheme=quantization_scheme)
        self.channel_pos = "channels_first"

    def forward(self, x: oneflow.Tensor) -> oneflow.Tensor:
        in_scale, in_zero_point = self.input_min_max_observer(x, self.current_train_step)
        x_q = self.fake_quantizer(x, in_scale, in_zero_point)
        w_scale, w_zero_point = self.weight_min_max_observer(self.weight)
        w_q = self.fake_quantizer(self.weight, w_scale, w_zero_point)
        return self._conv_forward(x_q, w_q, self.bias)


def _qat_init(self, base, name, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
              padding_mode, quantization_formula, quantization_bit, quantization_scheme, weight_quant_per_layer,
              input_quant_momentum):
    _check_config(name, quantization_formula, quantization_bit, quantization_scheme)
    if not isinstance(weight_quant_per_layer, bool):
        raise TypeError(f"{name}: weight_quant_per_layer must be a bool, got {type(weight_quant_per_layer).__name__}")
    base.__init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode)
    self._init_fake_quants(quantization_formula, quantization_bit, quantization_scheme, weight_quant_per_layer,
                           input_quant_momentum)


_QAT_DOC = r"""A :class:`~oneflow.nn.Conv{n}d` that fake-quantizes its input and its weight before the
    convolution, for quantization-aware training (OneFlow's ``nn.QatConv{n}d``).

    The input's parameters come from a :class:`MovingAverageMinMaxObserver`
    (``input_min_max_observer``, updated while training, ``stop_update_after_iters=1`` against the
    ``current_train_step`` buffer, which stays 0), the weight's from a :class:`MinMaxObserver`
    (``weight_min_max_observer``); both go through one :class:`FakeQuantization` (``fake_quantizer``).

    Args:
        in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode:
            as :class:`~oneflow.nn.Conv{n}d`.
        quantization_formula: ``"google"`` or ``"cambricon"``. Default: ``"google"``.
        quantization_bit: the integer width, in [2, 8]. Default: 8.
        quantization_scheme: ``"symmetric"`` or ``"affine"``. Default: ``"symmetric"``.
        weight_quant_per_layer: one weight scale for the layer (``True``) or one per output
            channel. Default: ``True``.
        input_quant_momentum: the momentum of the input's moving averages. Default: 0.95.
    """


class QatConv1d(_QatConv, Conv1d):
    __doc__ = _QAT_DOC.format(n=1)

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 quantization_formula: str = "google", quantization_bit: int = 8,
                 quantization_scheme: str = "symmetric", weight_quant_per_layer: bool = True,
                 input_quant_momentum: float = 0.95) -> None:
        _qat_init(self, Conv1d, "QatConv1d", in_channels, out_channels, kernel_size, stride, padding, dilation,
                  groups, bias, padding_mode, quantization_formula, quantization_bit, quantization_scheme,
                  weight_quant_per_layer, input_quant_momentum)


class QatConv2d(_QatConv, Conv2d):
    __doc__ = _QAT_DOC.format(n=2)

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 quantization_formula: str = "google", quantization_bit: int = 8,
                 quantization_scheme: str = "symmetric", weight_quant_per_layer: bool = True,
                 input_quant_momentum: float = 0.95) -> None:
        _qat_init(self, Conv2d, "QatConv2d", in_channels, out_channels, kernel_size, stride, padding, dilation,
                  groups, bias, padding_mode, quantization_formula, quantization_bit, quantization_scheme,
                  weight_quant_per_layer, input_quant_momentum)


class QatConv3d(_QatConv, Conv3d):
    __doc__ = _QAT_DOC.format(n=3)

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 quantization_formula: str = "google", quantization_bit: int = 8,
                 quantization_scheme: str = "symmetric", weight_quant_per_layer: bool = True,
                 input_quant_momentum: float = 0.95) -> None:
        _qat_init(self, Conv3d, "QatConv3d", in_channels, out_channels, kernel_size, stride, padding, dilation,
                  groups, bias, padding_mode, quantization_formula, quantization_bit, quantization_scheme,
                  weight_quant_per_layer, input_quant_momentum)
