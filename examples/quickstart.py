"""Quickstart: what does symdiff generate for a small piecewise loss, and is it right?

Run: python examples/quickstart.py
"""
import numpy as np

import symdiff


@symdiff.grad(wrt=("x", "w"))
def loss(x, w):
    z = x * w
    h = np.where(z > 0, z, 0.1 * z)   # leaky ReLU
    return np.sum(h ** 2)


if __name__ == "__main__":
    print(symdiff.source(loss))
    x, w = np.array([1.0, -2.0, 3.0]), np.array([0.5, 0.25, -1.0])
    gx, gw = loss(x, w)
    print("d/dx =", gx)
    print("d/dw =", gw)
    # Check against central differences.
    f = loss.__wrapped__
    eps = 1e-6
    numeric = [(f(x + eps * e, w) - f(x - eps * e, w)) / (2 * eps) for e in np.eye(3)]
    print("max |symdiff - finite differences| =", np.max(np.abs(gx - numeric)))
