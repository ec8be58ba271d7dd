"""Data loading: datasets, samplers and the DataLoader, with PyTorch's ``torch.utils.data`` API.

    >>> from oneflow.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(oneflow.arange(10), oneflow.arange(10) * 2)
    >>> for x, y in DataLoader(ds, batch_size=4, shuffle=True, num_workers=2):
    ...     ...
"""

from oneflow.utils.data._utils.collate import default_collate, default_convert
from oneflow.utils.data._utils.worker import WorkerInfo, get_worker_info
from oneflow.utils.data.dataloader import DataLoader, _DatasetKind  # noqa: F401 (torch.utils.data has it too)
from oneflow.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from oneflow.utils.data.distributed import DistributedSampler
from oneflow.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "WorkerInfo",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
