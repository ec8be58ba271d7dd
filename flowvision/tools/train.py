"""Train an image classifier from the flowvision model zoo (configured by flags).

    ./tools/bazel run //flowvision:train -- --model resnet50 --data-dir /data/imagenet \\
        --epochs 90 --batch-size 64 --opt sgd --lr 0.1 --warmup-epochs 5 --amp --model-ema
    ./tools/bazel run //flowvision:train -- --model resnet18 --dataset cifar10 --data-dir /data/cifar \\
        --img-size 32 --mixup 0.8 --cutmix 1.0 --smoothing 0.1 --output runs/cifar
    ./tools/bazel run //flowvision:train -- --resume runs/cifar/last.of --epochs 200 ...

Any model registered with ``flowvision.models.ModelCreator`` trains on an ImageFolder tree
(``--data-dir`` with ``train/`` and ``val/``), on CIFAR-10/100 read from local files, or on
``--dataset fake`` (random images, for smoke tests). The recipe is timm's: RandomResizedCrop and
flips for training, resize and center crop for evaluation, SGD or AdamW without weight decay on
biases and norm weights, a per-update cosine (or poly/tanh) schedule with linear warmup,
optional bfloat16 autocast (``--amp``), Mixup/CutMix with soft-target cross entropy, label
smoothing, and an EMA of the weights. After every epoch the script prints top-1/top-5 accuracy
and writes ``last.of`` (and ``best.of``) to ``--output`` with ``oneflow.save``, which replaces
the file atomically. The checkpoint holds the model, optimizer, scheduler, EMA, epoch, update
count and random-number state, so ``--resume`` continues an interrupted run where it stopped.
"""

from __future__ import annotations

import argparse
import ast
import math
import os
import shutil
import time
from collections.abc import Sequence
from typing import Any

from tqdm import tqdm

import oneflow as flow
from flowvision import datasets, transforms
from flowvision.loss import LabelSmoothingCrossEntropy, SoftTargetCrossEntropy
from flowvision.models import ModelCreator
from flowvision.scheduler import CosineLRScheduler, PolyLRScheduler, TanhLRScheduler
from flowvision.utils import ModelEmaV2
from oneflow import nn
from oneflow.utils.data import DataLoader

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
SCHEDULERS = {"cosine": CosineLRScheduler, "poly": PolyLRScheduler, "tanh": TanhLRScheduler}


def parse_model_kwargs(items: Sequence[str]) -> dict[str, Any]:
    """``["drop_path_rate=0.1", "img_size=32"]`` -> keyword arguments (values as Python literals)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.isidentifier():
            raise SystemExit(f"--model-kwargs: expected key=value, got {item!r}")
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value  # a bare string
    return out


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (see ``--help``)."""
    here = os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd())  # where `bazel run` was typed
    p = argparse.ArgumentParser(description="Train a flowvision model on an image classification dataset.",
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    g = p.add_argument_group("data")
    g.add_argument("--dataset", default="imagefolder", choices=["imagefolder", "cifar10", "cifar100", "fake"])
    g.add_argument("--data-dir", default=None, help="ImageFolder root (with train/ and val/) or the CIFAR root")
    g.add_argument("--img-size", type=int, default=224, help="training and evaluation crop size")
    g.add_argument("--crop-pct", type=float, default=0.875, help="evaluation: resize to img_size / crop_pct")
    g.add_argument("--scale", type=float, nargs=2, default=(0.08, 1.0), help="RandomResizedCrop area range")
    g.add_argument("--hflip", type=float, default=0.5, help="horizontal flip probability")
    g.add_argument("--mean", type=float, nargs=3, default=IMAGENET_MEAN)
    g.add_argument("--std", type=float, nargs=3, default=IMAGENET_STD)
    g.add_argument("--fake-size", type=int, default=256, help="--dataset fake: training images")
    g.add_argument("--fake-val-size", type=int, default=64, help="--dataset fake: validation images")
    g.add_argument("--workers", type=int, default=2, help="DataLoader worker processes")
    g = p.add_argument_group("model")
    g.add_argument("--model", default="resnet50", help="a registered name (ModelCreator.model_table())")
    g.add_argument("--num-classes", type=int, default=None, help="default: the dataset's")
    g.add_argument("--pretrained", action="store_true", help="start from the cached pretrained weights")
    g.add_argument("--initial-checkpoint", default=None, help="start from these weights")
    g.add_argument("--model-kwargs", nargs="*", default=[], metavar="KEY=VALUE",
                   help="extra constructor arguments, e.g. drop_path_rate=0.1 img_size=32")
    g.add_argument("--device", default="cpu")
    g = p.add_argument_group("optimization")
    g.add_argument("--epochs", type=int, default=100, help="total epochs, counting those already done")
    g.add_argument("--batch-size", "-b", type=int, default=64)
    g.add_argument("--val-batch-size", type=int, default=None, help="default: 2 * batch size")
    g.add_argument("--opt", default="sgd", choices=["sgd", "adamw"])
    g.add_argument("--lr", type=float, default=None, help="default: 0.1 for sgd, 1e-3 for adamw")
    g.add_argument("--momentum", type=float, default=0.9)
    g.add_argument("--nesterov", action="store_true")
    g.add_argument("--weight-decay", type=float, default=None, help="default: 1e-4 for sgd, 0.05 for adamw")
    g.add_argument("--clip-grad", type=float, default=None, help="clip the gradient norm to this")
    g.add_argument("--sched", default="cosine", choices=["cosine", "poly", "tanh", "none"])
    g.add_argument("--warmup-epochs", type=float, default=0.0)
    g.add_argument("--warmup-lr", type=float, default=1e-6)
    g.add_argument("--min-lr", type=float, default=1e-6)
    g.add_argument("--sched-on-epochs", action="store_true", help="change the lr once per epoch, not per update")
    g = p.add_argument_group("regularization")
    g.add_argument("--smoothing", type=float, default=0.0, help="label smoothing")
    g.add_argument("--mixup", type=float, default=0.0, help="Mixup alpha (0: off)")
    g.add_argument("--cutmix", type=float, default=0.0, help="CutMix alpha (0: off)")
    g.add_argument("--mixup-prob", type=float, default=1.0, help="probability of mixing a batch")
    g.add_argument("--mixup-switch-prob", type=float, default=0.5, help="with both: probability of CutMix")
    g.add_argument("--model-ema", action="store_true", help="keep (and evaluate) an EMA of the weights")
    g.add_argument("--model-ema-decay", type=float, default=0.9998)
    g.add_argument("--model-ema-force-cpu", action="store_true", help="keep the EMA on the CPU")
    g = p.add_argument_group("run")
    g.add_argument("--amp", action="store_true", help="bfloat16 autocast around the forward pass")
    g.add_argument("--output", default=os.path.join(here, "output"), help="checkpoint folder")
    g.add_argument("--resume", default=None, help="continue from this checkpoint")
    g.add_argument("--seed", type=int, default=42)
    g.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
    if args.data_dir is not None and not os.path.isabs(args.data_dir):
        args.data_dir = os.path.join(here, args.data_dir)
    if not os.path.isabs(args.output):
        args.output = os.path.join(here, args.output)
    if args.resume is not None and not os.path.isabs(args.resume):
        args.resume = os.path.join(here, args.resume)
    if args.lr is None:
        args.lr = 0.1 if args.opt == "sgd" else 1e-3
    if args.weight_decay is None:
        args.weight_decay = 1e-4 if args.opt == "sgd" else 0.05
    if args.val_batch_size is None:
        args.val_batch_size = 2 * args.batch_size
    return args


def build_transforms(args: argparse.Namespace, train: bool) -> transforms.Compose:
    """timm's ImageNet recipe: random-resized crops and flips for training, resize + center crop for eval."""
    normalize = [transforms.ToTensor(), transforms.Normalize(args.mean, args.std)]
    if train:
        ops = [transforms.RandomResizedCrop(args.img_size, scale=tuple(args.scale))]
        if args.hflip > 0:
            ops.append(transforms.RandomHorizontalFlip(args.hflip))
        return transforms.Compose(ops + normalize)
    resize = int(math.floor(args.img_size / args.crop_pct))
    return transforms.Compose([transforms.Resize(resize), transforms.CenterCrop(args.img_size)] + normalize)


def build_datasets(args: argparse.Namespace) -> tuple[Any, Any, int]:
    """(train set, validation set, number of classes)."""
    train_tf, val_tf = build_transforms(args, True), build_transforms(args, False)
    if args.dataset == "fake":
        n = args.num_classes or 10
        size = (3, args.img_size, args.img_size)
        train = datasets.FakeData(args.fake_size, size, n, transform=train_tf)
        val = datasets.FakeData(args.fake_val_size, size, n, transform=val_tf, random_offset=args.fake_size)
        return train, val, n
    if args.data_dir is None:
        raise SystemExit(f"--dataset {args.dataset} needs --data-dir")
    if args.dataset in ("cifar10", "cifar100"):
        cls = datasets.CIFAR10 if args.dataset == "cifar10" else datasets.CIFAR100
        train = cls(args.data_dir, train=True, transform=train_tf)
        val = cls(args.data_dir, train=False, transform=val_tf)
        return train, val, len(train.classes)
    folders = [os.path.join(args.data_dir, name) for name in ("train", "val")]
    for folder in folders:
        if not os.path.isdir(folder):
            raise SystemExit(f"--data-dir {args.data_dir}: no {os.path.basename(folder)}/ folder (an ImageFolder "
                             "root needs train/ and val/, each with one subfolder per class)")
    train = datasets.ImageFolder(folders[0], transform=train_tf)
    val = datasets.ImageFolder(folders[1], transform=val_tf)
    if val.classes != train.classes:
        raise SystemExit(f"--data-dir {args.data_dir}: train/ has classes {train.classes[:5]}... but val/ has "
                         f"{val.classes[:5]}...; they should be the same")
    return train, val, len(train.classes)


def param_groups(model: nn.Module, weight_decay: float) -> list[dict[str, Any]]:
    """Weight decay on weights of dimension >= 2 only (not on biases and norm scales), as timm does."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim <= 1 or name.endswith(".bias") else decay).append(p)
    return [{"params": no_decay, "weight_decay": 0.0}, {"params": decay, "weight_decay": weight_decay}]


def build_optimizer(args: argparse.Namespace, model: nn.Module) -> flow.optim.Optimizer:
    groups = param_groups(model, args.weight_decay)
    if args.opt == "sgd":
        return flow.optim.SGD(groups, lr=args.lr, momentum=args.momentum, nesterov=args.nesterov)
    return flow.optim.AdamW(groups, lr=args.lr)


def build_scheduler(args: argparse.Namespace, optimizer: flow.optim.Optimizer, updates_per_epoch: int):
    """A timm-style scheduler stepped per update (or per epoch with --sched-on-epochs); None for --sched none."""
    if args.sched == "none":
        return None
    scale = 1 if args.sched_on_epochs else updates_per_epoch
    return SCHEDULERS[args.sched](
        optimizer, t_initial=max(1, args.epochs * scale), lr_min=args.min_lr,
        warmup_t=int(round(args.warmup_epochs * scale)), warmup_lr_init=args.warmup_lr,
        t_in_epochs=args.sched_on_epochs)


class BatchMixer:
    """Mixup and/or CutMix on a batch; with both, CutMix is picked with ``switch_prob``."""

    def __init__(self, args: argparse.Namespace, num_classes: int) -> None:
        kw = dict(num_classes=num_classes, p=args.mixup_prob, label_smoothing=args.smoothing)
        self.mixup = transforms.Mixup(alpha=args.mixup, **kw) if args.mixup > 0 else None
        self.cutmix = transforms.CutMix(alpha=args.cutmix, **kw) if args.cutmix > 0 else None
        self.switch_prob = args.mixup_switch_prob

    def __call__(self, images: flow.Tensor, labels: flow.Tensor) -> tuple[flow.Tensor, flow.Tensor]:
        mixer = self.mixup or self.cutmix
        if self.mixup is not None and self.cutmix is not None and float(flow.rand(1).item()) < self.switch_prob:
            mixer = self.cutmix
        return mixer(images, labels)


def correct_topk(logits: flow.Tensor, labels: flow.Tensor, ks: Sequence[int] = (1, 5)) -> list[int]:
    """How many samples have the label among the top-k logits, for each k (k is capped at the class count)."""
    maxk = min(max(ks), int(logits.shape[1]))
    top = logits.topk(maxk, dim=1).indices  # (N, maxk)
    hits = top == labels.view(-1, 1)
    return [int(hits[:, :min(k, maxk)].sum().item()) for k in ks]


def autocast(args: argparse.Namespace):
    """bfloat16 autocast for --amp, else a region that changes nothing."""
    return flow.autocast(flow.device(args.device).type, dtype=flow.bfloat16, enabled=args.amp)


def evaluate(model: nn.Module, loader: DataLoader, args: argparse.Namespace, desc: str) -> dict[str, float]:
    """Mean cross-entropy loss and top-1/top-5 accuracy (in percent) over ``loader``."""
    model.eval()
    loss_fn = nn.CrossEntropyLoss(reduction="sum")
    total = top1 = top5 = 0
    loss_sum = 0.0
    with flow.no_grad():
        for images, labels in tqdm(loader, desc=desc, leave=False, disable=True if args.no_progress else None):
            images, labels = images.to(args.device), labels.to(args.device)
            with autocast(args):
                logits = model(images)
            logits = logits.float()
            loss_sum += loss_fn(logits, labels).item()
            c1, c5 = correct_topk(logits, labels)
            top1 += c1
            top5 += c5
            total += int(labels.shape[0])
    return {"loss": loss_sum / max(total, 1), "top1": 100.0 * top1 / max(total, 1),
            "top5": 100.0 * top5 / max(total, 1)}


def train_one_epoch(epoch: int, model: nn.Module, loader: DataLoader, loss_fn: nn.Module,
                    optimizer: flow.optim.Optimizer, scheduler: Any, ema: ModelEmaV2 | None,
                    mixer: BatchMixer | None, args: argparse.Namespace, num_updates: int) -> tuple[float, int]:
    """One pass over ``loader``; returns (mean training loss, updates so far)."""
    model.train()
    seen = 0
    loss_sum = 0.0
    bar = tqdm(loader, desc=f"epoch {epoch}/{args.epochs}", leave=False,
               disable=True if args.no_progress else None)
    for images, labels in bar:
        images, labels = images.to(args.device), labels.to(args.device)
        targets = labels
        if mixer is not None:
            images, targets = mixer(images, labels)
        with autocast(args):
            logits = model(images)
            loss = loss_fn(logits.float(), targets)
        if not math.isfinite(loss.item()):
            raise SystemExit(f"epoch {epoch}: the loss is {loss.item()} after {num_updates} updates; "
                             "lower --lr or add --clip-grad")
        optimizer.zero_grad()
        loss.backward()
        if args.clip_grad is not None:
            nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
        optimizer.step()
        num_updates += 1
        if scheduler is not None:
            scheduler.step_update(num_updates)
        if ema is not None:
            ema.update(model)
        n = int(labels.shape[0])
        seen += n
        loss_sum += loss.item() * n
        bar.set_postfix(loss=f"{loss_sum / seen:.4f}", lr=f"{optimizer.param_groups[0]['lr']:.3e}")
    return loss_sum / max(seen, 1), num_updates


def save_checkpoint(path: str, state: dict[str, Any]) -> None:
    """``oneflow.save`` writes a temporary file and renames it over ``path``: never a half-written file."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    flow.save(state, path)


def copy_atomically(src: str, dst: str) -> None:
    tmp = dst + ".tmp"
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Trains (or resumes); returns the last evaluation (``top1``, ``top5``, ``loss``, ...)."""
    args = parse_args(argv)
    start_time = time.perf_counter()
    flow.manual_seed(args.seed)
    train_set, val_set, num_classes = build_datasets(args)
    num_classes = args.num_classes or num_classes
    if len(train_set) < args.batch_size:
        raise SystemExit(f"the training set has {len(train_set)} images, fewer than --batch-size {args.batch_size}")
    # Workers start afresh each epoch (seeded from the global generator), so a resumed run draws the
    # same random numbers as an uninterrupted one.
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=True,
                              num_workers=args.workers)
    val_loader = DataLoader(val_set, batch_size=args.val_batch_size, num_workers=args.workers)

    model = ModelCreator.create_model(args.model, pretrained=args.pretrained, checkpoint=args.initial_checkpoint,
                                      num_classes=num_classes, **parse_model_kwargs(args.model_kwargs))
    model.to(args.device)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model {args.model}: {n_params / 1e6:.2f}M parameters, {num_classes} classes; "
          f"{len(train_set)} training and {len(val_set)} validation images", flush=True)
    optimizer = build_optimizer(args, model)
    scheduler = build_scheduler(args, optimizer, len(train_loader))
    ema = None
    if args.model_ema:
        ema = ModelEmaV2(model, decay=args.model_ema_decay, device="cpu" if args.model_ema_force_cpu else None)
    mixer = BatchMixer(args, num_classes) if args.mixup > 0 or args.cutmix > 0 else None
    if mixer is not None:
        train_loss_fn: nn.Module = SoftTargetCrossEntropy()  # Mixup/CutMix apply the label smoothing
    elif args.smoothing > 0:
        train_loss_fn = LabelSmoothingCrossEntropy(args.smoothing)
    else:
        train_loss_fn = nn.CrossEntropyLoss()

    done = num_updates = 0
    best_top1 = -1.0
    if args.resume:
        if not os.path.isfile(args.resume):
            raise SystemExit(f"--resume: no checkpoint at {args.resume}")
        state = flow.load(args.resume, map_location=args.device)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        if scheduler is not None and state.get("scheduler") is not None:
            fresh = scheduler.state_dict()
            scheduler.load_state_dict(state["scheduler"])
            for key in ("t_initial", "warmup_t"):  # --epochs may have grown since the checkpoint
                setattr(scheduler, key, fresh[key])
        if ema is not None:
            if state.get("ema") is not None:
                ema.load_state_dict(state["ema"])
            else:
                ema.set(model)
                print("the checkpoint has no EMA weights: the EMA restarts from the model's", flush=True)
        flow.set_rng_state(state["rng_state"])
        done, num_updates = state["epoch"], state["num_updates"]
        best_top1 = state.get("best_top1", -1.0)
        print(f"resumed from {args.resume} after epoch {done} ({num_updates} updates)", flush=True)
    if scheduler is not None:
        scheduler.step_update(num_updates)
        scheduler.step(done)

    last = os.path.join(args.output, "last.of")
    metrics: dict[str, Any] = {}
    for epoch in range(done + 1, args.epochs + 1):
        t0 = time.perf_counter()
        train_loss, num_updates = train_one_epoch(epoch, model, train_loader, train_loss_fn, optimizer, scheduler,
                                                  ema, mixer, args, num_updates)
        if scheduler is not None:
            scheduler.step(epoch)  # per-epoch schedules move on to the next epoch's lr
        print(f"epoch {epoch}/{args.epochs}: train loss {train_loss:.4f}  lr {optimizer.param_groups[0]['lr']:.4e}"
              f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
        metrics = evaluate(model, val_loader, args, "eval")
        print(f"eval epoch {epoch}/{args.epochs}: loss {metrics['loss']:.4f}  top-1 {metrics['top1']:.2f}  "
              f"top-5 {metrics['top5']:.2f}", flush=True)
        if ema is not None:
            ema_metrics = evaluate(ema.module, val_loader, args, "eval ema")
            print(f"ema eval epoch {epoch}/{args.epochs}: loss {ema_metrics['loss']:.4f}  "
                  f"top-1 {ema_metrics['top1']:.2f}  top-5 {ema_metrics['top5']:.2f}", flush=True)
            metrics.update({f"ema_{k}": v for k, v in ema_metrics.items()})
        metrics["train_loss"] = train_loss
        is_best = metrics["top1"] > best_top1
        best_top1 = max(best_top1, metrics["top1"])
        save_checkpoint(last, {
            "model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict() if scheduler is not None else None,
            "ema": ema.state_dict() if ema is not None else None,
            "epoch": epoch, "num_updates": num_updates, "rng_state": flow.get_rng_state(),
            "best_top1": best_top1, "metrics": dict(metrics), "args": vars(args),
        })
        if is_best:
            copy_atomically(last, os.path.join(args.output, "best.of"))
    if done >= args.epochs:
        print(f"nothing to train: the checkpoint is at epoch {done} of --epochs {args.epochs}", flush=True)
        metrics = evaluate(model, val_loader, args, "eval")
        print(f"eval: loss {metrics['loss']:.4f}  top-1 {metrics['top1']:.2f}  top-5 {metrics['top5']:.2f}",
              flush=True)
    print(f"done in {time.perf_counter() - start_time:.1f} s; best top-1 {max(best_top1, metrics['top1']):.2f}; "
          f"checkpoints in {args.output}", flush=True)
    metrics["checkpoint"] = last
    return metrics


if __name__ == "__main__":
    main()
