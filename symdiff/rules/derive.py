"""The derivative rules of a primitive, from its record.

A record gives its rules explicitly, or they follow from what it is:

- an elementwise ``Formula``: the chain rule with SymPy's partial derivatives
  (reverse and forward mode alike);
- ``linear`` in some operands (``sum``, ``reshape``, ``concatenate``): the
  tangent is the primitive applied to the tangents, as JAX derives JVPs of
  linear primitives (its reverse rule, the transpose, is still written out);
- ``multilinear`` (a product such as ``matmul``): one term per operand;
- ``passes`` (``float(x)``, an input check): value and derivative pass through;
- ``zero``: no derivative at all.

Reverse rules are ``rule(r, op, g) -> [adjoint or None per operand]``; ``r``
is the reverse pass (``r.b`` builds operations, ``r.wants(atom)`` says
whether an operand needs a gradient, ``r.unbroadcast(c, x)`` sums ``c`` back
to the shape of ``x``). Forward rules are ``rule(b, op, tangents) ->
tangent`` with ``b`` the builder and None for a zero tangent.
"""
from __future__ import annotations

from ..errors import NoDerivativeRuleError
from ..ir.nodes import Const
from ..ir.primitive import TABLE
from .formulas import ORDERS, differentiable, local
from .translate import build


# x ** p and np.float_power(x, p): derivatives specialised on a constant p
POWERS = ("power", "float_power")


class NoRule(KeyError):
    """The primitive has no rule for this mode (reported where it is met)."""


# npcall's functions with rules of their own: func -> (reverse, forward), as
# np.full(shape, v), linear in v (python_values.py); any other is refused
NPCALL_RULES = {}


def reverse_rule(name, func=None):
    """The reverse rule of ``name`` (of npcall: of its function ``func``);
    None if its derivative is zero."""
    if name == "npcall" and func in NPCALL_RULES:
        return NPCALL_RULES[func][0]
    prim = TABLE.get(name)
    if prim is None:
        raise NoRule(name)
    if prim.zero:
        return None
    if prim.reverse is not None:
        return prim.reverse
    if prim.passes:
        return pass_through
    if prim.formula is not None:
        return elementwise_rule
    raise NoRule(name)


def forward_rule(name, func=None):
    """The forward (tangent) rule of ``name``; None if its derivative is zero."""
    if name == "npcall" and func in NPCALL_RULES:
        return NPCALL_RULES[func][1]
    prim = TABLE.get(name)
    if prim is None:
        raise NoRule(name)
    if prim.zero:
        return None
    if prim.forward is not None:
        return prim.forward
    if prim.passes:
        return first_tangent
    if prim.linear:
        return linear_tangent
    if prim.multilinear:
        return multilinear_tangent
    if prim.formula is not None:
        return elementwise_tangent
    raise NoRule(name)


# ---- elementwise functions: partial derivatives from SymPy -------------------------
def elementwise_rule(r, op, g, skip=()):
    """Chain rule for an elementwise function; operand positions in ``skip``
    are left to the caller (their entry is None)."""
    constants = formula_constants(op)
    env = _formula_env(op)
    env["G"] = g
    grads = []
    for i, x in enumerate(op.args):
        tree = _local(op, i, constants) if r.wants(x) and i not in skip else None
        grads.append(None if tree is None else r.unbroadcast(build(tree, env, r.b), x))
    return grads


def elementwise_tangent(b, op, dargs):
    constants = formula_constants(op)
    env = _formula_env(op)
    trees = [(_local(op, i, constants), d) for i, d in enumerate(dargs) if d is not None]
    return b.total([build(tree, {**env, "G": d}, b) for tree, d in trees if tree is not None])


def _formula_env(op):
    """The formula's names: the record's operand names, and ``out``."""
    env = dict(zip(TABLE[op.prim].operands, op.args))
    env["out"] = op.target
    return env


def _local(op, index, constants):
    """The cached derivative tree (None where the derivative is zero), or a
    located error: an operand the function has no derivative in, or a
    derivative NumPy and SciPy have no spelling for."""
    record = TABLE[op.prim]
    if not differentiable(record.formula, index):
        raise NoDerivativeRuleError(
            f"`{op.prim}` has no derivative in its operand `{record.operands[index]}`",
            op.loc, f"pass `{record.operands[index]}` as a number, or wrap it in "
            "symdiff.stop_gradient(...) if its gradient is not needed")
    try:
        tree = local(op.prim, index, constants)
        return None if tree == ["num", 0.0] else tree
    except NotImplementedError as exc:
        raise NoDerivativeRuleError(f"`{op.prim}`: {exc}", op.loc,
                                    "give the function explicit partial derivatives: "
                                    "Formula(..., partials=(...)) in its record") from None


def formula_constants(op):
    """The constant operands a derivative is specialised on: power's exponent
    (``x ** 2`` differentiates as ``2 * x``, not through ``log``) and orders,
    the operands a function has no derivative in (``polygamma(1, x)``
    differentiates as ``polygamma(2, x)``; ``spherical_jn(0, z)`` as
    ``-spherical_jn(1, z)``, with no term of order -1); other constants are
    plugged in as values."""
    formula = TABLE[op.prim].formula
    if op.prim in POWERS:
        positions = range(len(op.args))
    elif op.prim in ORDERS:
        positions = [i for i in range(len(op.args)) if not differentiable(formula, i)]
    else:  # (a count such as binom's n is plugged in as a value)
        positions = ()
    return tuple((i, _order(op.args[i].value)) for i in positions
                 if isinstance(op.args[i], Const) and isinstance(op.args[i].value, (int, float))
                 and not isinstance(op.args[i].value, bool))


def _order(value):
    """An order written 2.0 is order 2 (one derivative, one cache entry)."""
    return int(value) if isinstance(value, float) and value.is_integer() \
        and abs(value) < 2 ** 53 else value


def guard_value(prim, index, args):
    """A value to put in operand ``index`` where its `where` branch is not
    taken, or None: when any value is safe there (the function is total in
    that operand, or the call's other operands make it so: ``x ** 2``)."""
    record = TABLE.get(prim)
    formula = record.formula if record is not None else None
    if formula is None or index >= len(formula.safe) or formula.safe[index] is None:
        return None
    if prim in POWERS and _is_natural(args[1]):
        return None
    return formula.safe[index]


def _is_natural(atom):
    value = getattr(atom, "value", None)
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and float(value).is_integer() and value >= 0


# ---- derived forward rules -------------------------------------------------------------
def linear_tangent(b, op, dargs):
    """Jointly linear in the operands ``linear`` names: the primitive applied
    to their tangents (zeros where one has none); other operands as they are."""
    positions = _positions(TABLE[op.prim].linear, len(op.args))
    if all(dargs[i] is None for i in positions):
        return None
    args = list(op.args)
    for i in positions:
        args[i] = dargs[i] if dargs[i] is not None else b.op("zeros_like", op.args[i])
    return b.op(op.prim, *args, **dict(op.params))


def multilinear_tangent(b, op, dargs):
    """Linear in each operand: d f(x, y) = f(dx, y) + f(x, dy)."""
    terms = []
    for i, d in enumerate(dargs):
        if d is not None:
            args = list(op.args)
            args[i] = d
            terms.append(b.op(op.prim, *args, **dict(op.params)))
    return b.total(terms)


def _positions(linear, count):
    """``linear`` with "all" (every operand, a sequence included) expanded."""
    return range(count) if linear == "all" else linear


def refused(message, hint):
    """A rule that is an error where it is needed: a mode a primitive does not
    have by design (the message says why, the hint what to do instead)."""
    def refuse(_, op, __):
        raise NoDerivativeRuleError(f"`{op.prim}`: {message}", op.loc, hint)
    return refuse


def pass_through(r, op, g):
    return [g] + [None] * (len(op.args) - 1)


def first_tangent(b, op, dargs):
    return dargs[0]


def second_tangent(b, op, dargs):
    return dargs[1]
