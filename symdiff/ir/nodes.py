"""The intermediate representation: small, explicit, printable.

A `Function` is a list of statements over SSA variables. Statements are `Op`
(one primitive call, arguments are atoms), `If` (scalar predicate, two
blocks, `Merge` nodes joining names assigned in them) and `Loop` (reserved
for `for`/`while`). Every statement carries the `Loc` of the user's source
line it came from, so errors and generated comments can point at it.
"""
from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Loc:
    filename: str
    lineno: int
    col: int
    line: str
    func: str = ""
    # The statement an expression is part of: generated comments quote it whole
    # (once), while errors point at the expression itself.
    statement: Loc | None = field(default=None, compare=False, repr=False)

    def within(self, outer):
        """This place, as part of the statement at ``outer``."""
        if outer is None or outer.filename != self.filename:
            return self
        return Loc(self.filename, self.lineno, self.col, self.line, self.func,
                   outer.statement or outer)

    def quoted(self):
        """The place generated code's ``# Lnn:`` comment names: the statement."""
        return self.statement or self

    def short(self):
        """``file.py:line:col`` without directories: generated code must not
        depend on where the checkout lives."""
        return f"{os.path.basename(self.filename)}:{self.lineno}:{self.col + 1}"


_ids = itertools.count()


class Var:
    """An SSA variable. Identity is the object; ``hint`` is its display name."""

    __slots__ = ("uid", "hint")

    def __init__(self, hint):
        self.uid = next(_ids)
        self.hint = hint

    def __repr__(self):
        return f"{self.hint}%{self.uid}"


class FreeVar(Var):
    """A name read from the function's globals; emitted under its own name."""

    __slots__ = ("value",)

    def __init__(self, name, value):
        super().__init__(name)
        self.value = value


class IndexList(tuple):
    """A list written in an index, ``x[[0, 2, 2]]``: positions (or a mask) for
    NumPy's advanced indexing, not a tuple of indices. Generated code writes
    it back as a list."""

    __slots__ = ()

    def __repr__(self):
        return repr(list(self))


@dataclass(frozen=True)
class OutputPart:
    """Part of the adjoint of a multi-output operation's tuple: ``value`` is the
    adjoint of its output ``index`` (the reverse pass gathers the parts)."""

    index: int
    value: object


@dataclass(frozen=True)
class Const:
    value: object

    def __repr__(self):
        return repr(self.value)


@dataclass
class Op:
    """``target = prim(*args, **params)``; params are compile-time constants."""

    target: Var
    prim: str
    args: tuple
    params: tuple = ()
    loc: Loc | None = None
    note: str = ""          # a comment emit writes above the statement
    backward: bool = False  # made by the reverse pass
    override: str = ""      # name of a registered gradient replacing the rule
    # Written with the `math` module (``math.sin(x)``, or the derivative of such
    # a call): generated code writes it so where its operands are surely Python
    # numbers (ir/dtypes.py, `spelled_math`), and NumPy's function elsewhere.
    math: bool = False
    # Run for what it does (print, logging, an input check), not for its value:
    # kept when nothing reads it, never merged with another. Not an __init__
    # argument, so a copy (dataclasses.replace: a branch the reverse loop
    # recomputes, a backward_as shadow) is never one: a print runs once, where
    # the user wrote it. The Builder sets it on the operations it makes.
    effect: bool = field(default=False, init=False, compare=False)

    def param(self, key, default=None):
        for name, value in self.params:
            if name == key:
                return value
        return default


@dataclass
class Merge:
    """``target`` is ``then`` if the branch was taken, else ``orelse``."""

    target: Var
    then: object
    orelse: object


@dataclass
class If:
    cond: object
    then: list
    orelse: list
    merges: list = field(default_factory=list)
    loc: Loc | None = None
    backward: bool = False


@dataclass
class Carry:
    """A name a loop updates: ``param`` holds it during an iteration."""

    param: Var       # the value at the start of an iteration
    init: object     # the value before the first iteration
    update: object   # the value at the end of an iteration
    out: Var         # the value after the loop
    inplace: bool = False  # init is a fresh array only this carry holds: `+=` is safe


@dataclass
class Tape:
    """A Python list a loop appends ``items`` to at the end of each iteration
    (a write), or reads back in reverse, binding ``items`` (a read). Each tape
    has one writer and one reader, the writer first."""

    var: Var
    items: list
    entry: Var | None = None  # emit: a read's tuple, when a loop reads several tapes


@dataclass
class Loop:
    """``for index in range(*bounds)``, ``while cond``, or ``for ... in
    reversed(tape)`` (kind "tape": the ``reads`` in lockstep). Any loop may
    write tapes. ``exit`` is an atom of the body: true when the iteration
    ended with ``break``."""

    kind: str                  # "range", "while" or "tape"
    carried: list
    body: list
    index: Var | None = None
    bounds: tuple = ()
    cond_block: list = field(default_factory=list)
    cond: object = None
    exit: object = None
    writes: list = field(default_factory=list)   # Tapes appended to
    reads: list = field(default_factory=list)    # Tapes read ("tape" loops)
    loc: Loc | None = None
    backward: bool = False


@dataclass
class Function:
    name: str
    params: list
    body: list
    result: object
    loc: Loc | None = None
    named: set = field(default_factory=set)   # vars that carry a user's name
    pinned: set = field(default_factory=set)  # vars read before a write in place
    return_loc: Loc | None = None  # the one `return` giving the value (None: several)
    # How parts of ``result`` are rebuilt as containers (a dict of gradients...):
    # None, a ``(tree, base)`` pair for a flat tuple of leaves (ir/trees.py; the
    # argument ``base`` names the container), or a tuple of them, parallel to result.
    trees: object = None
    varargs: object = None  # the parameter that collects ``*args``, if any
    adjoints: dict = field(default_factory=dict)  # var -> the var it is the adjoint of
    # for each atom of ``result``, in order: the parameter whose gradient it is, or None
    returns: tuple = ()


def const_value(atom):
    """The Python number a constant holds (not a bool), or None."""
    value = atom.value if isinstance(atom, Const) else None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def is_var(atom):
    return isinstance(atom, Var)


def blocks(stmt):
    """The statement lists nested directly in ``stmt``."""
    if isinstance(stmt, If):
        return [stmt.then, stmt.orelse]
    if isinstance(stmt, Loop):
        return [stmt.cond_block, stmt.body]
    return []


def walk(stmts):
    """Every statement, depth first, in program order."""
    for stmt in stmts:
        yield stmt
        for block in blocks(stmt):
            yield from walk(block)


def uses(stmt):
    """The atoms a statement reads directly (not inside nested blocks)."""
    if isinstance(stmt, Op):
        return list(stmt.args)
    if isinstance(stmt, If):
        return [stmt.cond]
    if isinstance(stmt, Merge):
        return [stmt.then, stmt.orelse]
    if isinstance(stmt, Loop):
        return list(stmt.bounds) + [c.init for c in stmt.carried] + \
            [t.var for t in stmt.reads]
    raise TypeError(f"no uses() for IR node {type(stmt).__name__}")


def branch_definitions(stmts, chain=(), out=None):
    """var -> the ``(If, side)`` branches that define it, innermost first."""
    out = {} if out is None else out
    for stmt in stmts:
        if isinstance(stmt, Op) and chain:
            out[stmt.target] = chain
        elif isinstance(stmt, If):
            out.update((m.target, chain) for m in stmt.merges if chain)
            branch_definitions(stmt.then, ((stmt, "then"),) + chain, out)
            branch_definitions(stmt.orelse, ((stmt, "orelse"),) + chain, out)
        elif isinstance(stmt, Loop):
            out.update((c.out, chain) for c in stmt.carried if chain)
            out.update((t.var, chain) for t in stmt.writes if chain)  # tapes too
            branch_definitions(stmt.body, chain, out)
    return out


def flatten(value):
    """The atoms of a (possibly nested) tuple of them, in order."""
    if isinstance(value, tuple):
        for v in value:
            yield from flatten(v)
    else:
        yield value


def saved(loop):
    """Every atom ``loop`` appends to its tapes."""
    return [a for tape in loop.writes for a in tape.items]


def use_counts(fn):
    """How many times each variable is read, over the whole function."""
    counts = {}

    def use(atom):
        if isinstance(atom, Var):
            counts[atom] = counts.get(atom, 0) + 1

    def block(stmts):
        for stmt in stmts:
            if isinstance(stmt, Op):
                for a in stmt.args:
                    use(a)
            elif isinstance(stmt, If):
                use(stmt.cond)
                block(stmt.then)
                block(stmt.orelse)
                for m in stmt.merges:
                    use(m.then)
                    use(m.orelse)
            elif isinstance(stmt, Loop):
                for a in uses(stmt):
                    use(a)
                block(stmt.cond_block)
                block(stmt.body)
                for a in [c.update for c in stmt.carried] + saved(stmt) + \
                        [stmt.exit, stmt.cond]:
                    use(a)

    block(fn.body)
    stack = [fn.result]
    while stack:
        value = stack.pop()
        if isinstance(value, tuple):
            stack.extend(value)
        else:
            use(value)
    return counts
