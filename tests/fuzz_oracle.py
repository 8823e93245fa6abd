"""Differential fuzzing: symdiff against an independent oracle (autograd).

`SharingGenerator` extends fuzzkit's generator with the data flows where a
`where` or an `if` has to keep NaN out (issue 19): values outside their
domain for some inputs (``u = np.sqrt(e)``), computed once, by name, and read
by several wheres (the same or other conditions, masks wider than the
value, nested wheres), by one side of an `if` or a conditional expression
(taken or not), by a comparison; safe values read by a where and by other
code too; and intermediate values returned beside the result (a tuple:
compared through vjp with a random cotangent).

`check_against_oracle` differentiates one program at one point where its
value is finite and its decisions (masks, signs, predicates) do not change
nearby, and classifies it:

* agreement: the oracle's gradient is finite and symdiff's matches it;
* NaN-free win: the oracle's gradient is NaN or infinite (as JAX's, PyTorch's
  and autograd's are where a branch not taken is), symdiff's is finite and
  matches central differences;
* wrong: symdiff's gradient disagrees with a finite oracle and with central
  differences, or is NaN or infinite where central differences are finite.
  There must be none. One exception, counted apart: a value the program
  uses (not one a where or an if leaves aside) is at or beyond its domain's
  edge or huge (``arcsin(clip(x, -1, 1))`` at 1: the chain rule gives
  ``inf * 0``), and the oracle is not finite either.

Compiling may refuse with a SymdiffError (counted); any other exception, at
compile or run time, is a failure. The oracle is autograd with one repair:
its ``np.where`` gradient does not sum a broadcast branch back to the
branch's shape (``where(mask_2x3, x_3, 0)`` gives ``x`` a 2x3 gradient), so
`where` is redefined here with the textbook rule (the upstream gradient where
the condition holds, zero elsewhere, summed to the operand's shape), which
is still NaN in a branch not taken, as in JAX.
"""
from __future__ import annotations

import sys
import types
import warnings

import autograd
import autograd.numpy as anp
import numpy as np
from autograd.extend import defvjp, primitive
from autograd.numpy.numpy_vjps import unbroadcast_f

import fuzzkit
import symdiff
from fuzzkit import E, Generator, SHAPES, _paren, _sub_shapes, _wider
from symdiff.errors import SymdiffError


# ---- the oracle --------------------------------------------------------------------
@primitive
def _where(cond, a, b):
    return np.where(cond, a, b)


defvjp(_where, None,
       lambda ans, cond, a, b: unbroadcast_f(a, lambda g: np.where(cond, g, 0.0)),
       lambda ans, cond, a, b: unbroadcast_f(b, lambda g: np.where(cond, 0.0, g)))

ORACLE_NUMPY = types.ModuleType("oracle_numpy")
ORACLE_NUMPY.__dict__.update({k: v for k, v in vars(anp).items() if not k.startswith("__")})
ORACLE_NUMPY.where = _where


def load_oracle(text, name):
    """The program again, its NumPy calls autograd's."""
    module = types.ModuleType(name + "_oracle")
    module.__dict__["np"] = ORACLE_NUMPY
    code = compile(text.replace("import numpy as np\n", "", 1), name + "_oracle.py", "exec")
    exec(code, module.__dict__)  # noqa: S102 - the generated program
    return module


# ---- programs --------------------------------------------------------------------
# A value outside its domain for some inputs: how it is computed from its base
# ``e``, and conditions on ``e`` that keep it inside (and their negations).
DOMAINS = {
    "sqrt": ("np.sqrt({e})", "{e} > 0", "{e} > {c}", "{e} <= {c}", ("0.0", "0.25", "0.5")),
    "log": ("np.log({e})", "{e} > 0", "{e} > {c}", "{e} <= {c}", ("0.1", "0.25", "0.5")),
    "pow": ("{e} ** 1.5", "{e} >= 0", "{e} > {c}", "{e} <= {c}", ("0.0", "0.25")),
    "div": ("{a} / {e}", "{e} != 0", "np.abs({e}) > {c}", "np.abs({e}) <= {c}",
            ("0.1", "0.25")),
    "arcsin": ("np.arcsin({e})", "np.abs({e}) < 1", "np.abs({e}) < {c}",
               "np.abs({e}) >= {c}", ("0.5", "0.9")),
}


class Shared:
    """A named value outside its domain for some inputs."""

    def __init__(self, name, base, shape, domain):
        self.name, self.base, self.shape, self.domain = name, base, shape, domain

    def guard(self, rnd, strict=False):
        """A condition on the base that keeps the value in its domain, and its
        negation (any condition for a safe value)."""
        if self.domain is None:
            c = rnd.choice(["0.0", "0.5", "-0.5"])
            return f"{self.base} > {c}", f"{self.base} <= {c}"
        _, _, holds, fails, cuts = DOMAINS[self.domain]
        c = cuts[-1] if strict else rnd.choice(cuts)
        return holds.format(e=self.base, c=c), fails.format(e=self.base, c=c)


class SharingGenerator(Generator):
    """Programs whose out-of-domain values are shared (see the module's doc)."""

    def __init__(self, rnd):
        super().__init__(rnd, max_depth=2, max_stmts=3)
        self.tuple_output = None  # the shape of a returned intermediate, if any

    def function(self, name, params, scalar=False, result_shape=None):
        if name != "f":
            return super().function(name, params, scalar, result_shape)
        r = self.r
        env = dict(params)
        self.fresh = set()
        lines = self.block(env, r.randint(0, 2), loops=True)
        shared = []
        for _ in range(r.randint(1, 2)):
            lines += self.shared_value(env, shared)
        readers = []
        for _ in range(r.randint(2, 4)):
            lines += self.reader(env, shared, readers)
        lines += self.block(env, r.randint(0, 1), loops=True)
        lines += self.result(env, readers)
        head = ", ".join(p for p, _ in params)
        plain = f"def {name}({head}):\n" + "".join("    " + a + "\n" for a, _ in lines)
        instr = f"def {name}_sig({head}):\n" + "".join("    " + b + "\n" for _, b in lines)
        return plain, instr

    # -- values outside their domain, and safe values read by a where and others --
    def shared_value(self, env, shared):
        r = self.r
        shape = r.choice(SHAPES)
        base, u = self.name(), self.name()
        e = self.expr(shape, env, 1)
        lines = [(f"{base} = {e.p}", f"{base} = {e.i}")]
        env[base] = shape
        if r.random() < 0.25:  # a safe value: read by a where, and by anything else
            value = self.expr(shape, env, 1)
            lines.append((f"{u} = {_paren(value).p} * {base}",
                          f"{u} = {_paren(value).i} * {base}"))
            env[u] = shape
            shared.append(Shared(u, base, shape, None))
            return lines
        domain = r.choice(sorted(DOMAINS))
        plain, ok = DOMAINS[domain][:2]
        a = _paren(self.expr(r.choice(_sub_shapes(shape)), env, 1))
        lines.append((f"{u} = " + plain.format(e=base, a=a.p),
                      f"{u} = R.shared({plain.format(e=base, a=a.i)}, {ok.format(e=base)})"))
        item = Shared(u, base, shape, domain)
        shared.append(item)
        if r.random() < 0.4:  # a value computed from it: as far out of its domain
            d = self.name()
            other = _paren(self.expr(r.choice(_sub_shapes(shape)), env, 1))
            form = r.choice(["{u} * {o}", "np.sin({u}) + {o}", "2.0 * {u}", "{u} * {u}"])
            lines.append((f"{d} = " + form.format(u=u, o=other.p),
                          f"{d} = " + form.format(u=u, o=other.i)))
            shared.append(Shared(d, base, shape, domain))
        return lines

    def use(self, item, env):
        """An expression reading ``item`` (of its shape, or wider)."""
        r = self.r
        u = item.name
        form = r.randrange(7)
        if form == 0:
            return E(item.shape, u, atom=True)
        if form == 1:
            return E(item.shape, f"2.0 * {u}")
        if form == 2:
            return E(item.shape, f"{u} * {u}")
        if form == 3:
            return E(item.shape, f"np.sin({u})", atom=True)
        if form == 4:
            other = _paren(self.expr(r.choice(_sub_shapes(item.shape)), env, 1))
            return E(item.shape, f"{u} * {other.p}", f"{u} * {other.i}")
        if form == 5 and item.domain is not None:  # a where nested in the branch
            holds, _ = item.guard(r, strict=True)
            return E(item.shape, f"np.where({holds}, {u}, 1.0) * {u}",
                     f"R.where({holds}, lambda: {u}, lambda: 1.0) * {u}")
        wide = _wider(item.shape)
        if wide:  # broadcast against something wider
            shape = r.choice(wide)
            return E(shape, f"{u} * np.ones({shape!r})")
        return E(item.shape, u, atom=True)

    def reader(self, env, shared, readers):
        r = self.r
        item = r.choice(shared)
        name = self.name()
        roll = r.random()
        if item.domain is None or roll < 0.45:
            lines, shape = self.where_reader(name, item, env)
        elif roll < 0.75:
            lines, shape = self.if_reader(name, item, env)
        elif roll < 0.9:
            lines, shape = self.ternary_reader(name, item, env)
        else:  # read by a comparison: NaN > c is False
            c = r.choice(["0.25", "0.5"])
            lines = [(f"{name} = np.where({item.name} > {c}, {item.name}, 0.0)",
                      f"{name} = R.where({item.name} > {c}, lambda: {item.name}, "
                      f"lambda: 0.0)")]
            shape = item.shape
        env[name] = shape
        readers.append(name)
        return lines

    def _condition(self, item):
        """A condition keeping ``item`` in its domain (any condition for a
        safe value), sometimes on a wider array: (plain, instrumented, shape)."""
        r = self.r
        holds, fails = item.guard(r)
        shape = item.shape
        wide = _wider(shape)
        if wide and r.random() < 0.3:  # a mask wider than the value
            shape = r.choice(wide)
            holds, fails = f"({holds}) & (np.ones({shape!r}) > 0.0)", \
                f"({fails}) | (np.ones({shape!r}) < 0.0)"
        return holds, fails, shape

    def where_reader(self, name, item, env):
        r = self.r
        taken = self.use(item, env)
        holds, fails, cshape = self._condition(item)
        try:
            np.broadcast_shapes(cshape, taken.shape)
        except ValueError:  # two different wider shapes: the plain condition
            holds, fails, cshape = *item.guard(r), item.shape
        other = self.expr(r.choice(_sub_shapes(item.shape)), env, 1) if r.random() < 0.6 \
            else E((), "0.0", atom=True)
        shape = np.broadcast_shapes(cshape, taken.shape, other.shape)
        if r.random() < 0.5:
            plain = f"np.where({holds}, {taken.p}, {other.p})"
            instr = f"R.where({holds}, lambda: {taken.i}, lambda: {other.i})"
        else:  # the value in the second branch
            plain = f"np.where({fails}, {other.p}, {taken.p})"
            instr = f"R.where({fails}, lambda: {other.i}, lambda: {taken.i})"
        return [(f"{name} = {plain}", f"{name} = {instr}")], tuple(shape)

    def _predicate(self, item):
        """A scalar predicate: one that keeps ``item`` in its domain where it
        holds, or any other."""
        r = self.r
        if r.random() < 0.6:
            b = item.base
            c = DOMAINS[item.domain][4][-1]
            if item.domain == "arcsin":
                return f"np.max(np.abs({b})) < {c}"
            if item.domain == "div":
                return f"np.min(np.abs({b})) > {c}"
            return f"np.min({b}) > {c}"
        return r.choice([f"np.sum({item.base}) > 0.0", f"np.mean({item.base}) < 0.5"])

    def if_reader(self, name, item, env):
        r = self.r
        pred = self._predicate(item)
        taken = self.use(item, env)
        other = self.expr(taken.shape, env, 1)
        sides = [(f"{name} = {taken.p}", f"{name} = {taken.i}"),
                 (f"{name} = {other.p}", f"{name} = {other.i}")]
        if r.random() < 0.5:  # the value on the else side
            pred = f"not ({pred})"
            sides.reverse()
        if r.random() < 0.3:  # elif
            pred2 = f"np.sum({item.base}) > 100.0"
            lines = [(f"if {pred2}:", f"if R.pred({pred2}):"),
                     ("    " + sides[1][0], "    " + sides[1][1]),
                     (f"elif {pred}:", f"elif R.pred({pred}):")]
        else:
            lines = [(f"if {pred}:", f"if R.pred({pred}):")]
        lines += [("    " + sides[0][0], "    " + sides[0][1]), ("else:", "else:"),
                  ("    " + sides[1][0], "    " + sides[1][1])]
        return lines, taken.shape

    def ternary_reader(self, name, item, env):
        pred = self._predicate(item)
        taken = _paren(self.use(item, env))
        other = _paren(self.expr(taken.shape, env, 1))
        return [(f"{name} = {taken.p} if {pred} else {other.p}",
                 f"{name} = {taken.i} if R.pred({pred}) else {other.i}")], taken.shape

    def result(self, env, readers):
        r = self.r
        terms = [E((), f"np.sum({v})", f"R.full(lambda: np.sum({v}))") for v in readers]
        if r.random() < 0.5:
            terms.append(self.scalar_out(env))
        weights = [r.choice(["", "0.5 * ", "2.0 * "]) for _ in terms]
        plain = " + ".join(w + _paren(t).p for w, t in zip(weights, terms))
        instr = " + ".join(w + _paren(t).i for w, t in zip(weights, terms))
        if r.random() < 0.35:  # an intermediate value returned beside it
            extra = r.choice(readers + [n for n, s in env.items()
                                        if s is not int and n.startswith("v")])
            self.tuple_output = env[extra]
            return [(f"return {plain}, {extra}", f"return {instr}, {extra}")]
        return [(f"return {plain}", f"return {instr}")]


def draw(rnd):
    gen = SharingGenerator(rnd)
    text, shapes = gen.module()
    return text, shapes, gen.tuple_output


# ---- checking ----------------------------------------------------------------------
class Tally:
    """What the differential runs found."""

    KINDS = ("agreed", "nan_free_wins", "wrong", "chain_rule_nan", "refused", "not_finite",
             "not_smooth", "undecided", "known")

    def __init__(self):
        self.programs = 0
        self.counts = dict.fromkeys(self.KINDS, 0)
        self.refusals = {}
        self.failures = []   # (kind, report)

    def add(self, kind):
        self.counts[kind] += 1

    def summary(self):
        c = self.counts
        return (f"{self.programs} programs: {c['agreed']} agree with the oracle, "
                f"{c['nan_free_wins']} NaN-free wins (oracle NaN or inf, symdiff finite "
                f"and equal to central differences), {c['wrong']} wrong; "
                f"{c['chain_rule_nan']} NaN as the chain rule gives it, like the oracle (0 * inf "
                f"at a used value on its domain's edge); "
                f"{c['refused']} refused with a SymdiffError, {c['not_finite']} with a "
                f"non-finite value, {c['not_smooth']} at a kink or branch boundary, "
                f"{c['undecided']} where differences are unreliable; {c['known']} known "
                f"bug (a NumPy constant folded to a Python float); "
                f"{len(self.failures)} failures")


def _outputs(value):
    return value if isinstance(value, tuple) else (value,)


def _quiet(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args)


def _scalarized(f, cotangent, lib=np):
    """``sum(cotangent * f(...))``: its gradient is the vjp with ``cotangent``."""
    def g(*args):
        outs = _outputs(f(*args))
        total = lib.sum(outs[0] * cotangent[0])
        for c, o in zip(cotangent[1:], outs[1:]):
            total = total + lib.sum(o * c)
        return total
    return g


def cotangents(rnd, text_shape):
    """A random cotangent for each output (the first is the scalar result)."""
    if text_shape is None:
        return (1.0,)
    rng = np.random.default_rng(rnd.randrange(2 ** 32))
    return (float(rng.normal()), rng.normal(size=text_shape) if text_shape else
            float(rng.normal()))


def check_against_oracle(text, mod, oracle, args, cotangent, tally):
    """Classify one program at one point (see the module's doc); a failure is
    recorded in ``tally.failures`` with the program and both gradients."""
    tally.programs += 1
    wrt = tuple(range(len(args)))
    several = len(cotangent) > 1
    try:
        df = symdiff.vjp(mod.f, wrt=wrt) if several else symdiff.grad(mod.f, wrt=wrt)
    except SymdiffError as err:
        tally.add("refused")
        key = f"{type(err).__name__}: {err.message}"
        tally.refusals[key] = tally.refusals.get(key, 0) + 1
        return "refused"
    except Exception as err:  # noqa: BLE001 - the property under test
        return _fail(tally, "crash", f"compiling raised {type(err).__name__}: {err}", text,
                     args)
    try:
        value = _quiet(mod.f, *_copies(args))
    except (ArithmeticError, TypeError):  # Python floats: 1.0 / 0.0, (-1.0) ** 1.5
        tally.add("not_finite")
        return "not_finite"
    if not all(np.all(np.isfinite(o)) and not np.iscomplexobj(o) for o in _outputs(value)):
        tally.add("not_finite")
        return "not_finite"
    _, sig, bad, huge = fuzzkit._signature(mod, args)
    huge = huge or any(np.any(np.abs(o) >= 1e6) for o in _outputs(value))
    if not fuzzkit.stable(mod, args, sig):
        tally.add("not_smooth")
        return "not_smooth"
    try:
        got = _quiet(df, *_copies(args), *([cotangent] if several else []))
    except TypeError as err:
        if "complex" not in str(err):
            raise
        # Known, not about where or if: NumPy arithmetic on constants alone
        # (np.negative(0.125)) is folded to a Python float, whose ** 1.5 of
        # a negative is complex where NumPy's is NaN. Counted, reported.
        tally.add("known")
        return "known"
    except SymdiffError as err:  # (compiled where it is called: refused there)
        tally.add("refused")
        key = f"{type(err).__name__}: {err.message}"
        tally.refusals[key] = tally.refusals.get(key, 0) + 1
        return "refused"
    except Exception as err:  # noqa: BLE001
        return _fail(tally, "crash", f"the gradient raised {type(err).__name__}: {err}",
                     text, args, fuzzkit.shown(df))
    if several:
        got = got[1]
    scalar = _scalarized(mod.f, cotangent)
    verdicts = []
    for k, g in enumerate(got):
        oracle_g = _oracle_gradient(oracle, args, k, cotangent)
        fd = _differences(scalar, args, k)
        verdicts.append(_verdict(g, oracle_g, fd, np.shape(args[k]), bad or huge, huge))
    if "wrong" in verdicts:
        detail = "\n".join(f"argument {k}: {v}" for k, v in enumerate(verdicts))
        return _fail(tally, "wrong", f"a wrong gradient\n{detail}\nsymdiff: {got!r}", text,
                     args, fuzzkit.shown(df), cotangent)
    kind = "known" if "known" in verdicts else \
        "nan_free_wins" if "win" in verdicts else \
        "chain_rule_nan" if "chain_rule_nan" in verdicts else \
        "undecided" if "undecided" in verdicts else "agreed"
    tally.add(kind)
    return kind


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _oracle_gradient(oracle, args, k, cotangent):
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            g = autograd.grad(_scalarized(oracle.f, cotangent, anp), k)(*_copies(args))
        if np.iscomplexobj(g):  # Python floats: (-1.0) ** 1.5
            return None
        return np.asarray(g, dtype=float)
    except Exception:  # noqa: BLE001 - the oracle cannot: decided by differences
        return None


def _differences(f, args, k):
    """Central differences of ``f`` in argument ``k`` at two steps, or None
    where they disagree with each other (ill-conditioned, or not smooth)."""
    fd1 = fuzzkit.central(f, args, k, 1e-6)
    fd2 = fuzzkit.central(f, args, k, 1e-5)
    scale = 1.0 + np.max(np.abs(fd2), initial=0.0)
    if not (np.all(np.isfinite(fd1)) and np.all(np.isfinite(fd2))):
        return None
    if not np.allclose(fd1, fd2, rtol=1e-4, atol=1e-6 * scale):
        return None
    return fd2


def _close(a, b, rtol, atol):
    scale = 1.0 + np.max(np.abs(b), initial=0.0)
    return np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=rtol, atol=atol * scale)


def _verdict(g, oracle_g, fd, shape, excused, huge=False):
    """How symdiff's gradient ``g`` compares; ``excused``: a value the program
    uses (not one a where or an if leaves aside) is at or beyond its domain's
    edge, or huge, so the chain rule itself may give NaN (0 * inf); ``huge``:
    a used value is above 1e6, so differences may not tell (``sin(1e12)``)."""
    if np.iscomplexobj(g):
        return "known"  # a NumPy constant folded to a Python float (see above)
    g = np.asarray(g, dtype=float)
    if np.shape(g) != shape:
        return "wrong"
    usable = oracle_g is not None and np.shape(oracle_g) == shape
    if not np.all(np.isfinite(g)):
        if fd is None:
            return "undecided"
        if excused and not (usable and np.all(np.isfinite(oracle_g))):
            return "chain_rule_nan"
        return "wrong"
    if usable and np.all(np.isfinite(oracle_g)):
        if _close(g, oracle_g, 1e-7, 1e-9):
            return "agreed"
        if fd is None:
            return "undecided"
        return "undecided" if _close(g, fd, 1e-4, 1e-5) else "wrong"
    if fd is None:
        return "undecided"
    if not _close(g, fd, 1e-4, 1e-5):
        return "undecided" if huge else "wrong"
    return "win" if usable else "agreed"


def _fail(tally, kind, message, text, args, generated="", cotangent=None):
    report = f"{message}\n\nseed: {getattr(tally, 'seed', None)}\nprogram:\n{text}\n" \
             f"args: {args!r}\ncotangent: {cotangent!r}\n\ngenerated:\n{generated}"
    tally.failures.append((kind, report))
    if kind == "wrong":
        tally.add("wrong")
    return kind


def run(seeds, workdir, tally=None):
    """Check the programs drawn from ``random.Random(seed)`` for each seed."""
    import random
    tally = tally or Tally()
    for seed in seeds:
        rnd = random.Random(seed)
        tally.seed = seed
        text, shapes, extra = draw(rnd)
        mod = fuzzkit.load_module(workdir, text, stem="oracleprog")
        oracle = load_oracle(text, mod.__name__)
        args = fuzzkit.arguments(rnd, shapes)
        check_against_oracle(text, mod, oracle, args, cotangents(rnd, extra), tally)
    return tally


if __name__ == "__main__":  # python tests/fuzz_oracle.py START COUNT
    import tempfile
    start, count = (int(a) for a in sys.argv[1:3])
    result = run(range(start, start + count), tempfile.mkdtemp())
    print(result.summary())
    print(result.refusals)
    for kind, report in result.failures[:5]:
        print("=" * 79, kind, report, sep="\n")
