"""Tapes in the language: the idiom generated gradients use to run a loop backward.

    tape = []
    for ...:
        ...
        tape.append((h, a))       # once per iteration, at the top of the body
    for h, a in reversed(tape):   # read back once, last iteration first
        ...

symdiff differentiates its own generated code (`grad(grad(f))`, `hessian`),
so this idiom is part of the language: ``tape = []`` makes a `TapeList`, the
append makes the loop write a `Tape`, and the loop over ``reversed(tape)`` is
a `Loop` of kind "tape" that reads it.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Carry, Const, Loop, Tape, Var
from ..rules.linalg import TAPE_SUMS
from .compile_time import Static, Tup

HINT = ("a list a loop fills is appended to once per iteration, at the top level "
        "of the loop's body, and read after it: `xs = []` before the loop, "
        "`xs.append(v)` in it, then `np.stack(xs)`, `np.array(xs)`, `sum(xs)`, "
        "`xs[i]`, `for x in xs:` or `for x in reversed(xs):`")


@dataclass(eq=False)
class TapeList:
    """A list named in the function (``xs = []``, ``xs = [a, b]``): the
    values appended before a loop fills it (``prefix``), what each iteration
    of that loop appends (``items``, a tape the loop writes) and the values
    appended after it (``after``). Without a loop it is a list known when
    compiling (its ``prefix``: `known`)."""

    var: Var
    level: int                # how many loops enclose the `tape = []`
    items: list | None = None  # what each iteration appends, once the append is seen
    read: bool = False
    prefix: list = field(default_factory=list)
    after: list = field(default_factory=list)
    filling: int | None = None  # the line of the loop appending to it, while it is lowered

    @property
    def known(self):
        return self.items is None


def is_new_tape(node):
    """``name = []`` or ``name = [a, b]``; or ``xs, ys = [], []``."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return False
    pairs = _new_lists(node.targets[0], node.value)
    return pairs is not None and all(
        not any(isinstance(e, ast.Starred) for e in value.elts) for _, value in pairs)


def _new_lists(target, value):
    """The (name, list display) pairs of ``target = value``, else None."""
    if isinstance(target, ast.Name) and isinstance(value, ast.List):
        return [(target, value)]
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and \
            len(target.elts) == len(value.elts) and all(
                isinstance(t, ast.Name) and isinstance(v, ast.List)
                for t, v in zip(target.elts, value.elts)) and \
            len({t.id for t in target.elts}) == len(target.elts):
        return list(zip(target.elts, value.elts))
    return None


def lower_new_tape(lw, node):
    made = [(target.id, [lw.expr(e) for e in value.elts])
            for target, value in _new_lists(node.targets[0], node.value)]
    for name, prefix in made:  # (the values first, as Python evaluates them)
        lw.env[name] = TapeList(Var(name), len(lw.loops), prefix=prefix)


def filled_in(lw, body, lineno):
    """Before a loop: the lists made outside it that its body appends to
    (``ys.append(v)``), marked as filled by it (a read in the loop is
    refused: `filling_error`); returns them, to unmark after the loop."""
    filled = []
    for node in (n for s in body for n in ast.walk(s)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "append" and isinstance(node.func.value, ast.Name):
            tape = lw.env.get(node.func.value.id)
            if isinstance(tape, TapeList) and tape.filling is None:
                tape.filling = lineno
                filled.append(tape)
    return filled


def filling_error(lw, node, tape):
    """A list read in the loop that appends to it: its values then are the
    ones appended so far, which the loop's single lowering cannot show."""
    name = ast.unparse(node)
    return lw.error(UnsupportedSyntaxError, node,
                    f"`{name}` is read in the loop that appends to it (line "
                    f"{tape.filling}): symdiff reads a list a loop fills after the loop",
                    "keep the values the loop reads in names it reassigns (`y2, y1 = "
                    "y1, y_new`), append for use after the loop, and read the list there")


def appended_tape(lw, node):
    """The `TapeList` of a statement ``tape.append(...)``, else None."""
    call = node.value
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
            and call.func.attr == "append" and isinstance(call.func.value, ast.Name):
        tape = lw.env.get(call.func.value.id)
        return tape if isinstance(tape, TapeList) else None
    return None


def lower_append(lw, node, tape):
    call = node.value
    if len(call.args) != 1 or call.keywords:
        raise lw.error(UnsupportedSyntaxError, call, "append takes one value", HINT)
    if len(lw.loops) == tape.level:  # no loop in between: known when compiling
        (tape.prefix if tape.known else tape.after).append(lw.expr(call.args[0]))
        return
    if tape.after:
        raise lw.error(UnsupportedSyntaxError, node, "a list is filled by one loop", HINT)
    if len(lw.loops) != tape.level + 1 or lw.b.stmts is not lw.loops[-1][1]:
        raise lw.error(UnsupportedSyntaxError, node,
                       "a tape is appended to once per iteration, at the top level "
                       "of the loop right after `tape = []`", HINT)
    if tape.items is not None:
        raise lw.error(UnsupportedSyntaxError, node, "a tape is appended to once", HINT)
    value = lw.expr(call.args[0])
    parts = value.items if isinstance(value, Tup) else (value,)
    tape.items = [lw.atom(v, call.args[0]) for v in parts]
    lw.loops[-1][0].writes.append(Tape(tape.var, tape.items))


def reversed_tapes(lw, node):
    """The `TapeList`s of ``reversed(tape)`` or ``zip(reversed(a), reversed(b))``,
    else None."""
    if not isinstance(node, ast.Call) or node.keywords or not isinstance(node.func, ast.Name):
        return None
    func = lw.expr(node.func)
    if not isinstance(func, Static):
        return None
    if func.obj is zip and node.args:
        tapes = [reversed_tapes(lw, a) for a in node.args]
        return None if None in tapes or any(len(t) != 1 for t in tapes) \
            else [t[0] for t in tapes]
    if func.obj is reversed and len(node.args) == 1 and isinstance(node.args[0], ast.Name):
        tape = lw.env.get(node.args[0].id)
        return [tape] if isinstance(tape, TapeList) else None
    return None


def tape_loop(lw, node, tapes):
    """A `Loop` reading ``tapes`` back in lockstep, and how to bind its target."""
    target = node.target
    parts = [target] if len(tapes) == 1 else \
        (target.elts if isinstance(target, ast.Tuple) else [])
    if len(parts) != len(tapes):
        raise lw.error(UnsupportedSyntaxError, target,
                       f"unpack one item per tape ({len(tapes)})", HINT)
    reads = [_read(lw, node, tape, part) for tape, part in zip(tapes, parts)]
    loop = Loop("tape", [], [], reads=[Tape(t.var, loads) for t, (loads, _) in
                                       zip(tapes, reads)], loc=lw.src.loc(node))

    def bind():
        for loads, names in reads:
            if len(names) != len(loads):  # a whole tuple under one name
                lw.env[names[0].id] = Tup(tuple(loads))
                continue
            for name, load in zip(names, loads):
                lw.bind(name, load)
    return loop, bind


def _read(lw, node, tape, target):
    if tape.items is None or tape.read:
        what = "read before a loop appends to it" if tape.items is None else "read twice"
        raise lw.error(UnsupportedSyntaxError, node.iter, f"the tape is {what}", HINT)
    tape.read = True
    if isinstance(target, ast.Name) and len(tape.items) > 1:
        loads = [Var(target.id) for _ in tape.items]  # one tuple, unpacked later
        for load, item in zip(loads, tape.items):
            lw.b.facts.shape[load] = lw.b.facts.key(item)
        return loads, [target]
    names = target.elts if isinstance(target, ast.Tuple) and len(tape.items) > 1 \
        else [target]
    if len(names) != len(tape.items) or not all(isinstance(n, ast.Name) for n in names):
        raise lw.error(UnsupportedSyntaxError, target,
                       f"unpack the {len(tape.items)} values each iteration appended "
                       "into as many names", HINT)
    loads = [Var(n.id) for n in names]
    for load, item in zip(loads, tape.items):
        lw.b.facts.shape[load] = lw.b.facts.key(item)
    return loads, names


def lower_tape_sum(lw, prim, args, node):
    """``_matmul_adjoint_a_sum(parts, W)`` is the loop it stands for,
    ``total = zeros_like(W)``, then ``total += _matmul_adjoint_a(g, W, h)``
    for each pair ``(g, h)`` of ``reversed(parts)``, so that a gradient that
    calls it can be differentiated again."""
    if len(args) != 2 or not isinstance(args[0], TapeList):
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`_{prim.name}` adds up the pairs a loop appended to a tape",
                       f"call it as `_{prim.name}(tape, matrix)`")
    tape, matrix = args[0], lw.atom(args[1], node)
    loads, _ = _read(lw, node, tape, ast.Tuple(elts=[ast.Name("g"), ast.Name("other")]))
    total = Carry(Var("total"), lw.b.op("zeros_like", matrix), None, Var("total"))
    loop = Loop("tape", [total], [], reads=[Tape(tape.var, loads)], loc=lw.src.loc(node),
                exit=Const(False))
    operands = list(loads)
    operands.insert(TAPE_SUMS[prim.name], matrix)
    with lw.b.block() as body:
        total.update = lw.b.add(total.param, lw.b.op(prim.name[:-len("_sum")], *operands))
    loop.body = body
    for var in (total.param, total.out):
        lw.b.facts.shape[var] = lw.b.facts.key(matrix)
    lw.b.append(loop)
    return total.out
