"""The model registry: names, the table, unknown names, and weights from a checkpoint file."""

import numpy as np
import pytest

import flowvision.models
import oneflow as flow
from flowvision.models import ModelCreator


def test_the_zoo_has_60_constructors_across_18_families():
    names = ModelCreator.model_list()
    families = {ModelCreator._registry[n].__module__.rsplit(".", 1)[-1] for n in names}
    assert len(names) >= 60 and len(families) >= 18, (len(names), sorted(families))
    for name in ("resnet50", "vgg16_bn", "densenet121", "mobilenet_v3_large", "efficientnet_b0",
                 "convnext_tiny", "vit_base_patch16_224", "deit_tiny_distilled_patch16_224", "swin_t"):
        assert name in names
        assert getattr(flowvision.models, name) is ModelCreator._registry[name]


def test_model_table_is_readable_and_filters():
    table = ModelCreator.model_table("resnet*")
    lines = table.splitlines()
    assert lines[0].split() == ["model", "family", "defaults"]
    rows = [line.split()[0] for line in lines[2:-1]]
    assert rows == sorted(rows) and "resnet50" in rows and all(r.startswith("resnet") for r in rows)
    assert lines[-1] == f"({len(rows)} models)"
    assert "no registered model matches" in ModelCreator.model_table("nothing*")
    assert ModelCreator.model_list("vit_*") == sorted(n for n in ModelCreator.model_list() if n.startswith("vit_"))


def test_unknown_names_suggest_close_ones():
    with pytest.raises(ValueError, match=r"unknown model 'resnet5'.*Did you mean: .*resnet50"):
        ModelCreator.create_model("resnet5")
    with pytest.raises(ValueError, match="model_table"):
        ModelCreator.create_model("qqqqqqqq")


def test_duplicate_registration_is_refused():
    def resnet50(pretrained=False, progress=True, **kwargs):
        return None

    with pytest.raises(ValueError, match="already registered"):
        ModelCreator.register_model(resnet50)


def test_create_model_with_a_checkpoint(tmp_path):
    flow.manual_seed(0)
    model = ModelCreator.create_model("squeezenet1_1", num_classes=7)
    path = tmp_path / "sq.of"
    flow.save(model.state_dict(), str(path))
    again = ModelCreator.create_model("squeezenet1_1", checkpoint=str(path), num_classes=7)
    x = flow.randn(1, 3, 64, 64)
    model.eval()
    again.eval()
    with flow.no_grad():
        np.testing.assert_array_equal(model(x).numpy(), again(x).numpy())
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ModelCreator.create_model("squeezenet1_1", checkpoint=str(tmp_path / "missing.of"))
