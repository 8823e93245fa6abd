"""Statistics: var, std, ptp, nansum, nanmean, median, quantile, percentile
(and average, which the frontend writes with sums: frontend/numpy_forms.py).

Kinks follow the policy of rules/kinks.py. ``std`` is a norm of the
deviations, so at a constant slice (where it has a corner) its gradient is 0,
as for ``linalg.norm`` at 0; the deviations are taken in two passes, so that
a constant slice has deviations of exactly 0 even where rounding makes NumPy's
std a tiny nonzero number. ``ptp``, ``median`` and the quantiles give tied
entries equal shares of the gradient. NaN entries get gradient 0 from
``nansum`` and ``nanmean`` (they are left out of the sum); a NaN in a slice of
a quantile makes its value, and its gradient, NaN.
"""
from __future__ import annotations

from ..errors import NoDerivativeRuleError
from ..ir.nodes import Const
from ..ir.primitive import ARRAY, NEW, REDUCTION, define, like
from ..runtime.order_adjoints import _quantile_methods
from .kinks import KINK_NOTE
from .reductions import extremum_rule

STD_NOTE = "at a constant slice std has a kink (a norm at 0): its gradient there is 0"


def _like(r, value, like_):
    """Tell the shape facts that ``value`` has exactly the shape of ``like_``."""
    r.facts.shape[value] = r.facts.key(like_)
    return value


def _kept(b, value, op):
    """A reduction's result (or gradient) with the reduced axes back, as
    length-1 axes, so that it broadcasts against the operand."""
    axis = op.param("axis")
    if axis is not None and not op.param("keepdims") and not isinstance(value, Const):
        return b.op("expand_dims", value, axis=axis)
    return value  # (a number broadcasts as it is, in the operand's dtype)


def _reduced(op):
    return {"axis": op.param("axis"), "keepdims": bool(op.param("keepdims"))}


def _count(b, x, axis):
    """How many entries each result of a reduction over ``axis`` reduces."""
    if axis is None:
        return b.op("size", x)
    shape, count = b.op("shape", x), Const(1)
    for a in (axis if isinstance(axis, tuple) else (axis,)):
        count = b.mul(count, b.op("getitem", shape, Const(a)))
    return count


def _divisor(b, op):
    """N - ddof (NumPy's ``correction`` is ddof by another name)."""
    if op.param("out") is not None:
        raise NoDerivativeRuleError(f"`{op.prim}`: out= is not differentiated", op.loc,
                                    f"assign the result instead: y = np.{op.prim}(x, ...)")
    ddof = op.param("correction")
    ddof = op.param("ddof", 0) if ddof is None else ddof
    count = _count(b, op.args[0], op.param("axis"))
    return b.sub(count, Const(ddof)) if ddof else count


# ---- variance and standard deviation --------------------------------------------------------
def _centered(b, x, axis):
    return b.sub(x, b.op("mean", x, axis=axis, keepdims=True), hint="centered")


def _deviation(b, x, axis):
    """x minus its mean, corrected by the mean of that (0 where rounding
    made the first one miss): exactly 0 on a constant slice."""
    centered = _centered(b, x, axis)
    return b.sub(centered, b.op("mean", centered, axis=axis, keepdims=True), hint="deviation")


def var_rule(r, op, g):
    """d var = 2 (x - mean) / (N - ddof)."""
    x = op.args[0]
    scale = r.b.mul(_kept(r.b, g, op), r.b.div(Const(2.0), _divisor(r.b, op)))
    return [_like(r, r.b.mul(_centered(r.b, x, op.param("axis")), scale), x)]


def var_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    x = op.args[0]
    total = b.op("sum", b.mul(_centered(b, x, op.param("axis")), dargs[0]), **_reduced(op))
    return b.mul(total, b.div(Const(2.0), _divisor(b, op)))


def _safe_std(b, std):
    """std, with 1 where it is 0 (there the deviations are 0: gradient 0)."""
    nonzero = b.op("not_equal", std, Const(0.0), hint="nonzero")  # (NaN keeps its NaN)
    return b.op("where", nonzero, std, Const(1.0), hint="safe_std")


def std_rule(r, op, g):
    """d std = (x - mean) / ((N - ddof) std); 0 at a constant slice."""
    x = op.args[0]
    kept = _kept(r.b, op.target, op)
    with r.b.noting(STD_NOTE):
        safe = _safe_std(r.b, kept)
    scale = r.b.div(_kept(r.b, g, op), r.b.mul(_divisor(r.b, op), safe))
    return [_like(r, r.b.mul(_deviation(r.b, x, op.param("axis")), scale), x)]


def std_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    x = op.args[0]
    total = b.op("sum", b.mul(_deviation(b, x, op.param("axis")), dargs[0]), **_reduced(op))
    return b.div(total, b.mul(_divisor(b, op), _safe_std(b, op.target)))


_MOMENT = "(a; axis=None, dtype=None, out=None, ddof=0, keepdims=False, correction=None)"
define("var" + _MOMENT, shape=REDUCTION, reverse=var_rule, forward=var_tangent,
       methods=("var",))
define("std" + _MOMENT, shape=REDUCTION, reverse=std_rule, forward=std_tangent,
       methods=("std",))


# ---- peak to peak: the max's share minus the min's ------------------------------------------
def _ptp_shares(b, op):
    """+1 / (ties for the max) at the max, -1 / (ties for the min) at the min."""
    x, axis = op.args[0], op.param("axis")
    along = {"axis": axis} if axis is not None else {}
    shares = []
    for prim in ("max", "min"):
        extreme = b.op(prim, x, axis=axis, keepdims=True)
        hits = b.op("equal", x, extreme, hint="is_" + prim)
        shares.append(b.div(hits, b.op("ties", hits, x, **along)))
    return b.sub(*shares, hint="share")


def ptp_rule(r, op, g):
    with r.b.noting(KINK_NOTE):
        return [_like(r, r.b.mul(_kept(r.b, g, op), _ptp_shares(r.b, op)), op.args[0])]


def ptp_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    return b.op("sum", b.mul(dargs[0], _ptp_shares(b, op)), **_reduced(op))


define("ptp(a; axis=None, out=None, keepdims=False)", shape=REDUCTION, reverse=ptp_rule,
       forward=ptp_tangent)


# ---- sums and means that leave NaN out ------------------------------------------------------
def nansum_rule(r, op, g):
    x = op.args[0]
    spread = r.b.op("unreduce", g, x, **_reduced(op))
    return [_like(r, r.b.op("where", r.b.op("isnan", x), Const(0.0), spread), x)]


def nansum_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    kept = b.op("where", b.op("isnan", op.args[0]), Const(0.0), dargs[0])
    return b.op("sum", kept, **_reduced(op))


def nanmean_rule(r, op, g):
    """g / (the entries that are not NaN) at those, 0 at NaN ones."""
    x, axis = op.args[0], op.param("axis")
    missing = r.b.op("isnan", x, hint="missing")
    along = {"axis": axis} if axis is not None else {}
    counted = r.b.op("ties", r.b.op("invert", missing), x, **along)
    spread = r.b.div(r.b.op("unreduce", g, x, **_reduced(op)), counted)
    return [_like(r, r.b.op("where", missing, Const(0.0), spread), x)]


def nanmean_tangent(b, op, dargs):
    """The mean of the tangent over the entries that are not NaN."""
    if dargs[0] is None:
        return None
    left_out = b.op("where", b.op("isnan", op.args[0]), Const(float("nan")), dargs[0])
    return b.op("nanmean", left_out, **_reduced(op))


_NAN_REDUCTION = "(a; axis=None, dtype=None, out=None, keepdims=False)"
define("nansum" + _NAN_REDUCTION, shape=REDUCTION, reverse=nansum_rule, forward=nansum_tangent)
define("nanmean" + _NAN_REDUCTION, shape=REDUCTION, reverse=nanmean_rule,
       forward=nanmean_tangent)


# ---- max and min that leave NaN out ---------------------------------------------------------
def nan_extremum_tangent(b, op, dargs):
    """As max's (ties share), with a NaN entry's tangent left out: it is no
    extremum (a NaN tangent there would make the sum NaN)."""
    if dargs[0] is None:
        return None
    x, out, axis, keep = op.args[0], op.target, op.param("axis"), op.param("keepdims")
    along = {"axis": axis} if axis is not None else {}
    kept = b.op("expand_dims", out, axis=axis) if axis is not None and not keep else out
    hits = b.op("equal", x, kept)
    share = b.div(b.op("where", hits, dargs[0], Const(0.0)), b.op("ties", hits, x, **along))
    return b.op("sum", share, **along, **({"keepdims": True} if keep else {}))


# the reverse rule is max's: a NaN entry is not equal to the extremum, and gets 0 (a slice
# of NaN only has a NaN extremum, and its entries NaN gradients, as max's NaN does)
define("nanmax(a; axis=None, keepdims=False)", shape=REDUCTION, reverse=extremum_rule,
       forward=nan_extremum_tangent)
define("nanmin(a; axis=None, keepdims=False)", shape=REDUCTION, reverse=extremum_rule,
       forward=nan_extremum_tangent)


# ---- median, quantile, percentile -----------------------------------------------------------
def _quantile_args(op, wants_q=False):
    """(a, q, the helpers' params) of median, quantile or percentile."""
    method = op.param("method", "linear")
    if op.param("overwrite_input") or op.param("out") is not None or wants_q or \
            method not in _quantile_methods():
        what = "overwrite_input=True" if op.param("overwrite_input") else \
            "out=" if op.param("out") is not None else \
            "the gradient with respect to q" if wants_q else f"method={method!r}"
        raise NoDerivativeRuleError(
            f"`{op.prim}`: {what} is not differentiated", op.loc,
            f"the methods differentiated are {', '.join(_quantile_methods())}; q must not "
            "need a gradient; the input must not be overwritten")
    q = Const(0.5) if op.prim == "median" else op.args[1]
    params = {"axis": op.param("axis"), "method": method, "keepdims": bool(op.param("keepdims")),
              "per": 100 if op.prim == "percentile" else 1}
    return op.args[0], q, params


def quantile_rule(r, op, g):
    """Each entry's weight in the result (1 - t and t on the two entries the
    result lies between; ties share them evenly) times the gradient."""
    a, q, params = _quantile_args(op, len(op.args) > 1 and r.wants(op.args[1]))
    with r.b.noting(KINK_NOTE):
        return [_like(r, r.b.op("quantile_adjoint", g, a, q, **params), a)] + \
            [None] * (len(op.args) - 1)


def quantile_forward(b, op, dargs):
    a, q, params = _quantile_args(op, len(dargs) > 1 and dargs[1] is not None)
    return b.op("quantile_tangent", dargs[0], a, q, **params) if dargs[0] is not None else None


def _transposed(name):
    """The rule of a quantile helper: the other helper (they are transposes)."""
    def rule(r, op, h):
        return [r.b.op(name, h, *op.args[1:], **dict(op.params)), None, None]
    return rule


_QUANTILE = "axis=None, out=None, overwrite_input=False, method='linear', keepdims=False"
define(f"quantile(a, q; {_QUANTILE})", reverse=quantile_rule, forward=quantile_forward)
define(f"percentile(a, q; {_QUANTILE})", reverse=quantile_rule, forward=quantile_forward)
define("median(a; axis=None, out=None, overwrite_input=False, keepdims=False)",
       shape=REDUCTION, reverse=quantile_rule, forward=quantile_forward)
_HELPER = "axis=None, method='linear', keepdims=False, per=1"
define(f"quantile_adjoint(g, a, q; {_HELPER})", ("helper", "_quantile_adjoint"), like(1),
       reverse=_transposed("quantile_tangent"), linear=(0,), result=ARRAY)
define(f"quantile_tangent(t, a, q; {_HELPER})", ("helper", "_quantile_tangent"), NEW,
       reverse=_transposed("quantile_adjoint"), linear=(0,), result=ARRAY)


# ---- the weights of np.average --------------------------------------------------------------
def weights_along_rule(r, op, h):
    weights = op.args[0]
    return [r.b.op("reshape", h, r.b.op("shape", weights)), None]


define("weights_along(weights, like; axis=None)", ("helper", "_weights_along"), NEW,
       reverse=weights_along_rule, linear=(0,), result=ARRAY)
