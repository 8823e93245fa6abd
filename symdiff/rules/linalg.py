"""Products: matmul, dot, outer, vdot; and stacked transposes (``x.mT``).

The adjoint helpers of a product (``_matmul_adjoint_a`` and friends: the
gradient of one operand for any ranks) are primitives too: they are linear
in the gradient and in the other operand, so their own rules are products.
"""
from __future__ import annotations

import ast

from ..ir import patterns
from ..ir.primitive import ARRAY, NEW, SCALAR, define, like


def _like(r, value, like_):
    """Tell the shape facts that ``value`` has exactly the shape of ``like_``."""
    r.facts.shape[value] = r.facts.key(like_)
    return value


# ---- products -----------------------------------------------------------------------------
def matmul_rule(r, op, g):
    """matmul and dot; the helpers return gradients of exactly each operand's shape."""
    a, b = op.args
    params = dict(op.params)  # (tensordot's axes)
    return [_like(r, r.b.op(op.prim + "_adjoint_a", g, a, b, **params), a)
            if r.wants(a) else None,
            _like(r, r.b.op(op.prim + "_adjoint_b", g, a, b, **params), b)
            if r.wants(b) else None]


def outer_rule(r, op, g):
    """np.outer(a, b) is ravel(a)[:, None] * ravel(b): ``g @ b`` and ``a @ g``
    for vectors, raveled and shaped back for any other operands."""
    a, b = op.args
    vectors = all(r.b.facts.rank(x) == 1 for x in op.args)
    return [_outer_part(r, g, b, a, vectors) if r.wants(a) else None,
            _outer_part(r, a, g, b, vectors, first=True) if r.wants(b) else None]


def _outer_part(r, left, right, like, vectors, first=False):
    if vectors:
        return r.b.op("matmul", left, right)
    if first:
        left = r.b.op("ravel", left)
    else:
        right = r.b.op("ravel", right)
    return r.b.op("reshape", r.b.op("matmul", left, right), r.b.op("shape", like))


def vdot_rule(r, op, g):
    a, b = op.args
    return [r.b.mul(g, b) if r.wants(a) else None, r.b.mul(g, a) if r.wants(b) else None]


def _product_pattern(how):
    def pattern(op, facts):
        return how(*(facts.pattern(a) for a in op.args))
    return pattern


def _outer_pattern(op, facts):
    a, b = (facts.pattern(x) for x in op.args)
    if a is None or b is None or len(a) > 1 or len(b) > 1:
        return None
    return (a[0] if a else 1, b[0] if b else 1)


define("matmul(a, b)", ("binop", ast.MatMult), NEW, reverse=matmul_rule, multilinear=True,
       result=ARRAY, pattern=_product_pattern(patterns.matmul))
define("dot(a, b)", reverse=matmul_rule, multilinear=True, methods=("dot",),
       pattern=_product_pattern(patterns.dot))
define("outer(a, b)", reverse=outer_rule, multilinear=True, pattern=_outer_pattern)
define("vdot(a, b)", shape=SCALAR, reverse=vdot_rule, multilinear=True)


# ---- the adjoints of products, as primitives ---------------------------------------------------
def matmul_adjoint_rule(r, op, h):
    """Second derivatives. ``a_bar = L_b^T g`` where ``L_b(a) = a @ b``, so
    <h, a_bar> = <h @ b, g>: g gets ``h @ b``, b gets the adjoint of ``h @ b``.
    """
    g, a, b = op.args
    forward, side = op.prim.rsplit("_adjoint_", 1)
    params = dict(op.params)  # (tensordot's axes)
    if side == "a":
        return [r.unbroadcast(r.b.op(forward, h, b, **params), g) if r.wants(g) else None,
                None, _like(r, r.b.op(forward + "_adjoint_b", g, h, b, **params), b)
                if r.wants(b) else None]
    return [r.unbroadcast(r.b.op(forward, a, h, **params), g) if r.wants(g) else None,
            _like(r, r.b.op(forward + "_adjoint_a", g, a, h, **params), a)
            if r.wants(a) else None, None]


def matmul_adjoint_tangent(b, op, dargs):
    """Bilinear in (g, the other operand); the operand itself gives only a shape."""
    g, x, y = op.args
    dg, dx, dy = dargs
    other = 2 if op.prim.endswith("_a") else 1
    params = dict(op.params)
    terms = [b.op(op.prim, dg, x, y, **params) if dg is not None else None]
    if dargs[other] is not None:
        args = [g, x, y]
        args[other] = dargs[other]
        terms.append(b.op(op.prim, *args, **params))
    return b.total(terms)


# Each returns a gradient of exactly its operand's shape (as matmul_rule says),
# which a specialised gradient read back from generated code needs to know.
for _product in ("matmul", "dot"):
    for _side, _operand in (("a", 1), ("b", 2)):
        define(f"{_product}_adjoint_{_side}(g, a, b)", ("helper", f"_{_product}_adjoint_{_side}"),
               like(_operand), reverse=matmul_adjoint_rule, forward=matmul_adjoint_tangent,
               result=ARRAY)

# What a loop's gradient gathers for a matrix it multiplies by (ad/loops.py):
# the factors are saved on a tape and added up after the loop in one product.
# Reading generated code back, frontend/tapes.py lowers such a call to the loop
# it stands for, so it is differentiated as that loop. Helper -> the position
# of the matrix among the adjoint's operands.
TAPE_SUMS = {"matmul_adjoint_a_sum": 1, "matmul_adjoint_b_sum": 2}
define("matmul_adjoint_a_sum(parts, a)", ("helper", "_matmul_adjoint_a_sum"), like(1),
       result=ARRAY, read_back_as="the loop it stands for (frontend/tapes.py)")
define("matmul_adjoint_b_sum(parts, b)", ("helper", "_matmul_adjoint_b_sum"), like(1),
       result=ARRAY, read_back_as="the loop it stands for (frontend/tapes.py)")


# ---- the matrices of a stack, each transposed ------------------------------------------------
def transposed(b, matrix):
    """``matrix.mT``: each matrix of a stack transposed (``.T`` reverses every axis)."""
    made = b.facts.producer(matrix)
    if made is not None and made.prim == "matrix_transpose":
        return made.args[0]
    return b.op("matrix_transpose", matrix, hint=_hint(matrix, "_t"))


def _hint(atom, suffix):
    hint = getattr(atom, "hint", None)
    return hint + suffix if hint and len(hint) <= 16 and not hint.startswith("_") else None


def matrix_transpose_rule(r, op, g):
    return [transposed(r.b, g)]


def swapped_pattern(op, facts):
    found = facts.pattern(op.args[0])
    return None if found is None or len(found) < 2 else found[:-2] + found[-1:] + found[-2:-1]


define("matrix_transpose(a)", ("attr", "mT"), NEW, reverse=matrix_transpose_rule,
       linear=(0,), attribute="mT", pattern=swapped_pattern, moves=True)
