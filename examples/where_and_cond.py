"""How does TensorFlow-style Select / cond gradient routing work in symdiff?

`np.where(c, t, f)` sends the upstream gradient to `t` where `c` holds and to
`f` elsewhere; an `if` differentiates only the branch taken. This prints the
generated gradients of one of each and checks them against finite
differences, including at points where the branch not taken is undefined.

Run: python examples/where_and_cond.py
"""
import numpy as np

import symdiff


def safe_sqrt_loss(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def clipped_step(v, w):
    n2 = np.sum(v ** 2)
    if n2 > 1:
        v = v / np.sqrt(n2)
    return np.sum(v * w)


def finite_differences(f, args, i, eps=1e-6):
    x = np.asarray(args[i], dtype=float)
    out = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = eps
        hi = list(args)
        lo = list(args)
        hi[i], lo[i] = x + e, x - e
        with np.errstate(all="ignore"):
            out[k] = (f(*hi) - f(*lo)) / (2 * eps)
    return out


if __name__ == "__main__":
    d_sqrt = symdiff.grad(safe_sqrt_loss)
    print(symdiff.source(d_sqrt))
    x = np.array([-4.0, -1.0, 0.0, 0.25, 9.0])
    print("x                =", x)
    print("symdiff gradient =", d_sqrt(x), "(exactly 0 where x <= 0, no NaN)")
    inside = x > 0
    err = np.abs(d_sqrt(x)[inside] - finite_differences(safe_sqrt_loss, (x,), 0)[inside])
    print("max error vs finite differences where x > 0:", err.max())

    d_step = symdiff.grad(clipped_step, wrt=("v", "w"))
    print()
    print(symdiff.source(d_step))
    for v in (np.array([3.0, 4.0]), np.array([0.3, 0.4])):
        w = np.array([1.0, -2.0])
        gv, gw = d_step(v, w)
        err = max(np.abs(gv - finite_differences(clipped_step, (v, w), 0)).max(),
                  np.abs(gw - finite_differences(clipped_step, (v, w), 1)).max())
        print(f"v = {v}: d/dv = {gv}, d/dw = {gw}, max error {err:.1e}")
