"""Values of the forward pass that only the gradient reads.

A forward value the function's result, a branch, a loop or the caller never
sees is the compiler's to compute as it likes, as long as it is the same
number up to rounding: a solve with a matrix whose inverse the gradient
makes anyway is a product with it (reused_inverses.py), and SciPy's
``logsumexp`` (tens of microseconds a call, most of it the array API's
dispatch) is the four NumPy operations a hand-written gradient writes
(``library_forms``). A value the function returns, branches on, or keeps
for a later iteration stays as the user wrote it.
"""
from __future__ import annotations

from ..ir.nodes import If, Loop, Op, Var, flatten
from .common_subexpressions import replace_atoms
from .dead_code import eliminate_dead_code
from .direct_forms import substitute
from .reads import all_blocks


def read_only_by_gradient(fn, live=None):
    """The values only the backward pass reads, through forward values only
    it reads (``log_probs = logits - lse``, read by ``np.exp(log_probs)`` in
    the backward pass). ``live``: the values the result needs, if dead code
    is still there (its reads do not count)."""
    readers = {}
    for stmts in all_blocks(fn.body):
        for stmt in stmts:
            if isinstance(stmt, Op):
                if live is not None and stmt.target not in live and not stmt.effect:
                    continue
                for arg in stmt.args:
                    if isinstance(arg, Var):
                        readers.setdefault(arg, []).append(stmt)
            elif isinstance(stmt, (If, Loop)):  # a branch or loop reads its atoms
                for atom in _control_reads(stmt):
                    if isinstance(atom, Var):
                        readers.setdefault(atom, []).append(None)
    kept = {v for v in flatten(fn.result) if isinstance(v, Var)}
    only = set()
    changed = True
    while changed:  # (a forward chain: each value's readers decided before it)
        changed = False
        for value, by in readers.items():
            if value in only or value in kept:
                continue
            if all(op is not None and (op.backward or op.target in only) for op in by):
                only.add(value)
                changed = True
    return only


# A value a decomposition the gradient computes has too: (that decomposition, its
# output, the parameters that must agree). eigvalsh(a) beside eigh(a) is its w.
_PARTS = {"eigvalsh": ("eigh", 0, ("UPLO",)), "svdvals": ("svd", 1, ("hermitian",))}


def decomposition_parts(fn, builder):
    """``fn`` with eigenvalues or singular values only the gradient reads
    taken from the decomposition its rule computes (``w, v = np.linalg.eigh(a)``),
    not computed again: the same numbers up to rounding, as the rule's own
    vectors are."""
    only = read_only_by_gradient(fn)
    body = fn.body
    for op in [s for s in body if isinstance(s, Op) and s.prim in _PARTS]:
        name, index, agree = _PARTS[op.prim]
        full = next((s for s in body if isinstance(s, Op) and s.prim == name and
                     s.args[:1] == op.args[:1] and
                     all(s.param(k) == op.param(k) for k in agree)), None)
        if full is None or op.target not in only:
            continue
        if _nested_reads(body, op.target) or len(full.args) != 1:
            continue
        op.prim, op.args, op.params = "output", (full.target,), (("index", index),)
        # the decomposition and its outputs where the value was (its operand is made)
        parts = [full] + sorted((s for s in body if isinstance(s, Op) and s.prim == "output"
                                 and s.args == (full.target,)), key=lambda s: s.param("index"))
        at = body.index(op)
        body[:] = [s for s in body[:at] if s not in parts] + parts + \
            [s for s in body[at:] if s not in parts]
    return fn


def _reads(stmt):
    if isinstance(stmt, Op):
        return [a for a in stmt.args if isinstance(a, Var)]
    return [a for a in _control_reads(stmt) if isinstance(a, Var)]


def _nested_reads(body, var):
    """Whether a statement inside an `if` or a loop reads ``var``."""
    return any(var in _reads(s) for stmts in all_blocks(body) if stmts is not body
               for s in stmts)


def library_forms(fn, builder):
    """``fn`` with SciPy's logsumexp, where only the gradient reads it, as
    ``m + log(sum(exp(a - m)))`` with ``m`` the maximum: at +inf or on a
    slice of -inf the value is NaN, which the gradient through SciPy's value
    (``exp(a - lse)``) is there too."""
    calls = [s for s in fn.body if isinstance(s, Op) and s.prim == "logsumexp"
             and len(s.args) == 1 and not s.backward]
    if not calls or not builder.facts.signature:
        return fn
    only = read_only_by_gradient(fn)
    body, kept = [], {}
    for stmt in fn.body:
        if any(stmt is call for call in calls) and stmt.target in only \
                and _known_axes(builder.facts, stmt):
            made, kept[stmt.target] = _shifted_logsumexp(builder, stmt)
            body += made
        else:
            body.append(stmt)
    fn.body = body
    # the gradient's weights read the value with its axis back: the kept one
    subst = {s.target: kept[s.args[0]] for stmts in all_blocks(fn.body) for s in stmts
             if isinstance(s, Op) and s.prim == "expand_dims" and kept.get(s.args[0])
             is not None and s.param("axis") == builder.facts.defs[s.args[0]].param("axis")}
    if subst:
        substitute(fn.body, subst)
        fn.result = replace_atoms(fn.result, subst)
    # (the expand_dims the weights read before, the value itself where only they read it)
    return eliminate_dead_code(fn, builder) if kept else fn


def _known_axes(facts, op):
    axis = op.param("axis")
    return facts.pattern(op.args[0]) is not None and (axis is None or isinstance(axis, int))


def _shifted_logsumexp(b, op):
    """The statements computing ``op``'s value the NumPy way, and the value
    with the reduced axis kept (what the gradient's weights broadcast), or
    None where it is the value itself."""
    a, axis, keep = op.args[0], op.param("axis"), bool(op.param("keepdims"))
    reduce = {} if axis is None else {"axis": axis, "keepdims": True}
    with b.block() as made, b.at(op.loc), b.noting(op.note):
        saved, b.backward = b.backward, False
        try:
            top = b.op("max", a, hint="top", **reduce)
            total = b.op("sum", b.op("exp", b.sub(a, top)), **reduce)
            kept = b.op("add", top, b.op("log", total), hint=op.target.hint)
            if axis is not None and not keep:
                b.op("squeeze", kept, axis=axis, hint=op.target.hint)
        finally:
            b.backward = saved
    kept_apart = kept if made[-1].target is not kept else None
    return under_its_name(b, op, made), kept_apart


def under_its_name(b, op, made):
    """``made``, whose last operation now computes ``op``'s value under
    ``op``'s name (a rewritten operation keeps its readers)."""
    last = made[-1]
    b.facts.shape[op.target] = b.facts.key(last.target)
    last.target = op.target
    b.facts.defs[op.target] = last
    return made


def _control_reads(stmt):
    if isinstance(stmt, If):
        yield stmt.cond
        for m in stmt.merges:
            yield from (m.then, m.orelse)
    else:
        yield from stmt.bounds
        yield from (stmt.cond, stmt.exit)
        for c in stmt.carried:
            yield from (c.init, c.update)
        for tape in stmt.writes:
            yield from tape.items
