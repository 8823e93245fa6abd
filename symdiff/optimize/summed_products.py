"""A sum of a product of factors that broadcast differently, as a contraction.

A gradient often multiplies factors of different shapes and sums the product
over the axes one of them was broadcast along: the means' adjoint of a
Gaussian mixture is ``(diff * w[..., None]).sum(axis=0)``, an (N, K, d)
temporary (0.7 ms at 20000 x 8 x 4) summed over N (0.3 ms), where a careful
person writes the contraction ``np.einsum("nkd,nk->kd", diff, w)`` as a stack
of matrix products (0.2 ms). Where the signature gives the pattern of every
factor (ir/patterns.py), such a sum becomes an einsum with one label per axis
of the product, which einsum_pairs.py writes as the matrix products and
products-and-sums it chooses; factors constant along the summed axes
(numbers, a divisor of the shape of the result) are applied after the sum,
to the smaller array. Every spelling is read: ``np.sum(a * b, axis=0)``,
``(a * b[..., None]).sum(0)``, the products the rules emit, negations and
divisions among them.

Not where there is nothing to gain: factors of one pattern with nothing to
apply after the sum stay a product and a sum, and a product read elsewhere
(its temporary is made anyway) is left alone, as are factors whose axes are
not known or broadcast in ways the labels cannot say.
"""
from __future__ import annotations

import string

from ..ir import patterns as pat
from ..ir.nodes import Const, Op, Var
from .common_subexpressions import replace_atoms
from .direct_forms import rewrite, substitute
from .einsum_pairs import full_contraction, lower_einsum, real_floats
from .gradient_only import read_only_by_gradient
from .reads import all_blocks, live_counts

_PRODUCTS = ("multiply", "divide", "negative", "getitem")


def summed_products(fn, builder):
    """``fn`` with its sums of broadcast products written as contractions."""
    facts = builder.facts
    if not facts.signature or any(sig.kind == "array" and sig.library != "numpy"
                                  for sig in facts.signature.values()):
        return fn  # (einsum and matmul of other libraries: not here)
    counts, live = live_counts(fn)
    # (a forward sum only the gradient reads: the same number up to rounding,
    # docs/semantics.md; one the user sees stays as written)
    ours = read_only_by_gradient(fn, live)
    subst = {}
    for block in all_blocks(fn.body):
        defs = {s.target: s for s in block if isinstance(s, Op)}
        new = []
        for stmt in block:
            made = None
            if isinstance(stmt, Op) and stmt.prim == "sum" and stmt.target in live and (
                    stmt.backward or stmt.target in ours):
                stmt.args = tuple(replace_atoms(a, subst) for a in stmt.args)
                found = _Product(builder, defs, counts).read(stmt)
                if found is not None:
                    made = rewrite(stmt, builder, found.write, subst)
            new += made if made is not None else [stmt]
        block[:] = new
    if subst:
        substitute(fn.body, subst)
        fn.result = replace_atoms(fn.result, subst)
    return fn


class _Product:
    """The factors of the product a ``sum`` reads: (value, product axes its
    axes are, exponent), and the number they are multiplied by."""

    def __init__(self, builder, defs, counts):
        self.b, self.facts, self.defs, self.counts = builder, builder.facts, defs, counts
        self.leaves, self.coef, self.ops = [], 1, 0

    def read(self, stmt):
        """``self`` with the factors of ``stmt`` (a sum) and what to make of
        them, or None where it is better left as it is."""
        if set(dict(stmt.params)) - {"axis", "keepdims"}:
            return None
        product = stmt.args[0]
        self.pattern = full = self.facts.pattern(product)
        if not full or None in full or not self.facts.is_float(product) \
                or self._walked(product) is None:
            return None
        self.summed = pat.normal_axes(stmt.param("axis"), len(full))
        if not self.summed or not self.visit(product, tuple(range(len(full))), 1):
            return None
        return self if self._labelled() and self._worth_it() else None

    def _walked(self, value):
        """The operation making ``value`` if it is a product only ``stmt`` reads,
        made in its block, or a view adding axes (free: read through any)."""
        op = self.facts.producer(value)
        if op is not None and op.prim == "getitem" and not op.effect \
                and _expanded(op, self.facts.rank(op.args[0])) is not None:
            return op
        op = self.defs.get(value) if isinstance(value, Var) else None
        if op is not None and not op.effect and (op.prim in _PRODUCTS[:3] or _squared(op)) \
                and self.counts.get(value) == 1 and value not in self.b.products:
            return op
        return None

    def visit(self, value, axes, exponent):
        """Read the factors of ``value`` (its axes: ``axes`` of the product's)."""
        if isinstance(value, Const):
            number = value.value
            if type(number) not in (int, float) or exponent < 0 and not number:
                return False
            self.coef = self.coef * number if exponent > 0 else self.coef / number
            return True
        op, facts = self._walked(value), self.facts
        if op is None:
            self.leaves.append((value, axes, exponent))
            return True
        ranks = [facts.rank(a) for a in op.args]
        if op.prim != "getitem" and (None in ranks or max(ranks) > len(axes)):
            return False
        self.ops += op.prim != "getitem"
        if op.prim == "negative":
            self.coef = -self.coef
            return self.visit(op.args[0], axes, exponent)
        if op.prim == "getitem":
            inner = _expanded(op, ranks[0])
            return self.visit(op.args[0], tuple(axes[i] for i in inner), exponent)
        if op.prim == "power":  # x ** 2: x times x
            return self.visit(op.args[0], axes, exponent) and \
                self.visit(op.args[0], axes, exponent)
        parts = [axes[len(axes) - r:] if r else () for r in ranks]
        if op.prim == "divide" and not self._constant(op.args[1], parts[1]):
            self.ops -= 1
            self.leaves.append((value, axes, exponent))  # (a divisor that varies: one factor)
            return True
        signs = (exponent, -exponent if op.prim == "divide" else exponent)
        return all(self.visit(a, part, sign) for a, part, sign in zip(op.args, parts, signs))

    def _constant(self, value, axes):
        """Whether ``value`` (at ``axes``) is the same all along the summed axes."""
        found = self.facts.pattern(value)
        return found is not None and all(
            e == 1 or a not in self.summed for e, a in zip(found, axes))

    def _labelled(self):
        """Each factor's labels (the product axes it varies along) and the axes
        of length one it broadcasts from; False where the patterns do not say."""
        self.factors = []
        seen = set()
        for value, axes, exponent in self.leaves:
            found = self.facts.pattern(value)
            if found is None or len(found) != len(axes):
                return False
            labels, drop = [], []
            for i, (entry, axis) in enumerate(zip(found, axes)):
                if entry == self.pattern[axis]:
                    labels.append(axis)
                elif entry == 1:
                    drop.append(i)  # (length one, broadcast along the product's axis)
                else:
                    return False
            inside = any(a in self.summed for a in labels)
            if inside and exponent < 0:
                return False
            self.factors.append((value, tuple(labels), tuple(drop), exponent, inside, axes))
            seen.update(labels)
        wide = {a for a, entry in enumerate(self.pattern) if entry != 1}
        return wide <= seen

    def _worth_it(self):
        """Whether it saves work: factors of different patterns (a contraction),
        or operations on the whole product that can act on the sum instead."""
        inside = [f for f in self.factors if f[4]]
        if not inside:
            return False
        self.contracted = len({f[1] for f in inside}) > 1
        # factors of one pattern: np.einsum multiplies and adds in one pass, with
        # no temporary (a third of the time of (d ** 2).sum(axis=-1) for an
        # (N, K, 4) d; as fast on a few numbers)
        self.fused = not self.contracted and len(inside) > 1 and \
            all(f[3] > 0 for f in inside)
        return self.contracted or self.fused or self.ops > len(inside) - 1

    # ---- writing --------------------------------------------------------------------------
    def write(self, b, stmt, facts):
        """The operations computing ``stmt``'s value; the last one is it."""
        # (the last operation takes the sum's name: direct_forms.rewrite; the
        # ones before it are temporaries, not values of that name)
        summed, hint = self.summed, None
        keep = stmt.param("keepdims", False)
        order = [a for a in range(len(self.pattern)) if keep or a not in summed]
        inside = [f for f in self.factors if f[4]]
        operands = [_squeezed(b, f[0], f[2]) for f in inside]
        if self.contracted or self.fused and not keep:
            axes = sorted(set().union(*(f[1] for f in inside)) - set(summed))
            letters = string.ascii_lowercase
            text = ",".join("".join(letters[a] for a in f[1]) for f in inside) + "->" + \
                "".join(letters[a] for a in axes)
            value = _einsum(b, operands, text, facts, hint)
        else:  # (one pattern: a product and a sum)
            value = operands[0]
            for other in operands[1:]:
                value = b.mul(value, other, hint=hint)
            value, axes = _summed(b, value, inside[0][1], summed, keep, hint)
        outside = []
        for value_, _, drop, exponent, _, axes_ in (f for f in self.factors if not f[4]):
            gone = tuple(i for i in drop if axes_[i] not in order)  # (summed, of length one)
            kept = [a for i, a in enumerate(axes_) if i not in gone]
            outside.append((_squeezed(b, value_, gone), kept, exponent))
        union = sorted(set(axes).union(*(part[1] for part in outside)))
        for part, part_axes, exponent in outside:
            value = (b.mul if exponent > 0 else b.div)(
                _spread(b, value, axes, union), _spread(b, part, part_axes, union), hint=hint)
            axes = union
        if self.coef == -1:
            value = b.neg(value, hint=hint)
        elif self.coef != 1:
            value = b.mul(Const(self.coef), value, hint=hint)
        if list(axes) != order:  # (axes of length one the product has, or kept)
            index = [slice(None) if a in axes else None for a in order]
            while index[-1] == slice(None):
                index.pop()
            value = b.op("getitem", value, *(Const(i) for i in index), hint=hint)
        return value


def _squared(op):
    return op.prim == "power" and isinstance(op.args[1], Const) and op.args[1].value == 2 \
        and type(op.args[1].value) is int


def _summed(b, value, labels, summed, keep, hint):
    """``value`` (axes ``labels``) summed over the axes ``summed`` has: the
    sum, and its axes."""
    axes = tuple(i for i, a in enumerate(labels) if a in summed)
    if axes == tuple(range(len(labels))) and not keep:
        value = b.op("sum", value, hint=hint)
    else:
        params = {"keepdims": True} if keep else {}
        value = b.op("sum", value, axis=axes if len(axes) > 1 else axes[0], hint=hint,
                     **params)
    return value, [a for a in labels if keep or a not in summed]


def _einsum(b, operands, text, facts, hint):
    """``np.einsum(text, *operands)``, as einsum_pairs.py writes it."""
    terms = text.split("->")[0].split(",")
    if text.endswith("->") and len(operands) == 2 and terms[0] == terms[1] and \
            len(set(terms[0])) == len(terms[0]) > 1 and real_floats(b, *operands):
        return full_contraction(b, *operands, hint=hint)
    with b.block() as scratch:
        b.op("einsum", *operands, subscripts=text, optimize=False, hint=hint)
    op = scratch[-1]
    lowered = lower_einsum(b, op, facts)
    if lowered is not None:
        return lowered
    b.append(op)
    return op.target


def _squeezed(b, value, drop):
    """``value`` without its axes ``drop`` (of length one): ``x[:, 0]``."""
    if not drop:
        return value
    index = [Const(0) if i in drop else Const(slice(None)) for i in range(max(drop) + 1)]
    return b.op("getitem", value, *index)


def _spread(b, value, labels, order):
    """``value`` (axes ``labels``, in ``order``) with None where ``order``
    has axes it lacks after its first (leading ones broadcast)."""
    if not labels or tuple(labels) == tuple(order[len(order) - len(labels):]):
        return value
    start = order.index(labels[0])
    index = [Const(slice(None)) if a in labels else Const(None) for a in order[start:]]
    while index and index[-1].value == slice(None):
        index.pop()
    return b.op("getitem", value, *index) if index else value


def _expanded(op, rank):
    """The axes ``x[index]`` puts the axes of ``x`` at, if it only adds some."""
    index = op.args[1:]
    if not all(isinstance(a, Const) for a in index):
        return None
    return pat.expansion([a.value for a in index], rank)
