"""The IR as text, compact enough to read whole (like ``jax.make_jaxpr``).

One line per operation, ``name = primitive(operands, param=value)``, with the
user's source line it came from on the right; blocks indented under ``if``,
``while`` and ``for``; a name given to each value once (the user's name,
then ``name_1``, ``name_2``... for other values that carry it)::

    loss(x, w):
      z = multiply(x, w)                      # L3
      z_positive = greater(z, 0)              # L4
      ...
      return h_sum

In a derivative's IR, ``# backward`` marks where the backward sweep starts.
"""
from __future__ import annotations

import os

from .nodes import Const, FreeVar, If, Loop, Op, Var

_COMMENT_COLUMN = 44
_ERROR_TEXT = ("message", "messages")  # what a failed check says: not shown


def format_function(fn):
    """``fn`` (a `Function`) as text."""
    return _Printer(fn).function()


class _Printer:
    def __init__(self, fn):
        self.fn = fn
        self.names = {}
        self.taken = set()
        self.lines = []
        self.backward_marked = False

    # -- names ------------------------------------------------------------------
    def name(self, atom):
        if isinstance(atom, tuple):
            return "(" + ", ".join(self.name(a) for a in atom) + ("," if len(atom) == 1 else "") \
                + ")"
        if not isinstance(atom, Var):
            return _constant(atom.value if isinstance(atom, Const) else atom)
        if atom not in self.names:
            base = atom.hint or "t"
            name, n = base, 0
            while name in self.taken and not isinstance(atom, FreeVar):
                n += 1
                name = f"{base}_{n}"
            self.names[atom] = name
            self.taken.add(name)
        return self.names[atom]

    # -- text -------------------------------------------------------------------------
    def function(self):
        params = ", ".join(self.name(p) for p in self.fn.params)
        self.lines.append(f"{self.fn.name}({params}):")
        self.block(self.fn.body, "  ")
        self.lines.append(f"  return {self.name(self.fn.result)}")
        return "\n".join(self.lines) + "\n"

    def emit(self, text, pad, stmt=None):
        line = pad + text
        loc = getattr(stmt, "loc", None)
        if loc is not None:
            place = f"L{loc.lineno}" if self.fn.loc is None or \
                loc.filename == self.fn.loc.filename else _short(loc)
            line = line.ljust(_COMMENT_COLUMN) + f"  # {place}"
        self.lines.append(line)

    def block(self, stmts, pad):
        for stmt in stmts:
            if getattr(stmt, "backward", False) and not self.backward_marked and pad == "  ":
                self.lines.append(f"{pad}# backward")
                self.backward_marked = True
            if isinstance(stmt, Op):
                self.op(stmt, pad)
            elif isinstance(stmt, If):
                self.branch(stmt, pad)
            elif isinstance(stmt, Loop):
                self.loop(stmt, pad)
            else:
                raise TypeError(f"cannot print IR node {type(stmt).__name__}")

    def op(self, op, pad):
        args = [self.name(a) for a in op.args]
        args += [f"{k}={_constant(v)}" for k, v in op.params
                 if k not in _ERROR_TEXT]
        call = f"{op.prim}({', '.join(args)})"
        if op.effect and op.prim != "require_float" and op.prim != "require_scalar":
            self.emit(call, pad, op)
        else:
            self.emit(f"{self.name(op.target)} = {call}", pad, op)

    def branch(self, stmt, pad):
        self.emit(f"if {self.name(stmt.cond)}:", pad, stmt)
        self.block(stmt.then, pad + "  ")
        self._merges(stmt, "then", pad + "  ")
        self.lines.append(f"{pad}else:")
        self.block(stmt.orelse, pad + "  ")
        self._merges(stmt, "orelse", pad + "  ")

    def _items(self, items):
        names = ", ".join(self.name(v) for v in items)
        return names if len(items) == 1 else f"({names})"

    def _merges(self, stmt, side, pad):
        for m in stmt.merges:
            self.lines.append(f"{pad}{self.name(m.target)} <- {self.name(getattr(m, side))}")

    def loop(self, loop, pad):
        for tape in loop.writes:
            self.lines.append(f"{pad}{self.name(tape.var)} = []")
        for c in loop.carried:
            self.lines.append(f"{pad}{self.name(c.param)} = {self.name(c.init)}")
        if loop.kind == "range":
            bounds = ", ".join(self.name(b) for b in loop.bounds)
            self.emit(f"for {self.name(loop.index)} in range({bounds}):", pad, loop)
        elif loop.kind == "while":
            self.emit("while:", pad, loop)
            self.block(loop.cond_block, pad + "  ")
            self.lines.append(f"{pad}  test {self.name(loop.cond)}")
        else:
            reads = ", ".join(f"{self._items(t.items)} from reversed({self.name(t.var)})"
                              for t in loop.reads)
            self.emit(f"for {reads}:", pad, loop)
        inner = pad + "  "
        self.block(loop.body, inner)
        for tape in loop.writes:
            items = ", ".join(self.name(a) for a in tape.items)
            self.lines.append(f"{inner}{self.name(tape.var)}.append({items})")
        for c in loop.carried:
            self.lines.append(f"{inner}{self.name(c.param)} <- {self.name(c.update)}")
        if loop.exit is not None and loop.exit != Const(False):
            self.lines.append(f"{inner}break if {self.name(loop.exit)}")
        for c in loop.carried:
            self.lines.append(f"{pad}{self.name(c.out)} = {self.name(c.param)}")


def _constant(value):
    if isinstance(value, slice):
        parts = ["" if v is None else repr(v) for v in (value.start, value.stop, value.step)]
        return ":".join(parts[:2] if value.step is None else parts)
    if value is Ellipsis:
        return "..."
    if isinstance(value, tuple):
        return "(" + ", ".join(_constant(v) for v in value) + ("," if len(value) == 1 else "") \
            + ")"
    if isinstance(value, type):
        return value.__name__
    return repr(value)


def _short(loc):
    return f"{os.path.basename(loc.filename)}:{loc.lineno}"
