"""``SyncBatchNorm``: batch normalization whose batch statistics are those of the whole process
group's batch (PyTorch's layer for data-parallel training with small per-process batches).

In one process, or with no initialized process group, it is ``BatchNorm``. With the
oneflow-distributed package's process group of several ranks, each rank's per-channel sums are
all-reduced in the forward, and the two per-channel sums of the input gradient in the backward.
"""

from __future__ import annotations

import oneflow
from oneflow import _plugin
from oneflow.nn.modules.normalization import _BatchNorm

__all__ = ["SyncBatchNorm"]


def _group_reduce(group):
    """(size, sum-in-place function) of ``group`` (the world when None) from the
    oneflow-distributed package's ``process_group_all_reduce`` hook, or None when no process
    group is initialized (the hook is registered once that package is imported, which
    initializing a group requires)."""
    impl = _plugin.hook("process_group_all_reduce")
    return impl(group) if impl is not None else None


class _SyncBatchNormFunction(oneflow.autograd.Function):
    """y = (x - mean) / sqrt(var + eps) * weight + bias, mean and var over the group's batch.
    ``all_reduce`` sums a tensor over the group in place (the identity in one process)."""

    @staticmethod
    def forward(ctx, input, weight, bias, eps, all_reduce):
        dims = [d for d in range(input.dim()) if d != 1]
        channels = input.shape[1]
        x = input.to(oneflow.float64 if input.dtype == oneflow.float64 else oneflow.float32)
        count = oneflow.full((1,), input.numel() // max(channels, 1), dtype=x.dtype, device=x.device)
        stats = all_reduce(oneflow.cat([x.sum(dims), (x * x).sum(dims), count]))
        n = stats[-1]
        mean = stats[:channels] / n
        var = (stats[channels : 2 * channels] / n - mean * mean).clamp(min=0)
        invstd = (var + eps).rsqrt()
        shape = [1, channels] + [1] * (input.dim() - 2)
        xhat = (x - mean.reshape(shape)) * invstd.reshape(shape)
        y = xhat
        if weight is not None:
            y = y * weight.reshape(shape) + bias.reshape(shape)
        ctx.save_for_backward(xhat, invstd, weight)
        ctx.all_reduce, ctx.n, ctx.dims, ctx.shape = all_reduce, n, dims, shape
        ctx.stats = (mean, var * n / (n - 1).clamp(min=1))
        return y.to(input.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        xhat, invstd, weight = ctx.saved_tensors
        dy = grad_output.to(xhat.dtype)
        local = oneflow.cat([dy.sum(ctx.dims), (dy * xhat).sum(ctx.dims)])
        channels = xhat.shape[1]
        grad_bias, grad_weight = local[:channels].clone(), local[channels:].clone()  # local, as PyTorch's
        total = ctx.all_reduce(local)
        sum_dy, sum_dy_xhat = total[:channels].reshape(ctx.shape), total[channels:].reshape(ctx.shape)
        scale = invstd.reshape(ctx.shape)
        if weight is not None:
            scale = scale * weight.reshape(ctx.shape)
        grad_input = scale * (dy - sum_dy / ctx.n - xhat * sum_dy_xhat / ctx.n)
        if weight is None:
            return grad_input.to(grad_output.dtype), None, None, None, None
        return (grad_input.to(grad_output.dtype), grad_weight.to(weight.dtype), grad_bias.to(weight.dtype), None,
                None)  # fmt: skip


class SyncBatchNorm(_BatchNorm):
    r"""Batch normalization over the batch of every process of ``process_group`` (the world when
    None), as PyTorch's: inputs of shape :math:`(N, C, +)`.

    Without an initialized process group of several ranks it is :class:`BatchNorm`. Use
    :meth:`convert_sync_batchnorm` to switch a model's ``BatchNorm*d`` layers to it.

    Args:
        num_features: the number of channels :math:`C`.
        eps, momentum, affine, track_running_stats: as :class:`BatchNorm2d`.
        process_group: the ranks whose statistics are pooled. Default: the world.
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None) -> None:  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input) -> None:
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        use_batch_stats = self.training or self.running_mean is None
        group = _group_reduce(self.process_group) if use_batch_stats else None
        if group is None or group[0] <= 1:
            return super().forward(input)
        return self._synced_forward(input, group[1])

    def _synced_forward(self, input, all_reduce):
        """The forward with the group's statistics; ``all_reduce`` sums over the group in place."""
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with oneflow.no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                momentum = 1.0 / float(self.num_batches_tracked)
        out, stats = _apply_sync(input, self.weight, self.bias, self.eps, all_reduce)
        if self.training and self.track_running_stats and self.running_mean is not None:
            mean, unbiased_var = stats
            with oneflow.no_grad():
                self.running_mean.mul_(1 - momentum).add_(momentum * mean.to(self.running_mean.dtype))
                self.running_var.mul_(1 - momentum).add_(momentum * unbiased_var.to(self.running_var.dtype))
        return out

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every ``BatchNorm*d`` inside it replaced by a :class:`SyncBatchNorm`
        holding the same parameters and buffers (``module`` itself when it is one).

        Examples::

            >>> net = oneflow.nn.Sequential(oneflow.nn.Conv2d(3, 4, 3), oneflow.nn.BatchNorm2d(4))
            >>> type(oneflow.nn.SyncBatchNorm.convert_sync_batchnorm(net)[1]).__name__
            'SyncBatchNorm'
        """
        output = module
        if isinstance(module, _BatchNorm) and not isinstance(module, cls):
            output = cls(module.num_features, module.eps, module.momentum, module.affine,
                         module.track_running_stats, process_group)  # fmt: skip
            if module.affine:
                with oneflow.no_grad():
                    output.weight = module.weight
                    output.bias = module.bias
            output.running_mean = module.running_mean
            output.running_var = module.running_var
            output.num_batches_tracked = module.num_batches_tracked
            output.training = module.training
            if hasattr(module, "qconfig"):
                output.qconfig = module.qconfig
        for name, child in module.named_children():
            output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return output


def _apply_sync(input, weight, bias, eps, all_reduce):
    holder = {}

    class _Fn(_SyncBatchNormFunction):
        @staticmethod
        def forward(ctx, input, weight, bias):
            out = _SyncBatchNormFunction.forward(ctx, input, weight, bias, eps, all_reduce)
            holder["stats"] = ctx.stats
            return out

        @staticmethod
        def backward(ctx, grad_output):
            return _SyncBatchNormFunction.backward(ctx, grad_output)[:3]

    return _Fn.apply(input, weight, bias), holder["stats"]
