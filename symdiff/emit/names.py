"""Display names for the variables of generated code.

Each variable is named after its hint (the user's name, or ``x_bar`` for an
adjoint). A name is reused once its previous holder is dead, so reassigning
``h`` in the user's code reads as reassigning ``h`` in the generated code;
clashes get ``_1``, ``_2``... in order of definition: deterministic.
"""
from __future__ import annotations

import keyword
import re

from ..ir.nodes import If, Loop, Op, Var, flatten, use_counts, walk
from ..ir.nodes import saved as ir_saved

# Builtins generated code calls (loop headers, len(), float(), slice values):
# no variable of generated code may take their names.
CALLED_BUILTINS = ("enumerate", "float", "int", "len", "range", "reversed", "slice", "zip")


class Positions:
    """Definition and last-use positions of variables in emission order.

    A variable read inside a loop but defined before it stays live until the
    loop ends: the next iteration reads it again.
    """

    def __init__(self, fn, inlined, late=None, shared=None):
        self.defs, self.last = {}, {}
        self.shared = shared or {}  # var -> the var whose array (and name) it takes over
        self.pos = 0
        self.inlined = inlined
        self.late = late or {}  # var -> what is read on the line after its definition
        self.groups = {}  # var -> the var whose name it shares
        self.loops = []   # (start position, vars read) of the loops we are in
        self.inits = []   # (init, carried param, loop start): may share the name
        for p in fn.params:
            self.defs[p] = 0
        self._block(fn.body)
        self.pos += 1
        for atom in flatten(fn.result):
            self._use(atom)
        for init, param, start in self.inits:  # read last by the loop it starts
            if init not in self.groups and param not in self.groups and \
                    self._last_of_group(init) <= start:
                self.groups[init] = param

    def _last_of_group(self, root):
        """The last read of any value sharing ``root``'s name (an ``if``'s
        merged value and each branch's: one name)."""
        return max([self.last.get(v, 0) for v in self.groups if _root(self.groups, v) is root]
                   + [self.last.get(root, 0)])

    def _use(self, atom):
        if isinstance(atom, Var) and atom in self.inlined:
            for a in self.inlined[atom].args:
                self._use(a)
            return
        if isinstance(atom, Var):
            self.last[atom] = max(self.last.get(atom, 0), self.pos)
            for _, read in self.loops:
                read.add(atom)

    def _define(self, var):
        if var is not None and var not in self.inlined:
            self.defs.setdefault(var, self.pos)
            if var in self.shared and self.shared[var] in self.defs:
                self.groups.setdefault(var, self.shared[var])

    def _taken_over(self, var):
        """The var whose name ``var`` takes, through arrays taken over."""
        while var in self.shared and self.groups.get(var) is self.shared[var]:
            var = self.shared[var]
        return var

    def _block(self, stmts):
        for stmt in stmts:
            self.pos += 1
            if isinstance(stmt, Op):
                for a in stmt.args:
                    self._use(a)
                self._define(stmt.target)
                if stmt.target in self.late:  # `x_bar = buffer`, then `x_bar[i] += g`:
                    self.pos += 1             # g is read after x_bar is assigned
                    late = self.late[stmt.target]
                    for atom in late if isinstance(late, tuple) else (late,):
                        self._use(atom)
            elif isinstance(stmt, If):
                self._if(stmt)
            elif isinstance(stmt, Loop):
                self._loop(stmt)

    def _if(self, stmt):
        self._use(stmt.cond)
        start = self.pos
        for side, block in (("then", stmt.then), ("orelse", stmt.orelse)):
            self._block(block)
            self.pos += 1
            for m in stmt.merges:
                source = getattr(m, side)
                self._use(source)
                source = self._taken_over(source)
                if isinstance(source, Var) and self.defs.get(source, -1) > start \
                        and source not in self.groups:
                    self._join(source, m.target)
        self.pos += 1
        for m in stmt.merges:
            self._define(m.target)

    def _loop(self, loop):
        for tape in loop.writes:  # `tape = []` comes before everything else
            self._define(tape.var)
        self.pos += 1
        for a in list(loop.bounds) + [c.init for c in loop.carried]:
            self._use(a)
        start = self.pos
        for tape in loop.reads:
            self._use(tape.var)  # read by the reverse loop, defined by the forward one
        loads = [v for tape in loop.reads for v in tape.items]
        entries = [tape.entry for tape in loop.reads if tape.entry is not None]
        for var in [loop.index] + entries + loads + [c.param for c in loop.carried]:
            self._define(var)
        self.pos += 1
        for var in entries:  # unpacked first thing in the body, all alive till then
            self._use(var)
        self.loops.append((start, set()))
        self.pos += 1
        self._block(loop.cond_block)
        self._use(loop.cond)
        self._block(loop.body)
        self.pos += 1
        for a in ir_saved(loop):  # appended to the tape at the end of the body
            self._use(a)
        for tape in loop.reads:  # no other list takes its name while it is read
            self._use(tape.var)
        saved = set(ir_saved(loop))
        # `h_bar = h - target` rather than `t = h - target; h_bar = t`, for a value
        # made for the loop alone, in its block (not an outer loop's: read again)
        outer = self.loops[-2][0] if len(self.loops) > 1 else 0
        for c in loop.carried:  # (decided once every read is known: see __init__)
            if isinstance(c.init, Var) and c.init in self.defs and \
                    self.defs[c.init] > outer and c.init not in self.inlined:
                self.inits.append((c.init, c.param, start))
        for c in loop.carried:  # (all read before any takes its param's name:
            self._use(c.update)  # `w, w_prev = w_new, w` reads the old `w`)
        for c in loop.carried:
            update = self._taken_over(c.update)
            if isinstance(update, Var) and self.defs.get(update, -1) > start \
                    and update not in self.groups and c.param not in saved \
                    and self.last.get(c.param, 0) <= self._first_def(update):
                self._join(update, c.param)
            self._join(c.out, c.param)
        self._use(loop.exit)
        _, read = self.loops.pop()
        for var in read:  # read again by the next iteration
            if self.defs.get(var, 0) <= start:
                self.last[var] = max(self.last.get(var, 0), self.pos)
        self.pos += 1

    def _first_def(self, root):
        """Where the first of the vars sharing ``root``'s name is defined (a
        merge's name is taken in its branches, before the merge)."""
        return min([self.defs[root]] + [self.defs[v] for v in self.groups
                                        if v in self.defs and _root(self.groups, v) is root])

    def _join(self, var, root):
        self.groups[var] = root
        self.defs.setdefault(var, self.pos)


def assign_names(fn, inlined, fixed, reserved, shared=None, late=None, writes=None):
    """Var -> display name for every variable that is not inlined; each var in
    ``shared`` gets the name of the var it maps to (an array it takes over);
    ``late`` maps a var to a value read on the line after its definition;
    ``writes``: the result of a write in place -> the array it writes into.

    An adjoint is named after the name its value's primal got (``t_2_bar``
    for ``t_2``). A name once given to a temporary (``t``, ``t_bar``) is never
    given to another value, and one given to a named value only to a later
    value of that name (``h`` updated by a loop, read back from its tape):
    one name, one quantity."""
    adjoints = {**getattr(fn, "adjoints", {}), **_returned_gradients(fn)}
    positions = Positions(fn, inlined, late, writes)
    for var, root in (shared or {}).items():
        if var in positions.defs and root in positions.defs and var not in positions.groups:
            positions.groups[var] = root
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
    owner = {name: name for name in names.values()}  # name -> its quantity (None: a temporary)
    shaped, saved = _saved_shapes(fn), _saved_items(fn)
    quantities = {}  # var -> the quantity its name stands for
    users = {v.hint for v in fn.named} | {p.hint for p in fn.params}  # the user's names
    for start, end, _, root, group in sorted(spans, key=lambda s: (s[0], s[2])):
        primal = next((adjoints[v] for v in group if v in adjoints), None)
        primal = shaped.get(primal, primal)  # (saved as its shape: the value's adjoint)
        base = names[primal] + "_bar" if primal in names else _identifier(root.hint)
        named = any(v in fn.named for v in group)
        # (an adjoint's own line makes it "named"; of a temporary, it is one too)
        of_temporary = primal is not None and (  # (folded into a line: a temporary)
            primal not in names or _TEMPORARY.fullmatch(names[primal]))
        quantity = ("temporary", root.uid) if _TEMPORARY.fullmatch(base) and (
            not named or of_temporary) else base
        if not named and primal is None:  # (a name the compiler chose: one value's)
            quantity = ("hint", root.uid)
        elif primal is not None and primal.hint not in users and quantity == base:
            quantity = ("adjoint", primal.uid)  # (of a value the compiler named: its own)
        item = next((saved[v] for v in group if v in saved), None)
        if item in quantities:  # read back from a tape: the name it was saved under
            base, quantity = names[item], quantities[item]
        quantities.update((v, quantity) for v in group)
        if all(positions.last.get(v) is None and v not in fn.named for v in group):
            names.update((v, base) for v in group)  # (never read: written without a name)
            continue
        name = _free_name(base, start, busy, owner, quantity)
        busy[name] = end
        owner[name] = quantity
        for v in group:
            names[v] = name
    return names


def name_temporaries(fn, inlined, names, temporaries, taken, late=None, writes=None):
    """``names`` with names for ``temporaries``: values that have a line of
    their own only because the line reading them would be too long. The
    other names were chosen as if these were folded in (`assign_names`), and
    stay; each temporary takes the first of ``hint``, ``hint_1``, ... that
    no variable holds while it is alive (never one of ``taken``)."""
    positions = Positions(fn, inlined, late, writes)
    spans = {}  # name -> [(start, end)] of the groups holding it
    groups = {}
    for var in positions.defs:
        if var in names:
            groups.setdefault(_root(positions.groups, var), []).append(var)
    for root, group in groups.items():
        start = min(positions.defs[v] for v in group)
        end = max([positions.last.get(v, start) for v in group] + [start])
        spans.setdefault(names[root], []).append((start, end))
    out = dict(names)
    given = set(names.values())  # (held by values the positions do not see, too)
    adjoints, shaped = getattr(fn, "adjoints", {}), _saved_shapes(fn)
    for var in sorted(temporaries, key=lambda v: (positions.defs.get(v, 0), v.uid)):
        start = positions.defs.get(var, 0)
        end = max(positions.last.get(var, start), start)
        primal = adjoints.get(var)
        primal = shaped.get(primal, primal)  # (saved as its shape: the value's adjoint)
        base = names[primal] + "_bar" if primal in names else _identifier(var.hint)
        name, n = base, 0
        # (a temporary's name is its own: never one another value had)
        while name in taken or name in spans or name in given:
            n += 1
            name = f"{base}_{n}"
        spans.setdefault(name, []).append((start, end))
        out[var] = name
    return out


def _returned_gradients(fn):
    """An adjoint returned as the gradient of an argument and read by nothing
    else -> that argument: ``x_bar``, not ``t_bar`` of ``t = x - y``, is what
    the reader looks for."""
    atoms, adjoints = list(flatten(fn.result)), getattr(fn, "adjoints", {})
    counts = use_counts(fn)
    return {atom: param for atom, param in zip(atoms, getattr(fn, "returns", ()))
            if param is not None and atom in adjoints and counts.get(atom) == 1}


def _saved_items(fn):
    """A reverse loop's read of a value its forward loop saved -> that value."""
    written = {t.var: t.items for s in walk(fn.body) if isinstance(s, Loop) for t in s.writes}
    return {load: item for loop in walk(fn.body) if isinstance(loop, Loop)
            for tape in loop.reads
            for load, item in zip(tape.items, written.get(tape.var, ()))}


def _saved_shapes(fn):
    """A reverse loop's read of a value its forward loop saved as its shape
    (``x.shape``) -> that value."""
    ops = {s.target: s for s in walk(fn.body) if isinstance(s, Op)}
    written = {t.var: t.items for s in walk(fn.body) if isinstance(s, Loop) for t in s.writes}
    out = {}
    for loop in walk(fn.body):
        if isinstance(loop, Loop):
            for tape in loop.reads:
                for load, item in zip(tape.items, written.get(tape.var, ())):
                    made = ops.get(item)
                    if made is not None and made.prim in ("shape", "array_shape"):
                        out[load] = made.args[0]
    return out


def builtin_aliases(params, taken):
    """{builtin: name} for the called builtins a parameter of the same name
    hides; generated code calls them by that name (``_range``), which the
    compiler binds to the builtin (a written module imports it from builtins)."""
    aliases = {}
    for name in CALLED_BUILTINS:
        if name in params:
            alias = "_" + name
            while alias in params or alias in taken:
                alias += "_"
            aliases[name] = alias
    return aliases


def _root(groups, var):
    while var in groups:
        var = groups[var]
    return var


# what generated code calls a value of no name of its own: each such value has one
_TEMPORARY = re.compile(r"t(_\d+)?(_bar)*")


def _free_name(base, start, busy, owner=None, quantity=None):
    """The first of ``base``, ``base_1``, ... free at ``start`` and never held
    by another quantity."""
    owner = owner or {}

    def free(name):
        return busy.get(name, -1) <= start and (name not in owner or owner[name] == quantity)
    if free(base):
        return base
    n = 1
    while not free(f"{base}_{n}"):
        n += 1
    return f"{base}_{n}"


def _identifier(hint):
    name = re.sub(r"\W", "_", hint or "t")
    if not name or name[0].isdigit():
        name = "t" + name
    if keyword.iskeyword(name):
        name += "_"
    return name
