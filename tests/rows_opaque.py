"""Rows of calls symdiff cannot look into (see primitive_rows.py): computed as
values inside a custom_gradient function, whose backward gives the derivative."""
import numpy as np
from scipy.integrate import quad
from scipy.special import zeta

import symdiff
from row_inputs import own_draws, pos


def decaying(t, k):
    return np.exp(-k * t)


@symdiff.custom_gradient
def decay_area(k):
    """The integral of exp(-k t) over [0, 1], by quadrature; its derivative in
    closed form: d/dk (1 - exp(-k)) / k."""
    def backward(g):
        return g * ((k + 1.0) * np.exp(-k) - 1.0) / k ** 2
    return quad(decaying, 0.0, 1.0, args=(k,))[0], backward


with own_draws(2718):
    ROWS = [
        ("opaque_call", lambda k: decay_area(k), (pos(),), {"forward": False}),
    ]

    # a gradient that reaches the call: refused, with the custom_gradient code as hint
    REFUSED = [
        ("opaque_call", lambda x: zeta(x, 1.0), (pos(3, lo=2.0, hi=3.0),)),
    ]
