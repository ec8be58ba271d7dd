"""oneflow.one_embedding: lookups equal a dense nn.Embedding holding the same rows, optimizer steps
update the looked-up rows as dense training would, snapshots round-trip, bad input raises."""

import numpy as np
import pytest

import oneflow as flow

oe = flow.one_embedding


def _embedding(tmp_path, dim=4, tables=None, name="emb"):
    tables = tables or [oe.make_table_options(oe.make_uniform_initializer(-0.5, 0.5))]
    store = oe.make_cached_host_mem_store_options(16, str(tmp_path), capacity=1000)
    return oe.MultiTableEmbedding(name, dim, flow.float, flow.int64, tables, store)


def _dense_from(emb, vocab):
    """An nn.Embedding whose row i is the embedding's row of id ``vocab[i]``."""
    emb(flow.tensor(vocab, dtype=flow.int64))  # creates the rows
    dense = flow.nn.Embedding(len(vocab), emb.embedding_dim)
    with flow.no_grad():
        dense.weight.copy_(flow.tensor(np.stack([emb._rows[k] for k in vocab]), dtype=flow.float32))
    return dense


def test_lookup_equals_dense_embedding_and_rows_are_stable(tmp_path):
    flow.manual_seed(0)
    emb = _embedding(tmp_path)
    vocab = [7, 123456789, 42, 3]
    dense = _dense_from(emb, vocab)
    ids = [[7, 42], [3, 7], [123456789, 42]]
    got = emb(flow.tensor(ids))
    want = dense(flow.tensor([[vocab.index(i) for i in row] for row in ids]))
    assert tuple(got.shape) == (3, 2, 4) and got.dtype == flow.float32
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6)
    assert (np.abs(got.detach().numpy()) <= 0.5).all()  # the uniform initializer's range


@pytest.mark.parametrize(
    "make_opt",
    [
        lambda p: flow.optim.SGD(p, lr=0.3),
        lambda p: flow.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01),
        lambda p: flow.optim.Adam(p, lr=0.05),
        lambda p: flow.optim.AdamW(p, lr=0.05, weight_decay=0.1),
    ],
)
def test_training_equals_dense_training(tmp_path, make_opt):
    flow.manual_seed(1)
    emb = _embedding(tmp_path, dim=3)
    vocab = [11, 5, 900, 2]
    dense = _dense_from(emb, vocab)
    opt, dense_opt = make_opt(emb.parameters()), make_opt(dense.parameters())
    target = flow.randn(2, 4, 3)
    # Every step looks up every row (a dense optimizer moves untouched rows too; these do not).
    batches = [[[11, 5, 900, 2], [2, 2, 5, 11]], [[900, 11, 2, 5], [5, 5, 5, 900]], [[2, 900, 5, 11], [11, 11, 2, 2]]]
    for batch in batches:
        for module, o, ids in ((emb, opt, batch), (dense, dense_opt, [[vocab.index(i) for i in r] for r in batch])):
            o.zero_grad()
            ((module(flow.tensor(ids)) - target) ** 2).sum().backward()
            o.step()
    after = np.stack([emb._rows[k] for k in vocab])
    np.testing.assert_allclose(after, dense.weight.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_sgd_updates_only_looked_up_rows(tmp_path):
    flow.manual_seed(2)
    emb = _embedding(tmp_path)
    opt = flow.optim.SGD(emb.parameters(), lr=1.0)
    emb(flow.tensor([1, 2]))
    untouched = emb._rows[2].copy()
    emb(flow.tensor([1, 1])).sum().backward()  # id 1 twice: its gradient is 2 everywhere
    before = emb._rows[1].copy()
    opt.step()
    np.testing.assert_allclose(emb._rows[1], before - 2.0)
    np.testing.assert_array_equal(emb._rows[2], untouched)


def test_tables_columns_and_table_ids(tmp_path):
    flow.manual_seed(3)
    tables = [
        oe.make_table_options(oe.make_uniform_initializer(10, 11)),
        oe.make_table_options(oe.make_normal_initializer(-100, 0)),
    ]
    emb = _embedding(tmp_path, tables=tables)
    out = emb(flow.tensor([[1, 2], [3, 4]])).detach().numpy()  # column j belongs to table j
    assert ((out[:, 0] >= 10) & (out[:, 0] < 11)).all() and (out[:, 1] == -100).all()
    out = emb(flow.tensor([5, 6]), flow.tensor([1, 0])).detach().numpy()
    assert (out[0] == -100).all() and (out[1] >= 10).all()
    cols = oe.MultiTableMultiColumnEmbedding(
        "mc",
        [2, 3],
        flow.float,
        flow.int64,
        [
            oe.make_table_options(
                [
                    oe.make_column_options(oe.make_normal_initializer(1, 0)),
                    oe.make_column_options(oe.make_normal_initializer(2, 0)),
                ]
            )
        ],
        oe.make_device_mem_store_options(str(tmp_path), 100),
    )
    assert cols(flow.tensor([9])).detach().numpy().tolist() == [[1, 1, 2, 2, 2]]


def test_snapshot_round_trip(tmp_path):
    flow.manual_seed(4)
    emb = _embedding(tmp_path, name="snap")
    opt = flow.optim.SGD(emb.parameters(), lr=0.1, momentum=0.9)
    emb(flow.tensor([1, 2, 3])).sum().backward()
    opt.step()
    saved = {k: v.copy() for k, v in emb._rows.items()}
    emb.save_snapshot("s1")
    emb(flow.tensor([1, 99])).sum().backward()
    opt.step()
    emb.load_snapshot("s1")
    assert set(emb._rows) == set(saved)
    for k, v in saved.items():
        np.testing.assert_array_equal(emb._rows[k], v)
    assert set(emb._state["momentum"]) == {1, 2, 3}
    with pytest.raises(FileNotFoundError, match="no snapshot 'nope'"):
        emb.load_snapshot("nope")


def test_bad_input(tmp_path):
    emb = _embedding(tmp_path)
    with pytest.raises(TypeError, match="ids data_type must equal key_type"):
        emb(flow.tensor([1, 2], dtype=flow.int32))
    with pytest.raises(TypeError, match="ids must be a Tensor"):
        emb([1, 2])
    with pytest.raises(ValueError, match="low .* must be <= high"):
        oe.make_uniform_initializer(1, 0)
    with pytest.raises(TypeError, match="key_type must be"):
        oe.MultiTableEmbedding("x", 4, flow.float, flow.float, None, oe.make_device_mem_store_options("/tmp/x", 10))
    with pytest.raises(ValueError, match="embedding_dim must be a positive int"):
        oe.MultiTableEmbedding("x", 0, flow.float, flow.int64, None, oe.make_device_mem_store_options("/tmp/x", 10))
    with pytest.raises(ValueError, match="size_factor"):
        oe.make_device_mem_store_options("/tmp/x", 10, size_factor=5)
    two = _embedding(tmp_path, tables=[oe.make_table_options(oe.make_normal_initializer(0, 1))] * 2)
    with pytest.raises(ValueError, match="pass table_ids"):
        two(flow.tensor([1, 2, 3]))
    with pytest.raises(NotImplementedError, match="RMSprop cannot update embedding rows"):
        flow.optim.RMSprop(emb.parameters())
