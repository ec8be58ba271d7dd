"""``oneflow.backends.mps``: Apple's Metal backend, which this build (like OneFlow) does not have."""

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: there is no MPS backend."""
    return False


def is_built() -> bool:
    """False: there is no MPS backend."""
    return False
