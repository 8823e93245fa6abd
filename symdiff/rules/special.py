"""Special functions of scipy.special: elementwise ones are one formula each,
the softmax family has array rules.

Generated code calls them as ``scipy.special.NAME(...)`` and imports
scipy.special only when the user's code uses one (symdiff itself does not
need SciPy). SymPy derives most derivatives (gammaln's is digamma, digamma's
polygamma(1, .), i0's i1: translate.py spells them with SciPy's functions);
``partials`` give them where a better form exists, and may call any
primitive by name (``erfcx(...)`` keeps log_ndtr's derivative finite in the
far tail). An operand whose partial is None is an order or a count
(polygamma's ``n``): no derivative in it, and derivatives are specialised on
its value, like power's exponent.
"""
from __future__ import annotations

import math

from ..ir.nodes import Const
from ..errors import NoDerivativeRuleError
from ..ir.patterns import reduced
from ..ir.primitive import ELEMENTWISE, NEW, REDUCTION, SCALAR, Formula, define, like
from .derive import elementwise_rule, elementwise_tangent


def special(signature, formula, partials=(), safe=(), **fields):
    """A differentiable elementwise function of scipy.special."""
    name = signature.split("(")[0]
    return define(signature, ("module", "scipy.special", name), ELEMENTWISE,
                  formula=Formula(formula, partials, safe), **fields)


# ---- the logistic function ----------------------------------------------------------
# out * (1 - out): the forward value reused, no exp computed again
special("expit(a)", "1 / (1 + exp(-a))", partials=("out * (1 - out)",))
special("logit(x)", "log(x / (1 - x))", partials=("1 / (x * (1 - x))",), safe=(0.5,))
# expit(-x), not exp(-x) / (1 + exp(-x)): inf / inf far below zero
special("log_expit(x)", "-log(1 + exp(-x))", partials=("expit(-x)",))

# ---- gamma and its logarithm, digamma, polygamma ---------------------------------------
# (gammaln is log|gamma|: between the poles, where gamma < 0, its slope is digamma too)
special("gammaln(x)", "loggamma(x)", safe=(1.0,), math=("lgamma",))
special("gamma(x)", "gamma(x)", safe=(1.0,), math=("gamma",))
special("digamma(x)", "polygamma(0, x)", safe=(1.0,), aliases=("psi",))
special("polygamma(n, x)", "polygamma(n, x)", partials=(None, "polygamma(n + 1, x)"),
        safe=(None, 1.0))
special("betaln(a, b)", "loggamma(a) + loggamma(b) - loggamma(a + b)", safe=(1.0, 1.0))


def multigammaln_rule(r, op, g):
    """d/da log Gamma_d(a) = sum over j < d of digamma(a - j / 2)."""
    return [r.b.mul(g, _digamma_sum(r.b, op))]


def multigammaln_tangent(b, op, dargs):
    return None if dargs[0] is None else b.mul(dargs[0], _digamma_sum(b, op))


def _digamma_sum(b, op):
    a, d = op.args[0], op.param("d")
    if not isinstance(d, int) or d < 1:
        raise NoDerivativeRuleError("`multigammaln` needs its dimension `d`, a positive int",
                                    op.loc, "call it as scipy.special.multigammaln(a, d)")
    return b.total([b.op("digamma", b.sub(a, Const(j / 2)) if j else a)
                    for j in range(d)])


# the dimension d is a compile-time constant: the rule is a sum of d digammas
define("multigammaln(a; d=None)", ("module", "scipy.special", "multigammaln"), ELEMENTWISE,
       reverse=multigammaln_rule, forward=multigammaln_tangent)

# ---- error functions and the normal distribution ---------------------------------------
special("erf(x)", "erf(x)", math=("erf",))
special("erfc(x)", "erfc(x)", math=("erfc",))
special("erfinv(x)", "erfinv(x)", safe=(0.0,))
special("erfcinv(x)", "erfcinv(x)", partials=("-sqrt(pi) * exp(out ** 2) / 2",),
        safe=(1.0,))
# erfcx(x) = exp(x**2) erfc(x): the derivative through out, finite where exp(x**2) is not
special("erfcx(x)", "exp(x ** 2) * erfc(x)", partials=("2 * x * out - 2 / sqrt(pi)",))
special("ndtr(x)", "(1 + erf(x / sqrt(2))) / 2")


def normal_ratio(x):
    """pdf(x) / cdf(x) of the standard normal, the slope of log_ndtr, as text:
    sqrt(2/pi) / erfcx(-x/sqrt(2)) is finite in both tails (about -x far below
    zero, 0 far above), where exp(-x**2/2) / ndtr(x) is 0 / 0. The argument of
    erfcx stops at -26, where erfcx is 2e293 and the ratio 4e-294 (beyond, it
    would overflow, and the next derivative would be 0 * inf)."""
    return f"sqrt(2 / pi) / erfcx(Max(-({x}) / sqrt(2), -26))"


special("log_ndtr(x)", "log(erfc(-x / sqrt(2)) / 2)", partials=(normal_ratio("x"),))
special("ndtri(x)", "sqrt(2) * erfinv(2 * x - 1)", partials=("sqrt(2 * pi) * exp(out ** 2 / 2)",),
        safe=(0.5,))

# ---- x log y and the entropies: defined as 0 where x = 0 ---------------------------------


def _in_y(c, k, shift):
    """Where x = 0 the function does not change with y (xlogy(0, y) is 0 for
    every y), so its partial in y is c there, also at y = 0 (y = -1 for
    xlog1py), where it was 0 / 0: x over y, with y taken as one at that point
    only (elsewhere the partial's own derivative in x, 1 / y, stays), and
    c + k * that."""
    def partial(b, op):
        x, y = op.args
        at_zero = b.op("logical_and", b.op("equal", x, Const(0.0)),
                       b.op("equal", y, Const(-shift)))
        safe = b.op("where", at_zero, Const(1.0 - shift), y)
        ratio = b.div(x, b.add(Const(shift), safe) if shift else safe)
        scaled = ratio if k == 1 else b.neg(ratio)
        return b.add(Const(c), scaled) if c else scaled

    def reverse(r, op, g):
        grads = elementwise_rule(r, op, g, skip=(1,))
        if r.wants(op.args[1]):
            grads[1] = r.unbroadcast(r.b.mul(g, partial(r.b, op)), op.args[1])
        return grads

    def forward(b, op, dargs):
        in_x = elementwise_tangent(b, op, [dargs[0], None])
        in_y = b.mul(dargs[1], partial(b, op)) if dargs[1] is not None else None
        return b.total([t for t in (in_x, in_y) if t is not None]) \
            if in_x is not None or in_y is not None else None
    return {"reverse": reverse, "forward": forward}


special("xlogy(x, y)", "x * log(y)", partials=("log(y)", "x / y"), safe=(None, 1.0),
        **_in_y(0.0, 1, 0.0))
special("xlog1py(x, y)", "x * log(1 + y)", partials=("log1p(y)", "x / (1 + y)"),
        safe=(None, 0.0), **_in_y(0.0, 1, 1.0))
special("entr(x)", "-x * log(x)", partials=("-log(x) - 1",), safe=(1.0,))
special("rel_entr(x, y)", "x * log(x / y)", partials=("log(x / y) + 1", "-x / y"),
        safe=(1.0, 1.0), **_in_y(0.0, -1, 0.0))
special("kl_div(x, y)", "x * log(x / y) - x + y", partials=("log(x / y)", "1 - x / y"),
        safe=(1.0, 1.0), **_in_y(1.0, -1, 0.0))

# ---- modified Bessel functions (i0' = i1; the orders' recurrence, no division by x) ----
special("i0(x)", "besseli(0, x)")
special("i1(x)", "besseli(1, x)")
special("iv(v, z)", "besseli(v, z)",
        partials=(None, "(besseli(v - 1, z) + besseli(v + 1, z)) / 2"))
# exponentially scaled: e^-|x| i_v(x); the kink of |x| at 0 gets the average slope
special("i0e(x)", "exp(-Abs(x)) * besseli(0, x)", partials=("i1e(x) - sign(x) * out",))
special("i1e(x)", "exp(-Abs(x)) * besseli(1, x)",
        partials=("(i0e(x) + ive(2, x)) / 2 - sign(x) * out",))
special("ive(v, z)", "exp(-Abs(z)) * besseli(v, z)",
        partials=(None, "(ive(v - 1, z) + ive(v + 1, z)) / 2 - sign(z) * out"))
# spherical Bessel j_n: np.sinc(x) = j0(pi x), so sinc' = -pi j1(pi x), exact at 0;
# the recurrence j_n' = (n j_(n-1) - (n+1) j_(n+1)) / (2n+1) divides by no z
special("spherical_jn(n, z)", "jn(n, z)",
        partials=(None, "(n * spherical_jn(n - 1, z) - (n + 1) * spherical_jn(n + 1, z))"
                        " / (2 * n + 1)"))


# ---- logsumexp, softmax, log_softmax: over an axis --------------------------------------
def _expanded(b, value, op):
    """``value``, reduced over ``op``'s axes, with those axes back (length 1), so
    it broadcasts against the operand."""
    axis = op.param("axis")
    if axis is None or op.param("keepdims") or isinstance(value, Const):
        return value  # a scalar, the axes kept, or a number (it broadcasts, in x's dtype)
    return b.op("expand_dims", value, axis=axis)


def _weights(b, op):
    """exp(a - logsumexp): the softmax of a, the derivative of logsumexp in b (an
    entry at -inf gets 0, and so does a slice all -inf, whose value stays -inf
    however its entries move: an HMM's or CRF's state no path reaches; JAX
    gives NaN there, which spreads to every gradient of the forward pass)."""
    a, lse = op.args[0], op.target
    reached = b.op("greater", lse, Const(-math.inf), hint="reached")
    shift = b.op("where", reached, lse, Const(0.0), hint=lse.hint)
    return b.op("exp", b.sub(a, _expanded(b, shift, op)), hint="weights")


def _spread_value(b, g):
    """The number ``c`` if ``g`` is it spread over an array's shape
    (``np.full_like(lse, c)``, the gradient of ``c * np.sum(lse)``): times
    the weights, which have the operand's shape, it needs no array of its own."""
    made = b.facts.producer(g)
    if made is not None and made.prim == "unreduce" and made.param("axis") is None \
            and b.facts.is_scalar(made.args[0]) and isinstance(b.facts.dtype(made.args[0]),
                                                               (type, type(None))):
        return made.args[0]
    return None


def logsumexp_rule(r, op, g):
    a, *scale = op.args
    weights = _weights(r.b, op)
    spread = _spread_value(r.b, g)
    g = spread if spread is not None else _expanded(r.b, g, op)
    grads = [None] * len(op.args)
    if scale and r.wants(scale[0]):
        grads[1] = r.unbroadcast(r.b.mul(g, weights), scale[0])
    if r.wants(a):
        grads[0] = r.unbroadcast(r.b.mul(g, r.b.mul(scale[0], weights) if scale else weights),
                                 a)
    return grads


def logsumexp_tangent(b, op, dargs):
    weights = _weights(b, op)
    terms = []
    if dargs[0] is not None:
        terms.append(b.mul(b.mul(op.args[1], weights) if len(op.args) > 1 else weights,
                           dargs[0]))
    if len(dargs) > 1 and dargs[1] is not None:
        terms.append(b.mul(weights, dargs[1]))
    total = b.total(terms)
    return b.op("sum", total, **_reduction(op))


def _reduction(op):
    return {k: v for k, v in op.params if k in ("axis", "keepdims") and v is not None}


def _along(op):
    """Sum over the softmax's axis (all entries for None), keeping it to broadcast."""
    axis = op.param("axis")
    return {"axis": axis, "keepdims": True} if axis is not None else {}


def softmax_rule(r, op, g):
    y = op.target
    inner = r.b.op("sum", r.b.mul(g, y), **_along(op))
    return [r.b.mul(y, r.b.sub(g, inner))]


def softmax_tangent(b, op, dargs):
    y = op.target
    return b.mul(y, b.sub(dargs[0], b.op("sum", b.mul(y, dargs[0]), **_along(op))))


def log_softmax_rule(r, op, g):
    probabilities = r.b.op("exp", op.target, hint="probabilities")
    return [r.b.sub(g, r.b.mul(probabilities, r.b.op("sum", g, **_along(op))))]


def log_softmax_tangent(b, op, dargs):
    probabilities = b.op("exp", op.target, hint="probabilities")
    return b.sub(dargs[0], b.op("sum", b.mul(probabilities, dargs[0]), **_along(op)))


def _logsumexp_shape(op, facts):
    """A reduction of ``a``; with a weight ``b`` of another shape, its own."""
    if len(op.args) > 1 and not facts.same_shape(op.args[0], op.args[1]) \
            and not facts.is_scalar(op.args[1]):
        return op.target
    axis, keep = op.param("axis"), op.param("keepdims")
    if keep:
        return ("kept", facts.key(op.args[0]), axis)
    return SCALAR if axis is None else op.target


def _logsumexp_pattern(op, facts):
    """The shape pattern of a reduction of ``a`` (weights of its shape or scalar)."""
    if len(op.args) > 1 and not facts.same_shape(op.args[0], op.args[1]) \
            and not facts.is_scalar(op.args[1]):
        return None
    return reduced(facts.pattern(op.args[0]), op.param("axis"), op.param("keepdims"))


# ---- logsumexp(..., return_sign=True): (log|s|, sign(s)), s = sum(b exp(a)) ---------------
def _signed_parts(b, op):
    """The value log|s| and sign(s) of a signed logsumexp, as atoms."""
    return [b.op("output", op.target, index=k, hint=h)
            for k, h in ((0, "log_abs"), (1, "sign"))]


def signed_logsumexp_rule(r, op, g):
    """d log|s| = ds / s = sign(s) ds exp(-log|s|); the sign is flat."""
    g_value, _ = g
    if g_value is None:
        return [None] * len(op.args)
    value, sign = _signed_parts(r.b, op)
    return logsumexp_rule(r, _as_value(op, value), r.b.mul(g_value, sign))


def signed_logsumexp_tangent(b, op, dargs):
    value, sign = _signed_parts(b, op)
    tangent = logsumexp_tangent(b, _as_value(op, value), dargs)
    return (None if tangent is None else b.mul(sign, tangent), None)


def _as_value(op, value):
    """``op`` read as the plain logsumexp whose value is ``value``."""
    from dataclasses import replace
    return replace(op, target=value)


# (defined before logsumexp, which scipy.special.logsumexp then names: the call
# becomes this one only with return_sign=True, frontend/library_calls.py)
define("logsumexp_signed(a, *b; axis=None, keepdims=False, return_sign=False)",
       ("module", "scipy.special", "logsumexp"), NEW, reverse=signed_logsumexp_rule,
       forward=signed_logsumexp_tangent, outputs=(_logsumexp_shape, _logsumexp_shape))
# ``b``, the weights, is optional and passed by keyword (see frontend/library_calls.py)
# np.logaddexp.reduce(a, axis=0): NumPy's logsumexp along one axis (the call
# always names its axis: frontend/arguments.py)
define("logaddexp_reduce(a; axis=0, keepdims=False)", ("np", "logaddexp.reduce"), REDUCTION,
       reverse=logsumexp_rule, forward=logsumexp_tangent)
define("logsumexp(a, *b; axis=None, keepdims=False)", ("module", "scipy.special", "logsumexp"),
       _logsumexp_shape, reverse=logsumexp_rule, forward=logsumexp_tangent,
       pattern=_logsumexp_pattern)
define("softmax(x; axis=None)", ("module", "scipy.special", "softmax"), like(0),
       reverse=softmax_rule, forward=softmax_tangent)
define("log_softmax(x; axis=None)", ("module", "scipy.special", "log_softmax"), like(0),
       reverse=log_softmax_rule, forward=log_softmax_tangent)
