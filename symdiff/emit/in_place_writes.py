"""How generated code writes a sum into an array nothing else holds.

``acc = acc + g`` of a gradient accumulated over a loop is written ``acc +=
g``, and the sum of two index gradients of the same array (from ``x[:-1]``
and ``x[1:]``) is one buffer written twice: ``x_bar = _unindex(g1, x, i1)``
then ``x_bar[i2] += g2``, instead of two zero-filled arrays and a third for
the sum.
"""
from __future__ import annotations

import ast

import numpy as np

from ..ir.nodes import Loop, Op, Var, blocks, walk
from ..ir.primitive import TABLE
from .destinations import computed_into, summed_into
from .layout import wrap
from .spelling import plus

_BUFFERS = {"unindex": 1, "unindex_add": 1, "unindex_sum": 2}  # -> like's position
_PLACED = ("unindex",)  # `x_bar[i] += g` adds g once to a repeated position
_UFUNCS = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide"}


def accumulations(stmts, counts, placing=True, chains=None):
    """Updates ``acc = acc + g`` of in-place carries, written ``acc += g``: the
    array is fresh and nothing else holds it, so no new array per iteration.
    Maps the update to the `_unindex` that ``g`` is, if it is one made for the
    sum only (then ``acc[i] += part``: no zero-filled array per iteration;
    ``placing`` code only: generic code is read back, and written so), else
    to None. ``chains`` (a dict) gets the first sum of an update that adds
    several gradients -> the carried array, whose name it takes."""
    found = {}
    for stmt in walk(stmts):
        if isinstance(stmt, Loop):
            defs = {s.target: s for s in stmt.body if isinstance(s, Op)}
            for carry in stmt.carried:
                side = _added_on_one_side(stmt.body, carry.param, counts)
                start = side[0] if side else carry.param
                op = _first_of_sums(defs, counts, defs.get(carry.update), start)
                if carry.inplace and op is not None and op.prim in ("add", "subtract") \
                        and op.args[0] is start and counts.get(start) == 1 \
                        and counts.get(carry.param) == (2 if side else 1) \
                        and counts.get(carry.update) == 1 and counts.get(carry.init) == 1:
                    if side and chains is not None:  # (the merged value: the same array)
                        chains[side[0]] = carry.param
                    for made in _later_sums(defs, carry.update, op) + [op] + side[1:2]:
                        if chains is not None and made.target is not carry.update:
                            chains[made.target] = carry.param
                        placed = defs.get(made.args[1]) or (side[2] if side and made is
                                                            side[1] else None)
                        found[made.target] = placed if placing and placed is not None and \
                            placed.prim in ("unindex", "unindex_add") and \
                            counts.get(placed.target) == 1 else None
    return found


def _added_on_one_side(body, param, counts):
    """``[merged, sum, placed op]`` for an ``if`` of ``body`` that adds into
    ``param`` on one side (``sum = param + placed``) and hands it on on the
    other: the merged value is the carried array too (optimize/branch_sums.py).
    Else []."""
    for stmt in body:
        for merge in getattr(stmt, "merges", ()):
            if counts.get(merge.target) != 1 or param not in (merge.then, merge.orelse):
                continue
            other, side = (merge.orelse, stmt.orelse) if merge.then is param else \
                (merge.then, stmt.then)
            made = next((s for s in side if isinstance(s, Op) and s.target is other), None)
            if made is not None and made.prim == "add" and made.args[0] is param and \
                    counts.get(made.target) == 1:
                placed = next((s for s in side if isinstance(s, Op) and
                               s.target is made.args[1]), None)
                return [merge.target, made, placed]
    return []


def _later_sums(defs, update, first):
    """The sums after ``first`` of an update ``((acc + g1) - g2) + ...``: each
    adds into (or takes from) the one carried array too (``acc[t] -= g2``, not
    a zero-filled array of acc's shape per iteration)."""
    found, op = [], defs.get(update)
    while op is not None and op is not first and op.prim in ("add", "subtract"):
        found.append(op)
        op = defs.get(op.args[0])
    return found if op is first else []


def _first_of_sums(defs, counts, op, param):
    """The first sum of ``((param + g1) + g2) + ...``, an iteration's update of
    a carried array that adds several gradients to it (``x[i]`` and
    ``x[i + 1]`` read in one iteration): each sum read only by the next, so
    the first may add into the carried array, the others into that."""
    while op is not None and op.prim in ("add", "subtract") and op.args[0] is not param \
            and counts.get(op.args[0]) == 1:
        inner = defs.get(op.args[0])
        if inner is None or inner.prim not in ("add", "subtract"):
            break
        op = inner
    return op


def scatters(stmts, counts, facts=None):
    """``add`` (or ``subtract``) target -> (buffer, placed): ``buffer`` is a
    fresh array of the shape of ``x`` (an `_unindex`, another such sum, or in
    a specialised NumPy gradient the result of arithmetic of that shape and
    dtype: optimize/scatter_sums.py) and ``placed`` the `_unindex` op of ``x``
    to add into it (or subtract) in place. Both are read only by the sum and
    made in its block, so the sum may take over the buffer."""
    found = {}
    for block in [stmts] + [b for s in walk(stmts) for b in blocks(s)]:
        defs = {s.target: s for s in block if isinstance(s, Op)}
        like = {}   # fresh buffer -> the array whose shape it has
        for op in block:
            if isinstance(op, Loop):
                like.update(_summed_in_place(op, counts, defs))
            if not isinstance(op, Op):
                continue
            if op.prim in _BUFFERS:
                like[op.target] = op.args[_BUFFERS[op.prim]]
            elif op.prim in ("add", "subtract"):
                for buffer, other in (op.args, op.args[::-1])[:2 if op.prim == "add" else 1]:
                    placed = defs.get(other)
                    if placed is None or placed.prim not in _PLACED or counts.get(other) != 1 \
                            or not _read_before(buffer, op, placed, block, counts):
                        continue
                    if buffer in like and placed.args[1] is like[buffer] or \
                            _fresh(defs.get(buffer), placed, facts):
                        found[op.target] = (buffer, placed)
                        like[op.target] = placed.args[1]
                        break
    return found


# what makes a new array of its operands (never a view of one)
_FRESH_READERS = frozenset({"sum", "mean", "max", "min", "prod", "matmul", "dot", "einsum",
                            "vdot", "multiply", "add", "subtract", "divide", "negative",
                            "power", "square", "abs", "exp", "log", "sqrt", "where"})


def _read_before(buffer, op, placed, block, counts):
    """Whether ``op`` may write into ``buffer``: it is its only reader, or the
    others make new arrays of it that flow only into ``placed``, the value
    written (``t_bar.sum(axis=1)`` placed into ``t_bar``: taken before the
    write, even where the emitter folds it into the line that writes)."""
    if counts.get(buffer) == 1:
        return True
    readers = {}
    for stmt in block:
        if isinstance(stmt, Op):
            for a in stmt.args:
                if isinstance(a, Var):
                    readers.setdefault(a, []).append(stmt)
    others = [s for s in readers.get(buffer, ()) if s is not op]
    if len(others) + op.args.count(buffer) != counts.get(buffer):
        return False  # (read in another block, or by the result)
    return all(_flows_into(s, placed, readers, counts) for s in others)


def _flows_into(op, placed, readers, counts, depth=8):
    """Whether ``op`` makes a new array read, through values read once, only
    by ``placed``."""
    while depth and op.prim in _FRESH_READERS and not op.effect:
        users = readers.get(op.target, ())
        if counts.get(op.target) != 1 or len(users) != 1:
            return False
        if users[0] is placed:
            return True
        op, depth = users[0], depth - 1
    return False


def _summed_in_place(loop, counts, defs):
    """The arrays a loop hands on that it made and only added to in place
    (``x_bar = np.zeros_like(x)`` before it, ``x_bar[i] += g`` in it) -> the
    array whose shape each has: a sum after the loop may add into them too."""
    found = {}
    body = {s.target: s for s in loop.body if isinstance(s, Op)}
    for carry in loop.carried:
        made = defs.get(carry.init)
        first = _first_of_sums(body, counts, body.get(carry.update), carry.param)
        if carry.inplace and made is not None and made.prim == "zeros_like" \
                and first is not None and first.prim in ("add", "subtract") \
                and first.args[0] is carry.param and counts.get(carry.out) == 1:
            found[carry.out] = made.args[0]
    return found


def _fresh(made, placed, facts):
    """Whether ``made`` makes a new NumPy array of the shape of ``placed``'s
    array, whose dtype adding ``placed``'s value keeps (a ufunc's result, in
    a specialised gradient, whose facts know both)."""
    shape = placed.args[1]
    if made is None or made.effect or made.math or facts is None or not facts.signature \
            or facts.fuses() or not isinstance(getattr(np, made.prim, None), np.ufunc) \
            or not facts.same_shape(made.target, shape) or not (facts.rank(shape) or 0):
        return False
    return isinstance(facts.dtype(made.target), np.dtype) and \
        facts.same_dtype(made.target, placed.args[0])


def _negated(node):
    """``a / b`` for ``-a / b`` (or ``-2.0 * g``, ``-g``): the term whose
    negation ``node`` is, when its leading factor has the sign; else None.
    (The sign of a product is exact: ``x -= a / b`` is ``x += -a / b``.)"""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value < 0:
        return ast.Constant(-node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        left = _negated(node.left)
        return None if left is None else ast.BinOp(left, node.op, node.right)
    return None


def _minus(node):
    """``-node``, the sign taken into a leading number (``-2.0 * g``, not
    ``-(2.0 * g)``) or out of a negation."""
    negated = _negated(node)
    if negated is not None:
        return negated
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        left = node.left
        if isinstance(left, ast.Constant) and isinstance(left.value, float):
            return ast.BinOp(ast.Constant(-left.value), node.op, node.right)
        if isinstance(left, ast.BinOp) and isinstance(left.op, (ast.Mult, ast.Div)):
            inner = _minus(left)
            if not isinstance(inner, ast.UnaryOp):
                return ast.BinOp(inner, node.op, node.right)
    return ast.UnaryOp(ast.USub(), node)


def _integer(index):
    """The integer of an index of one integer constant, or None."""
    if len(index) != 1 or isinstance(index[0], Var):
        return None
    value = getattr(index[0], "value", None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


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
        sign = "=" if self._still_zero(buffer, index) else "+="
        if op.prim == "subtract":  # (x_bar[i] -= g, not += -g)
            sign, g = ("-=", g) if sign == "+=" else (
                "=", ast.unparse(_minus(self.atom(placed.args[0]))))
        elif sign == "+=" and _negated(self.atom(placed.args[0])) is not None:
            sign, g = "-=", ast.unparse(_negated(self.atom(placed.args[0])))
        lines.extend(wrap(f"{pad}{ast.unparse(spot)} {sign} {g}"))

    def _still_zero(self, buffer, index):
        """Whether ``buffer[index]`` is still a zero of its buffer: every write
        into it so far (``theta_bar[2] = ...``, ``theta_bar[1] = ...``) was at
        another position, each given by one integer of one sign (2 and -1 may
        be one entry)."""
        positions = [index]
        while buffer in self.scatters:
            buffer, placed = self.scatters[buffer]
            positions.append(placed.args[2:])
        root = self._defs.get(buffer)
        if root is None or root.prim != "unindex":
            return False
        positions.append(root.args[2:])
        numbers = [_integer(p) for p in positions]
        return None not in numbers and len(set(numbers)) == len(numbers) and \
            len({n < 0 for n in numbers}) == 1

    def _placed(self, op, lines, pad):
        """``x_bar = np.zeros_like(x)`` and ``x_bar[i] = g`` (or ``= a + b``)."""
        name = self.names[op.target]
        if op.prim == "unindex_add":  # (positions may repeat: each adds its value)
            lines.append(f"{pad}{name} = {self.np}.zeros_like({self._text(op.args[1])})")
            at = ast.Attribute(self._np_attr("add"), "at", ast.Load())
            parts = [self.atom(i) for i in op.args[2:]]
            index = self._slices(parts)
            if isinstance(index, ast.Slice) or isinstance(index, ast.Tuple) and any(
                    isinstance(e, ast.Slice) for e in index.elts):
                index = self._index(parts)  # (a slice is no value: np.s_[1:])
            call = ast.Call(at, [ast.Name(name, ast.Load()), index, self.atom(op.args[0])], [])
            lines.extend(wrap(pad + ast.unparse(call)))
            return
        if op.prim == "unindex":
            value, like, index = self.atom(op.args[0]), op.args[1], op.args[2:]
        else:
            value = plus(self.atom(op.args[0]), self.atom(op.args[1]))
            like, index = op.args[2], op.args[3:]
        rest = _outside(index) if self.backend is None else None  # (NumPy's calls)
        if rest is None:
            lines.append(f"{pad}{name} = {self.np}.zeros_like({self._text(like)})")
        else:  # every entry written once: the zeros only outside the slice
            lines.append(f"{pad}{name} = {self.np}.empty_like({self._text(like)})")
            for part in rest:
                spot = ast.Subscript(ast.Name(name, ast.Load()),
                                     self._slices([self.const(p) for p in part]), ast.Store())
                lines.append(f"{pad}{ast.unparse(spot)} = 0.0")
        spot = ast.Subscript(ast.Name(name, ast.Load()),
                             self._slices([self.atom(i) for i in index]), ast.Store())
        ufunc = _UFUNCS.get(type(getattr(value, "op", None))) if isinstance(value, ast.BinOp) \
            and rest is not None and self._same_dtype(op, like) else None
        if ufunc is not None:  # computed into its place: no array for it, and no copy
            spot.ctx = ast.Load()
            view = ast.Name(self._view_name(op), ast.Load())
            steps = computed_into(self, op.args[0], view) if op.prim == "unindex" else \
                summed_into(self, op.args[0], op.args[1], view, value)
            if steps:  # its own operations in its place too, through a view of it
                lines.extend(wrap(f"{pad}{view.id} = {ast.unparse(spot)}"))
                for line in steps:
                    lines.extend(wrap(f"{pad}{line}"))
                return
            # (numba takes the output array as an operand, not as out=)
            call = ast.Call(ast.Attribute(ast.Name(self.np, ast.Load()), ufunc, ast.Load()),
                            [value.left, value.right] + ([spot] if self.plain else []),
                            [] if self.plain else [ast.keyword("out", spot)])
            lines.extend(wrap(f"{pad}{ast.unparse(call)}"))
            return
        lines.extend(wrap(f"{pad}{ast.unparse(spot)} = {ast.unparse(value)}"))

    def _view_name(self, op):
        """A name for the part of an array a gradient is computed into: the
        name of the value placed there (``x_head_bar``), not one in use."""
        taken = set(self.names.values())
        base = getattr(op.args[0], "hint", None) or ""
        base = base if base.isidentifier() and base.endswith("_bar") else \
            self.names[op.target] + "_part"
        name, k = base, 0
        while name in taken:
            k += 1
            name = f"{base}_{k}"
        return name

    def _same_dtype(self, op, like):
        """Whether the value placed is known to have the dtype of ``like``."""
        facts = self.facts
        if facts is None:
            return False
        found = [facts.dtype(a) for a in op.args[:1 if op.prim == "unindex" else 2]]
        want = facts.dtype(like)  # (np.dtype("float64") == None holds: compare known ones)
        return isinstance(want, np.dtype) and all(
            isinstance(f, np.dtype) and f == want for f in found)

    def _add_in_place(self, op, placed, lines, pad):
        """``acc[i] += g`` (``np.add.at(acc, i, g)`` where positions repeat; ``-=``
    and ``np.subtract.at`` for a difference)."""
        name = self.names[op.target]
        g, index = ast.unparse(self.atom(placed.args[0])), placed.args[2:]
        spot = self._slices([self.atom(i) for i in index])
        minus = op.prim == "subtract"  # (x_bar[i] -= g: x_bar - placed g)
        if placed.prim == "unindex":
            target = ast.Subscript(ast.Name(name, ast.Load()), spot, ast.Load())
            lines.extend(wrap(f"{pad}{ast.unparse(target)} {'-=' if minus else '+='} {g}"))
        else:
            at = ast.unparse(spot if not isinstance(spot, (ast.Slice, ast.Tuple))
                             else self._index([self.atom(i) for i in index]))
            ufunc = "subtract" if minus else "add"
            lines.extend(wrap(f"{pad}{self.np}.{ufunc}.at({name}, {at}, {g})"))


def _outside(index):
    """The parts of an array outside ``a[index]``, for an index of slices
    without steps of which one is not whole (``[:-1]``: ``[-1:]``; ``[:, 1:3]``:
    ``[:, :1]`` and ``[:, 3:]``), as indexes; else None. ``a[:i]``,
    ``a[i:j]`` and ``a[j:]`` cover ``a`` for any i and j (where j < i, the
    first and last overlap and the middle is empty)."""
    parts = [i.value if hasattr(i, "value") else None for i in index]
    if not parts or not all(isinstance(p, slice) and p.step in (None, 1) for p in parts):
        return None
    cut = [k for k, p in enumerate(parts) if (p.start, p.stop) != (None, None)]
    if len(cut) != 1:
        return None
    k, part = cut[0], parts[cut[0]]
    whole = [slice(None)] * k
    return [tuple(whole + [edge]) for edge in
            (slice(None, part.start) if part.start is not None else None,
             slice(part.stop, None) if part.stop is not None else None) if edge is not None]
