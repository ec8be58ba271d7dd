"""``oneflow.backends``: switches of the accelerator backends (``cudnn``, ``cuda``, ``mps``).

They are accepted everywhere so that training scripts which set them (``cudnn.benchmark = True``)
run unchanged on any build; on a build without the backend they change nothing.
"""

from oneflow.backends import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
