"""Generated functions of growing size, to see how compile time and output grow.

- chain(n): one expression of n nested binary operations,
  ``x * x / 1.01 * np.cos(x) / np.exp(x) * x / ...`` (left-associative, so each
  operation takes the previous one's result). Python's parser refuses more than
  200 nested parentheses, so nested *calls* cannot reach 500; `*` and `/`
  nest without parentheses.
- statements(n): a function of n assignment statements, each reading the
  previous result and one from three statements back.
"""
from __future__ import annotations

import importlib.util
import os

import numpy as np


def chain_source(n):
    leaves = ("x", "1.01", "np.cos(x)", "np.exp(x)")
    expr = "x"
    for i in range(n):
        expr += f" {'*/'[i % 2]} {leaves[i % 4]}"
    return f"import numpy as np\n\n\ndef chain(x):\n    return np.sum({expr})\n"


_KINDS = (
    "y{k} = np.tanh(y{p}) * 0.9 + 0.1 * y{q}",
    "y{k} = y{p} * y{q} + np.sin(y{p})",
    "y{k} = np.exp(-y{p} ** 2) + y{q} / 2.0",
    "y{k} = np.sqrt(y{p} ** 2 + 1.0) - y{q}",
)


def statements_source(n):
    lines = ["import numpy as np", "", "", "def statements(x):", "    y0 = x"]
    for k in range(1, n + 1):
        lines.append("    " + _KINDS[k % 4].format(k=k, p=k - 1, q=max(k - 3, 0)))
    lines.append(f"    return np.sum(y{n})")
    return "\n".join(lines) + "\n"


SOURCES = {"chain": chain_source, "statements": statements_source}


def write(kind, n, directory):
    path = os.path.join(directory, f"gen_{kind}_{n}.py")
    with open(path, "w") as fh:
        fh.write(SOURCES[kind](n))
    return path


def load(kind, path):
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, kind)


def fd_check(f, df, rng):
    """Largest relative error of df against the complex-step derivative of f.

    Im f(x + i h e_k) / h is exact to rounding for these analytic functions (no
    subtractive cancellation, unlike central differences, whose error on the
    long statement chains reaches 1e-3 although the gradient is right).
    """
    x = rng.uniform(0.5, 1.0, 4)
    g = np.asarray(df(x), dtype=float)
    h = 1e-30
    worst = 0.0
    for i in range(x.size):
        step = np.zeros(x.size, dtype=complex)
        step[i] = 1j * h
        exact = f(x + step).imag / h
        worst = max(worst, abs(exact - g[i]) / max(abs(exact), 1e-300))
    return worst
