"""Scalar, loop-heavy functions: what ``numba.njit`` runs fastest, and what
``symdiff.grad(f, checks=False)`` makes plain enough for it."""
import numpy as np


def fixed_point(a, x0):
    """x = cos(a x), iterated: its derivative by a, through every step."""
    x = x0
    for i in range(200):
        x = np.cos(a * x)
    return x


def ode(k, y0):
    """y' = -k y + sin(y) by explicit Euler steps; the loss y(T)^2."""
    y = y0
    dt = 0.01
    for i in range(500):
        y = y + dt * (-k * y + np.sin(y))
    return y * y


def newton_sqrt(a):
    """Heron's iteration for sqrt(a), in a while loop."""
    x = 0.5
    n = 0
    while n < 30:
        x = 0.5 * (x + a / x)
        n += 1
    return x


CASES = {
    "fixed_point": (fixed_point, (0.7, 0.3)),
    "ode": (ode, (0.5, 1.0)),
    "newton_sqrt": (newton_sqrt, (2.0,)),
}
