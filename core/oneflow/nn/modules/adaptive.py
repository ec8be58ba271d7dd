"""``AdaptiveLogSoftmaxWithLoss``: the efficient softmax approximation of Grave et al.
(https://arxiv.org/abs/1609.04309): frequent classes in a head, rare ones in tail clusters
reached through the head, each cluster with a smaller projection."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence

import oneflow
import oneflow.nn.functional as F
from oneflow import Tensor
from oneflow.nn.modules.container import ModuleList, Sequential
from oneflow.nn.modules.linear import Linear
from oneflow.nn.modules.module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    r"""Adaptive softmax: the classes are split by ``cutoffs`` into a head (the first
    ``cutoffs[0]`` classes plus one entry per tail cluster) and tail clusters, whose log
    probabilities add the head's log probability of the cluster. Cluster ``i`` projects the
    input to ``in_features // div_value ** (i + 1)`` features first.

    Args:
        in_features: the number of input features.
        n_classes: the number of classes.
        cutoffs: increasing cluster boundaries, each in ``[1, n_classes - 1]``.
        div_value: the projection-size divisor between clusters. Default: 4.0.
        head_bias: give the head a bias. Default: ``False``.

    ``forward(input, target)`` returns ``(output, loss)``: ``output`` the log probability of
    each target ``(N,)`` (``()`` unbatched) and ``loss`` the mean negative log likelihood.
    :meth:`log_prob` gives all classes' log probabilities, :meth:`predict` the most likely class.

    Example::

        >>> asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[3, 6])
        >>> out, loss = asm(flow.randn(4, 8), flow.tensor([0, 5, 9, 2]))
    """

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs: Sequence[int],
        div_value: float = 4.0,
        head_bias: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, "
                "where each value is between 1 and n_classes-1"
            )
        kw = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, **kw), Linear(hsz, osz, bias=False, **kw)))

    def reset_parameters(self) -> None:
        """Re-initializes the head and the tail projections."""
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(
                    f"1D target tensor expects 2D input tensors, but found inputs with size {tuple(input_.size())}"
                )
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError(
                    f"0D target tensor expects 1D input tensors, but found inputs with size {tuple(input_.size())}"
                )
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        is_batched = targ_dim > 0
        input = input_ if is_batched else input_.unsqueeze(0)
        target = target_ if is_batched else target_.unsqueeze(0)
        batch_size = target.size(0)
        output = oneflow.zeros(batch_size, dtype=input.dtype, device=input.device)
        gather_inds = oneflow.zeros(batch_size, dtype=oneflow.long, device=target.device)
        used_rows = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            low, high = bounds[i], bounds[i + 1]
            mask = (target >= low) & (target < high)
            rows = mask.nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            if i == 0:
                gather_inds = gather_inds.index_copy(0, rows, target[mask].long())
            else:
                relative = (target[mask] - low).long()
                cluster_logprob = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
                local = cluster_logprob.gather(1, relative.unsqueeze(1)).squeeze(1)
                gather_inds = gather_inds.index_fill(0, rows, self.shortlist_size + i - 1)
                output = output.index_copy(0, rows, local)
            used_rows += rows.numel()
        if used_rows != batch_size:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. "
            )
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        if not is_batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, : self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return oneflow.cat(parts, dim=1)

    def log_prob(self, input: Tensor) -> Tensor:
        r"""The log probabilities of all classes, ``(N, n_classes)`` for input ``(N, in_features)``."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        r"""The most likely class of each row of ``input`` ``(N, in_features)``; the same as
        ``log_prob(input).argmax(dim=1)``, but cheaper when the head already decides."""
        head_output = self.head(input)
        output = oneflow.argmax(head_output, dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if not bool(not_in_shortlist.any()):
            return output
        if bool(not_in_shortlist.all()):
            return oneflow.argmax(self._get_full_log_prob(input, head_output), dim=1)
        log_prob = self._get_full_log_prob(input[not_in_shortlist], head_output[not_in_shortlist])
        output[not_in_shortlist] = oneflow.argmax(log_prob, dim=1)
        return output
