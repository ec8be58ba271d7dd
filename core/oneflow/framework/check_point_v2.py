"""``oneflow.framework.check_point_v2``: OneFlow's path of ``save``/``load`` and of
``_broadcast_py_object``, which libraries built on OneFlow (LiBai) import from here."""

from __future__ import annotations

import os

from oneflow import _plugin
from oneflow.serialization import load, save

__all__ = ["load", "save"]


def _broadcast_py_object(obj, src: int = 0):
    """``obj`` as rank ``src`` has it, on every rank (a picklable Python object).

    In a single process (no launcher, ``WORLD_SIZE`` unset or 1) this is ``obj`` itself; in a
    job it goes through the oneflow-distributed package's ``broadcast_object_list``.
    """
    if isinstance(src, bool) or not isinstance(src, int) or src < 0:
        raise TypeError(f"_broadcast_py_object(): argument 'src' must be a non-negative int, got {src!r}")
    world = int(os.environ.get("WORLD_SIZE", "1") or "1")
    if world <= 1:
        if src != 0:
            raise ValueError(f"_broadcast_py_object(): src={src} is not a rank of a one-process job")
        return obj
    env = _plugin.plugin_attribute("oneflow", "env", None)
    dist = _plugin.plugin_attribute("oneflow", "distributed", None)
    if env is None or dist is None:
        raise ImportError(
            "_broadcast_py_object() in a job of several processes needs the oneflow-distributed "
            "package; install the oneflow-distributed wheel"
        )
    env.init()  # the job's process group, from the launcher's environment (idempotent)
    objects = [obj]
    dist.broadcast_object_list(objects, src=src)
    return objects[0]
