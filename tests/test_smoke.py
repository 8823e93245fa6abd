import numpy as np

import symdiff
from numeric import assert_grad


def piecewise(x, w):
    z = x * w
    h = np.where(z > 0, z, 0.1 * z)
    return np.sum(h ** 2) + np.sin(x[0])


def test_piecewise_matches_finite_differences():
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=5), rng.normal(size=5)
    df = symdiff.grad(piecewise, wrt=("x", "w"))
    assert_grad(piecewise, df, (x, w), wrt=(0, 1))
