"""Elementwise primitives: arithmetic, comparisons, and NumPy's math functions.

A differentiable one is one SymPy formula over its operands ``a`` (and
``b``); SymPy derives the partial derivatives, and where the derivative
contains the function itself (``exp``, ``tanh``, ``sqrt``) generated code
reuses the forward result ``out``. Adding a function SymPy knows is one
line. ``partials`` gives the derivatives instead, where a numerically better
form exists; ``safe`` is a value inside the function's domain, per operand,
that `where` puts in the branch it does not take.
"""
from __future__ import annotations

import ast

from ..ir.nodes import Const
from ..ir.primitive import ELEMENTWISE, Formula, define
from .derive import elementwise_rule, elementwise_tangent


def function(signature, formula, partials=(), safe=(), **fields):
    """A differentiable elementwise NumPy function."""
    return define(signature, fields.pop("spelling", None), ELEMENTWISE,
                  formula=Formula(formula, partials, safe), **fields)


def flat(signature, spelling=None, **fields):
    """An elementwise primitive whose derivative is zero wherever it exists
    (rounding, comparisons, logic: piecewise constant)."""
    return define(signature, spelling, ELEMENTWISE, zero=True, **fields)


# ---- arithmetic --------------------------------------------------------------------
function("add(a, b)", "a + b", spelling=("binop", ast.Add))
function("subtract(a, b)", "a - b", spelling=("binop", ast.Sub))
function("multiply(a, b)", "a * b", spelling=("binop", ast.Mult))
# -out / b, not -a / b ** 2: reuses the quotient, and b ** 2 can overflow
function("divide(a, b)", "a / b", partials=("1 / b", "-out / b"), safe=(None, 1.0),
         spelling=("binop", ast.Div), aliases=("true_divide",))
function("negative(a)", "-a", spelling=("unary", ast.USub), linear=(0,))
function("square(a)", "a ** 2")
function("reciprocal(a)", "1 / a", safe=(1.0,))
function("sqrt(a)", "sqrt(a)", safe=(1.0,), math=("sqrt",))
function("cbrt(a)", "cbrt(a)", partials=("1 / (3 * out ** 2)",), safe=(1.0,))
function("abs(a)", "Abs(a)", aliases=("absolute", "fabs"), math=("fabs",))


def power_rule(r, op, g):
    """a ** b. d/db = out * log(a), taken as 0 where a = 0 (there out is 0 for
    b > 0), so a zero base gives no 0 * log(0) = NaN. d/da = b * a ** (b - 1)
    is 0 where b = 0 (a ** 0 is 1 for every a, 0 too: `_base_slope`)."""
    a, b = op.args
    if isinstance(a, Const) or not r.wants(b):
        grads = elementwise_rule(r, op, g, skip=() if isinstance(b, Const) else (0,))
    else:
        grads = elementwise_rule(r, op, g, skip=(0, 1))
        grads[1] = r.unbroadcast(r.b.mul(g, r.b.mul(op.target, _safe_log(r.b, a))), b)
    if grads[0] is None and r.wants(a) and not isinstance(b, Const):
        grads[0] = r.unbroadcast(r.b.mul(g, _base_slope(r.b, a, b)), a)
    return grads


def power_tangent(b, op, dargs):
    """As reverse mode: d/db a ** b = out * log(a), taken as 0 where a = 0;
    d/da as `_base_slope` where the exponent is not a constant."""
    x, e = op.args
    if isinstance(e, Const) or dargs[0] is None:
        first = elementwise_tangent(b, op, [dargs[0], None]) if dargs[0] is not None else None
    else:
        first = b.mul(dargs[0], _base_slope(b, x, e))
    if dargs[1] is None or isinstance(x, Const):
        second = elementwise_tangent(b, op, [None, dargs[1]]) if dargs[1] is not None else None
    else:
        second = b.mul(dargs[1], b.mul(op.target, _safe_log(b, x)))
    return b.total([first, second])


def _base_slope(b, base, exponent):
    """b * a ** (b - 1) for an exponent known only at run time (``x ** k``,
    ``k = np.arange(n)``): at a = b = 0, where a ** b is 1 for every a and the
    slope 0, written ``b * a ** 1`` (not 0 * 0 ** -1 = NaN); everywhere else
    the formula, so that derivatives in ``b`` stay exact."""
    corner = b.op("logical_and", b.op("equal", base, Const(0.0)),
                  b.op("equal", exponent, Const(0.0)), hint="corner")
    power = b.op("where", corner, Const(1.0), b.sub(exponent, Const(1.0)), hint="lowered")
    return b.mul(exponent, b.op("power", base, power))


def _safe_log(b, base):
    nonzero = b.op("not_equal", base, Const(0.0), hint="nonzero")
    return b.op("log", b.op("where", nonzero, base, Const(1.0), hint="safe_base"))


function("power(a, b)", "a ** b", partials=("b * a ** (b - 1)", "out * log(a)"),
         safe=(1.0, None), spelling=("binop", ast.Pow), reverse=power_rule,
         forward=power_tangent, aliases=("pow",))
function("float_power(a, b)", "a ** b", partials=("b * a ** (b - 1)", "out * log(a)"),
         safe=(1.0, None), reverse=power_rule, forward=power_tangent)

# ---- exponentials and logarithms --------------------------------------------------------
function("exp(a)", "exp(a)", safe=(0.0,), math=("exp",))
function("exp2(a)", "2 ** a", safe=(0.0,))
function("expm1(a)", "exp(a) - 1", partials=("out + 1",), safe=(0.0,), math=("expm1",))
function("log(a)", "log(a)", safe=(1.0,), math=("log",))
function("log2(a)", "log(a, 2)", safe=(1.0,), math=("log2",))
function("log10(a)", "log(a, 10)", safe=(1.0,), math=("log10",))
function("log1p(a)", "log(1 + a)", safe=(0.0,), math=("log1p",))
# a sigmoid, as one tanh: stable, and needs no forward value
function("logaddexp(a, b)", "log(exp(a) + exp(b))",
         partials=("(1 + tanh((a - b) / 2)) / 2", "(1 + tanh((b - a) / 2)) / 2"))
function("logaddexp2(a, b)", "log(2 ** a + 2 ** b, 2)",
         partials=("2 ** (a - out)", "2 ** (b - out)"))

# ---- trigonometry ---------------------------------------------------------------------
function("sin(a)", "sin(a)", math=("sin",))
function("cos(a)", "cos(a)", math=("cos",))
function("tan(a)", "tan(a)", safe=(0.0,), math=("tan",))
function("arcsin(a)", "asin(a)", safe=(0.0,), aliases=("asin",), math=("asin",))
function("arccos(a)", "acos(a)", safe=(0.0,), aliases=("acos",), math=("acos",))
function("arctan(a)", "atan(a)", aliases=("atan",), math=("atan",))
function("arctan2(a, b)", "atan2(a, b)", safe=(1.0, 1.0), aliases=("atan2",),
         math=("atan2",))
function("deg2rad(a)", "a * pi / 180", aliases=("radians",))
function("rad2deg(a)", "a * 180 / pi", aliases=("degrees",))
# sin(pi a) / (pi a), with its derivative through the spherical Bessel function
# j1 (scipy.special): -pi j1(pi a) is exact at 0, where (cos(pi a) - sinc(a)) / a is 0 / 0
function("sinc(a)", "sin(pi * a) / (pi * a)", partials=("-pi * spherical_jn(1, pi * a)",))

# ---- hyperbolic -----------------------------------------------------------------------
function("sinh(a)", "sinh(a)", safe=(0.0,), math=("sinh",))
function("cosh(a)", "cosh(a)", safe=(0.0,), math=("cosh",))
function("tanh(a)", "tanh(a)", math=("tanh",))
function("arcsinh(a)", "asinh(a)", aliases=("asinh",), math=("asinh",))
function("arccosh(a)", "acosh(a)", safe=(2.0,), aliases=("acosh",), math=("acosh",))
function("arctanh(a)", "atanh(a)", safe=(0.0,), aliases=("atanh",), math=("atanh",))

# ---- remainders: slope 1 in a between the jumps, where a / b crosses an integer ---------
function("mod(a, b)", "a - floor(a / b) * b", partials=("1", "-floor(a / b)"),
         safe=(None, 1.0), spelling=("binop", ast.Mod), aliases=("remainder",))
function("fmod(a, b)", "a - trunc(a / b) * b", partials=("1", "-trunc(a / b)"),
         safe=(None, 1.0))

# ---- signs and copies -------------------------------------------------------------------
function("positive(a)", "a", linear=(0,))
# |a| with the sign of b: the corner of |a| at 0 gets slope 0, as abs does (kinks.py)
function("copysign(a, b)", "Abs(a) * sign(b)", partials=("sign(a) * copysign(1, b)", "0"),
         math=("copysign",))


def nan_to_num_rule(r, op, g):
    """A replaced entry is a constant: gradient 0 there, g where x is finite."""
    x = op.args[0]
    finite = r.b.op("isfinite", x, hint="finite")
    return [r.b.op("where", finite, g, Const(0.0), hint=x.hint + "_bar")]


def nan_to_num_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    return b.op("where", b.op("isfinite", op.args[0], hint="finite"), dargs[0], Const(0.0))


define("nan_to_num(x; copy=True, nan=0.0, posinf=None, neginf=None)", shape=ELEMENTWISE,
       reverse=nan_to_num_rule, forward=nan_to_num_tangent)

# ---- piecewise constant: zero derivative ------------------------------------------------
flat("sign(a)")
flat("floor(a)", math=("floor",))
flat("ceil(a)", math=("ceil",))
flat("trunc(a)", math=("trunc",))
flat("rint(a)")
flat("round(a; decimals=0)", aliases=("around", "round_"), methods=("round",))
flat("heaviside(a, b)")
flat("floor_divide(a, b)", ("binop", ast.FloorDiv))
for _name, _op in [("bitwise_and", ast.BitAnd), ("bitwise_or", ast.BitOr),
                   ("bitwise_xor", ast.BitXor)]:
    flat(f"{_name}(a, b)", ("binop", _op))
flat("invert(a)", ("unary", ast.Invert))

# ---- comparisons and logic: boolean masks -------------------------------------------------
for _name, _op in [("greater", ast.Gt), ("greater_equal", ast.GtE), ("less", ast.Lt),
                   ("less_equal", ast.LtE), ("equal", ast.Eq), ("not_equal", ast.NotEq)]:
    flat(f"{_name}(a, b)", ("compare", _op), boolean=True)
for _signature in ("isnan(a)", "isinf(a)", "isfinite(a)", "logical_and(a, b)",
                   "logical_or(a, b)", "logical_xor(a, b)", "logical_not(a)"):
    flat(_signature, boolean=True)
