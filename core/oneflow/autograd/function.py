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


def _iter_tensors(obj):
    import oneflow

    if isinstance(obj, oneflow.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _iter_tensors(o)


def _iter_none_tensors(obj):
    import oneflow

    if obj is None or isinstance(obj, oneflow.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _iter_none_tensors(o)


def _unflatten(flat, structure):
    """Puts the tensors of ``flat``, in order, where ``structure`` has tensors."""
    import oneflow

    it = iter(flat)

    def rebuild(obj):
        if isinstance(obj, oneflow.Tensor):
            return next(it)
        if isinstance(obj, (list, tuple)):
            return type(obj)(rebuild(o) for o in obj)
        return obj

    return rebuild(structure)


class NestedIOFunction(Function):
    """The legacy (pre-0.4) form of a custom function, kept for old code: an *instance* is called
    on inputs that may be nested lists/tuples of tensors, and the subclass defines the methods
    ``forward_extended(self, *inputs)`` and ``backward_extended(self, *grad_outputs)``, with the
    same nesting. New code should use :class:`Function`.
    """

    def __call__(self, *inputs):
        owner = self
        flat = tuple(_iter_tensors(inputs))

        class _Run(Function):
            @staticmethod
            def forward(ctx, *flat_inputs):
                owner._ctx = ctx
                result = owner.forward_extended(*_unflatten(tuple(t.detach() for t in flat_inputs), inputs))
                owner._nested_output = result
                return tuple(_iter_tensors(result))

            @staticmethod
            def backward(ctx, *grads):
                result = owner.backward_extended(*_unflatten(grads, owner._nested_output))
                return tuple(_iter_none_tensors(result))

        _Run.__name__ = type(self).__name__
        return _unflatten(_Run.apply(*flat), self._nested_output)

    def save_for_backward(self, *tensors) -> None:
        """Saves (possibly nested) tensors; read them back as ``self.saved_tensors``."""
        self.to_save = tuple(_iter_tensors(tensors))
        self._to_save_nested = tensors

    @property
    def saved_tensors(self):
        return _unflatten(self.to_save, self._to_save_nested)

    def mark_dirty(self, *args, **kwargs) -> None:
        """Records the tensors modified in place by ``forward_extended``."""
        self.dirty_tensors = tuple(_iter_tensors((args, tuple(kwargs.values()))))

    def mark_non_differentiable(self, *args, **kwargs) -> None:
        """Marks outputs of ``forward_extended`` that get no gradient."""
        self.non_differentiable = tuple(_iter_tensors((args, tuple(kwargs.values()))))
        self._ctx.mark_non_differentiable(*self.non_differentiable)

    def forward_extended(self, *inputs):
        """The computation, on (nested) inputs; defined by subclasses."""
        raise NotImplementedError("subclasses of NestedIOFunction must define forward_extended(self, *inputs)")

    def backward_extended(self, *grad_outputs):
        """The gradients of the inputs, nested as the inputs; defined by subclasses."""
        raise NotImplementedError("subclasses of NestedIOFunction must define backward_extended(self, *grad_outputs)")
