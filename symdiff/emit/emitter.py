"""IR to Python source that reads like a careful person's gradient.

Single-use temporaries are folded back into expressions, variables get
display names (names.py), and each backward block is preceded by a comment
pointing at the source line it differentiates.
"""
from __future__ import annotations

import ast
import os
import re
import textwrap

from ..ir.nodes import Const, FreeVar, If, Loop, Op, Var, use_counts, walk
from ..ir.primitive import TABLE
from ..ir.trees import Rebuild
from .containers import Containers
from .destinations import augmented
from .in_place_writes import IndexWrites, accumulations, scatters, written_in_place
from .layout import fit_comment, one_line_choice, strip_parens, wrap
from .names import CALLED_BUILTINS, assign_names, builtin_aliases, name_temporaries
from .inlining import Inlining
from .spelling import Spelling
from .statement_forms import loop_items, name_entries, unpacked_outputs
from ..runtime.loader import is_generated

MAX_LINE = 79


class Emitter(Inlining, Spelling, Containers, IndexWrites):
    def __init__(self, fn, np_alias="np", unwrap=(), facts=None):
        self.fn = fn
        self.facts = facts  # a specialised gradient's: dtypes say what is a NumPy value
        self.np = np_alias
        self.unwrap = unwrap  # vars written ``...[()]``: see scalar_results.py
        self.helpers = set()
        self.modules = set()  # modules other than NumPy the code calls into
        self.counts = _use_counts(fn)
        self.inlined = {}
        self.names = {}
        self.builtins = {}  # builtin -> the name it is called by, where a parameter hides it

    # -- the whole function ------------------------------------------------------------
    def function(self, name, doc):
        self.scatters = scatters(self.fn.body, self.counts, self.facts)
        self.unpacked = unpacked_outputs(self.fn.body, self.counts)
        self.loop_items = loop_items(self.fn.body, self._defs, self.counts)
        self.loop_item_reads = {first.target for _, first in self.loop_items.values()}
        self.read_by_unpacking = {out.target for outs in self.unpacked.values() for out in outs}
        chains = {}
        self.accumulations = accumulations(self.fn.body, self.counts,
                                           placing=self.facts is not None, chains=chains)
        self._decide_inlining(self.fn.body, depth=0, limit=None)
        fixed = {p: p.hint for p in self.fn.params}
        fixed.update({v: v.hint for v in free_variables(self.fn)})
        reserved = {self.np, *CALLED_BUILTINS} | helper_names() | \
            callee_roots(self.fn.body) | module_roots(self.fn.body)
        self.builtins = builtin_aliases(set(fixed.values()), reserved)
        reserved |= set(self.builtins.values())
        shared = {t: buffer for t, (buffer, _) in self.scatters.items()}
        shared.update(chains)  # (acc[i] += g1, then acc[j] += g2: one array, one name)
        writes = written_in_place(self.fn.body)  # `a[i] = v`: the result is a
        name_entries(self.fn.body)
        # Names are chosen as if every value that can be were folded into the
        # line reading it; then a value whose reader's line would be too long
        # gets a line, and a name, of its own (name_temporaries). So where lines
        # break changes no other name: a longer file name in a message, say.
        late = {t: placed.args[0] for t, (_, placed) in self.scatters.items()}
        late.update((op.target, tuple(op.args[:1 if op.prim == "unindex" else 2]) +
                     tuple(op.args[2 if op.prim == "unindex" else 3:]))
                    for op in _ops(self.fn.body) if self._written_out(op))
        everything = self.inlined
        self.names = assign_names(self.fn, everything, fixed, reserved, shared, late, writes)
        self.inlined = {}
        self._decide_inlining(self.fn.body, depth=0, limit=MAX_LINE - 24)
        self.loop_items = {key: item for key, item in self.loop_items.items()
                           if item[1].target in self.names and item[1].target not in self.inlined}
        self.loop_item_reads = {first.target for _, first in self.loop_items.values()}
        temporaries = [v for v in everything if v not in self.inlined]
        if temporaries:
            self.names = name_temporaries(self.fn, self.inlined, self.names, temporaries,
                                          set(fixed.values()) | reserved, late, writes)
        params = ", ".join(("*" if p is self.fn.varargs else "") + p.hint
                           for p in self.fn.params)
        lines = [f"def {name}({params}):", _docstring(doc)]
        self._last_comment = None
        self._block(self.fn.body, lines, "    ")
        result = self._result(self.fn.result, self.fn.trees)
        lines.extend(wrap("    return " + strip_parens(ast.unparse(result))))
        return "\n".join(lines) + "\n"

    def _result(self, value, tree=None):
        if isinstance(tree, Rebuild):  # a container of gradients (ad/wrt.py)
            return self.container(tree, list(value))
        if isinstance(value, tuple):
            trees = tree if isinstance(tree, tuple) else (None,) * len(value)
            return ast.Tuple([self._result(v, t) for v, t in zip(value, trees)], ast.Load())
        return self.atom(value)

    # -- statements ----------------------------------------------------------------------
    def _block(self, stmts, lines, pad):
        start, noted = len(lines), getattr(self, "_noted", set())
        self._noted = set()  # (the notes written in this block, since its last `# Lnn`)
        for stmt in stmts:
            if isinstance(stmt, Op):
                if stmt.target not in self.inlined and stmt.target not in self.read_by_unpacking \
                        and stmt.target not in self.loop_item_reads:
                    self._comment(stmt, lines, pad)
                    self._op(stmt, lines, pad)
            elif isinstance(stmt, If):
                self._comment(stmt, lines, pad)
                self._if(stmt, lines, pad)
            elif isinstance(stmt, Loop):
                self._comment(stmt, lines, pad)
                heading = self._last_comment  # (what follows the loop for its line
                self._loop(stmt, lines, pad)  # is in the block its comment heads)
                self._last_comment = heading
            else:
                raise TypeError(f"emit has no method for {type(stmt).__name__}")
        self._noted = noted
        return len(lines) > start

    def _op(self, op, lines, pad):
        start = len(lines)
        self._op_lines(op, lines, pad)
        self._origin(op, lines, start, pad)

    def _origin(self, stmt, lines, start, pad):
        """A forward-pass statement (``lines[start:]``) made for a line of the
        user's code names it, ``# file.py:LINE``: at the end of the line if it
        fits, else on a line of its own above. Tracebacks show the line and
        so the user's place; backward blocks have their ``# L14: ...``."""
        loc = stmt.loc
        if loc is None or getattr(stmt, "backward", False) or len(lines) == start:
            return
        fn_loc = self.fn.loc
        if fn_loc is not None and (loc.filename, loc.lineno) == (fn_loc.filename,
                                                                 fn_loc.lineno):
            return  # checks of the arguments: their messages say where
        where = origin_comment(loc)
        if len(lines) == start + 1 and len(lines[start]) + 4 + len(where) <= MAX_LINE:
            lines[start] += f"  # {where}"
        elif lines[start - 1:start] != [f"{pad}# {where}"]:
            lines.insert(start, f"{pad}# {where}")

    def _op_lines(self, op, lines, pad):
        outputs = self.unpacked.get(op.target)
        if outputs is not None:  # w, v = np.linalg.eigh(a)
            names = ["_"] * len(TABLE[op.prim].outputs)
            for out in outputs:
                names[out.param("index")] = self.names[out.target]
            lines.extend(wrap(f"{pad}{', '.join(names)} = {ast.unparse(self.expr(op))}"))
            return
        if op.target in self.accumulations:
            placed = self.accumulations[op.target]
            if placed is not None:
                self._add_in_place(op, placed, lines, pad)
                return
            grad = ast.unparse(self.atom(op.args[1]))
            sign = "-=" if op.prim == "subtract" else "+="
            lines.extend(wrap(f"{pad}{self.names[op.target]} {sign} {grad}"))
            return
        if op.target in self.scatters:
            self._scatter(op, lines, pad)
            return
        if TABLE[op.prim].spelling[0] == "write":  # a[i] = v, a[i] += g, np.add.at(a, i, g)
            lines.extend(wrap(pad + ast.unparse(self.write_statement(op))))
            return
        if self._written_out(op):
            self._placed(op, lines, pad)
            return
        update = augmented(self, op)  # x_bar += g
        if update is not None:
            lines.extend(wrap(pad + update))
            return
        value = ast.unparse(self.expr(op))
        if value == self.names.get(op.target) and not op.effect:
            return  # ``x = x``: the comments above it are all it has to say
        if not self.counts.get(op.target):  # (an effect; a value nothing reads takes
            lines.extend(wrap(pad + value))  # no name another value may hold)
        else:
            lines.extend(wrap(f"{pad}{self.names[op.target]} = {value}"))

    def _if(self, stmt, lines, pad):
        test = ast.unparse(self.atom(stmt.cond))
        sides = []
        for side, block in (("then", stmt.then), ("orelse", stmt.orelse)):
            body = []
            self._block(block, body, pad + "    ")
            for m in stmt.merges:
                source = getattr(m, side)
                value = ast.unparse(self.atom(source))
                if value != self.names[m.target]:
                    body.append(f"{pad}    {self.names[m.target]} = {value}")
            sides.append(body)
        chosen = one_line_choice(sides, test, pad) if stmt.backward else None
        if chosen is not None:  # `x_bar = a if c else b`: one value either way
            lines.append(chosen)
            return
        lines.append(f"{pad}if {test}:")
        self._origin(stmt, lines, len(lines) - 1, pad)
        lines.extend(sides[0] or [f"{pad}    pass"])
        if sides[1]:
            lines.append(f"{pad}else:")
            lines.extend(sides[1])

    def _loop(self, loop, lines, pad):
        inner = pad + "    "
        if loop.kind == "range" and not (loop.body or loop.carried or loop.writes or
                                         loop.reads or loop.cond_block) \
                and (loop.exit is None or isinstance(loop.exit, Const) and not loop.exit.value):
            return  # (nothing left to run: a pass made its tape a range)
        for tape in loop.writes:
            lines.append(f"{pad}{self.names[tape.var]} = []")
        self._assign([(c.param, c.init) for c in loop.carried], lines, pad)
        start = len(lines)
        lines.extend(wrap(pad + self._loop_header(loop)))
        self._origin(loop, lines, start, pad)
        for tape in loop.reads:  # the tuples of a loop over several tapes
            if tape.entry is not None:
                unpack = f"{inner}{self._unpack(tape.items)} = {self.names[tape.entry]}"
                lines.extend(wrap(unpack) if len(unpack) <= MAX_LINE else wrap(
                    f"{inner}({self._unpack(tape.items)}) = {self.names[tape.entry]}"))
        if loop.kind == "while" and loop.cond not in self.inlined:
            self._block(loop.cond_block, lines, inner)
            lines.append(f"{inner}if not {self._text(loop.cond)}:")
            lines.append(f"{inner}    break")
        start = len(lines)
        self._block(loop.body, lines, inner)
        for tape in loop.writes:
            saved = ", ".join(self._text(a) for a in tape.items)
            saved = f"({saved})" if len(tape.items) > 1 else saved
            lines.extend(wrap(f"{inner}{self.names[tape.var]}.append({saved})"))
        self._assign([(c.param, c.update) for c in loop.carried], lines, inner)
        if loop.exit is not None and not (isinstance(loop.exit, Const) and not loop.exit.value):
            lines.append(f"{inner}if {self._text(loop.exit)}:")
            lines.append(f"{inner}    break")
        if len(lines) == start:  # (the header may end with its `# file.py:LINE`)
            lines.append(f"{inner}pass")

    def _loop_header(self, loop):
        if id(loop) in self.loop_items:  # for x in xs:
            items, first = self.loop_items[id(loop)]
            target, items = self.names[first.target], self._text(items)
            if self.counts.get(loop.index, 0) == 1:
                return f"for {target} in {items}:"
            index = self.names[loop.index]
            return f"for {index}, {target} in {self._builtin('enumerate')}({items}):"
        if loop.kind == "range":
            bounds = [self._text(b) for b in loop.bounds]
            if bounds[2] == "1":
                bounds = bounds[1:2] if bounds[0] == "0" else bounds[:2]
            return f"for {self.names[loop.index]} in {self._builtin('range')}" \
                f"({', '.join(bounds)}):"
        if loop.kind == "while":
            cond = self._text(loop.cond) if loop.cond in self.inlined else "True"
            return f"while {cond}:"
        targets = [self.names[t.entry] if t.entry is not None else self._unpack(t.items)
                   for t in loop.reads]
        tapes = [self._backwards(self.names[tape.var]) for tape in loop.reads]
        if len(tapes) > 1:
            return f"for {', '.join(targets)} in {self._builtin('zip')}({', '.join(tapes)}):"
        header = f"for {targets[0]} in {tapes[0]}:"
        # a long target is parenthesised, so that it can be broken across lines
        return header if len(header) + 8 <= MAX_LINE or "," not in targets[0] \
            else f"for ({targets[0]}) in {tapes[0]}:"

    def _unpack(self, loads):
        return ", ".join(self.names.get(v, "_") if self.counts.get(v) else "_"
                         for v in loads)

    def _assign(self, pairs, lines, pad):
        """``a, b = x, y`` for the pairs whose names differ (simultaneously, so
        one assignment cannot clobber a value another reads)."""
        pairs = [(self.names[t], self._text(v)) for t, v in pairs
                 if self.names[t] != self._text(v)]
        if pairs:
            targets = ", ".join(t for t, _ in pairs)
            values = ", ".join(v for _, v in pairs)
            line = f"{pad}{targets} = {values}"
            if len(line) > MAX_LINE and len(pairs) > 1:  # (parenthesised: it can break)
                line = f"{pad}{targets} = ({values})"
            lines.extend(wrap(line))

    def _text(self, atom):
        return ast.unparse(self.atom(atom))

    def _comment(self, stmt, lines, pad):
        loc = stmt.loc.quoted() if stmt.loc is not None else None
        if getattr(stmt, "backward", False) and loc is not None:
            key = (loc.filename, loc.lineno)
            if key != self._last_comment:
                self._last_comment = key
                where = f"L{loc.lineno}" if loc.filename == self.fn.loc.filename \
                    else f"{os.path.basename(loc.filename)}:{loc.lineno}"
                lines.append(fit_comment(f"{pad}# {where}: {loc.line.strip()}"))
                self._noted = set()
        for note in self._notes(stmt):  # once in a line's block: above its first statement
            if note not in self._noted:
                self._noted.add(note)
                lines.append(f"{pad}# {note}")

    def _notes(self, stmt):
        """Comments of ``stmt`` and of the operations folded into it."""
        notes = stmt.note.split("\n") if getattr(stmt, "note", "") else []
        for arg in getattr(stmt, "args", ()):
            if isinstance(arg, Var) and arg in self.inlined:
                notes += [n for n in self._notes(self.inlined[arg]) if n not in notes]
        return notes

    @property
    def _defs(self):
        if not hasattr(self, "_defs_cache"):
            self._defs_cache = {s.target: s for s in _ops(self.fn.body)}
        return self._defs_cache


_ORIGIN = re.compile(r"  # ([^\s#]+\.py:\d+)$")


def origin_comment(loc):
    """``file.py:LINE`` for a place in the user's code; for a line of a
    generated gradient (differentiated again), the place that line names."""
    if is_generated(loc.filename):
        named = _ORIGIN.search(loc.line.rstrip())
        if named:
            return named.group(1)
    return f"{os.path.basename(loc.filename)}:{loc.lineno}"


def _docstring(doc):
    """The docstring, its first line wrapped at 79 columns (long names)."""
    first, newline, rest = doc.partition("\n")
    first = "\n    ".join(textwrap.wrap(f'"""{first}', 75, break_long_words=False))
    return f'    {first}{newline}{rest}"""'


def _ops(stmts):
    for stmt in walk(stmts):
        if isinstance(stmt, Op):
            yield stmt


def _use_counts(fn):
    counts = use_counts(fn)
    stack = [fn.result]
    while stack:  # a result is never inlined: it is returned by name
        value = stack.pop()
        if isinstance(value, tuple):
            stack.extend(value)
        elif isinstance(value, Var):
            counts[value] = counts.get(value, 0) + 1
    return counts


def free_variables(fn):
    """The globals ``fn`` reads (emitted under their own names)."""
    return {a for op in _ops(fn.body) for a in op.args if isinstance(a, FreeVar)}


def helper_names():
    """The names of the runtime helpers generated code may call."""
    return {p.spelling[1] for p in TABLE.values() if p.spelling[0] == "helper"}


def module_roots(stmts):
    """The first names of the modules generated code calls functions of
    (``scipy`` of ``scipy.special.gammaln``): no variable or global takes them."""
    roots = {TABLE[s.prim].spelling[1].split(".")[0] for s in walk(stmts)
             if isinstance(s, Op) and TABLE[s.prim].spelling[0] == "module"}
    if any(isinstance(s, Op) and s.math for s in walk(stmts)):
        roots.add("math")  # math.sin(x) (spelling.py)
    return roots


def callee_roots(stmts):
    """The names the calls kept for what they do start with (``print``, ``log``
    of ``log.info``): generated code reads them, so no variable takes them."""
    roots = {stmt.param("callee").split(".")[0] for stmt in walk(stmts)
             if isinstance(stmt, Op) and TABLE[stmt.prim].spelling[0] == "call_callee"}
    return {root for root in roots if root.isidentifier()}
