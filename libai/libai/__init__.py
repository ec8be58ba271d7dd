"""LiBai: large-scale transformer training on OneFlow.

This package will hold LiBai's configuration system (data x tensor x pipeline
parallelism set in a config), its parallel layers and models (BERT, GPT,
T5, ViT, Swin), the trainer with hooks, and data pipelines, built only on the
public ``oneflow`` API. So far it holds only its version and the oneflow
version check.
"""

try:
    from oneflow._plugin import check_oneflow_requirement as _check
except ImportError as e:  # no oneflow, or one older than the plugin mechanism
    raise ImportError(f"libai needs the oneflow package; install a oneflow wheel first ({e})") from e

from libai._version import ONEFLOW_REQUIREMENT, __version__  # noqa: F401 (public names)

_check("libai", ONEFLOW_REQUIREMENT)
