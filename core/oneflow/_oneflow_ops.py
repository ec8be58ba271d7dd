"""OneFlow-only ops: names of OneFlow's API built from this package's ops (issue 15)."""

__all__: list = []
