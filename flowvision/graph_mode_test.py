"""flowvision's families in nn.Graph: the same logits as eager on the traced call and on a replay
(within 1e-5: the graph folds evaluation-mode batch norms into the convolutions)."""

import numpy as np
import pytest

import flowvision
import oneflow as flow

# One model per family, at the smallest registered size.
MODELS = [
    "resnet18",
    "mobilenet_v2",
    "mobilenet_v3_small",
    "efficientnet_b0",
    "densenet121",
    "convnext_tiny",
    "vit_tiny_patch16_224",
    "swin_t",
]


class Inference(flow.nn.Graph):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def build(self, x):
        return self.model(x)


@pytest.mark.parametrize("name", MODELS)
def test_graph_logits_equal_eager(name):
    flow.manual_seed(0)
    model = getattr(flowvision.models, name)().eval()
    with flow.no_grad():
        # Eager's first call may round differently from later ones (weights packed for the GEMM
        # kernels on first use); compare with warm calls.
        model(flow.randn(1, 3, 224, 224))
    graph = Inference(model)
    for _ in range(2):
        x = flow.randn(1, 3, 224, 224)
        with flow.no_grad():
            expected = model(x).numpy()
        np.testing.assert_allclose(graph(x).numpy(), expected, rtol=1e-5, atol=1e-5)


def test_saved_graph_gives_the_same_logits(tmp_path):
    flow.manual_seed(0)
    model = flowvision.models.resnet18().eval()
    graph = Inference(model)
    x = flow.randn(2, 3, 64, 64)
    graph(x)  # the traced call runs eagerly; the replays run the plan (batch norms folded)
    expected = graph(x).numpy()
    flow.save(graph, str(tmp_path / "resnet18"))
    loaded = flow.nn.graph.load(str(tmp_path / "resnet18"))
    np.testing.assert_array_equal(loaded(x).numpy(), expected)
    y = flow.randn(2, 3, 64, 64)
    np.testing.assert_array_equal(loaded(y).numpy(), graph(y).numpy())
