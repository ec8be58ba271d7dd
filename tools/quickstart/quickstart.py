"""The main job: a short tour of what oneflow can do so far.

    ./tools/bazel run //:quickstart
"""

import numpy as np

import oneflow as flow


def main() -> None:
    print(f"oneflow {flow.__version__}")

    x = flow.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    print("\nA tensor from nested lists (dtype inferred as in PyTorch):")
    print(x)
    print("shape", x.shape, "stride", x.stride(), "dtype", x.dtype, "device", x.device)

    print("\nViews share memory with their base:")
    col = x[:, 1]
    col.fill_(0)
    print("after x[:, 1].fill_(0):", x.tolist())
    xt = x.T
    print("x.T is a view:", xt.shape, "stride", xt.stride(), "contiguous:", xt.is_contiguous())
    print("x.T.reshape(6) must copy:", xt.reshape(6).tolist())
    print("x.view(3, 2):", x.view(3, 2).tolist())
    print("every other column, x[:, ::2]:", x[:, ::2].tolist())

    print("\nNumPy interop without copies:")
    a = np.arange(4, dtype=np.float32)
    t = flow.from_numpy(a)
    a[0] = 42
    print("from_numpy sees writes to the array:", t.tolist())

    print("\nCreation functions and dtype conversions:")
    print(flow.arange(0, 1, 0.25))
    print(flow.eye(3, dtype=flow.int64))
    print(flow.linspace(-1, 1, 5).to(flow.float16))
    print(flow.full((2, 2), 7).bfloat16())

    print("\nAutograd and nn.functional: a tiny classifier trained with plain SGD:")
    F = flow.nn.functional
    flow.manual_seed(0)
    points = flow.randn(64, 2)
    labels = (points[:, 0] * points[:, 1] > 0).long()  # XOR-like quadrants
    w1 = (flow.randn(2, 16) * 0.5).requires_grad_()
    w2 = (flow.randn(16, 2) * 0.5).requires_grad_()
    for step in range(301):
        logits = F.gelu(points @ w1) @ w2
        loss = F.cross_entropy(logits, labels)
        loss.backward()
        with flow.no_grad():
            for w in (w1, w2):
                w -= 0.5 * w.grad
                w.grad = None
        if step % 100 == 0:
            accuracy = (logits.argmax(1) == labels).float().mean().item()
            print(f"  step {step:3d}  loss {loss.item():.4f}  accuracy {accuracy:.2f}")

    print("\nBad input is a clear Python exception:")
    for expr in ("flow.tensor([[1, 2], [3]])", "x.T.view(6)", "x.transpose(0, 2)", "flow.zeros(2, device='tpu')"):
        try:
            eval(expr)
        except (ValueError, RuntimeError, IndexError, TypeError) as e:
            print(f"  {expr}: {type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
