"""DistributedSampler: each of ``num_replicas`` processes loads its own share of a dataset."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from typing import TypeVar

import oneflow
from oneflow import _plugin
from oneflow.utils.data.dataset import Dataset
from oneflow.utils.data.sampler import Sampler

T_co = TypeVar("T_co", covariant=True)

__all__ = ["DistributedSampler"]


def _world() -> tuple[int, int] | None:
    """(world size, rank) of an initialized ``oneflow.distributed`` process group, if any.

    The package that implements process groups registers the ``process_group_world`` hook when
    imported; before that no process group can exist."""
    world = _plugin.hook("process_group_world")
    return None if world is None else world()


def _from_env(name: str) -> int | None:
    value = os.environ.get(name)
    return None if value is None else int(value)


class DistributedSampler(Sampler[T_co]):
    """Restricts loading to this process's share of the dataset (for distributed data parallel).

    The indices (shuffled with ``seed + epoch`` when ``shuffle``) are padded by repeating
    them from the start until they divide evenly, or cut down with ``drop_last``; replica
    ``rank`` then takes every ``num_replicas``-th index starting at ``rank``. Every replica
    gets the same number of indices, and all replicas must use the same seed. Call
    :meth:`set_epoch` at the start of each epoch, before iterating, so that the order
    changes between epochs.

    Args:
        dataset: the dataset (only its length is used).
        num_replicas: the number of processes; by default the world size of the initialized
            ``oneflow.distributed`` process group, else the ``WORLD_SIZE`` environment variable.
        rank: this process's rank in ``[0, num_replicas)``; by default the process group's
            rank, else the ``RANK`` environment variable.
        shuffle: shuffle the indices.
        seed: the shuffling seed, the same on every replica.
        drop_last: drop the tail so that the data divides evenly instead of padding it.
    """

    def __init__(
        self,
        dataset: Dataset,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None or rank is None:
            world = _world()
            env_size, env_rank = _from_env("WORLD_SIZE"), _from_env("RANK")
            if num_replicas is None:
                num_replicas = world[0] if world is not None else env_size
            if rank is None:
                rank = world[1] if world is not None else env_rank
            if num_replicas is None or rank is None:
                raise RuntimeError(
                    "Requires distributed package to be available: pass num_replicas and rank, or set the "
                    "WORLD_SIZE and RANK environment variables, or initialize oneflow.distributed"
                )
        if num_replicas <= 0:
            raise ValueError(f"Invalid num_replicas {num_replicas}, num_replicas should be a positive integer")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)  # type: ignore[arg-type]
        if self.drop_last and n % self.num_replicas != 0:
            # The largest share that every replica can get without padding.
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[T_co]:
        n = len(self.dataset)  # type: ignore[arg-type]
        if self.shuffle:
            g = oneflow.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = oneflow.randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[: self.total_size]
        else:
            padding = self.total_size - len(indices)
            if padding > 0:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        if len(indices) != self.total_size:
            raise AssertionError(f"expected {self.total_size} indices, got {len(indices)}")
        share = indices[self.rank : self.total_size : self.num_replicas]
        if len(share) != self.num_samples:
            raise AssertionError(f"expected {self.num_samples} indices, got {len(share)}")
        return iter(share)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch, which (with ``seed``) picks the shuffle order of the next iteration."""
        self.epoch = epoch
