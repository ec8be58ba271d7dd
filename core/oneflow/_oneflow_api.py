"""OneFlow's own top-level names that PyTorch does not have, or has with other semantics (issue 15)."""

__all__: list = []
