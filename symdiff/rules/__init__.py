"""The derivative table: one entry per primitive.

Elementwise functions come from `elementwise.ELEMENTWISE` (SymPy derives
them); array primitives have named rules in `arrays.py` and `kinks.py`.
Primitives with zero derivative and pass-through primitives are listed here.
"""
from __future__ import annotations

from ..ir.nodes import Const
from . import arrays, custom, kinks
from .elementwise import ELEMENTWISE
from .formulas import local
from .translate import build

# ---- zero derivative: the result does not change under small changes -----------------
ZERO = frozenset("""
    sign heaviside step ties floor ceil trunc rint round isnan isinf
    isfinite greater greater_equal less less_equal equal not_equal logical_and
    logical_or logical_xor logical_not invert bitwise_and bitwise_or bitwise_xor
    floor_divide zeros_like ones_like shape ndim size len slice stop_gradient
    scalar_predicate
""".split())

# ---- pass-through: the value is the first operand, so is the gradient ----------------------
IDENTITY = frozenset("require_scalar require_float float".split())


def elementwise_rule(r, op, g, skip=()):
    """Chain rule for an elementwise function, with SymPy's partial derivatives.

    Operand positions in ``skip`` are left to the caller (their entry is None).
    """
    constants = formula_constants(op)
    env = {"a": op.args[0], "out": op.target, "G": g}
    if len(op.args) > 1:
        env["b"] = op.args[1]
    grads = []
    for i, x in enumerate(op.args):
        if not r.wants(x) or i in skip:
            grads.append(None)
            continue
        grads.append(r.unbroadcast(build(_local(op, i, constants), env, r.b), x))
    return grads


def _local(op, index, constants):
    """The cached derivative tree, or a located error if SymPy's derivative
    uses a function NumPy spelling is not known for."""
    try:
        return local(op.prim, index, constants)
    except NotImplementedError as exc:
        from ..errors import NoDerivativeRuleError
        raise NoDerivativeRuleError(f"`{op.prim}`: {exc}", op.loc,
                                    "give the function explicit derivatives with "
                                    "Rule(..., grads=(...)) in rules/elementwise.py") from None


def formula_constants(op):
    """The constant operands a derivative is specialised on: only power's
    exponent (``x ** 2`` differentiates as ``2 * x``, not through ``log``);
    other constants are plugged in as values."""
    if op.prim != "power":
        return ()
    return tuple((i, x.value) for i, x in enumerate(op.args) if isinstance(x, Const)
                 and isinstance(x.value, (int, float)) and not isinstance(x.value, bool))


def power_rule(r, op, g):
    """a ** b. d/db = out * log(a), taken as 0 where a = 0 (there out is 0 for b > 0),
    so a zero base gives no 0 * log(0) = NaN."""
    a, b = op.args
    if isinstance(a, Const) or not r.wants(b):
        return elementwise_rule(r, op, g)
    grads = elementwise_rule(r, op, g, skip=(1,))
    nonzero = r.b.op("not_equal", a, Const(0.0), hint="nonzero")
    log_a = r.b.op("log", r.b.op("where", nonzero, a, Const(1.0), hint="safe_base"))
    grads[1] = r.unbroadcast(r.b.mul(g, r.b.mul(op.target, log_a)), b)
    return grads


def _pass_through(r, op, g):
    return [g] + [None] * (len(op.args) - 1)


RULES = {name: _pass_through for name in IDENTITY}
RULES.update({
    # ---- kinks and choices ----
    "where": kinks.where_rule, "maximum": kinks.maximum_rule, "fmax": kinks.maximum_rule,
    "minimum": kinks.maximum_rule, "fmin": kinks.maximum_rule, "clip": kinks.clip_rule,
    "hypot": kinks.hypot_rule, "power": power_rule,
    # ---- reductions ----
    "sum": arrays.sum_rule, "mean": arrays.mean_rule, "prod": arrays.prod_rule,
    "max": arrays.extremum_rule, "min": arrays.extremum_rule, "norm": arrays.norm_rule,
    # ---- linear algebra ----
    "matmul": arrays.matmul_rule, "dot": arrays.matmul_rule, "outer": arrays.outer_rule,
    "vdot": arrays.vdot_rule,
    # ---- shapes ----
    "T": arrays.T_rule, "transpose": arrays.transpose_rule, "reshape": arrays.reshape_rule,
    "ravel": arrays.reshape_rule, "expand_dims": arrays.reshape_rule,
    "squeeze": arrays.reshape_rule, "swapaxes": arrays.swapaxes_rule,
    "broadcast_to": arrays.broadcast_to_rule, "concatenate": arrays.concatenate_rule,
    "stack": arrays.stack_rule, "array": arrays.array_rule, "getitem": arrays.getitem_rule,
    "tuple": arrays.array_rule,  # a tuple of values NumPy reads as an array
    # ---- changing how gradients flow ----
    "straight_through": custom.straight_through_rule, "backward_as": custom.backward_as_rule,
    "custom_value": custom.custom_value_rule,
    # ---- helpers of generated code ----
    "sum_to": arrays.sum_to_rule, "unreduce": arrays.unreduce_rule,
    "full_like": arrays.full_like_rule,
    "unindex": arrays.unindex_rule, "unindex_add": arrays.unindex_rule,
    "unindex_sum": arrays.unindex_sum_rule,
    "matmul_adjoint_a": arrays.matmul_adjoint_rule,
    "matmul_adjoint_b": arrays.matmul_adjoint_rule,
    "dot_adjoint_a": arrays.matmul_adjoint_rule, "dot_adjoint_b": arrays.matmul_adjoint_rule,
})


def rule_for(prim):
    """The rule for ``prim``; None if it has zero derivative; KeyError if unknown."""
    if prim in ZERO:
        return None
    if prim in RULES:
        return RULES[prim]
    if prim in ELEMENTWISE:  # read at call time: one new line there is a new rule
        return elementwise_rule
    raise KeyError(prim)
