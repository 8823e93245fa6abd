"""Random programs in symdiff's language, and the properties each must have.

`Generator` writes a module with a function ``f`` (and helpers it calls) from
a random source (hypothesis's ``st.randoms()``, so failures shrink). Every
expression is written twice:

* plainly, the code symdiff differentiates (``f``);
* instrumented, ``f_sig``: the same computation, with each kink, branch and
  domain-sensitive operation going through `Recorder` ``R``, which records
  the decisions taken (signs, masks, predicates) and whether an operation
  whose value is *used* (selected by every enclosing ``np.where``) is outside
  its domain or huge.

`check_program` then checks what must hold for every program: compiling
succeeds or raises a SymdiffError (never another exception); the gradient
runs without any other exception; where the decisions do not change under
small perturbations the gradient matches central differences; where the
value and everything the program actually uses is finite, so is the
gradient; value_and_grad's value is the function's value; and compiling
twice gives the same source.
"""
from __future__ import annotations

import importlib.util
import itertools
import os
import re
import sys
import textwrap
import warnings

import numpy as np

import symdiff
from symdiff.errors import SymdiffError

SHAPES = [(), (3,), (2, 3), (2, 1), (1, 3), (2,)]
SMALL = 1e-300


# ---- the instrumented runtime ---------------------------------------------------------
def _project(mask, shape):
    """Which entries of a value of ``shape`` feed an entry where ``mask`` holds
    (``mask`` and the value broadcast together)."""
    mask = np.asarray(mask, dtype=bool)
    full = np.broadcast_shapes(mask.shape, shape)
    m = np.broadcast_to(mask, full)
    lead = len(full) - len(shape)
    if lead:
        m = m.any(axis=tuple(range(lead)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and m.shape[i] != 1)
    if axes:
        m = m.any(axis=axes, keepdims=True)
    return np.broadcast_to(m, shape)


class Recorder:
    """What one run of an instrumented program decided and touched."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.sig = []        # decisions: masks, signs, predicates
        self.stack = []      # masks of the enclosing where-branches (None: all used)
        self.bad = False     # a used value outside its function's domain
        self.huge = False    # a used value of magnitude > 1e6

    def used(self, shape):
        m = np.ones(shape, dtype=bool)
        for mask in reversed(self.stack):
            if mask is None:
                break
            m = m & _project(mask, shape)
        return m

    def _check(self, value, ok):
        value = np.asarray(value)
        self.sig.append(np.asarray(ok).copy())
        if np.any(self.used(value.shape) & ~np.asarray(ok)):
            self.bad = True

    def _grow(self, out):
        out = np.asarray(out)
        big = ~(np.abs(out) < 1e6)
        if np.any(self.used(out.shape) & big):
            self.huge = True
        return out

    # decisions
    def where(self, cond, then, orelse):
        cond = np.asarray(cond, dtype=bool)
        self.sig.append(cond.copy())
        self.stack.append(cond)
        try:
            a = then()
        finally:
            self.stack.pop()
        self.stack.append(~cond)
        try:
            b = orelse()
        finally:
            self.stack.pop()
        return np.where(cond, a, b)

    def pred(self, p):
        self.sig.append(bool(p))
        return p

    def mask(self, m):
        """A mask a program indexes by (``x[x > 0.5]``): a decision."""
        self.sig.append(np.asarray(m, dtype=bool).copy())
        return m

    def full(self, thunk):
        self.stack.append(None)
        try:
            return thunk()
        finally:
            self.stack.pop()

    def abs(self, e):
        self.sig.append(np.sign(e))
        return np.abs(e)

    def maximum(self, a, b):
        self.sig.append(np.sign(np.subtract(a, b)))
        return np.maximum(a, b)

    def minimum(self, a, b):
        self.sig.append(np.sign(np.subtract(a, b)))
        return np.minimum(a, b)

    def amax(self, e, axis=None, keepdims=False):
        e = np.asarray(e)
        self.sig.append(e == np.max(e, axis=axis, keepdims=True))
        return np.max(e, axis=axis, keepdims=keepdims)

    def amin(self, e, axis=None, keepdims=False):
        e = np.asarray(e)
        self.sig.append(e == np.min(e, axis=axis, keepdims=True))
        return np.min(e, axis=axis, keepdims=keepdims)

    # domains
    def sqrt(self, e):
        self._check(e, np.asarray(e) > 0)
        return self._grow(np.sqrt(e))

    def log(self, e):
        self._check(e, np.asarray(e) > 0)
        return self._grow(np.log(e))

    def arcsin(self, e):
        self._check(e, np.abs(e) < 1)
        return np.arcsin(e)

    def div(self, a, e):
        out = np.divide(a, e)
        ok = np.asarray(e) != 0
        self.sig.append(ok.copy())
        used = _project(self.used(np.shape(out)), np.shape(e))
        if np.any(used & ~ok):
            self.bad = True
        return self._grow(out)

    def pow15(self, e):
        self._check(e, np.asarray(e) >= 0)
        return self._grow(np.power(e, 1.5))

    def exp(self, e):
        return self._grow(np.exp(e))

    def shared(self, value, ok):
        """A value computed once and read under masks the stack does not see
        (fuzz_oracle's shared values): its domain's decisions count, and a
        value on its domain's edge (finite, with an infinite derivative:
        arcsin(1.0)) counts as used there, as does a huge one."""
        ok = np.asarray(ok)
        self.sig.append(ok.copy())
        finite = np.isfinite(value)
        if np.any(~ok & finite):
            self.bad = True
        if np.any(finite & (np.abs(np.where(finite, value, 0.0)) >= 1e6)):
            self.huge = True
        return value

    def grow(self, e):
        return self._grow(e)


R = Recorder()


# ---- expressions ------------------------------------------------------------------------
class E:
    """An expression: its shape and its plain and instrumented spellings."""

    __slots__ = ("shape", "p", "i", "atom")

    def __init__(self, shape, p, i=None, atom=False):
        self.shape, self.p, self.i, self.atom = shape, p, p if i is None else i, atom


def _sub_shapes(shape):
    """Shapes that broadcast to ``shape`` (itself included)."""
    out = {()}
    for k in range(len(shape) + 1):
        tail = shape[len(shape) - k:]
        for ones in itertools.product((False, True), repeat=len(tail)):
            out.add(tuple(1 if o else n for o, n in zip(ones, tail)))
    return sorted(out, key=lambda s: (len(s), s))


def _wider(shape):
    """The shapes a value of ``shape`` can grow to by broadcasting."""
    return [s for s in SHAPES if s != shape and len(s) >= len(shape) and
            all(a in (1, b) for a, b in zip(shape[::-1], s[::-1]))]


def _paren(e):
    return e if e.atom else E(e.shape, f"({e.p})", f"({e.i})", atom=True)


UNARY_SAFE = ["sin", "cos", "tanh", "arctan", "negative", "square"]
REDUCE_AXES = {  # result shape -> ways to get it by reducing a (2, 3) value
    (): [("sum", None, False), ("mean", None, False), ("max", None, False),
         ("min", None, False), ("prod", None, False)],
    (3,): [("sum", 0, False), ("mean", 0, False), ("max", 0, False)],
    (2,): [("sum", 1, False), ("mean", 1, False), ("min", 1, False), ("sum", -1, False)],
    (2, 1): [("sum", 1, True), ("max", 1, True), ("mean", -1, True)],
    (1, 3): [("sum", 0, True), ("mean", 0, True)],
}


class Generator:
    """Draws one program from ``rnd`` (a random.Random or hypothesis random)."""

    def __init__(self, rnd, max_depth=3, max_stmts=5, avoid=()):
        self.r = rnd
        self.max_depth = max_depth
        self.max_stmts = max_stmts
        self.avoid = set(avoid)   # known bugs not to provoke (see AVOIDABLE)
        self.helpers = []     # (name, param shapes, result shape)
        self.counter = itertools.count()

    # -- the module --------------------------------------------------------------------
    def module(self):
        r = self.r
        parts = []
        for k in range(r.choice([0, 0, 1, 1, 2])):
            parts.append(self.helper(f"h{k}"))
        nargs = r.randint(1, 3)
        shapes = [r.choice(SHAPES) for _ in range(nargs)]
        if (2, 3) not in shapes and r.random() < 0.5:
            shapes[r.randrange(nargs)] = (2, 3)
        params = [(f"x{k}", s) for k, s in enumerate(shapes)]
        plain, instr = self.function("f", params, scalar=True)
        parts.append((plain, instr))
        src = ["import numpy as np", "from fuzzkit import R", ""]
        for plain, instr in parts:
            src += ["", plain, "", instr]
        return "\n".join(src) + "\n", shapes

    def helper(self, name):
        r = self.r
        params = [(f"p{k}", r.choice(SHAPES)) for k in range(r.randint(1, 2))]
        result = r.choice(SHAPES)
        plain, instr = self.function(name, params, result_shape=result)
        self.helpers.append((name, [s for _, s in params], result))
        return plain, instr

    def function(self, name, params, scalar=False, result_shape=None):
        env = dict(params)
        self.fresh = set()
        body = self.block(env, self.r.randint(1, self.max_stmts), loops=True)
        shape = () if scalar else result_shape
        ret = self.returns(env, shape, scalar)
        lines = body + ret
        head = ", ".join(p for p, _ in params)
        plain = f"def {name}({head}):\n" + "".join(
            "    " + line[0] + "\n" for line in lines)
        instr = f"def {name}_sig({head}):\n" + "".join(
            "    " + line[1] + "\n" for line in lines)
        return plain, instr

    def returns(self, env, shape, scalar):
        r = self.r
        if scalar:
            if r.random() < 0.15:  # an early return in a branch
                pred = self.predicate(env, 1)
                a, b = self.scalar_out(env), self.scalar_out(env)
                return [(f"if {pred.p}:", f"if R.pred({pred.i}):"),
                        (f"    return {a.p}", f"    return {a.i}"),
                        (f"return {b.p}", f"return {b.i}")]
            e = self.scalar_out(env)
        else:
            e = self.expr(shape, env, 2)
        return [(f"return {e.p}", f"return {e.i}")]

    def scalar_out(self, env):
        r = self.r
        e = self.expr(r.choice(SHAPES), env, self.max_depth)
        if e.shape == () and r.random() < 0.4:
            return e
        how = r.choice(["sum", "sum", "mean", "method"])
        if how == "method" and e.shape:  # not on a Python float
            e = _paren(e)
            return E((), f"{e.p}.sum()", f"R.full(lambda: np.sum({e.i}))")
        how = "sum" if how == "method" else how
        return E((), f"np.{how}({e.p})", f"R.full(lambda: np.{how}({e.i}))")

    # -- statements ------------------------------------------------------------------------
    def block(self, env, count, loops):
        lines = []
        for _ in range(count):
            lines += self.statement(env, loops)
        return lines

    def name(self):
        return f"v{next(self.counter)}"

    def statement(self, env, loops):
        r = self.r
        roll = r.random()
        arrays = [n for n, s in env.items() if s is not int]
        if roll < 0.55 or not arrays:
            name = self.name()
            e = self.expr(r.choice(SHAPES), env, self.max_depth)
            env[name] = e.shape
            if not e.atom:
                self.fresh.add(name)
            return [(f"{name} = {e.p}", f"{name} = {e.i}")]
        if roll < 0.65:
            target = r.choice(arrays)
            e = self.expr(env[target], env, self.max_depth)
            if not e.atom:
                self.fresh.add(target)
            else:
                self.fresh.discard(target)
            return [(f"{target} = {e.p}", f"{target} = {e.i}")]
        if roll < 0.62 and self.r.random() < 0.5:
            return self.write(env)
        if roll < 0.64:
            return self.container(env)
        if roll < 0.72 and self.fresh & set(arrays):
            target = r.choice(sorted(self.fresh & set(arrays)))
            op = r.choice(["+", "-", "*"])
            e = self.expr(r.choice(_sub_shapes(env[target])), env, 2)
            return [(f"{target} {op}= {e.p}", f"{target} {op}= {e.i}")]
        if roll < 0.86:
            return self.if_statement(env, loops)
        if loops:
            return self.loop(env)
        return self.statement(env, loops)

    def write(self, env):
        """A new array written into in place: ``v = np.zeros(s) + e`` then
        ``v[index] = e`` (or ``+=``, or at a mask of its values)."""
        r = self.r
        shape = r.choice([(3,), (2, 3), (2,)])
        name = self.name()
        e = self.expr(shape, env, 1)
        lines = [(f"{name} = np.zeros({shape}) + {_paren(e).p}",
                  f"{name} = np.zeros({shape}) + {_paren(e).i}")]
        places = {(3,): [("[1]", ()), ("[1:]", (2,)), ("[[0, 2, 0]]", (3,)), ("[::-1]", (3,)),
                         ("[np.array([2, 0])]", (2,))],
                  (2,): [("[0]", ()), ("[[1, 1]]", (2,)), ("[-1]", ())],
                  (2, 3): [("[0]", (3,)), ("[:, 1]", (2,)), ("[1, 2]", ()),
                           ("[[1, 0]]", (2, 3)), ("[:, [2, 0]]", ()), ("[..., -1]", (2,))]}
        for _ in range(r.randint(1, 2)):
            place, part = r.choice(places[shape])
            value = self.expr(r.choice(_sub_shapes(part)), env, 1)
            op = r.choice(["=", "=", "+=", "-="])
            if r.random() < 0.15:  # at a mask of its own values: a decision
                c = r.choice(["0.0", "0.5"])
                lines.append((f"{name}[{name} > {c}] = {value.p}",
                              f"{name}[R.mask({name} > {c})] = {value.i}"))
                continue
            lines.append((f"{name}{place} {op} {value.p}", f"{name}{place} {op} {value.i}"))
        env[name] = shape
        return lines

    def container(self, env):
        """A dict of values, read by key (``d["a"]``) and written at a key."""
        r = self.r
        name = f"d{next(self.counter)}"
        a = self.expr(r.choice(SHAPES), env, 1)
        b = self.expr(r.choice(SHAPES), env, 1)
        lines = [(f'{name} = {{"a": {a.p}, "b": {b.p}}}',
                  f'{name} = {{"a": {a.i}, "b": {b.i}}}')]
        if r.random() < 0.5:
            c = self.expr(a.shape, env, 1)
            lines.append((f'{name}["a"] = {c.p}', f'{name}["a"] = {c.i}'))
        env[f'{name}["a"]'] = a.shape
        env[f'{name}["b"]'] = b.shape
        return lines

    def if_statement(self, env, loops):
        r = self.r
        pred = self.predicate(env, 2)
        target = self.name() if r.random() < 0.6 else r.choice(
            [n for n, s in env.items() if s is not int])
        shape = env[target] if target in env else r.choice(SHAPES)
        branches, before, after = [], set(self.fresh), []
        for _ in range(2):
            inner = dict(env)
            self.fresh = set(before)  # what one branch made is not fresh in the other
            lines = self.block(inner, r.randint(0, 1), loops=False)
            e = self.expr(shape, inner, 2)
            lines.append((f"{target} = {e.p}", f"{target} = {e.i}"))
            branches.append(lines)
            after.append(self.fresh)
        env[target] = shape
        self.fresh = after[0] & after[1]
        self.fresh.discard(target)
        out = [(f"if {pred.p}:", f"if R.pred({pred.i}):")]
        out += [("    " + a, "    " + b) for a, b in branches[0]]
        out += [("else:", "else:")]
        out += [("    " + a, "    " + b) for a, b in branches[1]]
        return out

    def loop(self, env):
        r = self.r
        count = r.randint(1, 3)
        index = f"i{next(self.counter)}"
        out = []
        carried = [n for n, s in env.items() if s is not int and n.startswith("v")]
        grows = False
        if carried and r.random() < 0.5:
            acc = r.choice(carried)
        else:
            acc = self.name()
            small = [n for n, s in env.items() if n[0] == "x" and _wider(s)]
            init = self.expr(r.choice(SHAPES), env, 1) if r.random() < 0.6 \
                else E((), "0.0", atom=True)
            if small and r.random() < 0.3:  # an argument itself
                name = r.choice(small)
                init = E(env[name], name, atom=True)
            env[acc] = init.shape
            out.append((f"{acc} = {init.p}", f"{acc} = {init.i}"))
            # `total = 0.0` then `total = total + array`: the value changes shape
            grows = bool(_wider(init.shape)) and r.random() < 0.5
            if grows:
                env[acc] = r.choice(_wider(init.shape))
        inner = dict(env)
        inner[index] = int
        if grows:  # its shape inside the loop is not one shape
            del inner[acc]
        body = self.block(inner, r.randint(0, 1), loops=False)
        update = self.expr(env[acc], inner, 2)
        decay = r.choice(["0.5 * ", "", "0.9 * "])
        line = f"{acc} = {decay}{acc} + {update.p}", f"{acc} = {decay}{acc} + {update.i}"
        body.append(line)
        header = f"for {index} in range({count}):" if r.random() < 0.7 else \
            f"for {index} in range(1, {count + 1}):"
        out.append((header, header))
        out += [("    " + a, "    " + b) for a, b in body]
        self.fresh.discard(acc)
        return out

    # -- expressions -------------------------------------------------------------------------
    def predicate(self, env, depth):
        r = self.r
        e = self.expr(r.choice(SHAPES), env, depth)
        c = r.choice(["0.0", "0.5", "-0.5", "1.0"])
        op = r.choice([">", "<", ">="])
        if e.shape != ():
            how = r.choice(["sum", "mean", "max"])
            e = E((), f"np.{how}({e.p})", f"R.full(lambda: np.{how}({e.i}))")
        return E((), f"{_paren(e).p} {op} {c}", f"{_paren(e).i} {op} {c}")

    def expr(self, shape, env, depth):
        r = self.r
        if depth <= 0:
            return self.leaf(shape, env)
        kinds = ["leaf", "unary", "unary", "binary", "binary", "binary", "where", "safe",
                 "kink"]
        if r.random() < 0.3:
            kinds.append("hazard")
        if shape in REDUCE_AXES:
            kinds += ["reduce"]
        if shape in ((), (2,), (3,), (2, 3)):
            kinds += ["matmul"]
        if shape in ((), (3,), (2,)):
            kinds += ["index"]
        if shape == ():
            kinds += ["ifexp"]
        if any(res == shape for _, _, res in self.helpers):
            kinds += ["call", "call"]
        kinds += ["comprehension"]
        if shape == ():
            kinds += ["masked"]
        kind = r.choice(kinds)
        return getattr(self, "_" + kind)(shape, env, depth - 1)

    def leaf(self, shape, env):
        r = self.r
        names = [n for n, s in env.items() if s == shape]
        if shape == () and (not names or r.random() < 0.3):
            ints = [n for n, s in env.items() if s is int]
            if ints and r.random() < 0.3:
                return E((), r.choice(ints), atom=True)
            value = r.choice([0.5, 2.0, 1.5, -1.0, 3.0, 0.25])
            return E((), repr(value), atom=value >= 0)  # -1.0 ** 2 is -(1.0 ** 2)
        if names:
            return E(shape, r.choice(names), atom=True)
        # nothing of this shape yet: make one from what there is
        others = [n for n, s in env.items() if s is not int]
        if others:
            name = r.choice(others)
            return self._fit(E(env[name], name, atom=True), shape)
        return E(shape, f"np.ones({shape!r})", atom=True) if shape else \
            E((), "1.0", atom=True)

    def _fit(self, e, shape):
        """An expression of ``shape`` made from ``e`` (by reducing or broadcasting)."""
        if e.shape == shape:
            return e
        if shape == ():
            return E((), f"np.sum({e.p})", f"R.full(lambda: np.sum({e.i}))")
        try:
            if np.broadcast_shapes(e.shape, shape) == shape:
                ones = f"np.ones({shape!r})"
                return E(shape, f"({e.p} * {ones})", f"({e.i} * {ones})", atom=True)
        except ValueError:
            pass
        total = E((), f"np.sum({e.p})", f"R.full(lambda: np.sum({e.i}))")
        ones = f"np.ones({shape!r})"
        return E(shape, f"({total.p} * {ones})", f"({total.i} * {ones})", atom=True)

    def _leaf(self, shape, env, depth):
        return self.leaf(shape, env)

    def _unary(self, shape, env, depth):
        fn = self.r.choice(UNARY_SAFE + ["exp"])
        e = self.expr(shape, env, depth)
        if fn == "exp":
            return E(shape, f"np.exp({e.p})", f"R.exp({e.i})", atom=True)
        return E(shape, f"np.{fn}({e.p})", f"np.{fn}({e.i})", atom=True)

    def subs(self, shape):
        """Shapes an operand of a value of ``shape`` may have."""
        return _sub_shapes(shape)

    def _operands(self, shape, env, depth):
        subs = self.subs(shape)
        a = self.expr(shape, env, depth)
        b = self.expr(self.r.choice(subs), env, depth)
        return (a, b) if self.r.random() < 0.5 else (b, a)

    def _binary(self, shape, env, depth):
        r = self.r
        a, b = self._operands(shape, env, depth)
        op = r.choice(["+", "-", "*", "*", "/", "**"])
        if op == "**":
            a = self.expr(shape, env, depth)
            k = r.choice(["2", "3", "2.0"])
            return E(shape, f"{_paren(a).p} ** {k}", f"R.grow({_paren(a).i} ** {k})")
        if op == "/":  # a denominator away from zero
            d = _paren(b)
            den = f"({d.p} ** 2 + 1.0)", f"({d.i} ** 2 + 1.0)"
            return E(shape, f"{_paren(a).p} / {den[0]}", f"{_paren(a).i} / {den[1]}")
        return E(shape, f"{_paren(a).p} {op} {_paren(b).p}",
                 f"{_paren(a).i} {op} {_paren(b).i}")

    def _safe(self, shape, env, depth):
        """Functions with a restricted domain, on arguments inside it."""
        r = self.r
        e = _paren(self.expr(shape, env, depth))
        form = r.choice(["sqrt", "log", "log1p", "pow", "base"])
        if form == "sqrt":
            return E(shape, f"np.sqrt({e.p} ** 2 + 0.5)", f"np.sqrt({e.i} ** 2 + 0.5)", True)
        if form == "log":
            return E(shape, f"np.log({e.p} ** 2 + 0.5)", f"np.log({e.i} ** 2 + 0.5)", True)
        if form == "log1p":
            return E(shape, f"np.log1p(np.tanh({e.p}) + 1.0)",
                     f"np.log1p(np.tanh({e.i}) + 1.0)", True)
        if form == "pow":
            b = _paren(self.expr(r.choice(self.subs(shape)), env, depth))
            return E(shape, f"({e.p} ** 2 + 0.5) ** np.tanh({b.p})",
                     f"R.grow(({e.i} ** 2 + 0.5) ** np.tanh({b.i}))")
        return E(shape, f"2.0 ** np.tanh({e.p})", f"2.0 ** np.tanh({e.i})")

    def _hazard(self, shape, env, depth, e=None):
        """Functions outside their domain for some inputs (NaN, inf)."""
        r = self.r
        e = _paren(e or self.expr(shape, env, depth))
        form = r.choice(["sqrt", "log", "div", "pow", "sqrt", "log", "div", "arcsin"])
        if form == "div":
            a = _paren(self.expr(r.choice(self.subs(e.shape)), env, depth))
            return E(e.shape, f"{a.p} / {e.p}", f"R.div({a.i}, {e.i})")
        if form == "pow":
            return E(e.shape, f"{e.p} ** 1.5", f"R.pow15({e.i})")
        return E(e.shape, f"np.{form}({e.p})", f"R.{form}({e.i})", True)

    def _kink(self, shape, env, depth):
        r = self.r
        form = r.choice(["abs", "maximum", "minimum", "relu", "clip"])
        if form == "abs":
            e = self.expr(shape, env, depth)
            return E(shape, f"np.abs({e.p})", f"R.abs({e.i})", True)
        if form == "relu":
            e = self.expr(shape, env, depth)
            return E(shape, f"np.maximum({e.p}, 0.0)", f"R.maximum({e.i}, 0.0)", True)
        if form == "clip":
            e = self.expr(shape, env, depth)
            return E(shape, f"np.clip({e.p}, -0.5, 1.0)",
                     f"R.minimum(R.maximum({e.i}, -0.5), 1.0)", True)
        a, b = self._operands(shape, env, depth)
        return E(shape, f"np.{form}({a.p}, {b.p})", f"R.{form}({a.i}, {b.i})", True)

    def _where(self, shape, env, depth):
        r = self.r
        cshape = r.choice(_sub_shapes(shape))
        if r.random() < 0.5:
            # the classic: a function guarded by its own domain
            e = self.expr(cshape if r.random() < 0.5 else shape, env, depth)
            cut = r.choice(["0", "0.0", "0.5", "0.25", "-0.5"])
            cond = E(e.shape, f"{_paren(e).p} > {cut}", f"{_paren(e).i} > {cut}")
            taken = self._hazard(shape, env, depth, e)
            if taken.shape != shape:
                taken = self._fit(taken, shape)
            other = self.expr(r.choice(self.subs(shape)), env, depth) \
                if r.random() < 0.6 else E((), "0.0", atom=True)
        else:
            a = self.expr(cshape, env, depth)
            b = self.expr(r.choice(_sub_shapes(cshape)), env, depth)
            op = r.choice([">", "<", ">=", "<="])
            cond = E(cshape, f"{_paren(a).p} {op} {_paren(b).p}",
                     f"{_paren(a).i} {op} {_paren(b).i}")
            taken = self.expr(shape, env, depth) if r.random() < 0.5 else \
                self._hazard(shape, env, depth)
            other = self.expr(r.choice(self.subs(shape)), env, depth)
        if r.random() < 0.5:
            taken, other = other, taken
            cond = E(cond.shape, f"~({cond.p})", f"~({cond.i})") \
                if cond.shape and r.random() < 0.5 \
                else E(cond.shape, f"np.logical_not({cond.p})",
                       f"np.logical_not({cond.i})")
        return E(shape, f"np.where({cond.p}, {taken.p}, {other.p})",
                 f"R.where({cond.i}, lambda: {taken.i}, lambda: {other.i})", True)

    def _reduce(self, shape, env, depth):
        r = self.r
        how, axis, keep = r.choice(REDUCE_AXES[shape])
        e = self.expr((2, 3), env, depth)
        args = "" if axis is None else f", axis={axis}"
        if keep:
            args += ", keepdims=True"
        if how in ("max", "min"):
            return E(shape, f"np.{how}({e.p}{args})",
                     f"R.full(lambda: R.a{how}({e.i}{args}))", True)
        if r.random() < 0.3:
            p = _paren(e)
            return E(shape, f"{p.p}.{how}({args[2:]})",
                     f"R.full(lambda: np.{how}({p.i}{args}))", True)
        return E(shape, f"np.{how}({e.p}{args})",
                 f"R.full(lambda: R.grow(np.{how}({e.i}{args})))", True)

    def _matmul(self, shape, env, depth):
        r = self.r
        pairs = {(): [((3,), (3,)), ((2,), (2,))], (2,): [((2, 3), (3,))],
                 (3,): [((2,), (2, 3)), ((3,), "T")], (2, 3): [((2,), "outer")]}[shape]
        sa, sb = r.choice(pairs)
        if sb == "T":  # (3,) @ (2, 3).T.T ...: a transpose in the middle
            a = self.expr((2, 3), env, depth)
            b = self.expr((2,), env, depth)
            pa, pb = _paren(a), _paren(b)
            return E(shape, f"{pa.p}.T @ {pb.p}", f"R.full(lambda: {pa.i}.T @ {pb.i})")
        if sb == "outer":
            a, b = self.expr((2,), env, depth), self.expr((3,), env, depth)
            return E(shape, f"np.outer({a.p}, {b.p})",
                     f"R.full(lambda: np.outer({a.i}, {b.i}))", True)
        a, b = _paren(self.expr(sa, env, depth)), _paren(self.expr(sb, env, depth))
        if r.random() < 0.3:
            return E(shape, f"np.dot({a.p}, {b.p})",
                     f"R.full(lambda: np.dot({a.i}, {b.i}))", True)
        return E(shape, f"{a.p} @ {b.p}", f"R.full(lambda: {a.i} @ {b.i})")

    def _index(self, shape, env, depth):
        r = self.r
        options = {(): [((3,), "[1]"), ((2, 3), "[1, 2]"), ((2,), "[-1]")],
                   (3,): [((2, 3), "[0]"), ((2, 3), "[-1, :]"), ((3,), "[[2, 0, 2]]"),
                          ((2, 3), "[[1, 0, 1], [2, 2, 0]]"), ((3,), "[::-1]")],
                   (2,): [((2, 3), "[:, 1]"), ((3,), "[1:]"), ((2, 3), "[:, -1]"),
                          ((2, 3), "[[1, 0], 2]"), ((3,), "[np.array([0, 0])]"),
                          ((2, 3), "[..., [1, 1]][:, 0]")]}[shape]
        base, idx = r.choice(options)
        e = _paren(self.expr(base, env, depth))
        return E(shape, f"{e.p}{idx}", f"R.full(lambda: {e.i}{idx})", True)

    def _comprehension(self, shape, env, depth):
        """``sum(e for i in range(n))`` (a running total), or the mean of
        ``np.stack([e for i in range(n)])`` (a list the loop fills)."""
        r = self.r
        index = f"k{next(self.counter)}"
        inner = dict(env)
        inner[index] = int
        e = self.expr(shape, inner, depth)
        n = r.randint(1, 3)
        if r.random() < 0.5:
            return E(shape, f"sum({e.p} for {index} in range({n}))",
                     f"sum({e.i} for {index} in range({n}))")
        return E(shape, f"np.mean(np.stack([{e.p} for {index} in range({n})]), axis=0)",
                 f"np.mean(np.stack([{e.i} for {index} in range({n})]), axis=0)", True)

    def _masked(self, shape, env, depth):
        """``np.sum(e[e > c])``: a boolean mask of the values (a decision)."""
        r = self.r
        e = _paren(self.expr(r.choice([(3,), (2, 3)]), env, depth))
        c = r.choice(["0.0", "0.5", "-0.5"])
        return E((), f"np.sum({e.p}[{e.p} > {c}])",
                 f"R.full(lambda: np.sum({e.i}[R.mask({e.i} > {c})]))", True)

    def _ifexp(self, shape, env, depth):
        pred = self.predicate(env, depth)
        a, b = self.expr(shape, env, depth), self.expr(shape, env, depth)
        return E(shape, f"({a.p} if {pred.p} else {b.p})",
                 f"({a.i} if R.pred({pred.i}) else {b.i})", True)

    def _call(self, shape, env, depth):
        name, params, _ = self.r.choice([h for h in self.helpers if h[2] == shape])
        args = [self.expr(s, env, depth) for s in params]
        return E(shape, f"{name}({', '.join(a.p for a in args)})",
                 f"R.full(lambda: {name}_sig({', '.join(a.i for a in args)}))", True)


# ---- loading and checking -----------------------------------------------------------------
_serial = itertools.count()


def load_module(directory, text, stem="fuzzprog"):
    """Write ``text`` to a fresh file in ``directory`` and import it."""
    name = f"{stem}_{os.getpid()}_{next(_serial)}"
    path = os.path.join(directory, name + ".py")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def arguments(rnd, shapes):
    """Values for the parameters: random, with a few exact zeros and ties."""
    out = []
    for shape in shapes:
        a = np.asarray([rnd.uniform(-2.0, 2.0) for _ in range(int(np.prod(shape)))])
        a[np.abs(a) < 1e-3] = 0.0  # no 1e-300s: x / x there is 1e300 - 1e300
        a = a.reshape(shape)
        roll = rnd.random()
        if roll < 0.08 and a.size:
            a.flat[rnd.randrange(a.size)] = 0.0
        elif roll < 0.14 and a.size > 1:
            a.flat[1] = a.flat[0]
        if shape == () and rnd.random() < 0.5:
            out.append(float(a))
        else:
            out.append(a)
    return out


def _quiet(fn, *args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]  # `x += ...`
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args)


def _signature(mod, args):
    R.reset()
    value = _quiet(mod.f_sig, *args)
    return value, R.sig, R.bad, R.huge


def _same_sig(a, b):
    if len(a) != len(b):
        return False
    return all(np.shape(x) == np.shape(y) and np.array_equal(x, y) for x, y in zip(a, b))


def _with(args, k, value):
    out = list(args)
    out[k] = float(value) if isinstance(args[k], float) else value
    return out


def _perturbed(args, k, index, delta):
    x = np.array(args[k], dtype=float)
    x[index] += delta
    return _with(args, k, x)


def stable(mod, args, sig, delta=1e-4):
    """The decisions taken at ``args`` are the same at every point within
    ``delta`` of it along each coordinate (so the function is smooth there)."""
    for k, a in enumerate(args):
        for index in np.ndindex(np.shape(a)):
            for d in (delta, -delta):
                if not _same_sig(_signature(mod, _perturbed(args, k, index, d))[1], sig):
                    return False
    return True


def central(f, args, k, eps):
    grad = np.zeros(np.shape(args[k]))
    for index in np.ndindex(np.shape(args[k])):
        hi = _quiet(f, *_perturbed(args, k, index, eps))
        lo = _quiet(f, *_perturbed(args, k, index, -eps))
        grad[index] = (hi - lo) / (2 * eps)
    return grad


class Outcome:
    """What checking programs found; the counters feed the fuzz report."""

    def __init__(self):
        self.programs = self.compiled = self.rejected = self.compared = 0
        self.finite_checked = self.not_smooth = self.non_finite = 0
        self.second_order = 0  # Hessian-direction products compared (long run)
        self.errors = {}      # SymdiffError kind and message -> count
        self.known = {}       # known bug -> count

    def note(self, table, key):
        table[key] = table.get(key, 0) + 1

    def summary(self):
        return (f"{self.programs} programs: {self.compiled} compiled, {self.rejected} "
                f"rejected with a SymdiffError; {self.compared} compared with central "
                f"differences, {self.not_smooth} skipped near a kink, {self.finite_checked} "
                f"checked for finiteness, {self.non_finite} with a non-finite value; "
                f"{self.second_order} second derivatives compared; "
                f"known bugs hit: {self.known or 'none'}")


class KnownBug(Exception):
    """A failure already reported, with a strict-xfail reproducer in test_fuzz.py."""


# A failure that matches one of these is a bug already reported (see the
# xfail tests in test_fuzz.py); it is counted, not raised, so the rest of the
# run still looks for new ones. Delete an entry when its bug is fixed.
KNOWN_BUGS = {
}


def _unbound(err):
    """The name an UnboundLocalError is about, or None."""
    if not isinstance(err, UnboundLocalError):
        return None
    found = re.search(r"variable '(\w+)'", str(err))
    return found.group(1) if found else None


def _known(err, source):
    for cause in (err, err.__cause__):
        for name, matches in KNOWN_BUGS.items():
            if cause is not None and matches(cause, source):
                return name
    return None


def check_program(text, shapes, mod, args, outcome=None, jvp=False):
    """Every property of one program at one point; raises AssertionError.

    With ``jvp``, forward mode must also agree with reverse mode.
    """
    outcome = outcome or Outcome()
    outcome.programs += 1
    try:
        _check_program(text, shapes, mod, args, outcome, jvp)
    except KnownBug as bug:
        outcome.note(outcome.known, str(bug))
    except AssertionError as err:
        source = getattr(err, "generated", "")
        known = _known(err, source)
        if known:
            outcome.note(outcome.known, known)
        else:
            raise
    return outcome


def _check_program(text, shapes, mod, args, outcome, jvp):
    wrt = tuple(range(len(shapes)))
    f = mod.f
    try:
        df = symdiff.value_and_grad(f, wrt=wrt)
    except SymdiffError as err:
        outcome.rejected += 1
        outcome.note(outcome.errors, f"{type(err).__name__}: {err.message}")
        return
    except Exception as err:  # noqa: BLE001 - the property under test
        raise AssertionError(f"compiling raised {type(err).__name__}: {err}\n\n{text}") \
            from err
    generated = source_of(df, args)
    if generated is None:  # compiled where it is called, and refused there
        outcome.rejected += 1
        outcome.note(outcome.errors, "refused where it is called (the arguments decide)")
        return
    outcome.compiled += 1
    try:  # what runs: the gradient specialised for these arguments
        special = symdiff.source(df, *args)
    except Exception as err:  # noqa: BLE001 - reported when the gradient is called
        special = f"(not compiled: {type(err).__name__}: {err})"
    context = (f"\n\nprogram:\n{text}\nargs: {args!r}\n\ngenerated:\n{generated}"
               f"\n\nspecialised:\n{special}")
    try:
        _check_compiled(text, mod, args, outcome, jvp, wrt, df, generated, context)
    except AssertionError as err:
        err.generated = generated
        raise


def source_of(df, args):
    """``df``'s generic source; where the arguments' ranks decide what is
    compiled (it is compiled where it is called), its source for ``args``;
    None where that is refused."""
    try:
        return symdiff.source(df)
    except TypeError:
        try:
            return symdiff.source(df, *args)
        except SymdiffError:
            return None


def shown(df):
    """``df``'s generic source, for a report."""
    try:
        return symdiff.source(df)
    except TypeError:
        return "(compiled where it is called, for its arguments)"


def _check_compiled(text, mod, args, outcome, jvp, wrt, df, generated, context):
    f = mod.f

    # compiling again (cache cleared) writes the same bytes
    with symdiff.gradient_cache._lock:
        symdiff.gradient_cache._cache.clear()
        again = source_of(symdiff.value_and_grad(f, wrt=wrt), args)
    assert again == generated, "compiling twice gave different source" + context

    try:
        value = _quiet(f, *args)
    except ArithmeticError:  # Python floats: 1.0 / 0.0 raises
        return
    except TypeError as err:  # Python floats: (-0.5) ** 1.5 is complex, `>=` it raises
        if "complex" in str(err):
            return
        raise
    if np.iscomplexobj(value):  # Python floats: (-1.0) ** 1.5 is complex
        return
    value_sig, sig, bad, huge = _signature(mod, args)
    assert _same_nan(value, value_sig), "instrumented program disagrees" + context
    finite = bool(np.isfinite(value))
    forward_warns = _warns(f, args)
    try:
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
            warnings.simplefilter("always")
            got_value, grads = df(*args)
    except SymdiffError:
        return  # e.g. an array predicate: reported by symdiff, at its line
    except Exception as err:  # noqa: BLE001
        known = _known(err, generated)
        if known:
            raise KnownBug(known) from err
        if not finite and isinstance(err, ArithmeticError):
            outcome.note(outcome.known, "python-float arithmetic at a non-finite value")
            return
        raise AssertionError(f"the gradient raised {type(err).__name__}: {err}"
                             + context) from err
    gradient_warns = [w for w in caught if issubclass(w.category, RuntimeWarning)
                      and ("invalid" in str(w.message) or "divide" in str(w.message))]
    if np.iscomplexobj(got_value) and not np.iscomplexobj(value):
        # (NumPy's function of a constant, np.negative(1.5), folded to a Python
        # float whose ** 1.5 is complex: test_fuzz.py's strict xfail)
        raise KnownBug("a NumPy constant folded to a Python float")
    if finite:
        assert _same_nan(got_value, value), \
            f"value_and_grad's value {got_value!r} != f's {value!r}" + context
    assert len(grads) == len(args)
    for g, a in zip(grads, args):
        assert np.shape(g) == np.shape(a), f"gradient shape {np.shape(g)} != " \
            f"{np.shape(a)}" + context
    _check_grad_alone(f, args, wrt, grads, context)

    if not (finite and not bad and not huge and abs(value) < 1e6):
        outcome.non_finite += 1
        return
    outcome.finite_checked += 1
    for k, g in enumerate(grads):
        assert np.all(np.isfinite(g)), \
            f"gradient {k} is not finite where the value and every branch taken " \
            f"are:\n{g!r}" + context
    if not forward_warns:
        assert not gradient_warns, \
            f"the gradient warns where the function does not: " \
            f"{[str(w.message) for w in gradient_warns]}" + context
    if not stable(mod, args, sig):
        outcome.not_smooth += 1
        return
    outcome.compared += 1
    for k, g in enumerate(grads):
        fd1 = central(f, args, k, 1e-6)
        fd2 = central(f, args, k, 1e-5)
        scale = 1.0 + np.max(np.abs(fd2), initial=0.0)
        if not np.allclose(fd1, fd2, rtol=1e-4, atol=1e-6 * scale):
            continue  # ill-conditioned here: differences disagree with themselves
        np.testing.assert_allclose(
            g, fd2, rtol=1e-4, atol=1e-5 * scale,
            err_msg=f"gradient {k} disagrees with central differences" + context)
    if jvp:
        _check_jvp(f, args, grads, wrt, context)
        outcome.second_order += _check_second_order(mod, args, wrt, context)


def _check_grad_alone(f, args, wrt, grads, context):
    """``grad``'s gradient agrees with ``value_and_grad``'s where that is
    finite: the values only the gradient reads may be computed another way
    (NumPy's functions of Python floats as math's, sums as einsums, ...),
    the same numbers up to rounding (docs/semantics.md), never raising."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            alone = symdiff.grad(f, wrt=wrt)(*args)
    except SymdiffError:
        return
    except Exception as err:  # noqa: BLE001
        raise AssertionError(f"grad raised {type(err).__name__} where value_and_grad "
                             f"did not: {err}" + context) from err
    alone = alone if isinstance(alone, tuple) else (alone,)
    assert len(alone) == len(grads), context
    for k, (a, g) in enumerate(zip(alone, grads)):
        if not np.all(np.isfinite(g)):
            continue
        scale = 1.0 + np.max(np.abs(g), initial=0.0)
        np.testing.assert_allclose(
            a, g, rtol=1e-7, atol=1e-9 * scale,
            err_msg=f"grad's gradient {k} differs from value_and_grad's" + context)


def _check_jvp(f, args, grads, wrt, context):
    """Forward mode agrees with reverse mode: J t == sum(grad * t)."""
    try:
        jf = symdiff.jvp(f, wrt=wrt)
    except SymdiffError:
        return
    except Exception as err:  # noqa: BLE001
        known = _known(err, "")
        if known:
            raise KnownBug(known) from err
        raise AssertionError(f"compiling jvp raised {type(err).__name__}: {err}"
                             + context) from err
    source = shown(jf)
    try:
        _compare_jvp(jf, args, grads, f"\n\njvp source:\n{source}" + context)
    except SymdiffError:
        return
    except Exception as err:  # noqa: BLE001
        known = _known(err, source)
        if known:
            raise KnownBug(known) from err
        if isinstance(err, AssertionError):
            raise
        raise AssertionError(f"jvp raised {type(err).__name__}: {err}\n\njvp source:\n"
                             f"{source}" + context) from err


def _check_second_order(mod, args, wrt, context):
    """symdiff differentiates its own gradient: H t by forward over reverse and
    by reverse over reverse (H is symmetric) match differences of the gradient.
    How many of the two were compared."""
    grad = symdiff.grad(mod.f, wrt=wrt)
    rng = np.random.default_rng(1)
    t = [rng.normal(size=np.shape(a)) for a in args]
    t = tuple(float(v) if isinstance(a, float) else v for v, a in zip(t, args))
    estimates, sig = [], _signature(mod, args)[1]
    for eps in (1e-5, 1e-6):
        points = [[a + sign * eps * v for a, v in zip(args, t)] for sign in (1, -1)]
        if any(not _same_sig(_signature(mod, p)[1], sig) for p in points):
            return 0  # the step along t crosses a branch or a kink
        hi, lo = (_quiet(grad, *p) for p in points)
        estimates.append([(np.asarray(h) - np.asarray(l)) / (2 * eps) for h, l in zip(hi, lo)])
    if not all(np.all(np.isfinite(e)) for est in estimates for e in est):
        return 0  # differences of the gradient overflow or are NaN: nothing to compare
    scale = 1.0 + max(float(np.max(np.abs(e), initial=0.0)) for e in estimates[0])
    if not all(np.allclose(a, b, rtol=1e-3, atol=1e-5 * scale)
               for a, b in zip(*estimates)) or not stable(mod, args, sig):
        return 0  # not smooth enough here for differences to decide
    compared = 0
    for name, make, call in (
            ("jvp(grad)", symdiff.jvp, lambda fn: fn(*args, *t)[1]),
            ("vjp(grad)", symdiff.vjp, lambda fn: fn(*args, t)[1])):
        try:
            fn = make(grad, wrt=wrt)
            got = _quiet(call, fn)
        except SymdiffError:
            continue
        except Exception as err:  # noqa: BLE001
            raise AssertionError(f"{name} raised {type(err).__name__}: {err}"
                                 + context) from err
        if not all(np.all(np.isfinite(g)) for g in got):
            # A first derivative's own derivative is infinite here, times a zero
            # (d2/dt2 t ** 1.5 at 0, reached through a constant t): 0 * inf is
            # NaN by the chain rule, as in every autodiff tool. Not compared.
            continue
        for k, (g, e) in enumerate(zip(got, estimates[0])):
            np.testing.assert_allclose(
                g, e, rtol=1e-3, atol=1e-4 * scale,
                err_msg=f"{name} (Hessian times a direction) disagrees with "
                        f"differences of the gradient, output {k}\n\n"
                        f"{shown(fn)}" + context)
        compared += 1
    return compared


def _compare_jvp(jf, args, grads, context):
    rng = np.random.default_rng(0)
    tangents = [rng.normal(size=np.shape(a)) for a in args]
    tangents = [float(t) if isinstance(a, float) else t for t, a in zip(tangents, args)]
    _, dot = _quiet(jf, *args, *tangents)
    assert np.ndim(dot) == 0, \
        f"jvp of a scalar function gives a tangent of shape {np.shape(dot)}" + context
    expected = sum(float(np.sum(np.asarray(g) * t)) for g, t in zip(grads, tangents))
    scale = 1.0 + sum(float(np.sum(np.abs(np.asarray(g) * t))) for g, t in zip(grads, tangents))
    assert abs(dot - expected) <= 1e-8 * scale, \
        f"jvp gives {dot!r}, grad . t gives {expected!r}" + context


def _same_nan(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-12, atol=0, equal_nan=True)


def _warns(f, args):
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        f(*args)
    return [w for w in caught if issubclass(w.category, RuntimeWarning)
            and ("invalid" in str(w.message) or "divide" in str(w.message))]


# Known bugs the generator can be told not to provoke, because no signature in
# the generated source tells their failures apart. The quick run avoids them;
# the long one does not. Each has a strict-xfail reproducer in test_fuzz.py.
AVOIDABLE = {}


def draw_program(rnd, avoid=()):
    gen = Generator(rnd, avoid=avoid)
    text, shapes = gen.module()
    return textwrap.dedent(text), shapes
