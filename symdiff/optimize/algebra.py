"""Algebra on the backward pass's elementwise regions.

The reverse pass differentiates one operation at a time, so a gradient is
written as the chain rule made it: the two terms of the product rule of
``0.5 * r * r`` added at the end (``r_bar + r_bar_1``), one ``np.where`` per
contribution, ``6.0 * s / (2.0 * s)`` through a ``backward_as`` (NaN where
``s`` is 0, although the derivative is ``3``). Here each region of
elementwise operations of the backward pass that feed one value (single-use
temporaries of one block, up to a value read elsewhere) is read as one
expression, put in a normal form (poly.py: like terms added, factors
cancelled, selects of one mask merged), and written back where that takes
fewer operations than before. A few identities of the functions with kinks
join in: a share of ``maximum``'s gradient times a difference that vanishes
outside its support is that difference, and ``where(|x| <= c, x, c *
sign(x))`` or ``sign(x) * minimum(|x|, c)`` is ``np.clip(x, -c, c)`` (for a
bound only known when the code runs, under ``if c >= 0``).

Bounded: an expression of more than `LIMIT` terms is left as it is, so a
compile stays in milliseconds. `symdiff.show_ir(f, "optimized")` shows the
result.
"""
from __future__ import annotations

import numpy as np

from ..ir.nodes import Const, If, Op, Var, blocks, use_counts, uses, walk
from ..ir.primitive import TABLE
from ..ir.shapes import is_elementwise
from .common_subexpressions import replace_atoms
from .direct_forms import substitute
from .expanded_numbers import numbers_out_of_expansions
from .forward_reads import ForwardReads
from .kink_algebra import support
from .product_identities import products_simplified
from .poly import Algebra
from .gradient_only import read_only_by_gradient
from .reads import live_counts, views_alike
from .writer import Writer

LIMIT = 64
_ARITHMETIC = {"add", "subtract", "multiply", "divide", "negative", "power", "where"}
_NOT_CALLS = {"pass_gradient", "stop_gradient", "require_float", "require_scalar"}


def simplify_regions(fn, builder):
    """``fn`` with its backward elementwise regions in normal form."""
    counts, live = _read_counts(fn), live_counts(fn)
    numbers_out_of_expansions(fn, builder.facts, counts)
    subst = {}
    ours = read_only_by_gradient(fn, live[1])  # (forward sums it may read through)
    for block in [fn.body] + [b for s in walk(fn.body) for b in blocks(s)]:
        _Region(builder, counts, subst, live, ours).run(block)
    if subst:
        substitute(fn.body, subst)
        fn.result = replace_atoms(fn.result, subst)
    return fn


class _Region(ForwardReads):
    def __init__(self, builder, counts, subst, live, ours=frozenset()):
        self.live_counts, self.live = live
        self.ours = ours
        self.softplus, self.identity_used = True, False  # (see rewrite)
        self.b = builder
        self.facts = builder.facts
        self.counts = counts
        self.subst = subst
        self.sums = {}  # forward sum -> (its normal form, its factors), or ()

    def run(self, block):
        self.defs = {s.target: s for s in block if isinstance(s, Op)}
        self.position = {v: i for i, v in enumerate(self.defs)}
        self.products = [(v, op) for v, op in self.defs.items()  # (forward_reads.py)
                         if op.prim in ("multiply", "divide") and not op.backward
                         and not op.effect and op.args[0] is not op.args[1]
                         and all(isinstance(a, Var) for a in op.args)]
        self.same = views_alike(block)
        region = {v for v, op in self.defs.items() if _algebraic(op)}
        users = {}
        for op in block:
            if isinstance(op, Op) and op.target in region and self.counts.get(op.target):
                for a in op.args:
                    if isinstance(a, Var):
                        users.setdefault(a, []).append(op)
        self.inline = {v for v in region if self.counts.get(v) == 1 and len(users.get(v, ())) == 1
                       and v not in self.b.products}
        self._merged_reads(region, users)
        # values read elsewhere too: an expression may read through them where that
        # cancels them (x_bar - 2 * x * (x_bar / (2 * x)) is 0), though they stay
        self.shared = {v for v in region if v not in self.inline and v not in self.b.products}
        self.through = False
        new = []
        for stmt in block:
            made = None
            if isinstance(stmt, Op) and stmt.target in region and self.counts.get(stmt.target) \
                    and stmt.target not in self.inline and stmt.target not in self.b.products:
                made = self.rewrite(stmt)
            new += made if made is not None else [stmt]
        block[:] = new

    def _merged_reads(self, region, users):
        """Also read through a value every read of which ends in one
        expression (the two terms of the product rule of ``x * x``, ``a + a``:
        the normal form then adds them up, ``2 * a``), reads by operations
        nothing needs aside, and through the values between."""
        self.merged = set()
        live = {v: [op for op in users.get(v, ()) if op.target in self.live] for v in region}
        chain = {v for v in region if len(live[v]) == 1 and self.live_counts.get(v) == 1
                 and v not in self.b.products}
        for v in sorted(region - self.inline, key=lambda v: v.hint):
            reads = live[v]
            if v in self.b.products or len(reads) < 2 or self.live_counts.get(v) != len(reads):
                continue
            paths = [self._path(op, chain, live) for op in reads]
            if len({id(path[-1]) for path in paths}) == 1:
                self.inline.add(v)
                self.merged.add(v)
                self.inline.update(op.target for path in paths for op in path[:-1])

    def _path(self, op, chain, live):
        """The operations from ``op`` to the one whose expression it is read into."""
        path = [op]
        while (op.target in self.inline or op.target in chain) and len(path) < 4 * LIMIT:
            users = live.get(op.target) or ()
            if len(users) != 1:
                break
            op = users[0]
            path.append(op)
        return path

    # ---- one expression ------------------------------------------------------------------
    def rewrite(self, root):
        self.met, self.terms = False, None  # (met: it reads a value others read too)
        self.met_shared = []
        self.softplus, self.identity_used = True, False
        found = self._attempt(root)
        if self.identity_used:  # (1 / (1 + exp(-a)) or the forward e / (1 + e): the cheaper)
            self.softplus = False
            try:
                plain = self._attempt(root)
            finally:
                self.softplus = True
            if plain is not None and (found is None or plain[0] < found[0]):
                found = plain
        base, held = self.terms, {k[1] for k in self.algebra.factors if k[0] == "a"}
        near = any(a in held for v in self.met_shared for a in self.defs[v].args)
        small = len(self.tree) < 2  # (one operation: worth reading through only near)
        for depth in ("deep", "shallow") if self.met and base else ():
            if small and not near or depth == "shallow" and not self.smaller:
                break  # (nothing the expression holds would cancel, or read all the
                # way nothing did: one operation deep, nothing would either)
            self.through, self.terms = depth, base  # read through those, where that
            try:  # leaves a smaller form: all the way, or one operation deep (``p *
                other = self._attempt(root)  # (g / p)`` is ``g``, which stays named,
            finally:  # where the values deeper would cost operations again)
                self.through = False
            if other is not None and (found is None or other[0] <= found[0]):
                found = other
        if found is None:
            return None
        _, made, result, tree = found
        notes = [op.note for op in tree if op.note]
        last = made[-1] if made else None
        if isinstance(last, Op) and last.target is result:
            self._rename(last, root.target, result)
        elif isinstance(last, If) and last.merges and last.merges[-1].target is result:
            last.merges[-1].target = root.target
            self.facts.shape[root.target] = self.facts.key(result)
        else:
            self.subst[root.target] = result
        if made and notes:
            target = next((s for s in reversed(made) if isinstance(s, Op)), None)
            if target is not None:
                target.note = "\n".join(dict.fromkeys("\n".join(notes).split("\n")))
        return made

    def _attempt(self, root):
        """(cost, operations, result, operations replaced) of ``root``'s value in
        normal form, or None where that costs no less than it does now."""
        algebra = Algebra(limit=LIMIT)
        self.algebra, self.tree, self.kept, self.read_through = algebra, [], [], 0
        self.smaller = False  # (read through, a smaller form than without)
        self.opened = False  # (a forward value read as its product: t + t, t = 0.5 * v)
        self.freed = []  # forward sums read through that nothing else reads: then dead
        self.opened_ops = []  # forward products read as their factors (t = -y, t * z)
        self.read_forward = {}  # (atom, depth) -> its poly, this attempt
        poly = self.poly(root.target)
        if poly is not None and len(poly.terms) <= LIMIT:
            poly = algebra.expanded(poly) or poly
        if poly is None or len(poly.terms) > LIMIT:
            return None
        if self.through and algebra.weight(poly) >= self.terms:
            return None  # (nothing cancelled: not worth writing)
        self.smaller = bool(self.through)
        self.terms = algebra.weight(poly)
        self._known_products(root)
        if len(self.tree) < 2 - bool(self.kept or self.opened):
            return None
        saved = (self.b.backward, self.b.note)
        self.b.backward, self.b.note = True, ""
        try:
            with self.b.block() as made, self.b.at(root.loc):
                result = Writer(self.b, algebra, self.facts).poly(poly)
        finally:
            self.b.backward, self.b.note = saved
        made[:] = _needed(made, result)
        cost = _Cost(self.facts)
        before = list({id(op): op for op in self.tree}.values())
        merged = any(op.target in self.merged for op in before)  # (a + a: 2 * a reads better)
        freed = self.freed + self._unread_forward(made)
        cheaper = cost(made) < cost(self.tree + freed) or \
            (merged or self.through) and cost(made) <= cost(before + freed)
        if not cheaper or not self._same_value_kind(result, root.target):
            return None
        return cost(made), made, result, self.tree

    def poly(self, atom):
        """The normal form of the value ``atom``, reading through the region."""
        atom = self.same.get(atom, atom)
        if not isinstance(atom, Var) or atom not in self.defs:
            return self._forward(atom)
        shared = self.tree and atom not in self.inline
        if shared and not (self.through and atom in self.shared and not self.read_through) \
                or self.through == "shallow" and self.read_through:
            if atom in self.shared and not self.through:
                self.met = True
                self.met_shared.append(atom)
            return self._forward(atom)
        op = self.defs[atom]
        if not _algebraic(op) or len(self.tree) + len(self.kept) > 4 * LIMIT:
            return self.algebra.atom(atom)
        if shared or self.read_through:
            self.kept.append(op)  # (read through: it stays, for its other readers)
            self.read_through += 1
            try:
                return self._read(op)
            finally:
                self.read_through -= 1
        self.tree.append(op)
        return self._read(op)

    def _read(self, op):
        A, args = self.algebra, op.args
        if op.prim == "pass_gradient":  # (its comment stays: see rewrite)
            return self.poly(args[0])
        if op.prim == "where":
            return A.where(args[0], self.poly(args[1]), self.poly(args[2]))
        parts = [self.poly(a) for a in args]
        made = None
        if op.prim == "add":
            made = A.add(*parts)
        elif op.prim == "subtract":
            made = A.sub(*parts)
        elif op.prim == "multiply":
            made = A.mul(*parts)
        elif op.prim == "negative":
            made = A.neg(parts[0])
        elif op.prim == "divide":
            made = A.div(*parts)
        elif op.prim == "power" and isinstance(args[1], Const) and \
                isinstance(args[1].value, int) and not isinstance(args[1].value, bool):
            made = A.power(parts[0], args[1].value)
        if made is None:
            made = A.call(op.prim, parts, op.params, op.math)
        return products_simplified(A, support(A, made, self.facts), self.facts,
                                   self._opened_for if self.softplus else None)

    def _opened_for(self, atom, *replaced):
        """``atom`` as its terms, for an identity that no longer reads the
        forward values ``replaced`` (then freed where nothing else reads them)."""
        self.identity_used = True
        for value in replaced:
            made = self.facts.producer(value)
            if made is not None and not made.backward:
                self.opened_ops.append(made)
        return self._forward(atom)

    def _same_value_kind(self, result, target):
        """The rewritten value has the shape (and, where known, the dtype)."""
        facts = self.facts
        if not facts.same_shape(result, target):
            return False
        want = facts.dtype(target)
        got = facts.dtype(result)
        if want is None:
            return True
        if got is None and facts.is_scalar(target) and (
                want is float or isinstance(want, np.dtype) and want == np.float64):
            return True  # (a number of the same operands: a loop's carried number, say,
            # a Python float before its first iteration and an np.float64 after)
        return got is not None and (got is want if isinstance(want, type) or
                                    isinstance(got, type) else got == want)

    def _rename(self, op, target, result):
        facts = self.facts
        facts.shape[target] = facts.key(result)
        if result in facts.dtypes:
            facts.dtypes[target] = facts.dtypes[result]
        facts.defs[target] = op
        if result in self.b.products:
            self.b.products[target] = self.b.products.pop(result)
        op.target = target


def _needed(made, result):
    """The statements of ``made`` the value ``result`` needs: a product the
    builder folded into another (``0.5 * (2.0 * t)``) is left behind unread."""
    needed, kept = {result}, []
    for stmt in reversed(made):
        if isinstance(stmt, Op) and stmt.target not in needed and not stmt.effect:
            continue
        kept.append(stmt)
        for s in walk([stmt]):
            needed.update(a for a in uses(s) + [x for m in getattr(s, "merges", ())
                                                for x in uses(m)] if isinstance(a, Var))
    return kept[::-1]


def _read_counts(fn):
    """How many times each variable is read by what is not dead code: a fold's
    leftover (``-g``, once ``g / y`` took its sign) does not make a value shared.
    (Only the choice of regions depends on it; dead code goes later.)"""
    counts = use_counts(fn)
    ops = [s for s in walk(fn.body) if isinstance(s, Op)][::-1]  # (readers first: one pass)
    dead, changed = set(), True
    while changed:
        changed = False
        for op in ops:
            if id(op) not in dead and not op.effect and not counts.get(op.target):
                dead.add(id(op))
                changed = True
                for a in op.args:
                    if isinstance(a, Var):
                        counts[a] -= 1
    return counts


def _algebraic(op):
    record = TABLE.get(op.prim)
    if op.prim == "pass_gradient":  # a gradient passed on as it is
        return op.backward
    return op.backward and not op.effect and record is not None and not record.boolean \
        and is_elementwise(op.prim) and op.prim not in _NOT_CALLS \
        and (op.prim in _ARITHMETIC or record.formula is not None or op.prim in ("step",))


class _Cost:
    """About what ``stmts`` cost, in passes over an array: a select with an
    irregular mask several (NumPy's where branches per element), an operation
    on scalars next to nothing; an ``if`` what its dearer side costs."""

    WEIGHTS = {"where": 4.0, "step": 4.0, "pass_gradient": 0.0}  # (that one: a name)

    def __init__(self, facts):
        self.facts = facts

    def __call__(self, stmts):
        total = 0.0
        for s in stmts:
            if isinstance(s, If):
                total += max(self(s.then), self(s.orelse))
            elif self.facts.is_scalar(s.target):
                total += 0.05
            else:
                total += self.WEIGHTS.get(s.prim, 1.0)
        return total
