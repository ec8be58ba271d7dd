"""Custom differentiable functions written in Python (``oneflow.autograd.Function``)."""

from __future__ import annotations

from oneflow import _C


class FunctionCtx:
    """What ``forward`` leaves for ``backward``: saved tensors and flags."""

    def __init__(self, needs_input_grad: tuple):
        self.needs_input_grad = needs_input_grad
        self._saved = ()
        self._released = False
        self._non_differentiable = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors) -> None:
        """Saves tensors (or None) for ``backward``; read them back as ``ctx.saved_tensors``."""
        self._saved = tuple(tensors)
        self._versions = tuple(None if t is None else t._version for t in tensors)

    @property
    def saved_tensors(self) -> tuple:
        if self._released:
            raise RuntimeError(
                "cannot backward through the graph a second time: the saved tensors were freed by "
                "the first backward; pass retain_graph=True to that call to keep them"
            )
        for t, v in zip(self._saved, self._versions):
            if t is not None and t._version != v:
                raise RuntimeError(
                    "a tensor saved for backward was modified by an in-place operation since: "
                    f"[{t.dtype} {list(t.shape)}] is at version {t._version} but was saved at version {v}"
                )
        return self._saved

    def mark_non_differentiable(self, *tensors) -> None:
        """Marks outputs that get no gradient (e.g. indices)."""
        self._non_differentiable = tuple(tensors)

    def set_materialize_grads(self, value: bool) -> None:
        """Whether missing output gradients arrive as zeros (default) or None."""
        self.materialize_grads = value

    def _release(self) -> None:
        self._saved = ()
        self._released = True


class Function:
    """Base class of differentiable functions defined by ``forward`` and ``backward``.

        >>> class Exp(oneflow.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         y = x.exp()
        ...         ctx.save_for_backward(y)
        ...         return y
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         (y,) = ctx.saved_tensors
        ...         return grad * y
        >>> Exp.apply(oneflow.tensor([0.0], requires_grad=True))
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("subclasses of autograd.Function must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("subclasses of autograd.Function must define backward(ctx, *grad_outputs)")

    @classmethod
    def apply(cls, *args):
        import oneflow

        needs = tuple(isinstance(a, oneflow.Tensor) and a.requires_grad for a in args)
        ctx = FunctionCtx(needs)
        with oneflow.no_grad():
            outputs = cls.forward(ctx, *args)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        if _C.is_grad_enabled() and any(needs):
            tensors = tuple(o for o in outs if isinstance(o, oneflow.Tensor))
            _C._attach_function_node(ctx, cls.backward, cls.__name__, args, tensors, ctx._non_differentiable)
        return outputs
