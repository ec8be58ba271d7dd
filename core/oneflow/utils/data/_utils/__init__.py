"""The DataLoader's internals: collation, fetchers, the worker loop and shared-memory transport."""

from oneflow.utils.data._utils import collate, fetch, shm, worker

__all__ = ["collate", "fetch", "shm", "worker"]
