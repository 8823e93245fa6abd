"""np.linalg.norm, every ``ord`` and ``axis``.

The 2-norm of vectors and the Frobenius norm of matrices are the primitive
``norm`` (its gradient ``x / norm``; at x = 0 a kink, where the gradient is
0). Every other norm is what NumPy computes it as, written out when the call
is read (`vector_norm`, `matrix_norm`): ``sum(abs(x))``, ``max(abs(x))``,
``max(sum(abs(x), rows))``, the largest singular value, their sum..., so
that each differentiates by the rules of what it is made of, with the one
policy for kinks: ties of a max or min (and of the largest singular
values) share the gradient evenly, abs has gradient 0 at 0. Which norm
``ord`` means with no ``axis`` depends on the rank (a vector's or a
matrix's): the frontend then writes both, under ``if np.ndim(x) == 1``.
"""
from __future__ import annotations

import math

from ..errors import NoDerivativeRuleError
from ..ir.nodes import Const, Var
from ..ir.primitive import NEW, REDUCTION, define
from .einsum import spelled


# ---- the 2-norm and the Frobenius norm --------------------------------------------------------
def _only_two_norm(op):
    if op.param("ord") not in (None, 2, "fro") or \
            (op.param("ord") == 2 and op.param("axis") is None):
        # the formulas below are the 2-norm's: another norm must not get them silently
        raise NoDerivativeRuleError(
            "`norm`: only the 2- and Frobenius norms are this primitive", op.loc,
            "call np.linalg.norm itself: symdiff writes other norms out")


def norm_rule(r, op, g):
    _only_two_norm(op)
    x, out = op.args[0], op.target
    axis, keep = op.param("axis"), op.param("keepdims")
    rest = _over_norm(r.b, g, out)
    if rest is not None:  # (g = norm * k: x * k, no division and no kink; norm(x) ** 2)
        if axis is not None and not keep and not r.b.facts.is_scalar(rest):
            rest = r.b.op("expand_dims", rest, axis=axis)  # (a number: it broadcasts)
        return [r.b.mul(rest, x)]
    if axis is not None and not keep:
        out = r.b.op("expand_dims", out, axis=axis, hint=f"{out.hint or 'norm'}_kept")
        if not isinstance(g, Const):  # (a number broadcasts, and keeps x's dtype)
            g = r.b.op("expand_dims", g, axis=axis)
    with r.b.noting("at x = 0 the norm has a kink: its gradient there is 0"):
        # != rather than >: a NaN norm keeps its NaN gradient
        nonzero = r.b.op("not_equal", out, Const(0.0), hint="nonzero")
        safe = r.b.op("where", nonzero, out, Const(1.0), hint="safe_norm")
        return [r.b.mul(g, r.b.div(x, safe))]


def _over_norm(b, g, out, depth=3):
    """``k`` where the gradient ``g`` is ``out * k`` as the chain rule built
    it (the square of a norm: ``2 * norm * g``), else None."""
    made = b.facts.producer(g) if isinstance(g, Var) and depth else None
    if made is None or made.prim != "multiply" or made.effect:
        return None
    first, second = made.args
    for one, other in ((first, second), (second, first)):
        if one is out:
            return other
    for k, arg in enumerate(made.args):
        rest = _over_norm(b, arg, out, depth - 1)
        if rest is not None:
            return b.mul(rest, made.args[1 - k]) if k == 0 else b.mul(made.args[0], rest)
    return None


def norm_tangent(b, op, dargs):
    x, out = op.args[0], op.target
    if dargs[0] is None:
        return None
    _only_two_norm(op)
    axis, keep = op.param("axis"), op.param("keepdims")
    over = {"axis": axis, "keepdims": bool(keep)}  # keepdims also without an axis: (1, 1)
    # != rather than >: a NaN norm keeps its NaN tangent
    safe = b.op("where", b.op("not_equal", out, Const(0.0)), out, Const(1.0))
    return b.div(b.op("sum", b.mul(x, dargs[0]), **over), safe)


define("norm(x; ord=None, axis=None, keepdims=False)", ("np.linalg", "norm"), REDUCTION,
       reverse=norm_rule, forward=norm_tangent)
# NumPy 2's array-API norms: written out as the others (frontend/call_forms.py)
define("vector_norm(x; axis=None, keepdims=False, ord=2)", ("np.linalg", "vector_norm"),
       REDUCTION, read_back_as="what it computes (frontend/call_forms.py)")
define("matrix_norm(x; keepdims=False, ord='fro')", ("np.linalg", "matrix_norm"), NEW,
       read_back_as="what it computes (frontend/call_forms.py)")


# ---- every other norm, written out --------------------------------------------------------------
VECTOR_ORDS = "None, 2, 1, inf, -inf, 0, or a number p"
MATRIX_ORDS = "None, 'fro', 'nuc', 1, -1, 2, -2, inf, -inf"


def vector_norm(b, x, order, axis, keepdims):
    """The ``order``-norm of the vectors along ``axis`` (an int), as NumPy
    computes it; None if ``order`` is no vector norm."""
    over = {"axis": axis, "keepdims": keepdims}
    if order is None or order == 2:
        return b.op("norm", x, **over)
    if isinstance(order, str) or isinstance(order, bool):
        return None
    if order == math.inf:
        return b.op("max", b.op("abs", x), **over)
    if order == -math.inf:
        return b.op("min", b.op("abs", x), **over)
    if order == 0:  # how many entries are not zero: flat
        return b.op("sum", b.mul(b.op("not_equal", x, Const(0.0)), Const(1.0)), **over)
    if order == 1:
        return b.op("sum", b.op("abs", x), **over)
    powers = b.op("power", b.op("abs", x), Const(float(order)))
    return b.op("power", b.op("sum", powers, **over), Const(1.0 / order))


def is_matrix_order(order):
    return order in (None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf) and \
        not isinstance(order, bool)


def matrix_norm(b, x, order, axes, keepdims):
    """The ``order``-norm of the matrices on ``axes`` (rows, columns), as
    NumPy computes it; None if ``order`` is no matrix norm."""
    rows, columns = axes
    if order is None or order == "fro":
        return b.op("norm", x, axis=axes, keepdims=keepdims)
    if order in (1, -1, math.inf, -math.inf) and not isinstance(order, bool):
        # 1: the largest column sum (sums over rows); inf: the largest row sum
        summed, picked = (rows, columns) if order in (1, -1) else (columns, rows)
        sums = b.op("sum", b.op("abs", x), axis=summed, keepdims=True)
        extreme = b.op("max" if order > 0 else "min", sums, axis=picked, keepdims=True)
        return extreme if keepdims else b.op("squeeze", extreme, axis=axes)
    if order in ("nuc", 2, -2) and not isinstance(order, bool):
        values = b.op("svdvals", _moved_last(b, x, rows, columns))
        if order == "nuc":
            out = b.op("sum", values, axis=-1)
        else:  # ties of the largest (smallest) singular value share the gradient
            out = b.op("max" if order == 2 else "min", values, axis=-1)
        return b.op("expand_dims", out, axis=axes) if keepdims else out
    return None


def _moved_last(b, x, rows, columns):
    """x with axes ``rows`` and ``columns`` moved to the end (np.moveaxis), as
    an einsum with ``...`` for the axes between (their number unknown)."""
    if (rows, columns) == (-2, -1):
        return x
    front = max([a + 1 for a in (rows, columns) if a >= 0], default=0)
    back = max([-a for a in (rows, columns) if a < 0], default=0)
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    head = [next(letters) for _ in range(front)]
    tail = [next(letters) for _ in range(back)]
    labels = {a: head[a] if a >= 0 else tail[a] for a in (rows, columns)}
    kept_head = [label for label in head if label not in labels.values()]
    kept_tail = [label for label in tail if label not in labels.values()]
    wanted = (labels[rows], labels[columns])
    subscripts = spelled([tuple(head) + ("...",) + tuple(tail)],
                         tuple(kept_head) + ("...",) + tuple(kept_tail) + wanted)
    return b.op("einsum", x, subscripts=subscripts, optimize=False, hint="matrices")
