"""flowvision.utils.ModelEmaV2 against a plain-PyTorch reference of timm's ModelEmaV2."""

import copy

import numpy as np
import pytest
import torch

import oneflow as flow
from flowvision.utils import ModelEmaV2, convert_torch_checkpoint


class TorchModelEmaV2(torch.nn.Module):
    """timm's ModelEmaV2 semantics, written out in PyTorch."""

    def __init__(self, model, decay):
        super().__init__()
        self.module = copy.deepcopy(model).eval()
        self.decay = decay

    def update(self, model):
        with torch.no_grad():
            for e, m in zip(self.module.state_dict().values(), model.state_dict().values()):
                e.copy_(self.decay * e + (1.0 - self.decay) * m)


def make_pair():
    def build(nn):
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                             nn.Linear(4 * 5 * 5, 3))

    torch.manual_seed(0)
    ref = build(torch.nn)
    ours = build(flow.nn)
    ours.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    return ours, ref


def assert_state_close(ours, ref, rtol=1e-5, atol=1e-6):
    a, b = ours.state_dict(), ref.state_dict()
    assert list(a) == list(b)
    for k in a:
        assert str(a[k].dtype).split(".")[-1] == str(b[k].dtype).split(".")[-1], k
        np.testing.assert_allclose(a[k].numpy(), b[k].numpy(), rtol=rtol, atol=atol, err_msg=k)


@pytest.mark.parametrize("decay", [0.0, 0.5, 0.9, 0.9999, 1.0])
def test_update_matches_timm_over_training_steps(decay):
    ours, ref = make_pair()
    ema, ref_ema = ModelEmaV2(ours, decay=decay), TorchModelEmaV2(ref, decay)
    opt = flow.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(0)
    for _ in range(6):
        x = rng.standard_normal((4, 3, 5, 5)).astype(np.float32)
        y = rng.integers(0, 3, size=4)
        for model, optimizer, m, e in ((ours, opt, flow, ema), (ref, ref_opt, torch, ref_ema)):
            loss = m.nn.functional.cross_entropy(model(m.tensor(x)), m.tensor(y))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            e.update(model)
    assert_state_close(ours, ref, rtol=1e-4, atol=1e-5)  # the trained models agree ...
    assert_state_close(ema.module, ref_ema.module, rtol=1e-4, atol=1e-5)  # ... and so do the averages
    # num_batches_tracked (int64) is averaged and truncated like timm's in-place copy.
    nbt = ema.module.state_dict()["1.num_batches_tracked"]
    assert nbt.dtype == flow.int64 and nbt.item() == ref_ema.module.state_dict()["1.num_batches_tracked"].item()
    if decay == 0.0:
        assert_state_close(ema.module, ours, rtol=0, atol=0)


def test_ema_is_a_detached_deep_copy_in_eval_mode():
    ours, _ = make_pair()
    ours.train()
    ema = ModelEmaV2(ours, decay=0.9)
    assert not ema.module.training and ours.training
    assert all(not p.requires_grad or p.grad is None for p in ema.module.parameters())
    before = ema.module[0].weight.detach().numpy().copy()
    with flow.no_grad():
        ours[0].weight.add_(1.0)
    np.testing.assert_array_equal(ema.module[0].weight.detach().numpy(), before)  # not shared
    ema.update(ours)
    np.testing.assert_allclose(ema.module[0].weight.detach().numpy(), before + 0.1, rtol=1e-5, atol=1e-6)
    # No gradient graph is recorded through the average.
    assert ema.module[0].weight.grad_fn is None


def test_set_copies_and_forward_runs_the_average():
    ours, _ = make_pair()
    ema = ModelEmaV2(ours, decay=0.99)
    with flow.no_grad():
        for p in ours.parameters():
            p.mul_(2.0)
    ema.set(ours)
    assert_state_close(ema.module, ours, rtol=0, atol=0)
    x = flow.randn(2, 3, 5, 5)
    ours.eval()
    with flow.no_grad():
        np.testing.assert_allclose(ema(x).numpy(), ours(x).numpy(), rtol=1e-6, atol=1e-6)


def test_device_argument_and_defaults():
    ours, _ = make_pair()
    ema = ModelEmaV2(ours)
    assert ema.decay == 0.9999 and ema.device is None
    ema_cpu = ModelEmaV2(ours, device="cpu")
    ema_cpu.update(ours)
    assert all(p.device.type == "cpu" for p in ema_cpu.module.parameters())


def test_state_dict_round_trip_through_save(tmp_path):
    ours, _ = make_pair()
    ema = ModelEmaV2(ours, decay=0.5)
    with flow.no_grad():
        ours[0].weight.add_(1.0)
    ema.update(ours)
    state = ema.state_dict()
    assert list(state) == ["module." + k for k in ours.state_dict()]
    flow.save(state, str(tmp_path / "ema.of"))
    fresh = ModelEmaV2(make_pair()[0], decay=0.5)
    fresh.load_state_dict(flow.load(str(tmp_path / "ema.of")))
    assert_state_close(fresh.module, ema.module, rtol=0, atol=0)


def test_bad_inputs():
    ours, _ = make_pair()
    with pytest.raises(ValueError, match=r"decay should be in \[0, 1\], got 1.5"):
        ModelEmaV2(ours, decay=1.5)
    with pytest.raises(TypeError, match="expected an nn.Module"):
        ModelEmaV2({"w": flow.zeros(1)})
    ema = ModelEmaV2(ours)
    with pytest.raises(ValueError, match="does not match the EMA copy"):
        ema.update(flow.nn.Linear(2, 2))


def test_utils_still_exports_convert_torch_checkpoint():
    import flowvision.utils

    assert callable(convert_torch_checkpoint)
    assert {"ModelEmaV2", "convert_torch_checkpoint"} <= set(flowvision.utils.__all__)
