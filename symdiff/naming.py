"""Display names for the variables of generated code.

Each variable is named after its hint (the user's name, or ``x_bar`` for an
adjoint). A name is reused once its previous holder is dead, so reassigning
``h`` in the user's code reads as reassigning ``h`` in the generated code;
clashes get ``_1``, ``_2``... in order of definition: deterministic.
"""
from __future__ import annotations

import keyword
import re

from .ir import If, Op, Var


class Positions:
    """Definition and last-use positions of variables in emission order."""

    def __init__(self, fn, inlined):
        self.defs, self.last, self.where = {}, {}, {}
        self.pos = 0
        self.inlined = inlined
        self.groups = {}  # var -> representative (merge targets join their sources)
        for p in fn.params:
            self.defs[p] = 0
        self._block(fn.body)
        self.pos += 1
        for atom in _flatten(fn.result):
            self._use(atom)

    def _use(self, atom):
        if isinstance(atom, Var):
            atom = self._real(atom)
            self.last[atom] = max(self.last.get(atom, 0), self.pos)

    def _real(self, atom):
        return atom

    def _block(self, stmts):
        for stmt in stmts:
            self.pos += 1
            if isinstance(stmt, Op):
                for a in stmt.args:
                    self._use_through(a)
                if stmt.target not in self.inlined:
                    self.defs[stmt.target] = self.pos
            elif isinstance(stmt, If):
                self._use_through(stmt.cond)
                start = self.pos
                self._branch(stmt, stmt.then, "then", start)
                self._branch(stmt, stmt.orelse, "orelse", start)
                self.pos += 1
                for m in stmt.merges:
                    self.defs.setdefault(m.target, self.pos)

    def _branch(self, stmt, block, side, start):
        self._block(block)
        self.pos += 1
        for m in stmt.merges:
            source = getattr(m, side)
            self._use_through(source)
            if isinstance(source, Var) and self.defs.get(source, -1) > start \
                    and source not in self.groups:
                self.groups[source] = m.target
                self.defs[m.target] = min(self.defs.get(m.target, self.pos), self.defs[source])

    def _use_through(self, atom):
        """A use of ``atom``; an inlined variable's uses count at this position."""
        if isinstance(atom, Var) and atom in self.inlined:
            for a in self.inlined[atom].args:
                self._use_through(a)
            return
        self._use(atom)


def assign_names(fn, inlined, fixed, reserved):
    """Var -> display name for every variable that is not inlined."""
    positions = Positions(fn, inlined)
    members = {}
    for var in positions.defs:
        root = _root(positions.groups, var)
        members.setdefault(root, []).append(var)
    names = dict(fixed)
    busy = {name: float("inf") for name in list(fixed.values()) + list(reserved)}
    spans = []
    for root, group in members.items():
        if any(v in fixed for v in group):
            continue
        start = min(positions.defs[v] for v in group)
        end = max([positions.last.get(v, start) for v in group] + [start])
        spans.append((start, end, root.uid, root, group))
    for start, end, _, root, group in sorted(spans, key=lambda s: (s[0], s[2])):
        name = _free_name(_identifier(root.hint), start, busy)
        busy[name] = end
        for v in group:
            names[v] = name
    return names


def _root(groups, var):
    while var in groups:
        var = groups[var]
    return var


def _free_name(base, start, busy):
    candidates = [base] + [f"{base}_{i}" for i in range(1, 10_000)]
    for name in candidates:
        if busy.get(name, -1) <= start:
            return name
    raise RuntimeError(f"no free name for {base}")


def _identifier(hint):
    name = re.sub(r"\W", "_", hint or "t")
    if not name or name[0].isdigit():
        name = "t" + name
    if keyword.iskeyword(name):
        name += "_"
    return name


def _flatten(value):
    if isinstance(value, tuple):
        for v in value:
            yield from _flatten(v)
    else:
        yield value
