"""OneFlow's keyword spellings for every learning-rate scheduler.

OneFlow's schedulers count steps, not epochs: they take ``last_step=`` where
PyTorch's take ``last_epoch=``, and all of them take ``verbose=`` (print each
new lr). :func:`accept_oneflow_keywords` wraps a scheduler's ``__init__`` so
both spellings work; ``LRScheduler.__init_subclass__`` applies it to every
scheduler class, so a new scheduler gets it without doing anything.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

__all__ = ["accept_oneflow_keywords"]


def accept_oneflow_keywords(init: Callable) -> Callable:
    """``init`` accepting ``last_step=`` (for ``last_epoch=``) and ``verbose=``."""
    parameters = inspect.signature(init).parameters
    takes_last_epoch = "last_epoch" in parameters
    takes_verbose = "verbose" in parameters

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        name = type(self).__name__
        if "last_step" in kwargs and takes_last_epoch:
            if "last_epoch" in kwargs:
                raise TypeError(f"{name}() got both 'last_step' and 'last_epoch': they are one argument, give one")
            kwargs["last_epoch"] = kwargs.pop("last_step")
        if "verbose" in kwargs and not takes_verbose:
            verbose = kwargs.pop("verbose")
            if not isinstance(verbose, bool):
                raise TypeError(f"{name}(): verbose must be a bool, but got {type(verbose).__name__}")
            self.verbose = verbose
        init(self, *args, **kwargs)

    wrapper._accepts_oneflow_keywords = True
    return wrapper
