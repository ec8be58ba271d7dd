"""Model benchmarks: oneflow against PyTorch on the same models, in the same process.

Every model is written once (references.py) against a framework namespace ``m``
(``torch`` or ``oneflow``), with the published implementations' parameter names, and
built with both frameworks; torch's copy gets oneflow's weights and the outputs (or
the first training loss) are checked to agree before anything is timed. The vision
models on oneflow's side are flowvision's own. Cases (fp32 unless noted):

- GPT-2 small (12 x 768, 12 heads, vocab 50257), batch 4 x 128 tokens: an AdamW
  training step (language-model loss; tokens/s) in fp32 and under bf16 autocast (also
  printed against our own fp32 step), and inference (tokens/s);
- BERT-base encoder + pooler, batch 8 x 128 tokens: forward (sequences/s);
- ResNet-50, batch 8, 224x224: inference and an SGD training step (images/s), in NCHW
  and channels_last (each framework against itself in the same layout);
- ViT-B/16, batch 8: inference (images/s);
- peak RSS of the GPT-2 training step: each framework alone in a fresh process
  (rss.py), so neither counts the other's memory.

The frameworks run in turns (interleaved), each case ``--repeats`` times after
warm-up; medians are reported with the ratio oneflow / torch (higher is better for
us; for RSS, lower).

    ./tools/bazel run //tools/bench:models -- --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from machine import describe
from references import bert_reference, gpt2_reference, resnet50_reference, vit_b16_reference

import flowvision.models
import oneflow as flow


def copy_weights(ours, theirs) -> None:
    """Loads our model's weights into the torch model (names must agree)."""
    state = {k: torch.from_numpy(v.detach().numpy().copy()) for k, v in ours.state_dict().items()}
    missing, unexpected = theirs.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise SystemExit(f"the two models differ: missing {missing}, unexpected {unexpected}")


@dataclass
class Case:
    name: str
    unit: str  # what one step processes, per second
    per_step: int  # how many units one step processes
    ours: Callable[[], object]  # builds oneflow's model
    theirs: Callable[[], object]  # builds torch's model
    inputs: Callable[[], tuple]  # NumPy inputs
    kind: str  # "infer", "sgd" (classification) or "adamw_lm" (language model)
    channels_last: bool = False
    bf16: bool = False  # under autocast("cpu", bfloat16)


def _images(batch: int, size: int, labels: bool) -> Callable[[], tuple]:
    def make():
        rng = np.random.default_rng(0)
        images = rng.standard_normal((batch, 3, size, size), dtype=np.float32)
        return (images, rng.integers(0, 1000, batch)) if labels else (images,)
    return make


def _tokens(batch: int, seq: int, vocab: int, with_mask: bool = False) -> Callable[[], tuple]:
    def make():
        rng = np.random.default_rng(0)
        ids = rng.integers(0, vocab, (batch, seq))
        if not with_mask:
            return (ids,)
        mask = np.ones((batch, seq), dtype=np.int64)
        mask[1::2, seq * 3 // 4:] = 0  # every other sequence padded at the end
        return ids, mask
    return make


def to_framework(m, arrays: tuple, channels_last: bool) -> tuple:
    out = []
    for a in arrays:
        t = m.from_numpy(np.ascontiguousarray(a))
        if channels_last and t.dim() == 4:
            t = t.to(memory_format=m.channels_last)
        out.append(t)
    return tuple(out)


def make_step(m, model, inputs: tuple, kind: str, bf16: bool = False) -> Callable[[], object]:
    if bf16:
        step = make_step(m, model, inputs, kind)

        def autocast_step():
            with m.autocast("cpu", dtype=m.bfloat16):
                return step()
        return autocast_step
    if kind == "infer":
        def infer():
            with m.no_grad():
                return model(*inputs)
        return infer
    if kind == "sgd":
        images, labels = inputs
        opt = m.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)

        def sgd_step():
            opt.zero_grad()
            loss = m.nn.functional.cross_entropy(model(images), labels)
            loss.backward()
            opt.step()
            return loss
        return sgd_step
    (ids,) = inputs
    opt = m.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-2)
    targets = m.roll(ids, -1, 1).reshape(-1)

    def lm_step():
        opt.zero_grad()
        logits = model(ids)
        loss = m.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets)
        loss.backward()
        opt.step()
        return loss
    return lm_step


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def bench_case(case: Case, repeats: int, warmup: int) -> tuple[float, float]:
    ours, theirs = case.ours(), case.theirs()
    copy_weights(ours, theirs)
    train = case.kind != "infer"
    for model in (ours, theirs):
        model.train(train)
    if case.channels_last:
        ours = ours.to(memory_format=flow.channels_last)
        theirs = theirs.to(memory_format=torch.channels_last)
    arrays = case.inputs()
    steps = {
        "oneflow": make_step(flow, ours, to_framework(flow, arrays, case.channels_last), case.kind, case.bf16),
        "torch": make_step(torch, theirs, to_framework(torch, arrays, case.channels_last), case.kind, case.bf16),
    }
    # The same function in both frameworks: outputs, or the first step's loss.
    a, b = (_first(fn()).detach().float().numpy() for fn in steps.values())
    scale = max(1.0, float(np.abs(b).max()))
    tol = 3e-2 if case.bf16 else 1e-3  # bfloat16 keeps 8 bits
    if not np.allclose(a, b, rtol=tol, atol=tol * scale):
        raise SystemExit(f"{case.name}: oneflow and torch differ by {np.abs(a - b).max():.3g}")
    for fn in steps.values():
        for _ in range(warmup):
            fn()
    times: dict[str, list[float]] = {k: [] for k in steps}
    for _ in range(repeats):
        for k, fn in steps.items():
            start = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - start)
    return case.per_step / statistics.median(times["oneflow"]), case.per_step / statistics.median(times["torch"])


def peak_rss_mib(framework: str, batch: int, seq: int, steps: int, layers: int) -> float:
    """Peak RSS of GPT-2 training steps with `framework` alone in a fresh process."""
    child = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rss.py")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run(
        [sys.executable, child, framework, "--batch", str(batch), "--seq", str(seq), "--steps", str(steps),
         "--layers", str(layers)],
        check=True, capture_output=True, text=True, env=env,
    )
    return float(out.stdout.strip().splitlines()[-1])


def build_cases(args) -> dict[str, Case]:
    b, s, size, layers = args.batch, args.seq, args.size, args.layers
    gpt2 = {"depth": layers}
    bert = {"depth": layers}
    cases = {
        "gpt2_train": Case("GPT-2 small AdamW training step", "tokens/s", args.lm_batch * s,
                           lambda: gpt2_reference(flow, **gpt2), lambda: gpt2_reference(torch, **gpt2),
                           _tokens(args.lm_batch, s, 50257), "adamw_lm"),
        "gpt2_train_bf16": Case("GPT-2 small AdamW step, bf16 autocast", "tokens/s", args.lm_batch * s,
                                lambda: gpt2_reference(flow, **gpt2), lambda: gpt2_reference(torch, **gpt2),
                                _tokens(args.lm_batch, s, 50257), "adamw_lm", bf16=True),
        "gpt2_infer": Case("GPT-2 small inference", "tokens/s", args.lm_batch * s,
                           lambda: gpt2_reference(flow, **gpt2), lambda: gpt2_reference(torch, **gpt2),
                           _tokens(args.lm_batch, s, 50257), "infer"),
        "bert_infer": Case("BERT-base forward", "seq/s", b,
                           lambda: bert_reference(flow, **bert), lambda: bert_reference(torch, **bert),
                           _tokens(b, s, 30522, with_mask=True), "infer"),
    }
    for cl in (False, True):
        suffix, label = ("_cl", " (channels_last)") if cl else ("", "")
        cases["resnet50_infer" + suffix] = Case(
            "ResNet-50 inference" + label, "img/s", b, flowvision.models.resnet50,
            lambda: resnet50_reference(torch), _images(b, size, False), "infer", cl)
        cases["resnet50_train" + suffix] = Case(
            "ResNet-50 SGD training step" + label, "img/s", b, flowvision.models.resnet50,
            lambda: resnet50_reference(torch), _images(b, size, True), "sgd", cl)
    cases["vit_b16_infer"] = Case("ViT-B/16 inference", "img/s", b, flowvision.models.vit_base_patch16_224,
                                  lambda: vit_b16_reference(torch), _images(b, 224, False), "infer")
    return cases


DEFAULT_CASES = ("gpt2_train,gpt2_train_bf16,gpt2_infer,bert_infer,resnet50_infer,resnet50_train,resnet50_infer_cl,"
                 "resnet50_train_cl,vit_b16_infer,gpt2_rss")


def main(argv=None) -> list[tuple[str, str, float, float]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=8, help="images (ResNet, ViT) or sequences (BERT)")
    parser.add_argument("--lm-batch", type=int, default=4, help="GPT-2 sequences")
    parser.add_argument("--seq", type=int, default=128, help="tokens per sequence (GPT-2, BERT)")
    parser.add_argument("--layers", type=int, default=12, help="transformer blocks (GPT-2, BERT)")
    parser.add_argument("--size", type=int, default=224, help="ResNet image size (ViT needs 224)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--cases", default=DEFAULT_CASES)
    args = parser.parse_args(argv)

    threads = torch.get_num_threads()
    flow.set_num_threads(threads)
    flow.manual_seed(0)
    cases = build_cases(args)
    print(f"{describe()}; fp32, {threads} threads, medians of {args.repeats}; oneflow / torch: higher is better "
          "(peak RSS: lower)")
    print(f"{'case':<42} {'unit':>9} {'oneflow':>10} {'torch':>10} {'ratio':>7}")
    rows = []
    for key in args.cases.split(","):
        if key == "gpt2_rss":
            name, unit = "GPT-2 small training peak RSS", "MiB"
            a, b = (peak_rss_mib(fw, args.lm_batch, args.seq, max(args.warmup, 1) + 1, args.layers)
                    for fw in ("oneflow", "torch"))
        else:
            case = cases[key]
            name, unit = case.name, case.unit
            a, b = bench_case(case, args.repeats, args.warmup)
        rows.append((name, unit, a, b))
        print(f"{name:<42} {unit:>9} {a:>10.1f} {b:>10.1f} {a / b:>7.2f}", flush=True)
    speed = {r[0]: r[2] for r in rows}
    fp32, bf16 = cases["gpt2_train"].name, cases["gpt2_train_bf16"].name
    if fp32 in speed and bf16 in speed:
        print(f"oneflow GPT-2 training, bf16 autocast / fp32: {speed[bf16] / speed[fp32]:.2f}x")
    return rows


if __name__ == "__main__":
    main()
