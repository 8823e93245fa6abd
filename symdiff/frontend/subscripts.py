"""Lowering subscripts: ``x[i, 1:]`` on arrays, constant indices into tuples,
and ``np.s_[...]`` as an index value."""
from __future__ import annotations

import ast

import numpy as np

from ..errors import NoDerivativeRuleError, UnsupportedSyntaxError
from ..ir.nodes import Const, FreeVar, IndexList
from . import containers
from .compile_time import Dict, Static, Tup, is_atom


def lower_subscript(lw, node):
    base = lw.expr(node.value)
    index = lower_index(lw, node.slice)
    if isinstance(base, Static) and base.obj is np.s_:
        return Tup(tuple(index))  # np.s_[...]: an index as a value
    if isinstance(base, FreeVar) and (base.value is np.r_ or base.value is np.c_) \
            and not all(isinstance(part, Const) for part in index):
        return _index_trick(lw, base.value is np.r_, index, node)
    if isinstance(base, Dict):  # params["W"] (containers.py)
        return containers.subscript(lw, base, index, node)
    if is_atom(base) and any(isinstance(i, Const) and isinstance(i.value, str) for i in index):
        containers.container_use(lw, base, definite=True)  # an argument as a dict
    elif is_atom(base) and any(not isinstance(i, Const) and lw.b.facts.is_scalar(i)
                               for i in index):
        containers.container_use(lw, base, definite=False)  # params[i]: maybe a list
    if isinstance(base, Tup):
        if len(index) == 1 and isinstance(index[0], Const):
            return _static_index(base.items, index[0].value, lw, node)
        raise lw.error(UnsupportedSyntaxError, node,
                       "a tuple can only be indexed by a constant",
                       "write the index as a number (`t[0]`), or make the tuple an "
                       "array (np.stack) and index that")
    return lw.b.op("getitem", lw.atom(base, node), *index)


def _index_trick(lw, rows, index, node):
    """``np.r_[a, 1:3, b]``: the parts joined along the first axis (numbers
    as vectors, slices as ranges); ``np.c_[a, b]`` along the last, vectors as
    columns (as NumPy does)."""
    parts = []
    for part in index:
        value = part.value if isinstance(part, Const) else None
        made = lw.b.facts.producer(part)
        if isinstance(value, str) or isinstance(value, slice) and isinstance(
                value.step, complex):
            raise lw.error(NoDerivativeRuleError, node,
                           f"`{ast.unparse(node.value)}[...]` with a directive or a "
                           "complex step is not differentiated",
                           "join the parts with np.concatenate, np.linspace or np.stack")
        if isinstance(value, slice) or made is not None and made.prim == "slice":
            bounds = [Const(value.start or 0), Const(value.stop), Const(value.step or 1)] \
                if isinstance(value, slice) else list(made.args)
            bounds = [Const(0) if b == Const(None) else b for b in bounds[:1]] + \
                bounds[1:2] + [Const(1) if b == Const(None) else b for b in bounds[2:]]
            part = lw.b.op("npcall", *bounds, func="arange", kwargs=(), hint="arange")
        parts.append(lw.b.op("atleast_1d", part) if rows else lw.b.op("c_column", part))
    joined = lw.b.op("concatenate", *parts, axis=0 if rows else -1,
                     hint="joined")
    return joined


def lower_index(lw, node):
    """The atoms of an index: slices with constant bounds are constants."""
    parts = node.elts if isinstance(node, ast.Tuple) else [node]
    return [_index_part(lw, p) for p in parts]


def _index_part(lw, node):
    if isinstance(node, ast.Slice):
        bounds = [lw.atom(lw.expr(p), p) if p is not None else Const(None)
                  for p in (node.lower, node.upper, node.step)]
        if all(isinstance(b, Const) for b in bounds):
            return Const(slice(*(b.value for b in bounds)))
        return lw.b.op("slice", *bounds, hint="s")
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return Const(Ellipsis)
    value = lw.expr(node)
    if isinstance(value, Tup) and value.is_list:  # x[[0, 2]]: positions, not x[0, 2]
        return _index_list(lw, value, node)
    return lw.atom(value, node)


def _index_list(lw, value, node):
    """A list in an index as a constant `IndexList`, or (where its entries are
    computed) the integer array ``np.array([...])`` of them."""
    def constant(v):
        if isinstance(v, Tup):
            items = [constant(i) for i in v.items]
            return None if None in items else IndexList(items)
        return v.value if isinstance(v, Const) else None
    known = constant(value)
    if known is not None:
        return Const(known)
    return lw.b.op("array", *[lw.atom(v, node) for v in value.items], hint="index")


def _static_index(items, key, lw, node):
    try:
        picked = items[key]
    except IndexError:
        raise lw.error(UnsupportedSyntaxError, node,
                       f"index {key!r} is out of range for a tuple of {len(items)}",
                       f"use an index from 0 to {len(items) - 1} (or from "
                       f"-{len(items)} to -1)" if items else
                       "an empty tuple has no items") from None
    except TypeError:
        raise lw.error(UnsupportedSyntaxError, node,
                       f"a tuple cannot be indexed by {key!r}",
                       "index it with an integer or a slice") from None
    return Tup(picked) if isinstance(key, slice) else picked
