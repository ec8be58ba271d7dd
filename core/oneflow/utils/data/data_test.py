"""oneflow.utils.data (core/oneflow/utils/data/) against torch.utils.data.

Deterministic behaviour (datasets, collation, sequential and batch samplers, the
DistributedSampler's partitioning, DataLoader batches without shuffling, argument
errors) is compared with torch's directly. Random samplers draw from oneflow's
generator (Philox, not torch's Mersenne Twister), so they are tested by their
properties and reproducibility. Worker processes are tested for order, seeding,
sharding, error reporting, death, timeouts, shared-memory transport and clean-up.
"""

import collections
import gc
import multiprocessing
import os
import time
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import oneflow as flow
import oneflow.utils.data as fdata
from oneflow.utils.data._utils import shm

Pair = collections.namedtuple("Pair", "x y")


def _plain(obj):
    """A framework-neutral view of a (nested) batch: tensors become (dtype name, values)."""
    if isinstance(obj, (flow.Tensor, torch.Tensor)):
        return ("tensor", str(obj.dtype).split(".")[-1], obj.detach().cpu().numpy().tolist())
    if isinstance(obj, Pair):
        return ("Pair", *(_plain(v) for v in obj))
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [_plain(v) for v in obj])
    if isinstance(obj, np.ndarray):
        return ("ndarray", obj.dtype.str, obj.tolist())
    return obj


def _same_error(fn):
    """fn(torch.utils.data) and fn(oneflow.utils.data) raise the same type with the same message."""
    with pytest.raises(Exception) as theirs:
        fn(tdata)
    with pytest.raises(Exception) as ours:
        fn(fdata)
    assert type(ours.value) is type(theirs.value), (theirs.value, ours.value)
    assert str(ours.value) == str(theirs.value).replace("torch", "oneflow")
    return ours.value


def _dataset(m, data, n=20):
    """The same map-style dataset in both frameworks: (row of floats, int label)."""
    x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    return data.TensorDataset(m.tensor(x), m.arange(n))


# ---- datasets ----------------------------------------------------------------------------


def test_tensor_dataset_matches_torch():
    ours, theirs = _dataset(flow, fdata), _dataset(torch, tdata)
    assert len(ours) == len(theirs) == 20
    for i in (0, 7, -1, slice(2, 5)):
        assert _plain(ours[i]) == _plain(theirs[i])
    _same_error(
        lambda d: d.TensorDataset((flow if d is fdata else torch).zeros(3), (flow if d is fdata else torch).zeros(4))
    )


def test_concat_dataset_matches_torch():
    parts = [list(range(3)), list(range(10, 15)), list(range(20, 22))]
    ours, theirs = fdata.ConcatDataset(parts), tdata.ConcatDataset(parts)
    assert ours.cumulative_sizes == theirs.cumulative_sizes == [3, 8, 10]
    assert [ours[i] for i in range(-10, 10)] == [theirs[i] for i in range(-10, 10)]
    _same_error(lambda d: d.ConcatDataset(parts)[-11])
    _same_error(lambda d: d.ConcatDataset([]))
    ours_sum = fdata.Subset(list(range(5)), [1, 2]) + fdata.Subset(list(range(5)), [4])
    assert isinstance(ours_sum, fdata.ConcatDataset) and [ours_sum[i] for i in range(3)] == [1, 2, 4]

    class It(fdata.IterableDataset):
        def __iter__(self):
            return iter([])

    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        fdata.ConcatDataset([It()])


def test_chain_dataset_and_iterable_add():
    class Range(fdata.IterableDataset):
        def __init__(self, a, b):
            self.a, self.b = a, b

        def __iter__(self):
            return iter(range(self.a, self.b))

        def __len__(self):
            return self.b - self.a

    chained = Range(0, 3) + Range(10, 12)
    assert isinstance(chained, fdata.ChainDataset)
    assert list(chained) == [0, 1, 2, 10, 11] and len(chained) == 5
    with pytest.raises(AssertionError, match="only supports IterableDataset"):
        list(fdata.ChainDataset([[1, 2]]))


def test_subset_and_stack_dataset():
    class Batched(fdata.Dataset):
        def __init__(self):
            self.calls = []

        def __getitem__(self, i):
            return i * 10

        def __getitems__(self, idx):
            self.calls.append(list(idx))
            return [i * 10 for i in idx]

        def __len__(self):
            return 10

    base = Batched()
    sub = fdata.Subset(base, [9, 3, 5])
    assert len(sub) == 3 and sub[1] == 30 and sub.__getitems__([0, 2]) == [90, 50]
    assert base.calls == [[9, 5]]
    assert next(iter(fdata.DataLoader(sub, batch_size=3))).tolist() == [90, 30, 50]
    plain = fdata.Subset(list("abcdef"), [5, 0])
    assert plain.__getitems__([0, 1]) == ["f", "a"]

    stacked = fdata.StackDataset(list("abc"), [1, 2, 3])
    assert stacked[1] == ("b", 2) and len(stacked) == 3
    assert fdata.StackDataset(a=list("abc"), n=[1, 2, 3])[2] == {"a": "c", "n": 3}
    _same_error(lambda d: d.StackDataset([1], [1, 2]))


def test_base_classes_raise_not_implemented():
    with pytest.raises(NotImplementedError):
        fdata.Dataset()[0]
    with pytest.raises(NotImplementedError):
        iter(fdata.Sampler())


@pytest.mark.parametrize(
    ("n", "lengths"),
    [(10, [3, 7]), (10, [0.3, 0.7]), (11, [0.5, 0.5]), (10, [0.33, 0.33, 0.34]), (7, [0.1, 0.2, 0.7]), (5, [1.0])],
)
def test_random_split_sizes_match_torch(n, lengths):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = fdata.random_split(range(n), lengths, generator=flow.Generator().manual_seed(1))
        theirs = tdata.random_split(range(n), lengths, generator=torch.Generator().manual_seed(1))
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    items = sorted(x for s in ours for x in s)
    assert items == list(range(n))  # a partition of the dataset


def test_random_split_reproducible_and_errors():
    a = fdata.random_split(range(50), [20, 30], generator=flow.Generator().manual_seed(3))
    b = fdata.random_split(range(50), [20, 30], generator=flow.Generator().manual_seed(3))
    c = fdata.random_split(range(50), [20, 30], generator=flow.Generator().manual_seed(4))
    assert [list(s) for s in a] == [list(s) for s in b] != [list(s) for s in c]
    flow.manual_seed(5)
    d = fdata.random_split(range(50), [20, 30])
    flow.manual_seed(5)
    assert [list(s) for s in d] == [list(s) for s in fdata.random_split(range(50), [20, 30])]
    _same_error(lambda d: d.random_split(range(10), [3, 3]))
    _same_error(lambda d: d.random_split(range(10), [1.5, -0.5]))
    with pytest.warns(UserWarning, match="Length of split at index") as record:
        fdata.random_split(range(2), [0.9, 0.05, 0.05])
    assert [str(w.message)[:26] for w in record] == ["Length of split at index 1", "Length of split at index 2"]


# ---- samplers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "bs", "drop_last"), [(10, 3, False), (10, 3, True), (9, 3, True), (2, 5, False), (2, 5, True)]
)
def test_sequential_and_batch_sampler_match_torch(n, bs, drop_last):
    ours = fdata.BatchSampler(fdata.SequentialSampler(range(n)), bs, drop_last)
    theirs = tdata.BatchSampler(tdata.SequentialSampler(range(n)), bs, drop_last)
    assert list(ours) == list(theirs) and len(ours) == len(theirs)
    assert list(fdata.SequentialSampler(range(n))) == list(range(n))


@pytest.mark.parametrize(
    "make",
    [
        lambda d: d.BatchSampler(range(3), 0, False),
        lambda d: d.BatchSampler(range(3), True, False),
        lambda d: d.BatchSampler(range(3), 2, 1),
        lambda d: d.RandomSampler(range(3), replacement=1),
        lambda d: d.RandomSampler(range(3), num_samples=0),
        lambda d: d.RandomSampler(range(0)),
        lambda d: d.WeightedRandomSampler([1.0, 2.0], 0),
        lambda d: d.WeightedRandomSampler([1.0, 2.0], 2, replacement=1),
        lambda d: d.WeightedRandomSampler([[1.0, 2.0]], 2),
        lambda d: list(d.WeightedRandomSampler([1.0, -1.0], 2)),
        lambda d: list(d.WeightedRandomSampler([0.0, 0.0], 2)),
        lambda d: list(d.WeightedRandomSampler([1.0, 2.0], 3, replacement=False)),
        lambda d: list(d.WeightedRandomSampler([1.0, float("nan")], 1)),
    ],
)
def test_sampler_errors_match_torch(make):
    _same_error(make)


def test_random_sampler():
    g = flow.Generator().manual_seed(0)
    perm = list(fdata.RandomSampler(range(100), generator=g))
    assert sorted(perm) == list(range(100)) and perm != list(range(100))
    assert perm == list(fdata.RandomSampler(range(100), generator=flow.Generator().manual_seed(0)))
    # Without a generator each iteration reseeds from the default generator.
    s = fdata.RandomSampler(range(50))
    flow.manual_seed(7)
    first, second = list(s), list(s)
    flow.manual_seed(7)
    assert list(s) == first != second
    # num_samples beyond the length: successive permutations.
    many = list(fdata.RandomSampler(range(10), num_samples=25, generator=g))
    assert len(many) == 25 and sorted(many[:10]) == sorted(many[10:20]) == list(range(10))
    assert len(set(many[20:])) == 5
    drawn = list(fdata.RandomSampler(range(5), replacement=True, num_samples=70, generator=g))
    assert len(drawn) == 70 and set(drawn) == set(range(5))
    assert len(fdata.RandomSampler(range(5), replacement=True, num_samples=70)) == 70


def test_subset_random_sampler():
    idx = [3, 9, 27, 81]
    s = fdata.SubsetRandomSampler(idx, generator=flow.Generator().manual_seed(2))
    out = list(s)
    assert sorted(out) == idx and len(s) == 4
    assert out == list(fdata.SubsetRandomSampler(idx, generator=flow.Generator().manual_seed(2)))


def test_weighted_random_sampler():
    w = [0.0, 1.0, 3.0, 0.0]
    g = flow.Generator().manual_seed(0)
    draws = np.array(list(fdata.WeightedRandomSampler(w, 20000, generator=g)))
    counts = np.bincount(draws, minlength=4)
    assert counts[0] == counts[3] == 0
    assert abs(counts[2] / 20000 - 0.75) < 0.02  # 5 sigma is about 0.015
    assert list(fdata.WeightedRandomSampler(w, 50, generator=flow.Generator().manual_seed(9))) == list(
        fdata.WeightedRandomSampler(w, 50, generator=flow.Generator().manual_seed(9))
    )
    no_repeat = list(fdata.WeightedRandomSampler([1.0, 5.0, 2.0, 0.5], 4, replacement=False, generator=g))
    assert sorted(no_repeat) == [0, 1, 2, 3]
    s = fdata.WeightedRandomSampler(w, 7)
    assert len(s) == 7 and s.weights.dtype == flow.float64
    # The heavier item comes first more often without replacement, as in successive sampling.
    firsts = [
        next(iter(fdata.WeightedRandomSampler([1.0, 9.0], 1, replacement=False, generator=g))) for _ in range(400)
    ]
    assert 0.8 < np.mean(firsts) < 0.98


@pytest.mark.parametrize(
    ("n", "replicas", "drop_last"), [(10, 3, False), (10, 3, True), (9, 3, False), (2, 4, False), (11, 4, True)]
)
def test_distributed_sampler_partition_matches_torch(n, replicas, drop_last):
    for rank in range(replicas):
        ours = fdata.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = tdata.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs) and ours.total_size == theirs.total_size


def test_distributed_sampler_shuffle_invariants():
    n, replicas = 23, 4
    shares = [list(fdata.DistributedSampler(range(n), replicas, r, seed=5)) for r in range(replicas)]
    assert all(len(s) == 6 for s in shares)
    flat = sum(shares, [])
    assert set(flat) == set(range(n)) and len(flat) == 24  # padded with one repeat
    again = [list(fdata.DistributedSampler(range(n), replicas, r, seed=5)) for r in range(replicas)]
    assert again == shares
    s = fdata.DistributedSampler(range(n), replicas, 0, seed=5)
    s.set_epoch(1)
    assert list(s) != shares[0] and s.epoch == 1
    dropped = [list(fdata.DistributedSampler(range(n), replicas, r, seed=5, drop_last=True)) for r in range(replicas)]
    assert all(len(d) == 5 for d in dropped) and len(set(sum(dropped, []))) == 20


def test_distributed_sampler_defaults_and_errors(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "3")
    monkeypatch.setenv("RANK", "2")
    s = fdata.DistributedSampler(range(9), shuffle=False)
    assert (s.num_replicas, s.rank, list(s)) == (3, 2, [2, 5, 8])
    _same_error(lambda d: d.DistributedSampler(range(9), num_replicas=2, rank=2))
    _same_error(lambda d: d.DistributedSampler(range(9), num_replicas=2, rank=-1))
    monkeypatch.delenv("WORLD_SIZE")
    monkeypatch.delenv("RANK")
    with pytest.raises(RuntimeError, match="Requires distributed package"):
        fdata.DistributedSampler(range(9))


# ---- collation ---------------------------------------------------------------------------


def _collate_cases(m):
    return [
        [m.tensor([1.0, 2.0]), m.tensor([3.0, 4.0])],
        [m.tensor(1), m.tensor(2)],
        [1, 2, 3],
        [True, False],
        [1.5, 2],
        [1, 2.5],
        [np.float32(1.5), np.float32(2.5)],
        [np.int16(1), np.int16(2)],
        [np.float32(1), np.float64(2)],
        [np.arange(3, dtype=np.int32), np.arange(3, 6, dtype=np.int32)],
        [np.zeros((2, 2), np.float16), np.ones((2, 2), np.float16)],
        ["a", "b"],
        [b"a", b"b"],
        [(1, "x"), (2, "y")],
        [[1, 2], [3, 4]],
        [{"a": 1, "b": [np.ones(2), 2.0]}, {"a": 3, "b": [np.zeros(2), 4.0]}],
        [Pair(1, m.tensor([1])), Pair(2, m.tensor([2]))],
        [collections.OrderedDict(z=1, a=2), collections.OrderedDict(z=3, a=4)],
        [{"nested": {"deep": (np.int64(1), "s")}}, {"nested": {"deep": (np.int64(2), "t")}}],
    ]


@pytest.mark.parametrize("case", range(len(_collate_cases(flow))))
def test_default_collate_matches_torch(case):
    ours = fdata.default_collate(_collate_cases(flow)[case])
    theirs = tdata.default_collate(_collate_cases(torch)[case])
    assert _plain(ours) == _plain(theirs)
    assert type(ours) is type(theirs) or isinstance(ours, flow.Tensor)


@pytest.mark.parametrize(
    "batch",
    [
        [object()],
        [np.array(["a"]), np.array(["b"])],
        [np.array([object()])],
        [[1, 2], [1]],
        [{"a": 1}, {"b": 2}],
        [(1,), 2],
        [None, None],
    ],
)
def test_default_collate_errors_match_torch(batch):
    _same_error(lambda d: d.default_collate(batch))


def test_default_collate_unequal_tensors_raise():
    with pytest.raises(RuntimeError):
        fdata.default_collate([flow.zeros(2), flow.zeros(3)])
    with pytest.raises(RuntimeError):
        fdata.default_collate([np.zeros(2), np.zeros(3)])


def test_collate_keeps_custom_sequence_and_mapping_types():
    class MyList(list):
        pass

    class MyDict(dict):
        pass

    out = fdata.default_collate([MyList([1, 2]), MyList([3, 4])])
    assert type(out) is MyList and _plain(out[0]) == ("tensor", "int64", [1, 3])
    out = fdata.default_collate([MyDict(a=1), MyDict(a=2)])
    assert type(out) is MyDict and out["a"].tolist() == [1, 2]


def test_default_convert_matches_torch():
    def sample(m):
        return [np.zeros(2), (np.int32(3), "x"), {"k": np.float32(1)}, Pair(np.ones(1), 2), np.array(["a"]), 5,
                m.tensor([1.0])]

    ours, theirs = fdata.default_convert(sample(flow)), tdata.default_convert(sample(torch))
    assert _plain(ours) == _plain(theirs)
    assert isinstance(ours[3], Pair) and isinstance(ours[4], np.ndarray)


# ---- DataLoader in the main process --------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"batch_size": 6},
        {"batch_size": 6, "drop_last": True},
        {"batch_size": None},
        {"batch_sampler": [[3, 1], [0], [19, 18, 17]]},
        {"sampler": [5, 4, 3, 2], "batch_size": 3},
        {"batch_size": 4, "collate_fn": lambda b: len(b)},
    ],
)
def test_dataloader_batches_match_torch(kwargs):
    ours = list(fdata.DataLoader(_dataset(flow, fdata), **kwargs))
    theirs = list(tdata.DataLoader(_dataset(torch, tdata), **kwargs))
    assert _plain(ours) == _plain(theirs)
    assert len(fdata.DataLoader(_dataset(flow, fdata), **kwargs)) == len(theirs)


@pytest.mark.parametrize(
    "make",
    [
        lambda d: d.DataLoader(range(3), num_workers=-1),
        lambda d: d.DataLoader(range(3), timeout=-1),
        lambda d: d.DataLoader(range(3), prefetch_factor=2),
        lambda d: d.DataLoader(range(3), persistent_workers=True),
        lambda d: d.DataLoader(range(3), sampler=[0, 1], shuffle=True),
        lambda d: d.DataLoader(range(3), batch_sampler=[[0]], batch_size=2),
        lambda d: d.DataLoader(range(3), batch_sampler=[[0]], drop_last=True),
        lambda d: d.DataLoader(range(3), batch_size=None, drop_last=True),
        lambda d: d.DataLoader(range(3), multiprocessing_context="fork"),
        lambda d: d.DataLoader(range(3), num_workers=1, multiprocessing_context="nope"),
    ],
)
def test_dataloader_argument_errors_match_torch(make):
    _same_error(make)


def test_dataloader_iterable_argument_errors_match_torch():
    def make(d):
        class It(d.IterableDataset):
            def __iter__(self):
                return iter(range(3))

        return It()

    for kw in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):
        with pytest.raises(ValueError) as theirs:
            tdata.DataLoader(make(tdata), **kw)
        with pytest.raises(ValueError) as ours:
            fdata.DataLoader(make(fdata), **kw)
        assert str(ours.value).split(", but got")[0] == str(theirs.value).split(", but got")[0]
    assert list(fdata.DataLoader(make(fdata), shuffle=False, batch_size=2))[1].tolist() == [2]


def test_dataloader_attributes_are_frozen():
    loader = fdata.DataLoader(range(3))
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 2
    loader.num_workers = 0  # not frozen, as in torch


def test_dataloader_shuffle_is_reproducible():
    def order(gen):
        return [b.tolist() for b in fdata.DataLoader(range(30), batch_size=7, shuffle=True, generator=gen)]

    a, b = order(flow.Generator().manual_seed(1)), order(flow.Generator().manual_seed(1))
    assert a == b and sorted(sum(a, [])) == list(range(30)) and a != order(flow.Generator().manual_seed(2))
    flow.manual_seed(3)
    c = order(None)
    flow.manual_seed(3)
    assert c == order(None)


def test_dataloader_len():
    class It(fdata.IterableDataset):
        def __iter__(self):
            return iter(range(10))

        def __len__(self):
            return 10

    assert len(fdata.DataLoader(It(), batch_size=3)) == 4
    assert len(fdata.DataLoader(It(), batch_size=3, drop_last=True)) == 3
    assert len(fdata.DataLoader(range(10), batch_size=3)) == 4
    assert len(fdata.DataLoader(range(10), batch_size=None)) == 10


# ---- worker processes --------------------------------------------------------------------


class _Squares(fdata.Dataset):
    def __len__(self):
        return 37

    def __getitem__(self, i):
        return {"x": flow.full((2, 3), float(i)), "i": i, "name": f"s{i}", "np": np.full(2, i, np.int32)}


@pytest.mark.parametrize(("batch_size", "drop_last"), [(5, False), (5, True), (None, False)])
def test_workers_deliver_the_same_batches_in_order(batch_size, drop_last):
    kw = {"batch_size": batch_size, "drop_last": drop_last}
    serial = list(fdata.DataLoader(_Squares(), **kw))
    parallel = list(fdata.DataLoader(_Squares(), num_workers=2, **kw))
    assert _plain(parallel) == _plain(serial)
    assert len(parallel) == len(fdata.DataLoader(_Squares(), num_workers=2, **kw))


def test_workers_match_torch_batches():
    ours = list(fdata.DataLoader(_dataset(flow, fdata), batch_size=4, num_workers=2))
    theirs = list(tdata.DataLoader(_dataset(torch, tdata), batch_size=4, num_workers=2))
    assert _plain(ours) == _plain(theirs)


def test_workers_shuffle_and_options():
    kw = {"batch_size": 4, "shuffle": True, "pin_memory": True, "prefetch_factor": 3}
    a = list(fdata.DataLoader(range(40), num_workers=2, generator=flow.Generator().manual_seed(0), **kw))
    b = list(
        fdata.DataLoader(range(40), num_workers=0, generator=flow.Generator().manual_seed(0),
                         **{**kw, "prefetch_factor": None})
    )
    assert _plain(a) == _plain(b) and sorted(sum((x.tolist() for x in a), [])) == list(range(40))
    unordered = list(fdata.DataLoader(range(40), batch_size=4, num_workers=2, in_order=False))
    assert sorted(x.tolist() for x in unordered) == [list(range(i, i + 4)) for i in range(0, 40, 4)]


def test_batches_arrive_through_shared_memory():
    def shm_maps():
        with open("/proc/self/maps") as f:
            return [line for line in f if "oneflow_dl_" in line]

    loader = fdata.DataLoader(_Squares(), batch_size=8, num_workers=2)
    batch = next(iter(loader))
    gc.collect()
    # The tensors use the workers' shared memory directly: the file is mapped (and already unlinked).
    assert shm_maps() and all("(deleted)" in line for line in shm_maps())
    assert batch["x"][3].tolist() == [[3.0] * 3] * 2
    batch["x"].add_(1)  # writable
    del batch
    gc.collect()
    assert not shm_maps()


class _WhoAmI(fdata.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = fdata.get_worker_info()
        return [info.id, info.num_workers, info.seed, flow.initial_seed(), int(np.random.randint(1 << 30)),
                getattr(info.dataset, "tag", None)]


def test_worker_info_seeds_and_init_fn():
    assert fdata.get_worker_info() is None
    def init(worker_id):
        info = fdata.get_worker_info()
        assert info.id == worker_id
        info.dataset.tag = f"init{worker_id}"
        with pytest.raises(RuntimeError, match="Cannot assign attributes"):
            info.id = 5

    rows = [b.tolist() for b in fdata.DataLoader(_WhoAmI(), batch_size=None, num_workers=2, worker_init_fn=init)
            if False] or list(fdata.DataLoader(_WhoAmI(), batch_size=None, num_workers=2, worker_init_fn=init,
                                               collate_fn=lambda x: x))
    ids = [r[0] for r in rows]
    assert ids == [0, 1] * 4  # requests go round robin
    assert all(r[1] == 2 for r in rows)
    seed0 = rows[0][2]
    assert rows[1][2] == seed0 + 1  # base seed + worker id
    assert all(r[3] == r[2] for r in rows)  # oneflow's default generator seeded with it
    assert [r[5] for r in rows[:2]] == ["init0", "init1"]
    assert rows[0][4] != rows[1][4]  # NumPy seeded differently per worker
    # The base seed comes from the loader's generator.
    again = list(fdata.DataLoader(_WhoAmI(), batch_size=None, num_workers=2, generator=flow.Generator().manual_seed(4),
                                  collate_fn=lambda x: x))
    same = list(fdata.DataLoader(_WhoAmI(), batch_size=None, num_workers=2, generator=flow.Generator().manual_seed(4),
                                 collate_fn=lambda x: x))
    assert again == same


class _Sharded:
    """The same iterable dataset in both frameworks: each worker takes every num_workers-th item."""

    def __init__(self, data, n):
        class Sharded(data.IterableDataset):
            def __iter__(self):
                info = data.get_worker_info()
                start, step = (0, 1) if info is None else (info.id, info.num_workers)
                return iter(range(start, n, step))

        self.cls = Sharded


@pytest.mark.parametrize(
    ("batch_size", "drop_last", "n"), [(3, False, 11), (3, True, 11), (None, False, 5), (4, False, 3)]
)
def test_iterable_dataset_sharding_matches_torch(batch_size, drop_last, n):
    kw = {"batch_size": batch_size, "drop_last": drop_last, "num_workers": 2}
    ours = list(fdata.DataLoader(_Sharded(fdata, n).cls(), **kw))
    theirs = list(tdata.DataLoader(_Sharded(tdata, n).cls(), **kw))
    assert _plain(ours) == _plain(theirs)


class _Failing(fdata.Dataset):
    def __len__(self):
        return 20

    def __getitem__(self, i):
        if i == 13:
            raise ValueError(f"cannot load sample {i}")
        if i == 17:
            raise KeyError("missing")
        return i


def _load_everything(**kw):
    return list(fdata.DataLoader(_Failing(), batch_size=2, num_workers=2, **kw))


def test_worker_exception_is_reraised_with_traceback():
    with pytest.raises(ValueError) as e:
        _load_everything()
    text = str(e.value)
    assert text.startswith("Caught ValueError in DataLoader worker process 0.")
    assert "Original Traceback (most recent call last):" in text
    assert "in __getitem__" in text and "cannot load sample 13" in text
    with pytest.raises(KeyError) as e:
        list(fdata.DataLoader(_Failing(), batch_size=2, num_workers=2, sampler=[17]))
    assert "Caught KeyError in DataLoader worker process 0" in str(e.value)


def test_worker_init_fn_exception_is_reraised():
    def init(worker_id):
        raise OSError(f"init failed in {worker_id}")

    with pytest.raises(OSError, match="init failed in 0"):
        list(fdata.DataLoader(range(4), num_workers=2, worker_init_fn=init))


class _Dies(fdata.Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        if i == 3:
            os._exit(7)
        return i


def test_worker_death_raises():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker 1 \(pid \d+\) exited with exit code 7"):
        list(fdata.DataLoader(_Dies(), batch_size=3, num_workers=2))
    assert time.monotonic() - start < 4
    gc.collect()  # iterators of earlier tests that reference cycles keep alive
    assert not multiprocessing.active_children()


class _Slow(fdata.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 2:
            time.sleep(2)
        return i


def test_timeout_raises():
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        list(fdata.DataLoader(_Slow(), num_workers=1, timeout=0.5))
    assert [b.item() for b in fdata.DataLoader(range(3), num_workers=1, timeout=5)] == [0, 1, 2]


def _our_shm_files(prefix=""):
    return [f for f in os.listdir(shm._SHM_DIR) if f.startswith("oneflow_dl_" + prefix)]


def test_early_break_leaves_no_processes_or_shared_memory():
    loader = fdata.DataLoader(_Squares(), batch_size=2, num_workers=2, prefetch_factor=4)
    it = iter(loader)
    prefix = it._shm_prefix[len("oneflow_dl_"):]
    for i, _ in enumerate(it):
        if i == 2:
            break
    time.sleep(0.2)  # let the workers fill the queue
    assert _our_shm_files(prefix)  # batches written but not yet received
    pids = [w.pid for w in it._workers]
    del it, _
    gc.collect()
    assert not multiprocessing.active_children()
    assert not _our_shm_files(prefix)
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_persistent_workers_are_reused():
    loader = fdata.DataLoader(range(30), batch_size=4, num_workers=2, persistent_workers=True, shuffle=True)
    first = sorted(sum((b.tolist() for b in loader), []))
    pids = [w.pid for w in loader._iterator._workers]
    for i, _ in enumerate(loader):  # an epoch left early
        if i == 1:
            break
    second = sorted(sum((b.tolist() for b in loader), []))
    assert first == second == list(range(30))
    assert [w.pid for w in loader._iterator._workers] == pids
    loader._iterator._shutdown_workers()
    assert not multiprocessing.active_children()


def test_spawn_context():
    ds = fdata.TensorDataset(flow.arange(10))
    batches = list(fdata.DataLoader(ds, batch_size=4, num_workers=2, multiprocessing_context="spawn"))
    assert [b[0].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
