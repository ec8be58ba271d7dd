"""Model benchmarks: flowvision's models on oneflow against plain-PyTorch references.

Each reference is written once below against a framework namespace ``m`` (``torch``
or ``oneflow``: the APIs are the same), with torchvision's / timm's parameter names,
so the reference built with torch takes the flowvision model's weights and both
compute the same function (checked before timing). Cases, batch 8, fp32, eval-mode
inference under no_grad and one SGD training step:

- ResNet-50, 224x224: inference and a training step (NCHW);
- ViT-B/16, 224x224: inference.

The frameworks run in turns (interleaved), each case ``--repeats`` times after
warm-up; medians are reported as images/s with oneflow / torch (higher is better for
us).

    ./tools/bazel run //tools/bench:models -- --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch

import flowvision.models
import oneflow as flow

# ---------------------------------------------------------------------------------------
# Plain references, written once for either framework.
# ---------------------------------------------------------------------------------------


def resnet50_reference(m, num_classes: int = 1000):
    """torchvision's ResNet-50 (v1.5: stride on the 3x3 conv), same module names."""
    nn = m.nn

    class Bottleneck(nn.Module):
        expansion = 4

        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(planes * 4)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = downsample

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
            return self.relu(out + identity)

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.inplanes = 64
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            self.layer1 = self._layer(64, 3, 1)
            self.layer2 = self._layer(128, 4, 2)
            self.layer3 = self._layer(256, 6, 2)
            self.layer4 = self._layer(512, 3, 2)
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(2048, num_classes)

        def _layer(self, planes, blocks, stride):
            downsample = None
            if stride != 1 or self.inplanes != planes * 4:
                downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes * 4, 1, stride, bias=False),
                                           nn.BatchNorm2d(planes * 4))
            layers = [Bottleneck(self.inplanes, planes, stride, downsample)]
            self.inplanes = planes * 4
            layers += [Bottleneck(self.inplanes, planes) for _ in range(1, blocks)]
            return nn.Sequential(*layers)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(m.flatten(self.avgpool(x), 1))

    return ResNet()


def vit_b16_reference(m, num_classes: int = 1000):
    """timm's vit_base_patch16_224, same module names (qkv in one Linear)."""
    nn, F = m.nn, m.nn.functional
    dim, depth, heads = 768, 12, 12

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(dim, dim * 3)
            self.proj = nn.Linear(dim, dim)

        def forward(self, x):
            b, n, c = x.shape
            q, k, v = self.qkv(x).reshape(b, n, 3, heads, c // heads).permute(2, 0, 3, 1, 4).unbind(0)
            x = F.scaled_dot_product_attention(q, k, v)
            return self.proj(x.transpose(1, 2).reshape(b, n, c))

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(dim, dim * 4)
            self.act = nn.GELU()
            self.fc2 = nn.Linear(dim * 4, dim)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1 = nn.LayerNorm(dim, eps=1e-6)
            self.attn = Attention()
            self.norm2 = nn.LayerNorm(dim, eps=1e-6)
            self.mlp = Mlp()

        def forward(self, x):
            x = x + self.attn(self.norm1(x))
            return x + self.mlp(self.norm2(x))

    class PatchEmbed(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Conv2d(3, dim, 16, 16)

        def forward(self, x):
            return self.proj(x).flatten(2).transpose(1, 2)

    class VisionTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.patch_embed = PatchEmbed()
            self.cls_token = nn.Parameter(m.zeros(1, 1, dim))
            self.pos_embed = nn.Parameter(m.zeros(1, 197, dim))
            self.blocks = nn.Sequential(*[Block() for _ in range(depth)])
            self.norm = nn.LayerNorm(dim, eps=1e-6)
            self.head = nn.Linear(dim, num_classes)

        def forward(self, x):
            x = self.patch_embed(x)
            x = m.cat([self.cls_token.expand(x.shape[0], -1, -1), x], 1) + self.pos_embed
            x = self.norm(self.blocks(x))
            return self.head(x[:, 0])

    return VisionTransformer()


# ---------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------


def copy_weights(ours, theirs) -> None:
    """Loads our model's weights into the torch reference (names must agree)."""
    state = {k: torch.from_numpy(v.detach().numpy().copy()) for k, v in ours.state_dict().items()}
    missing, unexpected = theirs.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise SystemExit(f"reference and flowvision model differ: missing {missing}, unexpected {unexpected}")


def make_step(m, model, images, labels, train: bool):
    if not train:
        def infer():
            with m.no_grad():
                model(images)
        return infer
    opt = m.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)

    def step():
        opt.zero_grad()
        m.nn.functional.cross_entropy(model(images), labels).backward()
        opt.step()
    return step


def bench_case(name, ours_model, ref_model, batch, size, train, repeats, warmup) -> tuple[float, float]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, 3, size, size), dtype=np.float32)
    y = rng.integers(0, 1000, batch)
    copy_weights(ours_model, ref_model)
    for model in (ours_model, ref_model):
        model.train(train)
    if not train:  # the same function in both frameworks
        with flow.no_grad(), torch.no_grad():
            a = ours_model(flow.from_numpy(x)).numpy()
            b = ref_model(torch.from_numpy(x)).numpy()
        if not np.allclose(a, b, rtol=1e-3, atol=1e-3):
            raise SystemExit(f"{name}: outputs differ by {np.abs(a - b).max():.3g}")
    steps = {
        "oneflow": make_step(flow, ours_model, flow.from_numpy(x), flow.from_numpy(y), train),
        "torch": make_step(torch, ref_model, torch.from_numpy(x), torch.from_numpy(y), train),
    }
    for fn in steps.values():
        for _ in range(warmup):
            fn()
    times: dict[str, list[float]] = {k: [] for k in steps}
    for _ in range(repeats):
        for k, fn in steps.items():
            start = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - start)
    return batch / statistics.median(times["oneflow"]), batch / statistics.median(times["torch"])


def main(argv=None) -> list[tuple[str, float, float]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--size", type=int, default=224, help="image size (ViT needs 224)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--cases", default="resnet50_infer,resnet50_train,vit_b16_infer")
    args = parser.parse_args(argv)

    threads = torch.get_num_threads()
    flow.set_num_threads(threads)
    flow.manual_seed(0)
    cases = {
        "resnet50_infer": lambda: ("ResNet-50 inference", flowvision.models.resnet50(),
                                   resnet50_reference(torch), args.size, False),
        "resnet50_train": lambda: ("ResNet-50 SGD training step", flowvision.models.resnet50(),
                                   resnet50_reference(torch), args.size, True),
        "vit_b16_infer": lambda: ("ViT-B/16 inference", flowvision.models.vit_base_patch16_224(),
                                  vit_b16_reference(torch), 224, False),
    }
    print(f"batch {args.batch}, fp32, {threads} threads, medians of {args.repeats} (images/s; higher is better)")
    print(f"{'case':<30} {'oneflow':>10} {'torch':>10} {'ratio':>7}")
    rows = []
    for key in args.cases.split(","):
        name, ours, ref, size, train = cases[key]()
        a, b = bench_case(name, ours, ref, args.batch, size, train, args.repeats, args.warmup)
        rows.append((name, a, b))
        print(f"{name:<30} {a:>10.2f} {b:>10.2f} {a / b:>7.2f}", flush=True)
    return rows


if __name__ == "__main__":
    main()
