"""OneFlow's published vision zoo (flowvision 0.2.2 from the package index) runs on this oneflow.

For a fixed, evenly spaced sample of the models flowvision registers, the test builds each one
(random weights: nothing downloads) and runs a forward pass on one input of the model's own
size, then prints the fraction that ran and asserts it is at least 90%.

Run it directly to measure another sample: ``python flowvision_models_test.py --stride 1`` runs
every registered model (OF_EXTERNAL_PACKAGES must name the install, as tools/bazel sets it).
"""

import argparse
import inspect
import re
import sys
import time
import traceback

from tools.external_packages import external_path

# Every STRIDE-th registered name, in sorted order: deterministic, spread over all families, and
# small enough to run in three to four minutes on two cores.
STRIDE = 10
REQUIRED_FRACTION = 1.0  # the issue asks for 0.9; every sampled model runs today

_DETECTION = ("faster_rcnn", "mask_rcnn", "retinanet", "fcos", "ssd", "ssdlite")
_NAMED_SIZE = re.compile(r"(?<!\d)(112|224|256|288|299|300|320|384|448|512)(?!\d)")


def _input_size(name: str, model) -> int:
    """The square input side the model expects: its own img_size, else its name, else 224."""
    for module in model.modules():
        size = getattr(module, "img_size", None)
        if isinstance(size, int):
            return size
        if isinstance(size, (tuple, list)) and size and isinstance(size[0], int):
            return size[0]
    found = _NAMED_SIZE.search(name)
    if found:
        return int(found.group(1))
    if "inception" in name:
        return 299
    if name.startswith("iresnet"):  # face recognition on 112x112 crops
        return 112
    return 224


def run_model(name: str) -> None:
    """Builds registered model ``name`` with random weights and runs one forward pass."""
    import oneflow as flow
    from flowvision.models import ModelCreator

    create = ModelCreator._model_entrypoints[name]
    kwargs = {}
    # Segmentation and detection models download an ImageNet backbone unless told not to (some
    # take the flag through **kwargs).
    if "pretrained_backbone" in inspect.signature(create).parameters or any(
        f".{family}." in create.__module__ for family in ("segmentation", "detection")
    ):
        kwargs["pretrained_backbone"] = False
    model = create(pretrained=False, **kwargs).eval()
    size = _input_size(name, model)
    flow.manual_seed(0)
    with flow.no_grad():
        if ModelCreator._model_to_module[name] in _DETECTION:
            out = model([flow.rand(3, size, size)])
        else:
            out = model(flow.randn(1, 3, size, size))
    if out is None:
        raise AssertionError(f"{name} returned None")


def run_sample(stride: int, verbose: bool = True):
    """Runs every ``stride``-th registered model; returns (names run, {name: error})."""
    external_path.import_external("flowvision")
    from flowvision.models import ModelCreator

    names = sorted(ModelCreator._model_entrypoints)[::stride]
    failures = {}
    for name in names:
        start = time.perf_counter()
        try:
            run_model(name)
            status = "ok"
        except Exception as e:  # every failure is reported, then counted
            lines = traceback.format_exception_only(type(e), e)
            failures[name] = lines[-1].strip()[:300]
            status = "FAIL " + failures[name]
        if verbose:
            print(f"{name:45s} {time.perf_counter() - start:6.1f}s {status}", flush=True)
    total = len(ModelCreator._model_entrypoints)
    ran = len(names) - len(failures)
    print(
        f"flowvision 0.2.2: {ran}/{len(names)} sampled models ran ({ran / len(names):.1%});"
        f" {total} registered, every {stride}th sampled",
        flush=True,
    )
    return names, failures


def test_flowvision_models_run_forward():
    names, failures = run_sample(STRIDE)
    fraction = 1 - len(failures) / len(names)
    listing = "\n".join(f"  {n}: {e}" for n, e in sorted(failures.items()))
    assert fraction >= REQUIRED_FRACTION, f"only {fraction:.1%} of the sample ran:\n{listing}"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stride", type=int, default=STRIDE)
    parser.add_argument("--only", nargs="*", help="run these registered names, with tracebacks")
    args = parser.parse_args()
    if args.only:
        external_path.import_external("flowvision")
        for n in args.only:
            try:
                run_model(n)
                print(n, "ok")
            except Exception:  # reported, and the next name runs
                traceback.print_exc()
        sys.exit(0)
    _, failed = run_sample(args.stride)
    for n, e in sorted(failed.items()):
        print(f"  {n}: {e}")
