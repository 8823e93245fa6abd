"""Elementwise derivatives, derived by SymPy from one formula a function.

Each entry is a function's formula over its operands ``a`` (and ``b``), in
SymPy's spelling. SymPy differentiates it; where the derivative contains the
function itself (``exp``, ``tanh``, ``sqrt``), the forward result ``out`` is
reused. Adding a function SymPy knows is one line here (its spelling in
generated code comes from prims.py). A `Rule` can instead give the partial
derivatives explicitly, when a numerically better form exists.

``safe`` is an operand value inside the function's domain; `where` uses it
to keep the branch not taken from producing NaN or warnings.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    formula: str
    grads: tuple = ()       # explicit partial derivatives, one per operand
    safe: tuple = ()        # a safe value per operand (None: any value is safe)


R = Rule
ELEMENTWISE = {
    # ---- arithmetic -------------------------------------------------------------
    "add": R("a + b"),
    "subtract": R("a - b"),
    "multiply": R("a * b"),
    # -out / b, not -a / b ** 2: reuses the quotient, and b ** 2 can overflow
    "divide": R("a / b", grads=("1 / b", "-out / b"), safe=(None, 1.0)),
    "power": R("a ** b", grads=("b * a ** (b - 1)", "out * log(a)"), safe=(1.0, None)),
    "negative": R("-a"),
    "square": R("a ** 2"),
    "reciprocal": R("1 / a", safe=(1.0,)),
    "sqrt": R("sqrt(a)", safe=(1.0,)),
    "cbrt": R("cbrt(a)", grads=("1 / (3 * out ** 2)",), safe=(1.0,)),
    "abs": R("Abs(a)"),
    # ---- exponentials and logarithms --------------------------------------------
    "exp": R("exp(a)", safe=(0.0,)),
    "exp2": R("2 ** a", safe=(0.0,)),
    "expm1": R("exp(a) - 1", grads=("out + 1",), safe=(0.0,)),
    "log": R("log(a)", safe=(1.0,)),
    "log2": R("log(a, 2)", safe=(1.0,)),
    "log10": R("log(a, 10)", safe=(1.0,)),
    "log1p": R("log(1 + a)", safe=(0.0,)),
    # a sigmoid, as one tanh: stable, and needs no forward value
    "logaddexp": R("log(exp(a) + exp(b))",
                   grads=("(1 + tanh((a - b) / 2)) / 2", "(1 + tanh((b - a) / 2)) / 2")),
    "logaddexp2": R("log(2 ** a + 2 ** b, 2)", grads=("2 ** (a - out)", "2 ** (b - out)")),
    # ---- trigonometry --------------------------------------------------------------
    "sin": R("sin(a)"),
    "cos": R("cos(a)"),
    "tan": R("tan(a)", safe=(0.0,)),
    "arcsin": R("asin(a)", safe=(0.0,)),
    "arccos": R("acos(a)", safe=(0.0,)),
    "arctan": R("atan(a)"),
    "arctan2": R("atan2(a, b)", safe=(1.0, 1.0)),
    "hypot": R("sqrt(a ** 2 + b ** 2)", safe=(1.0, 1.0)),  # rule: kinks.hypot_rule
    "deg2rad": R("a * pi / 180"),
    "rad2deg": R("a * 180 / pi"),
    # ---- hyperbolic ----------------------------------------------------------------
    "sinh": R("sinh(a)", safe=(0.0,)),
    "cosh": R("cosh(a)", safe=(0.0,)),
    "tanh": R("tanh(a)"),
    "arcsinh": R("asinh(a)"),
    "arccosh": R("acosh(a)", safe=(2.0,)),
    "arctanh": R("atanh(a)", safe=(0.0,)),
}


def guard_value(prim, index, args):
    """A value to put in operand ``index`` where its branch is not taken, or None.

    None when any value is safe there: the function is total in that operand,
    or the call's other operands make it so (``x ** 2``, ``x / 3``).
    """
    rule = ELEMENTWISE.get(prim)
    if rule is None or index >= len(rule.safe) or rule.safe[index] is None:
        return None
    if prim == "power" and _is_natural(args[1]):
        return None
    return rule.safe[index]


def _is_natural(atom):
    value = getattr(atom, "value", None)
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and float(value).is_integer() and value >= 0


def partial(prim, index, constants):
    """d prim / d operand ``index`` as a SymPy expression over ``a``, ``b``, ``out``.

    ``constants`` pairs operand positions with the numbers the call passes
    there (``x ** 2`` differentiates as ``2 * x``, not through ``log``).
    """
    return _partial(ELEMENTWISE[prim], index, constants)


@functools.lru_cache(maxsize=None)
def _partial(rule, index, constants):
    """Cached by the rule itself, so a changed table entry is derived afresh."""
    import sympy as sp
    a, b, out = sp.symbols("a b out", real=True)
    operands = (a, b)
    known = {operands[i]: _number(sp, v) for i, v in constants}
    formula = sp.sympify(rule.formula, locals={"a": a, "b": b}).xreplace(known)
    if rule.grads:
        derivative = sp.sympify(rule.grads[index], locals={"a": a, "b": b, "out": out})
        derivative = derivative.xreplace(known)
    else:
        derivative = sp.diff(formula, operands[index])
    return _reuse_output(sp, derivative, formula, out)


def _number(sp, value):
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
        return sp.Integer(int(value))
    return sp.Integer(value) if isinstance(value, int) else sp.Rational(value)


def _reuse_output(sp, derivative, formula, out):
    """Write ``formula`` (and its reciprocal) in ``derivative`` as ``out``."""
    if formula.is_Symbol or formula.is_Number:
        return derivative
    replaced = derivative.xreplace({formula: out})
    if formula.is_Pow:
        inverse = sp.Pow(formula.base, -formula.exp)
        replaced = replaced.xreplace({inverse: 1 / out})
    return replaced
