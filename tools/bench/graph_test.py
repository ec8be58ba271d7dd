"""The graph benchmark runs (tiny counts, no timing assertions) and prints its machine line."""

import graph


def test_graph_bench_runs(capsys):
    results = graph.run(["mlp_train_b1", "mlp_infer_b1"], repeats=1, min_time=0.0, compile_torch=False)
    out = capsys.readouterr().out
    assert out.startswith("# ") and "kernels" in out
    for name in ("mlp_train_b1", "mlp_infer_b1"):
        assert set(results[name]) == {"ours eager", "ours graph", "torch eager"}
        assert all(v > 0 for v in results[name].values())
