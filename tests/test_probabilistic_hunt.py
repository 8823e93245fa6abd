"""Defects a hunt over probabilistic and sequence models found (HMMs, Kalman
filters, GARCH, ARMA, CRFs, Sinkhorn, densities of scipy.special, survival
models): each as the reduced program, against central differences."""
import numpy as np

import symdiff
from check_grads import check_grads


def ema_variance(lam, r):  # an exponentially weighted variance, written into an array
    v = r[0] ** 2
    out = np.empty_like(r)
    for t, x in enumerate(r):
        v = lam * v + (1 - lam) * x ** 2
        out[t] = v
    return np.sum(np.log(out) + r ** 2 / out)


def test_second_derivative_of_a_loop_whose_number_starts_as_zeros_like():
    # the reverse loop's adjoint of `v` starts as np.zeros_like(v), a NumPy
    # number, written 0.0 in specialised code; the loop's facts kept it a
    # NumPy value, and the Hessian's code read `v_bar.shape` of a Python
    # float (AttributeError)
    r = np.array([0.1, -0.3, 0.2, 0.5])
    check_grads(ema_variance, (0.9, r), wrt=(0,))
    h = symdiff.hessian(ema_variance)(0.9, r)
    df = symdiff.grad(ema_variance)
    step = 1e-5
    assert np.isclose(h, (df(0.9 + step, r) - df(0.9 - step, r)) / (2 * step), rtol=1e-6)
