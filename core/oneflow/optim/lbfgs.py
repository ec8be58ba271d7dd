"""L-BFGS: limited-memory BFGS, optionally with a strong-Wolfe line search."""

from __future__ import annotations

from collections.abc import Callable

import oneflow
from oneflow import Tensor
from oneflow.optim.optimizer import Optimizer, ParamsT, _check_lr, _to_scalar

__all__ = ["LBFGS"]


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None) -> float:
    """Minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to
    ``bounds`` (default: the interval between x1 and x2); its midpoint when the cubic has none."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 * d1 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    d2 = d2_square**0.5
    if x1 <= x2:
        x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        x = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(x, lo), hi)


def _strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step length along ``d`` satisfying the strong Wolfe conditions (Nocedal and Wright,
    algorithms 3.5 and 3.6): bracket an acceptable step, then shrink the bracket by cubic
    interpolation. ``evaluate(t)`` returns the loss and flat gradient at ``x + t d``.

    Returns (loss, flat gradient, step, number of evaluations)."""
    d_norm = d.abs().max().item()
    g = g.clone()
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = g_new.dot(d).item()
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    # Phase 1: grow the step until an interval is known to hold an acceptable one.
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        # Extrapolate, at least 1% beyond t and at most 10 times t.
        t_next = _cubic_minimum(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new.clone(), gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d).item()
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # Phase 2: zoom into the bracket; low is the end with the lower loss.
    insufficient_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # Keep the trial point at least 10% of the interval away from its ends, unless the
        # previous trial made too little progress, in which case move it there explicitly.
        top, bottom = max(bracket), min(bracket)
        margin = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < margin:
            if insufficient_progress or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d).item()
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high], bracket_g[high], bracket_gtd[high] = t, f_new, g_new.clone(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low], bracket_g[low], bracket_gtd[low] = t, f_new, g_new.clone(), gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals


class LBFGS(Optimizer):
    r"""L-BFGS, after Schmidt's minFunc, as PyTorch implements it.

    One :meth:`step` runs up to ``max_iter`` quasi-Newton iterations on the
    loss that ``closure`` computes (it must clear the gradients, compute the loss,
    call ``backward()`` and return the loss). The search direction comes from the
    last ``history_size`` curvature pairs (two-loop recursion); the step length is
    ``lr`` (the first iteration ever: ``lr * min(1, 1 / |g|_1)``), or with
    ``line_search_fn="strong_wolfe"`` one that satisfies the strong Wolfe
    conditions. A step stops early when the largest gradient entry is at most
    ``tolerance_grad``, when the loss or the parameters change by less than
    ``tolerance_change``, or after ``max_eval`` loss evaluations.

    All parameters form one group (there can be only one); the history lives in
    the state of the first parameter and keeps ``history_size + 1`` copies of the
    flattened parameters.

    Args:
        params (iterable): parameters to optimize (real tensors).
        lr (float): learning rate (default: 1).
        max_iter (int): iterations per :meth:`step` (default: 20).
        max_eval (int, optional): loss evaluations per :meth:`step`
            (default: ``max_iter * 5 // 4``).
        tolerance_grad (float): first-order optimality tolerance (default: 1e-7).
        tolerance_change (float): tolerance on loss and parameter changes (default: 1e-9).
        history_size (int): number of curvature pairs kept (default: 100).
        line_search_fn (str, optional): ``"strong_wolfe"`` or ``None`` (default: ``None``).

    Example::

        >>> opt = flow.optim.LBFGS([w], lr=1, line_search_fn="strong_wolfe")
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = ((x @ w - y) ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> opt.step(closure)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        _check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        self._params = self.param_groups[0]["params"]

    # The parameters as one flat vector (gradients gathered, updates scattered).

    def _flat_grad(self) -> Tensor:
        views = []
        for p in self._params:
            grad = p.grad
            views.append(oneflow.zeros(p.numel(), dtype=p.dtype, device=p.device) if grad is None else grad.reshape(-1))
        return oneflow.cat(views, 0)

    def _add_flat(self, step_size: float, update: Tensor) -> None:
        offset = 0
        for p in self._params:
            numel = p.numel()
            p.add_(update[offset : offset + numel].reshape(p.shape), alpha=step_size)
            offset += numel

    def _evaluate_at(self, closure: Callable, x: list[Tensor], t: float, d: Tensor) -> tuple[float, Tensor]:
        self._add_flat(t, d)
        loss = float(closure())
        flat_grad = self._flat_grad()
        for p, saved in zip(self._params, x):
            p.copy_(saved)
        return loss, flat_grad

    @oneflow.no_grad()
    def step(self, closure: Callable):  # type: ignore[override]
        r"""Runs up to ``max_iter`` L-BFGS iterations.

        Args:
            closure (Callable): re-evaluates the model (clearing the gradients and
                calling ``backward()``) and returns the loss.

        Returns:
            the loss ``closure`` returned before the first iteration.
        """
        if closure is None or not callable(closure):
            raise TypeError(f"LBFGS.step() needs a callable closure that returns the loss, got {closure!r}")
        group = self.param_groups[0]
        lr = _to_scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")

        def evaluate():
            with oneflow.enable_grad():
                return closure()

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if flat_grad.abs().max().item() <= tolerance_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                h_diag = 1.0
            else:
                # Curvature pair of the last iteration; kept only when it is positive.
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s).item()
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y).item()
                # Two-loop recursion: d = -H g with H the L-BFGS inverse Hessian approximation.
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = flat_grad.neg()
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q).item() * ro[i]
                    q.add_(old_dirs[i], alpha=-al[i])
                d = r = q.mul(h_diag)
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(r).item() * ro[i]
                    r.add_(old_stps[i], alpha=al[i] - be_i)

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum().item()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d).item()
            if gtd > -tolerance_change:  # not a descent direction
                break

            evals = 0
            if line_search_fn is not None:
                x_init = [p.clone() for p in self._params]
                loss, flat_grad, t, evals = _strong_wolfe(
                    lambda step: self._evaluate_at(evaluate, x_init, step, d),
                    t,
                    d,
                    loss,
                    flat_grad,
                    gtd,
                    max_ls=max_eval - current_evals,
                )
                self._add_flat(t, d)
                opt_cond = flat_grad.abs().max().item() <= tolerance_grad
            else:
                self._add_flat(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    # The last iteration's loss is not needed: skip its evaluation.
                    loss = float(evaluate())
                    flat_grad = self._flat_grad()
                    opt_cond = flat_grad.abs().max().item() <= tolerance_grad
                    evals = 1
            current_evals += evals
            state["func_evals"] += evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max().item() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"], state["t"] = d, t
        state["old_dirs"], state["old_stps"], state["ro"] = old_dirs, old_stps, ro
        state["H_diag"], state["prev_flat_grad"], state["prev_loss"] = h_diag, prev_flat_grad, prev_loss
        return orig_loss
