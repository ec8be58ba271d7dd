"""oneflow.nms, oneflow.roi_align and nn.functional.deform_conv2d against plain-PyTorch references.

torchvision (whose numerics these ops follow) has no CPU build for the project's torch, so each
reference below is written in torch from the ops' published definitions, one sample point at a
time with Python loops: a different structure from ours, with torch's autograd for the gradients.
"""

import math

import numpy as np
import pytest
import torch

import oneflow as flow
import oneflow.nn.functional as F

# ---- references -------------------------------------------------------------------------------


def ref_nms(boxes, scores, thr):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    keep = []
    for i in order:
        ok = True
        for j in keep:
            b, c = boxes[i], boxes[j]
            w = max(0.0, min(b[2], c[2]) - max(b[0], c[0]))
            h = max(0.0, min(b[3], c[3]) - max(b[1], c[1]))
            inter = w * h
            union = (b[2] - b[0]) * (b[3] - b[1]) + (c[2] - c[0]) * (c[3] - c[1]) - inter
            if union > 0 and inter / union > thr:
                ok = False
                break
        if ok:
            keep.append(i)
    return keep


def ref_roi_bilinear(img, y, x):
    """torchvision's RoI Align sample: zero outside [-1, size], clamped at the far border."""
    _, height, width = img.shape
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return img.new_zeros(img.shape[0])
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(math.floor(y)), int(math.floor(x))
    if y0 >= height - 1:
        y0 = y1 = height - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= width - 1:
        x0 = x1 = width - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return (
        (1 - ly) * (1 - lx) * img[:, y0, x0]
        + (1 - ly) * lx * img[:, y0, x1]
        + ly * (1 - lx) * img[:, y1, x0]
        + ly * lx * img[:, y1, x1]
    )


def ref_roi_align(inp, rois, scale, ph, pw, ratio, aligned):
    out = []
    off = 0.5 if aligned else 0.0
    for r in rois.tolist():
        img = inp[int(r[0])]
        x1, y1, x2, y2 = (v * scale - off for v in r[1:])
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        count = max(gh * gw, 1)
        bins = []
        for i in range(ph):
            for j in range(pw):
                acc = img.new_zeros(img.shape[0])
                for iy in range(gh):
                    y = y1 + i * bh + (iy + 0.5) * bh / gh
                    for ix in range(gw):
                        x = x1 + j * bw + (ix + 0.5) * bw / gw
                        acc = acc + ref_roi_bilinear(img, y, x)
                bins.append(acc / count)
        out.append(torch.stack(bins, 1).reshape(-1, ph, pw))
    return torch.stack(out)


def ref_deform_sample(img, y, x):
    """torchvision's deformable-conv sample: zero outside (-1, size), each corner checked."""
    _, height, width = img.shape
    yv, xv = float(y.detach()), float(x.detach())
    if yv <= -1 or yv >= height or xv <= -1 or xv >= width:
        return img.new_zeros(img.shape[0])
    y0, x0 = math.floor(yv), math.floor(xv)
    ly, lx = y - y0, x - x0
    acc = img.new_zeros(img.shape[0])
    for yi, wy in ((y0, 1 - ly), (y0 + 1, ly)):
        for xi, wx in ((x0, 1 - lx), (x0 + 1, lx)):
            if 0 <= yi < height and 0 <= xi < width:
                acc = acc + wy * wx * img[:, yi, xi]
    return acc


def ref_deform_conv2d(inp, offset, weight, bias, stride, pad, dil, mask):
    n, c, _, _ = inp.shape
    c_out, cpg, kh, kw = weight.shape
    groups = c // cpg
    ho, wo = offset.shape[2], offset.shape[3]
    og = offset.shape[1] // (2 * kh * kw)
    cg = c // og
    outs = []
    for b in range(n):
        cols = []
        for g in range(og):
            img = inp[b, g * cg : (g + 1) * cg]
            taps = []
            for i in range(kh):
                for j in range(kw):
                    t = i * kw + j
                    pts = []
                    for oy in range(ho):
                        for ox in range(wo):
                            y = oy * stride[0] - pad[0] + i * dil[0] + offset[b, 2 * (g * kh * kw + t), oy, ox]
                            x = ox * stride[1] - pad[1] + j * dil[1] + offset[b, 2 * (g * kh * kw + t) + 1, oy, ox]
                            v = ref_deform_sample(img, y, x)
                            if mask is not None:
                                v = v * mask[b, g * kh * kw + t, oy, ox]
                            pts.append(v)
                    taps.append(torch.stack(pts, 1))  # [cg, ho*wo]
            cols.append(torch.stack(taps, 1))  # [cg, taps, ho*wo]
        col = torch.cat(cols, 0).reshape(groups, cpg * kh * kw, ho * wo)
        w = weight.reshape(groups, c_out // groups, cpg * kh * kw)
        outs.append(torch.bmm(w, col).reshape(c_out, ho, wo))
    out = torch.stack(outs)
    return out if bias is None else out + bias.reshape(1, -1, 1, 1)


# ---- nms --------------------------------------------------------------------------------------


def random_boxes(rng, n, size=20.0):
    xy = rng.uniform(0, size, (n, 2))
    wh = rng.uniform(1, size / 2, (n, 2))
    return np.concatenate([xy, xy + wh], 1)


@pytest.mark.parametrize("n,thr", [(1, 0.5), (30, 0.3), (60, 0.5), (60, 0.7)])
def test_nms_matches_reference(n, thr):
    rng = np.random.default_rng(n)
    boxes, scores = random_boxes(rng, n), rng.permutation(n).astype(np.float64)
    keep = flow.nms(flow.tensor(boxes, dtype=flow.float32), flow.tensor(scores, dtype=flow.float32), thr)
    assert keep.dtype == flow.int64
    assert keep.tolist() == ref_nms(boxes.tolist(), scores.tolist(), thr)
    # Tensor.nms and oneflow._C.nms are the same function.
    assert flow.tensor(boxes).nms(flow.tensor(scores), thr).tolist() == keep.tolist()
    assert flow._C.nms(flow.tensor(boxes), flow.tensor(scores), thr).tolist() == keep.tolist()


def test_nms_empty_and_bad_input():
    assert flow.nms(flow.zeros(0, 4), flow.zeros(0), 0.5).tolist() == []
    with pytest.raises(RuntimeError, match="boxes"):
        flow.nms(flow.zeros(3, 5), flow.zeros(3), 0.5)
    with pytest.raises(RuntimeError, match="same number of rows"):
        flow.nms(flow.zeros(3, 4), flow.zeros(2), 0.5)
    with pytest.raises(TypeError, match="scores"):
        flow.nms(flow.zeros(3, 4), [1.0, 2.0, 3.0], 0.5)
    with pytest.raises(RuntimeError, match="floating-point"):
        flow.nms(flow.zeros(3, 4, dtype=flow.int64), flow.zeros(3), 0.5)


# ---- roi_align --------------------------------------------------------------------------------


def roi_case(seed, n=2, c=3, h=9, w=11, k=6):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w))
    xy = rng.uniform(-3, 12, (k, 2))
    wh = rng.uniform(0, 10, (k, 2))
    rois = np.concatenate([rng.integers(0, n, (k, 1)), xy, xy + wh], 1)
    return x, rois


@pytest.mark.parametrize(
    "scale,ph,pw,ratio,aligned",
    [
        (1.0, 2, 3, 2, False),
        (0.5, 3, 3, -1, False),
        (1.0, 2, 2, -1, True),
        (0.75, 4, 2, 1, True),
        (1.0, 1, 1, 0, False),
    ],
)
def test_roi_align_matches_reference(scale, ph, pw, ratio, aligned):
    x, rois = roi_case(int(scale * 10) + ph * 7 + pw + ratio)
    tx = torch.tensor(x, requires_grad=True)
    expected = ref_roi_align(tx, torch.tensor(rois), scale, ph, pw, ratio, aligned)
    fx = flow.tensor(x, requires_grad=True)
    got = flow.roi_align(fx, flow.tensor(rois), scale, ph, pw, ratio, aligned)
    np.testing.assert_allclose(got.numpy(), expected.detach().numpy(), atol=1e-12)
    g = np.random.default_rng(1).standard_normal(expected.shape)
    expected.backward(torch.tensor(g))
    got.backward(flow.tensor(g))
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), atol=1e-12)


def test_roi_align_float32_and_chunks(monkeypatch):
    from oneflow import _detection_ops

    monkeypatch.setattr(_detection_ops, "_ROWS_PER_CHUNK", 64)  # several chunks of RoIs
    x, rois = roi_case(3, k=9)
    expected = ref_roi_align(torch.tensor(x), torch.tensor(rois), 1.0, 2, 2, 2, True)
    got = flow.roi_align(flow.tensor(x, dtype=flow.float32), flow.tensor(rois, dtype=flow.float32), 1.0, 2, 2, 2, True)
    assert got.dtype == flow.float32
    np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-5)


def test_roi_align_bad_input():
    x = flow.zeros(1, 2, 4, 4)
    with pytest.raises(RuntimeError, match=r"rois.*\[K, 5\]"):
        flow.roi_align(x, flow.zeros(3, 4), 1.0, 2, 2, 2, False)
    with pytest.raises(RuntimeError, match="4-D"):
        flow.roi_align(flow.zeros(2, 4, 4), flow.zeros(1, 5), 1.0, 2, 2, 2, False)
    with pytest.raises(IndexError, match="batch indices"):
        flow.roi_align(x, flow.tensor([[1.0, 0, 0, 2, 2]]), 1.0, 2, 2, 2, False)
    with pytest.raises(ValueError, match="pooled_h"):
        flow.roi_align(x, flow.tensor([[0.0, 0, 0, 2, 2]]), 1.0, 0, 2, 2, False)
    assert tuple(flow.roi_align(x, flow.zeros(0, 5), 1.0, 3, 2, 2, False).shape) == (0, 2, 3, 2)


# ---- deform_conv2d ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "c_in,c_out,k,stride,pad,dil,og,groups,use_mask,use_bias",
    [
        (2, 3, (3, 3), (1, 1), (1, 1), (1, 1), 1, 1, False, True),
        (4, 2, (3, 2), (2, 1), (0, 1), (1, 1), 2, 1, True, False),
        (4, 4, (2, 2), (1, 1), (1, 0), (2, 1), 1, 2, True, True),
    ],
)
def test_deform_conv2d_matches_reference(c_in, c_out, k, stride, pad, dil, og, groups, use_mask, use_bias):
    rng = np.random.default_rng(c_in * 10 + c_out)
    n, h, w = 2, 5, 4
    ho = (h + 2 * pad[0] - dil[0] * (k[0] - 1) - 1) // stride[0] + 1
    wo = (w + 2 * pad[1] - dil[1] * (k[1] - 1) - 1) // stride[1] + 1
    arrays = dict(
        input=rng.standard_normal((n, c_in, h, w)),
        offset=rng.uniform(-2.5, 2.5, (n, 2 * og * k[0] * k[1], ho, wo)),
        weight=rng.standard_normal((c_out, c_in // groups, *k)),
        bias=rng.standard_normal(c_out) if use_bias else None,
        mask=rng.uniform(0, 1, (n, og * k[0] * k[1], ho, wo)) if use_mask else None,
    )
    tt = {a: None if v is None else torch.tensor(v, requires_grad=True) for a, v in arrays.items()}
    ft = {a: None if v is None else flow.tensor(v, requires_grad=True) for a, v in arrays.items()}
    expected = ref_deform_conv2d(tt["input"], tt["offset"], tt["weight"], tt["bias"], stride, pad, dil, tt["mask"])
    got = F.deform_conv2d(
        ft["input"], ft["offset"], ft["weight"], ft["bias"], stride=stride, padding=pad, dilation=dil, mask=ft["mask"]
    )
    np.testing.assert_allclose(got.numpy(), expected.detach().numpy(), atol=1e-10)
    g = rng.standard_normal(expected.shape)
    expected.backward(torch.tensor(g))
    got.backward(flow.tensor(g))
    for name, t in tt.items():
        if t is not None:
            np.testing.assert_allclose(ft[name].grad.numpy(), t.grad.numpy(), atol=1e-9, err_msg=name)


def test_deform_conv2d_zero_offset_is_conv2d():
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((2, 3, 6, 6)), rng.standard_normal((4, 3, 3, 3)), rng.standard_normal(4)
    got = F.deform_conv2d(
        flow.tensor(x), flow.zeros(2, 18, 6, 6, dtype=flow.float64), flow.tensor(w), flow.tensor(b), padding=1
    )
    expected = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b), padding=1)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-10)
    assert flow._C.deform_conv2d is F.deform_conv2d


def test_deform_conv2d_bad_input():
    x, w = flow.zeros(1, 2, 5, 5), flow.zeros(3, 2, 3, 3)
    with pytest.raises(RuntimeError, match="offset of shape"):
        F.deform_conv2d(x, flow.zeros(1, 18, 4, 4), w)
    with pytest.raises(RuntimeError, match="multiple of 2\\*kh\\*kw"):
        F.deform_conv2d(x, flow.zeros(1, 7, 3, 3), w)
    with pytest.raises(RuntimeError, match="mask of shape"):
        F.deform_conv2d(x, flow.zeros(1, 18, 3, 3), w, mask=flow.zeros(1, 8, 3, 3))
    with pytest.raises(RuntimeError, match="bias of shape"):
        F.deform_conv2d(x, flow.zeros(1, 18, 3, 3), w, bias=flow.zeros(2))
    with pytest.raises(TypeError, match="stride"):
        F.deform_conv2d(x, flow.zeros(1, 18, 3, 3), w, stride=(1, 1, 1))
