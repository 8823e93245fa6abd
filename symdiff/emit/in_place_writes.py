"""How generated code writes a sum into an array nothing else holds.

``acc = acc + g`` of a gradient accumulated over a loop is written ``acc +=
g``, and the sum of two index gradients of the same array (from ``x[:-1]``
and ``x[1:]``) is one buffer written twice: ``x_bar = _unindex(g1, x, i1)``
then ``x_bar[i2] += g2``, instead of two zero-filled arrays and a third for
the sum.
"""
from __future__ import annotations

import ast

from ..ir.nodes import Loop, Op, Var, blocks, walk
from ..ir.primitive import TABLE
from .layout import wrap
from .spelling import plus

_BUFFERS = {"unindex": 1, "unindex_add": 1, "unindex_sum": 2}  # -> like's position
_PLACED = ("unindex",)  # `x_bar[i] += g` adds g once to a repeated position


def accumulations(stmts, counts, placing=True):
    """Updates ``acc = acc + g`` of in-place carries, written ``acc += g``: the
    array is fresh and nothing else holds it, so no new array per iteration.
    Maps the update to the `_unindex` that ``g`` is, if it is one made for the
    sum only (then ``acc[i] += part``: no zero-filled array per iteration;
    ``placing`` code only: generic code is read back, and written so), else
    to None."""
    found = {}
    for stmt in walk(stmts):
        if isinstance(stmt, Loop):
            defs = {s.target: s for s in stmt.body if isinstance(s, Op)}
            for carry in stmt.carried:
                op = defs.get(carry.update)
                if carry.inplace and op is not None and op.prim == "add" \
                        and op.args[0] is carry.param and counts.get(carry.param) == 1 \
                        and counts.get(carry.update) == 1 and counts.get(carry.init) == 1:
                    placed = defs.get(op.args[1])
                    found[op.target] = placed if placing and placed is not None and \
                        placed.prim in ("unindex", "unindex_add") and \
                        counts.get(placed.target) == 1 else None
    return found


def scatters(stmts, counts):
    """``add`` target -> (buffer, placed): ``buffer`` is a fresh array of the
    shape of ``x`` (an `_unindex`, or another such sum) and ``placed`` the
    `_unindex` op of ``x`` to add into it in place. Both are read only by the
    sum and made in its block, so the sum may take over the buffer."""
    found = {}
    for block in [stmts] + [b for s in walk(stmts) for b in blocks(s)]:
        defs = {s.target: s for s in block if isinstance(s, Op)}
        like = {}   # fresh buffer -> the array whose shape it has
        for op in block:
            if not isinstance(op, Op):
                continue
            if op.prim in _BUFFERS:
                like[op.target] = op.args[_BUFFERS[op.prim]]
            elif op.prim == "add" and all(counts.get(a) == 1 for a in op.args):
                for buffer, other in (op.args, op.args[::-1]):
                    placed = defs.get(other)
                    if buffer in like and placed is not None and placed.prim in _PLACED \
                            and placed.args[1] is like[buffer]:
                        found[op.target] = (buffer, placed)
                        like[op.target] = like[buffer]
                        break
    return found


def written_in_place(stmts):
    """The results of writes into an array (``a[i] = v``, ``a[i] += g``,
    ``np.add.at(a, i, g)``, made by optimize/writes_in_place.py) -> the array
    written into, whose name they take: they are that array, changed."""
    return {s.target: s.args[0] for s in walk(stmts)
            if isinstance(s, Op) and TABLE[s.prim].spelling[0] == "write"
            and isinstance(s.args[0], Var)}


class IndexWrites:
    """The emitter's lines for index gradients written into an array: a
    buffer written twice, one placed in zeros, one added in a loop."""

    def _scatter(self, op, lines, pad):
        """``x_bar = <buffer>`` then ``x_bar[index] += g``: the sum of two index
        gradients in one array (see in_place_writes.py)."""
        buffer, placed = self.scatters[op.target]
        name, first = self.names[op.target], self._text(buffer)
        if first != name:
            lines.extend(wrap(f"{pad}{name} = {first}"))
        g, index = ast.unparse(self.atom(placed.args[0])), placed.args[2:]
        spot = ast.Subscript(ast.Name(name, ast.Load()),
                             self._slices([self.atom(i) for i in index]), ast.Load())
        lines.extend(wrap(f"{pad}{ast.unparse(spot)} += {g}"))

    def _placed(self, op, lines, pad):
        """``x_bar = np.zeros_like(x)`` and ``x_bar[i] = g`` (or ``= a + b``)."""
        name = self.names[op.target]
        if op.prim == "unindex":
            value, like, index = self.atom(op.args[0]), op.args[1], op.args[2:]
        else:
            value = plus(self.atom(op.args[0]), self.atom(op.args[1]))
            like, index = op.args[2], op.args[3:]
        lines.append(f"{pad}{name} = {self.np}.zeros_like({self._text(like)})")
        spot = ast.Subscript(ast.Name(name, ast.Load()),
                             self._slices([self.atom(i) for i in index]), ast.Store())
        lines.extend(wrap(f"{pad}{ast.unparse(spot)} = {ast.unparse(value)}"))

    def _add_in_place(self, op, placed, lines, pad):
        """``acc[i] += g`` (``np.add.at(acc, i, g)`` where positions repeat)."""
        name = self.names[op.target]
        g, index = ast.unparse(self.atom(placed.args[0])), placed.args[2:]
        spot = self._slices([self.atom(i) for i in index])
        if placed.prim == "unindex":
            target = ast.Subscript(ast.Name(name, ast.Load()), spot, ast.Load())
            lines.extend(wrap(f"{pad}{ast.unparse(target)} += {g}"))
        else:
            at = ast.unparse(spot if not isinstance(spot, (ast.Slice, ast.Tuple))
                             else self._index([self.atom(i) for i in index]))
            lines.extend(wrap(f"{pad}{self.np}.add.at({name}, {at}, {g})"))
