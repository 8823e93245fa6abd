"""A number out of an expansion: ``(c * x)[..., None]`` is ``c * x[..., None]``.

A getitem ends an elementwise region of the algebra pass (algebra.py), so a
number inside an expansion never meets the numbers of the region that reads
it; moved out, it may fold (``-2.0 * (-0.5 * x)[..., None]`` is
``x[..., None]``). Only for a product read once, in derivative code, and an
index that only adds axes of length one.
"""
from __future__ import annotations

from ..ir.nodes import Const, Op, walk


def numbers_out_of_expansions(fn, facts, counts):
    """``(c * x)[..., None]`` read once is ``c * x[..., None]``: a getitem ends
    a region, and the number then joins the region reading it, where it may
    fold (``-2.0 * (-0.5 * x)[..., None]`` is ``x[..., None]``)."""
    for stmt in walk(fn.body):
        if not isinstance(stmt, Op) or stmt.prim != "getitem" or not stmt.backward:
            continue
        inner = facts.producer(stmt.args[0])
        if inner is None or inner.prim != "multiply" or not inner.backward or inner.effect \
                or counts.get(inner.target) != 1 or not counts.get(stmt.target) \
                or not all(isinstance(a, Const) for a in stmt.args[1:]) \
                or not _adds_axes([a.value for a in stmt.args[1:]]):
            continue
        numbers = [a for a in inner.args if numeric(a)]
        if len(numbers) != 1:
            continue
        x = inner.args[1] if inner.args[0] is numbers[0] else inner.args[0]
        facts.shape[inner.target] = facts.key(stmt.target)  # (inner: x[...]; stmt: c * it)
        inner.prim, inner.args, inner.params = "getitem", (x, *stmt.args[1:]), stmt.params
        stmt.prim, stmt.args, stmt.params = "multiply", (numbers[0], inner.target), ()


def _adds_axes(index):
    """Whether ``x[index]`` only adds axes of length one, whatever ``x``'s rank."""
    return sum(p is Ellipsis for p in index) <= 1 and all(
        p is None or p is Ellipsis or isinstance(p, slice) and p == slice(None)
        for p in index)


def numeric(atom):
    """Whether ``atom`` is a number constant (not a bool)."""
    return isinstance(atom, Const) and isinstance(atom.value, (int, float)) \
        and not isinstance(atom.value, bool)
