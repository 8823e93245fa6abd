"""Straight-through quantisation: floor's derivative taken as 1 (d q / d x = 1).
The first two spellings override floor's gradient; the last two write the
straight-through estimator in the function, as JAX and PyTorch users do."""
import numpy as np

import symdiff

from .base import Case, Spelling

IDENTITY_FLOOR = {"floor": "identity"}


def quantize(x, y):  # the spelling of earlier runs, with overrides=IDENTITY_FLOOR
    q = np.floor(x * 8.0) / 8.0
    return np.sum((q - y) ** 2) + 0.01 * np.sum(x ** 2)


def quantize_levels(x, y, levels):  # the step as a parameter, np.square
    q = np.floor(x * levels) / levels
    return np.sum(np.square(q - y)) + 0.01 * np.sum(np.square(x))


def quantize_stop_gradient(x, y):  # x + stop_gradient(q - x), the usual STE trick
    q = x + symdiff.stop_gradient(np.floor(x * 8.0) / 8.0 - x)
    return np.sum((q - y) ** 2) + 0.01 * np.sum(x ** 2)


def quantize_straight_through(x, y):  # symdiff's own spelling of it
    q = symdiff.straight_through(np.floor(x * 8.0) / 8.0, x)
    return np.sum((q - y) ** 2) + 0.01 * np.sum(x * x)


def quantize_hand(x, y):
    # d floor(u)/du := 1, so dq/dx = 1: 2 (q - y) + 0.02 x, in place
    g = x * 8.0
    np.floor(g, out=g)
    g /= 8.0
    g -= y
    g *= 2.0
    g += 0.02 * x
    return g


def quantize_fd_ref(args):
    """The function whose true derivative at args is the straight-through one:
    floor(u) replaced by u + (floor(u0) - u0), u0 frozen at the given point."""
    u0 = args["x"] * 8.0
    offset = np.floor(u0) - u0

    def ref(x, y):
        q = (x * 8.0 + offset) / 8.0
        return np.sum((q - y) ** 2) + 0.01 * np.sum(x ** 2)
    return ref


def _args(n):
    return lambda rng: {"x": rng.standard_normal(n), "y": rng.standard_normal(n),
                        "levels": 8.0}


CASE = Case(
    "straight-through floor", ("x",), quantize_hand,
    {"n=10": _args(10), "n=1e5": _args(10 ** 5)},
    [Spelling("override, literal", quantize, overrides=IDENTITY_FLOOR,
              note="overrides={'floor': 'identity'}"),
     Spelling("override, param", quantize_levels, overrides=IDENTITY_FLOOR,
              note="overrides={'floor': 'identity'}"),
     Spelling("x + stop_gradient", quantize_stop_gradient),
     Spelling("straight_through", quantize_straight_through)],
    why={
        "override, literal":
            "the hand-written code works in place (one buffer for `2 (q - y) + 0.02 x`, "
            "from `x * 8.0` on); the generated one computes the user's forward line as "
            "written (`np.floor(x * 8.0) / 8.0`: two arrays) and `x_bar += 0.02 * x`",
        "override, param":
            "as the literal spelling: `0.02 * x + 2.0 * (q - y)` with a temporary per "
            "operation where the hand-written code works in place",
        "x + stop_gradient":
            "the forward `x + (np.floor(x * 8.0) / 8.0 - x)` is computed as written (in "
            "floating point it is not `np.floor(x * 8.0) / 8.0`, and the gradient reads it): "
            "two passes more, and the spelling's own forward pass alone costs more than the "
            "hand-written gradient (*f alone*); the backward is the hand-written one",
        "straight_through":
            "`0.02 * x + 2.0 * (np.floor(x * 8.0) / 8.0 - y)`, the hand-written formula, "
            "with a temporary per operation where the hand-written code works in place",
    },
    fd_ref=quantize_fd_ref,
)
