"""A 45-operation expression of three Python floats: per-operation overhead."""
import math

import numpy as np

from .base import Case, Spelling


def scalar45(a, b, c):  # the spelling of earlier runs: NumPy functions on floats
    d = a * b + np.sin(c) / (1.0 + a ** 2)
    e = np.sqrt(d ** 2 + 1.0) - np.log(1.0 + np.exp(-b))
    f = np.tanh(a - c) * np.cos(b * c) + d / (e + 2.0)
    g = np.exp(-0.5 * (a - 1.0) ** 2) * np.arctan(f) + np.log1p(c ** 2)
    h = (d * e - f * g) / (1.0 + g ** 2) + np.sinh(0.1 * a)
    return h * d + e * f - g + c


def scalar45_math(a, b, c):  # the math module, as scalar code usually is
    d = a * b + math.sin(c) / (1.0 + a ** 2)
    e = math.sqrt(d ** 2 + 1.0) - math.log(1.0 + math.exp(-b))
    f = math.tanh(a - c) * math.cos(b * c) + d / (e + 2.0)
    g = math.exp(-0.5 * (a - 1.0) ** 2) * math.atan(f) + math.log1p(c ** 2)
    h = (d * e - f * g) / (1.0 + g ** 2) + math.sinh(0.1 * a)
    return h * d + e * f - g + c


def scalar45_products(a, b, c):  # x*x for squares, halves as /2, more names
    s = np.sin(c)
    d = a * b + s / (1 + a * a)
    softplus = np.log(1 + np.exp(-b))
    e = np.sqrt(d * d + 1) - softplus
    f = np.tanh(a - c) * np.cos(b * c) + d / (e + 2)
    u = a - 1
    g = np.exp(-u * u / 2) * np.arctan(f) + np.log1p(c * c)
    h = (d * e - f * g) / (1 + g * g) + np.sinh(a / 10)
    return h * d + e * f - g + c


def scalar45_hand(a, b, c):
    # forward
    sc = np.sin(c)
    pa = 1.0 + a * a
    d = a * b + sc / pa
    sq = np.sqrt(d * d + 1.0)
    en = np.exp(-b)
    e = sq - np.log(1.0 + en)
    th = np.tanh(a - c)
    bc = b * c
    co = np.cos(bc)
    e2 = e + 2.0
    f = th * co + d / e2
    ga = np.exp(-0.5 * (a - 1.0) ** 2)
    at = np.arctan(f)
    g = ga * at + np.log1p(c * c)
    num = d * e - f * g
    den = 1.0 + g * g
    h = num / den + np.sinh(0.1 * a)
    # backward: out = h * d + e * f - g + c
    d_b, e_b, f_b, g_b, c_b = h, f, e, -1.0, 1.0
    num_b = d / den                                  # h_b = d
    g_b -= 2.0 * g * d * num / (den * den)
    a_b = 0.1 * d * np.cosh(0.1 * a)
    d_b += num_b * e
    e_b += num_b * d
    f_b -= num_b * g
    g_b -= num_b * f
    # g = ga * at + log1p(c^2)
    f_b += g_b * ga / (1.0 + f * f)
    c_b += g_b * 2.0 * c / (1.0 + c * c)
    a_b -= g_b * at * ga * (a - 1.0)
    # f = th * co + d / e2
    th_b = f_b * co * (1.0 - th * th)
    a_b += th_b
    c_b -= th_b
    bc_b = -f_b * th * np.sin(bc)
    b_b = bc_b * c
    c_b += bc_b * b
    d_b += f_b / e2
    e_b -= f_b * d / (e2 * e2)
    # e = sqrt(d^2 + 1) - log(1 + en)
    d_b += e_b * d / sq
    b_b += e_b * en / (1.0 + en)
    # d = a * b + sc / pa
    a_b += d_b * (b - 2.0 * a * sc / (pa * pa))
    b_b += d_b * a
    c_b += d_b * np.cos(c) / pa
    return a_b, b_b, c_b


def _args(rng):
    a, b, c = (float(v) for v in rng.uniform(-1.0, 1.0, 3))
    return {"a": a, "b": b, "c": c}


CASE = Case(
    "scalar 45 ops", ("a", "b", "c"), scalar45_hand,
    {"3 floats": _args},
    [Spelling("np functions", scalar45),
     Spelling("math module", scalar45_math),
     Spelling("x*x, /2, names", scalar45_products)],
)


def count_ops(fn):
    """Arithmetic operators and calls in fn's body (for the 45-operation case)."""
    import ast
    import inspect
    import textwrap
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    n = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.Call)):
            n += 1
        elif isinstance(node, ast.UnaryOp) and not isinstance(node.operand, ast.Constant):
            n += 1
    return n
