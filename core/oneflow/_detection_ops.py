"""Detection ops of OneFlow's API: ``oneflow.nms`` (and ``Tensor.nms``), ``oneflow.roi_align`` and
``oneflow.nn.functional.deform_conv2d``, with torchvision's numerics.

RoI Align and deformable convolution are compositions of tensor ops: each sample point reads its
four neighbours with ``index_select`` on a channels-last view of the feature map and blends them
with bilinear weights, so autograd gives the input (and, for deform_conv2d, the offset, mask,
weight and bias) gradients. NMS is a greedy pass over the boxes sorted by score, on the host.
"""

from __future__ import annotations

import numpy as np

import oneflow

__all__ = ["nms", "roi_align", "deform_conv2d"]

# Rows gathered per chunk of RoI Align (times C floats each): bounds the temporary memory.
_ROWS_PER_CHUNK = 1 << 16


def _check_tensor(op: str, name: str, value, ndim=None, last=None) -> None:
    if not isinstance(value, oneflow.Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be a Tensor, not {type(value).__name__}")
    if ndim is not None and value.ndim != ndim:
        raise RuntimeError(f"{op}(): expected '{name}' to be {ndim}-D, got shape {tuple(value.shape)}")
    if last is not None and value.shape[-1] != last:
        raise RuntimeError(f"{op}(): expected '{name}' of shape [K, {last}], got {tuple(value.shape)}")


def _check_floating(op: str, **tensors) -> None:
    for name, t in tensors.items():
        if not t.is_floating_point():
            raise RuntimeError(f"{op}(): expected a floating-point '{name}', got {t.dtype}")


def nms(boxes, scores, iou_threshold: float):
    """Non-maximum suppression: the indices (int64) of the boxes kept, by decreasing score.

    Boxes are ``(x1, y1, x2, y2)`` rows; a box is dropped when its IoU with a kept box of higher
    score exceeds ``iou_threshold``.

    Args:
        boxes (Tensor[N, 4]): the boxes.
        scores (Tensor[N]): their scores.
        iou_threshold (float): boxes overlapping a kept box by more than this are discarded.
    """
    _check_tensor("nms", "boxes", boxes, ndim=2, last=4)
    _check_tensor("nms", "scores", scores, ndim=1)
    _check_floating("nms", boxes=boxes, scores=scores)
    if boxes.shape[0] != scores.shape[0]:
        raise RuntimeError(
            f"nms(): boxes and scores must have the same number of rows, got {boxes.shape[0]} and {scores.shape[0]}"
        )
    b = boxes.detach().to("cpu").numpy().astype(np.float64)
    s = scores.detach().to("cpu").numpy().astype(np.float64)
    order = np.argsort(-s, kind="stable")
    b = b[order]
    x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    area = (x2 - x1) * (y2 - y1)
    suppressed = np.zeros(len(order), dtype=bool)
    keep = []
    for i in range(len(order)):
        if suppressed[i]:
            continue
        keep.append(order[i])
        rest = slice(i + 1, None)
        w = np.clip(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), 0, None)
        h = np.clip(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), 0, None)
        inter = w * h
        with np.errstate(invalid="ignore", divide="ignore"):
            iou = inter / (area[i] + area[rest] - inter)
        suppressed[rest] |= iou > iou_threshold
    return oneflow.tensor(np.asarray(keep, dtype=np.int64), device=boxes.device)


def _axis_samples(start, bin_size, pooled: int, grid, limit: int):
    """Sample coordinates along one axis of each RoI, with torchvision's border rules.

    Returns (low index, high index, low weight, high weight, valid), each [K, pooled, G], where G
    is the largest grid; samples past a RoI's own grid, or outside [-1, limit], are invalid.
    """
    g_max = max(int(grid.max()), 1)
    p = np.arange(pooled)[None, :, None]
    i = np.arange(g_max)[None, None, :]
    g = grid[:, None, None]
    step = bin_size[:, None, None] / np.maximum(g, 1)
    coord = start[:, None, None] + p * bin_size[:, None, None] + (i + 0.5) * step
    valid = (i < g) & (coord >= -1.0) & (coord <= limit)
    coord = np.maximum(coord, 0.0)
    low = np.floor(coord).astype(np.int64)
    at_edge = low >= limit - 1
    low = np.where(at_edge, limit - 1, low)
    high = np.where(at_edge, limit - 1, low + 1)
    coord = np.where(at_edge, low, coord)
    frac = coord - low
    return low, high, 1.0 - frac, frac, valid


def roi_align(
    input,
    rois,
    spatial_scale: float = 1.0,
    pooled_h: int = 1,
    pooled_w: int = 1,
    sampling_ratio: int = -1,
    aligned: bool = False,
):
    """RoI Align (Mask R-CNN): bilinearly sampled, average-pooled regions of a feature map.

    Args:
        input (Tensor[N, C, H, W]): the feature map.
        rois (Tensor[K, 5]): ``(batch index, x1, y1, x2, y2)`` rows in input-image coordinates.
        spatial_scale (float): maps RoI coordinates onto the feature map.
        pooled_h, pooled_w (int): the output size of each region.
        sampling_ratio (int): sample points per bin along each axis; <= 0 picks
            ``ceil(roi size / pooled size)`` per RoI.
        aligned (bool): shift the RoI by half a pixel, so that pixel centres line up.

    Returns:
        Tensor[K, C, pooled_h, pooled_w]. The gradient reaches ``input``, not ``rois``.
    """
    _check_tensor("roi_align", "input", input, ndim=4)
    _check_tensor("roi_align", "rois", rois, ndim=2, last=5)
    _check_floating("roi_align", input=input, rois=rois)
    if pooled_h <= 0 or pooled_w <= 0:
        raise ValueError(f"roi_align(): pooled_h and pooled_w must be positive, got {pooled_h} and {pooled_w}")
    n, c, height, width = input.shape
    r = rois.detach().to("cpu").numpy().astype(np.float64)
    k = r.shape[0]
    if k == 0:
        return oneflow.zeros(0, c, pooled_h, pooled_w, dtype=input.dtype, device=input.device)
    batch = r[:, 0].astype(np.int64)
    if batch.min() < 0 or batch.max() >= n:
        raise IndexError(f"roi_align(): RoI batch indices must be in [0, {n - 1}], got {batch.min()}..{batch.max()}")
    offset = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = (r[:, j] * spatial_scale - offset for j in (1, 2, 3, 4))
    roi_w, roi_h = x2 - x1, y2 - y1
    if not aligned:
        roi_w, roi_h = np.maximum(roi_w, 1.0), np.maximum(roi_h, 1.0)
    bin_h, bin_w = roi_h / pooled_h, roi_w / pooled_w
    if sampling_ratio > 0:
        grid_h = grid_w = np.full(k, sampling_ratio, dtype=np.int64)
    else:
        grid_h = np.ceil(roi_h / pooled_h).astype(np.int64)
        grid_w = np.ceil(roi_w / pooled_w).astype(np.int64)
    count = np.maximum(grid_h * grid_w, 1).astype(np.float64)
    ylo, yhi, wylo, wyhi, yvalid = _axis_samples(y1, bin_h, pooled_h, grid_h, height)
    xlo, xhi, wxlo, wxhi, xvalid = _axis_samples(x1, bin_w, pooled_w, grid_w, width)
    # Rows of the channels-last map: [N*H*W, C]. Each output bin gathers 4 rows per sample point.
    rows = input.permute(0, 2, 3, 1).reshape(n * height * width, c)
    base = (batch * height * width)[:, None, None, None, None]
    idx, wts = [], []
    for yi, wy in ((ylo, wylo), (yhi, wyhi)):
        for xi, wx in ((xlo, wxlo), (xhi, wxhi)):
            # [K, PH, PW, GY, GX]
            idx.append(base + (yi[:, :, None, :, None] * width + xi[:, None, :, None, :]))
            valid = yvalid[:, :, None, :, None] & xvalid[:, None, :, None, :]
            wts.append(wy[:, :, None, :, None] * wx[:, None, :, None, :] * valid / count[:, None, None, None, None])
    idx = np.stack(idx, axis=-1).reshape(k, -1)  # [K, PH*PW*GY*GX*4]
    wts = np.stack(wts, axis=-1).reshape(k, -1)
    per_roi = idx.shape[1]
    chunk = max(1, _ROWS_PER_CHUNK // per_roi)
    outs = []
    for start in range(0, k, chunk):
        stop = min(k, start + chunk)
        index = oneflow.tensor(idx[start:stop].reshape(-1), device=input.device)
        weight = oneflow.tensor(wts[start:stop], dtype=input.dtype, device=input.device)
        picked = oneflow.index_select(rows, 0, index).reshape(stop - start, pooled_h * pooled_w, -1, c)
        summed = (picked * weight.reshape(stop - start, pooled_h * pooled_w, -1, 1)).sum(dim=2)
        outs.append(summed)
    out = outs[0] if len(outs) == 1 else oneflow.cat(outs, dim=0)
    return out.reshape(k, pooled_h, pooled_w, c).permute(0, 3, 1, 2).contiguous()


def _pair(value, name: str):
    if isinstance(value, int):
        return value, value
    value = tuple(value)
    if len(value) != 2 or not all(isinstance(v, int) for v in value):
        raise TypeError(f"deform_conv2d(): '{name}' must be an int or a pair of ints, got {value}")
    return value


def deform_conv2d(
    input,
    offset,
    weight,
    bias=None,
    stride=(1, 1),
    padding=(0, 0),
    dilation=(1, 1),
    mask=None,
):
    """Deformable convolution (v1; v2 when ``mask`` is given): each kernel tap reads the input at
    its regular position plus a learned, per-location offset, bilinearly interpolated.

    Args:
        input (Tensor[N, C_in, H, W]): the input.
        offset (Tensor[N, 2 * G * kh * kw, H_out, W_out]): (dy, dx) per offset group G and tap.
        weight (Tensor[C_out, C_in / groups, kh, kw]): the filters; ``groups`` follows from C_in.
        bias (Tensor[C_out], optional): added to each output channel.
        stride, padding, dilation (int or pair): as in ``conv2d``.
        mask (Tensor[N, G * kh * kw, H_out, W_out], optional): modulation of each tap (v2).

    Returns:
        Tensor[N, C_out, H_out, W_out].
    """
    op = "deform_conv2d"
    _check_tensor(op, "input", input, ndim=4)
    _check_tensor(op, "offset", offset, ndim=4)
    _check_tensor(op, "weight", weight, ndim=4)
    _check_floating(op, input=input, offset=offset, weight=weight)
    sh, sw = _pair(stride, "stride")
    ph, pw = _pair(padding, "padding")
    dh, dw = _pair(dilation, "dilation")
    n, c_in, height, width = input.shape
    c_out, c_per_group, kh, kw = weight.shape
    if c_in % c_per_group:
        raise RuntimeError(f"{op}(): input channels {c_in} are not a multiple of weight's {c_per_group}")
    groups = c_in // c_per_group
    if c_out % groups:
        raise RuntimeError(f"{op}(): output channels {c_out} are not divisible by groups {groups}")
    h_out = (height + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    w_out = (width + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    taps = kh * kw
    if offset.shape[1] % (2 * taps) or offset.shape[1] == 0:
        raise RuntimeError(
            f"{op}(): offset has {offset.shape[1]} channels, expected a multiple of 2*kh*kw = {2 * taps}"
        )
    off_groups = offset.shape[1] // (2 * taps)
    if c_in % off_groups:
        raise RuntimeError(f"{op}(): input channels {c_in} are not divisible by offset groups {off_groups}")
    if tuple(offset.shape) != (n, 2 * off_groups * taps, h_out, w_out):
        raise RuntimeError(
            f"{op}(): expected offset of shape {(n, 2 * off_groups * taps, h_out, w_out)}, got {tuple(offset.shape)}"
        )
    if mask is not None:
        _check_tensor(op, "mask", mask, ndim=4)
        if tuple(mask.shape) != (n, off_groups * taps, h_out, w_out):
            raise RuntimeError(
                f"{op}(): expected mask of shape {(n, off_groups * taps, h_out, w_out)}, got {tuple(mask.shape)}"
            )
    if bias is not None and tuple(bias.shape) != (c_out,):
        raise RuntimeError(f"{op}(): expected bias of shape ({c_out},), got {tuple(bias.shape)}")

    dev, dt = input.device, input.dtype
    off = offset.reshape(n, off_groups, taps, 2, h_out, w_out)
    tap_y = oneflow.tensor(np.repeat(np.arange(kh) * dh, kw).astype(np.float64), dtype=dt, device=dev)
    tap_x = oneflow.tensor(np.tile(np.arange(kw) * dw, kh).astype(np.float64), dtype=dt, device=dev)
    out_y = oneflow.tensor((np.arange(h_out) * sh - ph).astype(np.float64), dtype=dt, device=dev)
    out_x = oneflow.tensor((np.arange(w_out) * sw - pw).astype(np.float64), dtype=dt, device=dev)
    # Sample positions [N, G, taps, H_out, W_out].
    y = off[:, :, :, 0] + tap_y.reshape(1, 1, taps, 1, 1) + out_y.reshape(1, 1, 1, h_out, 1)
    x = off[:, :, :, 1] + tap_x.reshape(1, 1, taps, 1, 1) + out_x.reshape(1, 1, 1, 1, w_out)
    inside = (y > -1) & (y < height) & (x > -1) & (x < width)
    y0, x0 = oneflow.floor(y.detach()), oneflow.floor(x.detach())
    ly, lx = y - y0, x - x0
    y0i, x0i = y0.to(oneflow.int64), x0.to(oneflow.int64)

    cg = c_in // off_groups
    # Channels-last rows per offset group: [N*G*H*W, C/G].
    rows = input.reshape(n, off_groups, cg, height, width).permute(0, 1, 3, 4, 2).reshape(-1, cg)
    base = (
        oneflow.arange(n, device=dev).reshape(n, 1, 1, 1, 1) * off_groups
        + oneflow.arange(off_groups, device=dev).reshape(1, off_groups, 1, 1, 1)
    ) * (height * width)
    sampled = 0
    for yi, wy in ((y0i, 1 - ly), (y0i + 1, ly)):
        for xi, wx in ((x0i, 1 - lx), (x0i + 1, lx)):
            ok = inside & (yi >= 0) & (yi <= height - 1) & (xi >= 0) & (xi <= width - 1)
            index = base + yi.clamp(0, height - 1) * width + xi.clamp(0, width - 1)
            vals = oneflow.index_select(rows, 0, index.reshape(-1)).reshape(n, off_groups, taps, h_out, w_out, cg)
            sampled = sampled + vals * (wy * wx * ok.to(dt)).unsqueeze(-1)
    if mask is not None:
        sampled = sampled * mask.reshape(n, off_groups, taps, h_out, w_out, 1)
    # Columns [N, groups, C_in/groups * taps, H_out*W_out], channel-major then tap, as the weight.
    cols = sampled.permute(0, 1, 5, 2, 3, 4).reshape(n, c_in, taps, h_out * w_out)
    cols = cols.reshape(n, groups, c_per_group * taps, h_out * w_out)
    w = weight.reshape(1, groups, c_out // groups, c_per_group * taps)
    out = oneflow.matmul(w, cols).reshape(n, c_out, h_out, w_out)
    if bias is not None:
        out = out + bias.reshape(1, c_out, 1, 1)
    return out
