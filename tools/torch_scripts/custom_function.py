"""A model built on custom autograd Functions (ctx.save_for_backward, non-tensor arguments)."""

import numpy as np


def run(torch, steps=20, init=lambda model: None):
    """Trains ``steps`` mini-batches and returns each step's loss."""
    nn = torch.nn
    torch.manual_seed(0)

    class LinearFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, weight, bias):
            ctx.save_for_backward(x, weight)
            return x @ weight.t() + bias

        @staticmethod
        def backward(ctx, grad_out):
            x, weight = ctx.saved_tensors
            grad_x = grad_w = grad_b = None
            if ctx.needs_input_grad[0]:
                grad_x = grad_out @ weight
            if ctx.needs_input_grad[1]:
                grad_w = grad_out.t() @ x
            if ctx.needs_input_grad[2]:
                grad_b = grad_out.sum(0)
            return grad_x, grad_w, grad_b

    class ScaledSwish(torch.autograd.Function):
        """beta * x * sigmoid(x), with beta a plain float (no gradient)."""

        @staticmethod
        def forward(ctx, x, beta):
            s = torch.sigmoid(x)
            ctx.save_for_backward(x, s)
            ctx.beta = beta
            return beta * x * s

        @staticmethod
        def backward(ctx, grad_out):
            x, s = ctx.saved_tensors
            return grad_out * ctx.beta * (s + x * s * (1 - s)), None

    class MyLinear(nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.weight = nn.Parameter(torch.empty(n_out, n_in))
            self.bias = nn.Parameter(torch.zeros(n_out))
            nn.init.kaiming_uniform_(self.weight, a=5**0.5)

        def forward(self, x):
            return LinearFn.apply(x, self.weight, self.bias)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = MyLinear(8, 32)
            self.l2 = MyLinear(32, 32)
            self.l3 = MyLinear(32, 1)

        def forward(self, x):
            x = ScaledSwish.apply(self.l1(x), 1.5)
            x = ScaledSwish.apply(self.l2(x), 1.0)
            return self.l3(x)

    model = Net()
    init(model)

    rng = np.random.default_rng(6)
    w_true = rng.standard_normal((8, 1)).astype(np.float32)
    xs = rng.standard_normal((steps, 32, 8)).astype(np.float32)
    ys = np.tanh(xs @ w_true) + 0.1 * np.sin(3 * xs[..., :1])

    optimizer = torch.optim.RMSprop(model.parameters(), lr=3e-3, momentum=0.5)
    losses = []
    for x, y in zip(xs, ys):
        x, y = torch.from_numpy(x), torch.from_numpy(y.astype(np.float32))
        optimizer.zero_grad()
        loss = nn.functional.smooth_l1_loss(model(x), y, beta=0.5)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def gradcheck(torch):
    """torch.autograd.gradcheck of a Function whose backward is written by hand, in float64."""
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return (a @ b.t()) ** 3

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            inner = 3 * (a @ b.t()) ** 2 * g
            return inner @ b, inner.t() @ a

    return torch.autograd.gradcheck(Cube.apply, (x, w))
