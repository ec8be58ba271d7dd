"""OneFlow's published transformer toolkit (libai 0.1.1 from the package index) runs on this oneflow.

Every architecture libai registers (``MODEL_ARCH_REGISTRY``: BERT, GPT, T5, ViT, Swin pretraining
models), and the backbones they wrap, are built from LazyConfig configs (the keys of libai's own
``configs/common/models``, at small sizes) and run one eager forward pass on one-rank Global
Tensors, the way libai runs on one device. The test prints the fraction of registered
architectures that ran.

libai's C++ data helper (``libai.data.data_utils.helpers``) is compiled when tools/bazel installs
the package; nothing here needs it.
"""

import sys
import time
import traceback

import pytest

from tools.external_packages import external_path

# Registered names whose failure is understood and not a gap in this oneflow, with the reason.
KNOWN_FAILURES: dict = {}

# Models written for OneFlow <= 0.8's copying view ops, run the way their users run them on later
# OneFlow releases: with ONEFLOW_DISABLE_VIEW set (here per case, on this thread only).
VIEWS_DISABLED = {
    "SwinTransformer": (
        "libai 0.1.1 builds Swin's shifted-window mask with x.permute(...).view(...) on a local "
        "tensor, which needs permute() to copy as OneFlow <= 0.8 did; with views on, view() of "
        "the strided permute raises in OneFlow >= 0.9 as in PyTorch"
    ),
}

# The keys of libai's configs/common/models/{bert,t5}.py, small.
_TEXT = dict(
    vocab_size=1000,
    hidden_size=64,
    hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=128,
    hidden_dropout_prob=0.1,
    attention_probs_dropout_prob=0.1,
    max_position_embeddings=64,
    num_tokentypes=2,
    add_pooling_layer=True,
    initializer_range=0.02,
    layernorm_eps=1e-5,
    bias_gelu_fusion=True,
    bias_dropout_fusion=True,
    scale_mask_softmax_fusion=False,
    apply_query_key_layer_scaling=True,
    add_binary_head=True,
    amp_enabled=False,
    embedding_dropout_prob=0.1,
)
# configs/common/models/gpt.py, small.
_GPT = dict(
    num_layers=2,
    vocab_size=1000,
    hidden_size=64,
    ffn_hidden_size=128,
    num_attention_heads=4,
    max_seq_length=64,
    embedding_dropout_prob=0,
    attention_dropout_prob=0,
    output_dropout_prob=0,
    layernorm_epsilon=1e-5,
    initializer_range=0.2,
    use_scaled_init_for_output_weights=True,
    bias_gelu_fusion=False,
    bias_dropout_fusion=False,
    scale_mask_softmax_fusion=False,
    apply_query_key_layer_scaling=False,
    amp_enabled=False,
)
# configs/common/models/vit/vit_tiny_patch16_224.py and swin/swin_tiny_patch4_window7_224.py,
# with fewer blocks.
_VIT = dict(
    img_size=224,
    patch_size=16,
    in_chans=3,
    embed_dim=192,
    mlp_ratio=4.0,
    depth=2,
    num_heads=3,
    drop_rate=0.0,
    attn_drop_rate=0.0,
    drop_path_rate=0.1,
    num_classes=1000,
)
_SWIN = dict(
    img_size=224,
    patch_size=4,
    in_chans=3,
    num_classes=1000,
    embed_dim=96,
    depths=[2, 2, 2, 2],
    num_heads=[3, 6, 12, 24],
    window_size=7,
    mlp_ratio=4.0,
    qkv_bias=True,
    qk_scale=None,
    drop_rate=0.0,
    drop_path_rate=0.2,
    ape=False,
    patch_norm=True,
    use_checkpoint=False,
)


def _import_libai():
    """Imports the published libai; returns (flow, libai.config, libai.utils.distributed, libai.models)."""
    external_path.restore_numpy_aliases()
    import oneflow as flow

    if not hasattr(flow.nn, "Graph"):
        # nn.Graph is the nn.Graph issue's; libai subclasses it at import time for its static
        # graphs, which this test does not build. Until it exists, a stand-in base class lets
        # the eager models import; building a graph with it raises.
        class _GraphStandIn(flow.nn.Module):
            def __init__(self, *args, **kwargs):
                raise NotImplementedError("oneflow.nn.Graph is not implemented yet")

        flow.nn.Graph = _GraphStandIn
    external_path.import_external("libai")
    from libai import config, models
    from libai.utils import distributed

    return flow, config, distributed, models


def _cases(flow, config, dist, models):
    """{model name: (LazyCall config, inputs factory)} for the registered and backbone models."""
    lazy = config.LazyCall
    batch, seq = 2, 16

    def place(x):
        return x.to_global(sbp=flow.sbp.broadcast, placement=dist.get_layer_placement(0))

    def ids():
        return place(flow.randint(0, _TEXT["vocab_size"], (batch, seq)))

    def padding_mask():
        return place(flow.ones(batch, seq, dtype=flow.int64))

    def attention_mask():
        return place(flow.ones(batch, seq, seq, dtype=flow.int64))

    def image():
        return (place(flow.randn(1, 3, 224, 224)),)

    def t5_inputs():
        return ids(), ids(), attention_mask(), attention_mask(), attention_mask()

    return {
        "BertForPreTraining": (lazy(models.BertForPreTraining)(cfg=_TEXT), lambda: (ids(), padding_mask())),
        "BertModel": (lazy(models.BertModel)(cfg=_TEXT), lambda: (ids(), padding_mask())),
        "GPTForPreTraining": (lazy(models.GPTForPreTraining)(cfg=_GPT), lambda: (ids(),)),
        "GPTModel": (lazy(models.GPTModel)(cfg=_GPT), lambda: (ids(),)),
        "T5ForPreTraining": (lazy(models.T5ForPreTraining)(cfg=_TEXT), t5_inputs),
        "T5Model": (lazy(models.T5Model)(cfg=_TEXT), t5_inputs),
        "VisionTransformer": (lazy(models.VisionTransformer)(**_VIT), image),
        "SwinTransformer": (lazy(models.SwinTransformer)(**_SWIN), image),
    }


def run_all(verbose: bool = True):
    """Builds and runs every case; returns (registered names, case names, {name: error})."""
    flow, config, dist, models = _import_libai()
    from libai.models.build import MODEL_ARCH_REGISTRY

    registered = sorted(name for name, _ in MODEL_ARCH_REGISTRY)
    cases = _cases(flow, config, dist, models)
    missing = set(registered) - set(cases)
    assert not missing, f"registered architectures without a config here: {sorted(missing)}"
    failures = {}
    for name, (cfg, inputs) in cases.items():
        start = time.perf_counter()
        flow._C._set_views_enabled(name not in VIEWS_DISABLED)
        try:
            flow.manual_seed(0)
            model = config.instantiate(cfg).eval()
            with flow.no_grad():
                out = model(*inputs())
            if out is None:
                raise AssertionError(f"{name} returned None")
            status = "ok"
        except Exception as e:  # every failure is reported, then counted
            failures[name] = traceback.format_exception_only(type(e), e)[-1].strip()[:300]
            status = "FAIL " + failures[name]
        finally:
            flow._C._set_views_enabled(True)
        if verbose:
            tag = " (registered)" if name in registered else ""
            print(f"{name + tag:32s} {time.perf_counter() - start:5.1f}s {status}", flush=True)
    ran = [n for n in registered if n not in failures]
    print(
        f"libai 0.1.1: {len(ran)}/{len(registered)} registered architectures ran "
        f"({len(ran) / len(registered):.0%}); {len(cases) - len(failures)}/{len(cases)} models "
        "with their backbones",
        flush=True,
    )
    return registered, list(cases), failures


@pytest.fixture(scope="module")
def results():
    return run_all()


def test_registered_architectures_are_all_covered(results):
    registered, cases, _ = results
    assert set(registered) <= set(cases)


def test_libai_models_run_forward(results):
    _, cases, failures = results
    unexpected = {n: e for n, e in failures.items() if n not in KNOWN_FAILURES}
    listing = "\n".join(f"  {n}: {e}" for n, e in sorted(unexpected.items()))
    assert not unexpected, f"libai models failed:\n{listing}"


def test_known_failures_still_fail(results):
    # A known failure that starts passing should leave KNOWN_FAILURES (and raise the fraction).
    _, _, failures = results
    fixed = sorted(set(KNOWN_FAILURES) - set(failures))
    assert not fixed, f"now passing, remove from KNOWN_FAILURES: {fixed}"


def test_views_disabled_cases_need_it():
    # Each VIEWS_DISABLED model must fail with views on; otherwise it belongs with the others.
    flow, config, dist, models = _import_libai()
    cases = _cases(flow, config, dist, models)
    for name in VIEWS_DISABLED:
        cfg, inputs = cases[name]
        with pytest.raises(RuntimeError, match="view"):
            model = config.instantiate(cfg).eval()
            with flow.no_grad():
                model(*inputs())


if __name__ == "__main__":
    _, _, failed = run_all()
    for n, e in sorted(failed.items()):
        print(f"  {n}: {e}")
    sys.exit(0)
