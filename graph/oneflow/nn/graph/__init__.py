"""nn.Graph: the same nn.Module code compiled to a static graph (the oneflow-graph wheel).

This package will hold the tracer, the IR and its passes (autograd, optimizer
ops, AMP, activation checkpointing, gradient accumulation, ZeRO, pipeline
stages, fusion, memory planning), the executor, and save/export for serving.
It contributes ``oneflow.nn.graph`` and ``oneflow.nn.Graph`` to the core
package. So far it compiles inference graphs: ``build`` traced through the C++
dispatcher once per input signature, replayed by the C++ executor.
"""

try:
    from oneflow._plugin import check_oneflow_requirement as _check
except ImportError as e:  # no oneflow, or one older than the plugin mechanism
    raise ImportError(f"oneflow-graph needs the oneflow package; install a oneflow wheel first ({e})") from e

from oneflow.nn.graph._version import ONEFLOW_REQUIREMENT, __version__  # noqa: F401 (public names)

_check("oneflow-graph", ONEFLOW_REQUIREMENT)

from oneflow.nn.graph.graph import Graph, GraphConfig  # noqa: E402
from oneflow.nn.graph.proxy import GraphModule  # noqa: E402
from oneflow.nn.graph.saved import SavedGraph, load  # noqa: E402

__all__ = ["Graph", "GraphConfig", "GraphModule", "SavedGraph", "load"]
