"""Calls whose arguments NumPy or SciPy take in a form of their own.

Most primitives bind their arguments to their signature (arguments.py). A
few need a word first: np.einsum's subscripts (a string, or sublists between
the operands) are read at compile time; scipy.linalg.cho_factor returns the
pair ``(c, lower)`` that cho_solve takes back; np.linalg.svd without vectors
is np.linalg.svdvals; SciPy's ``overwrite_*`` and ``check_finite`` ask for
speed, not for another value, and are left out (an overwritten input could
be one the gradient reads).
"""
from __future__ import annotations

import numpy as np

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const, If
from ..ir.primitive import TABLE
from ..rules import einsum, norms
from ..rules.shapes import along
from .arguments import prim_call, static_value
from .branches import merge
from .compile_time import Tup, is_atom
from .containers import ShapeUse

_SPEED_ONLY = ("overwrite_a", "overwrite_b", "check_finite")


def lower_form(lw, prim, args, kwargs, node):
    """The value of a call of ``prim`` that has a form of its own, or None."""
    form = FORMS.get(prim.name)
    return form(lw, prim, list(args), dict(kwargs), node) if form else None


def _error(lw, node):
    def error(message, hint):
        return lw.error(UnsupportedSyntaxError, node, message, hint)
    return error


# ---- np.einsum -------------------------------------------------------------------------
def _einsum(lw, prim, args, kwargs, node):
    error = _error(lw, node)
    if args and isinstance(args[0], Const) and isinstance(args[0].value, str):
        subscripts, operands = args[0].value, args[1:]
    elif len(args) >= 2 and isinstance(args[1], Tup):  # einsum(a, [0, 1], b, [1], [0])
        operands = args[0:len(args) - len(args) % 2:2]
        sublists = [_sublist(s, error) for s in args[1::2]]
        output = _sublist(args[-1], error) if len(args) % 2 else None
        try:
            subscripts = einsum.from_sublists(sublists, output)
        except einsum.SubscriptError as exc:
            raise error(f"np.einsum: {exc}", "label axes with ints 0..51 or ...") from None
    else:
        raise error("np.einsum's subscripts must be a string written in the call, or "
                    "sublists between the operands", "np.einsum('ij,jk->ik', a, b)")
    optimize = kwargs.pop("optimize", Const(False))
    if kwargs:
        raise error(f"np.einsum does not take `{sorted(kwargs)[0]}` here",
                    "pass the operands, and optimize=")
    if not (isinstance(optimize, Const) and
            optimize.value in (False, True, "greedy", "optimal")):
        raise error("np.einsum's optimize must be False, True, 'greedy' or 'optimal'",
                    "an explicit path (from np.einsum_path) cannot serve the gradient's "
                    "einsums, which have other operands: pass optimize=True")
    try:
        inputs, output = einsum.parse(subscripts, len(operands))
    except einsum.SubscriptError as exc:
        raise error(f"np.einsum({subscripts!r}, ...): {exc}",
                    "subscripts are letters for each operand's axes, commas between "
                    "operands, then '->' and the output's letters") from None
    return prim_call(lw, prim, [Tup(tuple(operands))],
                     {"subscripts": Const(einsum.spelled(inputs, output)),
                      "optimize": optimize}, node)


def _sublist(value, error):
    if isinstance(value, Tup) and all(isinstance(i, Const) for i in value.items):
        return [i.value for i in value.items]
    raise error("np.einsum's sublists must be written in the call",
                "np.einsum(a, [0, 1], b, [1, 2], [0, 2])")


# ---- scipy.linalg: cho_factor's pair, and speed-only flags -------------------------------
def _cho_factor(lw, prim, args, kwargs, node):
    for key in _SPEED_ONLY:
        kwargs.pop(key, None)
    lower = args[1] if len(args) > 1 else kwargs.get("lower", Const(False))
    results = prim_call(lw, prim, args[:2], kwargs, node)
    return Tup((results.items[0], lower))  # `lower` known when read, for cho_solve


def _cho_solve(lw, prim, args, kwargs, node):
    for key in _SPEED_ONLY:
        kwargs.pop(key, None)
    pair = args.pop(0) if args else kwargs.pop("c_and_lower", None)
    if not (isinstance(pair, Tup) and len(pair.items) == 2 and is_atom(pair.items[0])
            and isinstance(pair.items[1], Const)):
        raise _error(lw, node)(
            "cho_solve's first argument must be the pair cho_factor returns, "
            "(c, lower), with `lower` known when the function is read",
            "pass what cho_factor returned, or (c, True)")
    return prim_call(lw, prim, [pair.items[0]] + args[:1],
                     {**kwargs, "lower": pair.items[1]}, node)


def _speed_flags_dropped(lw, prim, args, kwargs, node):
    for key in _SPEED_ONLY:
        kwargs.pop(key, None)
    return prim_call(lw, prim, args, kwargs, node)


# ---- np.linalg.svd without vectors ------------------------------------------------------------
def _svd(lw, prim, args, kwargs, node):
    names = ("a", "full_matrices", "compute_uv", "hermitian")
    kwargs.update(zip(names, args))
    compute_uv = kwargs.pop("compute_uv", Const(True))
    if isinstance(compute_uv, Const) and not compute_uv.value:
        kwargs.pop("full_matrices", None)
        if kwargs.get("hermitian", Const(False)) == Const(False):
            kwargs.pop("hermitian", None)
            return prim_call(lw, TABLE["svdvals"], [], kwargs, node)
    return prim_call(lw, prim, [], kwargs, node)


def _qr(lw, prim, args, kwargs, node):
    """mode='r' is R alone: the reduced QR's second result."""
    mode = args[1] if len(args) > 1 else kwargs.get("mode", Const("reduced"))
    if mode == Const("r"):
        return prim_call(lw, prim, args[:1], {}, node).items[1]
    return prim_call(lw, prim, args, kwargs, node)


def _expm_frechet(lw, prim, args, kwargs, node):
    """Its derivative alone (compute_expm=False): with expm too, two results."""
    for key in _SPEED_ONLY + ("method",):
        kwargs.pop(key, None)
    flag = args.pop(3) if len(args) > 3 else kwargs.pop("compute_expm", Const(True))
    if flag != Const(False):
        raise _error(lw, node)("scipy.linalg.expm_frechet is differentiated with "
                               "compute_expm=False only",
                               "call scipy.linalg.expm(a) for the exponential, and "
                               "expm_frechet(a, e, compute_expm=False)")
    return prim_call(lw, prim, args[:2], {**kwargs, "compute_expm": flag}, node)


# ---- np.linalg.norm: written out, but for the 2- and Frobenius norms -------------------------
def _norm(lw, prim, args, kwargs, node):
    error = _error(lw, node)
    kwargs.update(zip(("x", "ord", "axis", "keepdims"), args))
    if "x" not in kwargs or set(kwargs) - {"x", "ord", "axis", "keepdims"}:
        return None  # (prim_call says what is wrong)
    x = lw.atom(kwargs["x"], node)
    order, axis, keepdims = (static_value(lw, kwargs.get(k, Const(d)), k, "norm", node)
                             for k, d in (("ord", None), ("axis", None), ("keepdims", False)))
    keepdims = bool(keepdims)
    if isinstance(axis, tuple) and len(axis) == 1:
        axis = axis[0]
    if order is None:
        return lw.b.op("norm", x, axis=axis, keepdims=keepdims)
    if isinstance(axis, int):
        return _checked(norms.vector_norm(lw.b, x, order, axis, keepdims), order,
                        norms.VECTOR_ORDS, "vectors", error)
    if isinstance(axis, tuple) and len(axis) == 2:
        return _checked(norms.matrix_norm(lw.b, x, order, axis, keepdims), order,
                        norms.MATRIX_ORDS, "matrices", error)
    if axis is not None:
        raise error(f"np.linalg.norm's axis {axis!r} is neither one axis nor two",
                    "pass an int (vectors) or a pair of ints (matrices)")
    if order in ("fro", "nuc"):
        return _checked(norms.matrix_norm(lw.b, x, order, (-2, -1), keepdims), order,
                        norms.MATRIX_ORDS, "matrices", error)
    if not norms.is_matrix_order(order):
        # a norm of vectors only (NumPy refuses it for matrices)
        return _checked(norms.vector_norm(lw.b, x, order, 0, keepdims), order,
                        norms.VECTOR_ORDS, "vectors", error)
    # no axis: a vector norm of a vector, a matrix norm of a matrix
    rank = lw.b.facts.rank(x)  # (known for the arguments a gradient is specialised to)
    if rank in (1, 2):
        norm = norms.vector_norm if rank == 1 else norms.matrix_norm
        return _checked(norm(lw.b, x, order, 0 if rank == 1 else (0, 1), keepdims), order,
                        *((norms.VECTOR_ORDS, "vectors") if rank == 1 else
                          (norms.MATRIX_ORDS, "matrices")), error)
    is_vector = lw.b.op("equal", lw.b.op("ndim", x), Const(1), hint="is_vector")
    with lw.b.block() as then:
        vector = _checked(norms.vector_norm(lw.b, x, order, 0, keepdims), order,
                          norms.VECTOR_ORDS, "vectors", error)
    with lw.b.block() as orelse:
        matrix = _checked(norms.matrix_norm(lw.b, x, order, (0, 1), keepdims), order,
                          norms.MATRIX_ORDS, "matrices", error)
    stmt = If(is_vector, then, orelse, [], lw.src.loc(node))
    result = merge(lw, stmt, vector, matrix, "norm", node)
    lw.b.append(stmt)
    return result


def _vector_norm(lw, prim, args, kwargs, node):
    """np.linalg.vector_norm: the vectors along ``axis`` (None: all entries)."""
    kwargs.update(zip(("x", "axis", "keepdims", "ord"), args))
    x = lw.atom(kwargs["x"], node)
    order, axis, keepdims = (static_value(lw, kwargs.get(k, Const(d)), k, prim.name, node)
                             for k, d in (("ord", 2), ("axis", None), ("keepdims", False)))
    return _checked(norms.vector_norm(lw.b, x, order, axis, bool(keepdims)), order,
                    norms.VECTOR_ORDS, "vectors", _error(lw, node))


def _matrix_norm(lw, prim, args, kwargs, node):
    """np.linalg.matrix_norm: the matrices on the last two axes."""
    kwargs.update(zip(("x", "keepdims", "ord"), args))
    x = lw.atom(kwargs["x"], node)
    order, keepdims = (static_value(lw, kwargs.get(k, Const(d)), k, prim.name, node)
                       for k, d in (("ord", "fro"), ("keepdims", False)))
    return _checked(norms.matrix_norm(lw.b, x, order, (-2, -1), bool(keepdims)), order,
                    norms.MATRIX_ORDS, "matrices", _error(lw, node))


def _checked(value, order, orders, kind, error):
    if value is None:
        raise error(f"np.linalg.norm: ord={order!r} is no norm of {kind}",
                    f"the norms of {kind} are ord={orders}")
    return value


# ---- np.diff with values computed in the function put before or after ----------------------
def _diff(lw, prim, args, kwargs, node):
    """``np.diff(x, prepend=x[0])``: the values joined to ``x`` first, as
    NumPy joins them (a number broadcast to one slice along ``axis``), then
    differenced. Constants stay diff's own parameters."""
    kwargs.update(zip(("a", "n", "axis", "prepend", "append"), args))
    edges = [kwargs.get(k) for k in ("prepend", "append")]
    axis = kwargs.get("axis", Const(-1))
    if not any(is_atom(e) and not isinstance(e, Const) for e in edges) or \
            not isinstance(axis, Const) or not isinstance(axis.value, int):
        return prim_call(lw, prim, [], kwargs, node)
    x = kwargs["a"]
    if not is_atom(x) or any(not is_atom(e) for e in edges if e is not None):
        return prim_call(lw, prim, [], kwargs, node)  # (its error: they must be constants)
    if not lw.b.facts.signature:  # (a number is broadcast, an array joined as it is)
        raise ShapeUse("diff", _error(lw, node)(
            "`prepend` and `append` of `diff` computed in the function are joined to "
            "the array as their shapes say, which only the arguments' shapes tell",
            "give the arguments (`symdiff.source(df, x)`, `symdiff --shapes`), or "
            "join them yourself: `np.diff(np.concatenate([p, x]))`"))
    ranks = [lw.b.facts.rank(e) if not isinstance(e, Const) else np.ndim(e.value)
             for e in edges if e is not None]
    if None in ranks:
        return prim_call(lw, prim, [], kwargs, node)
    parts = []
    for edge, rank in zip((e for e in edges if e is not None), ranks):
        if rank == 0:  # one slice of x along axis, every entry the number
            first = lw.b.op("getitem", x, *along(axis.value, Const(slice(None, 1))))
            edge = lw.b.op("broadcast_to", edge, lw.b.op("shape", first))
        parts.append(edge)
    parts.insert(1 if edges[0] is not None else 0, x)
    kwargs["a"] = lw.b.op("concatenate", *parts, axis=axis.value)
    kwargs.pop("prepend", None)
    kwargs.pop("append", None)
    return prim_call(lw, prim, [], kwargs, node)


FORMS = {"norm": _norm, "vector_norm": _vector_norm, "matrix_norm": _matrix_norm,
         "einsum": _einsum, "cho_factor": _cho_factor, "cho_solve": _cho_solve,
         "svd": _svd, "qr": _qr, "expm_frechet": _expm_frechet, "diff": _diff}
for _name in ("solve_triangular", "scipy_cholesky"):
    FORMS[_name] = _speed_flags_dropped
