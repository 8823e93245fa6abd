"""Builds IR statements, folding the trivial ones as they are made.

Both the frontend (lowering user code) and the reverse pass (building the
backward sweep) create operations through a `Builder`, so `x * 1`, `x + 0`
and `--x` never reach the generated code.
"""
from __future__ import annotations

import contextlib
import re

from .nodes import Const, FreeVar, Op, Var, const_value
from .primitive import TABLE, is_effect
from .shapes import Facts

# Operations on Python numbers computed when compiling (as Python would):
# `n - 1` and `n <= 1` of a constant n decide a branch, and so end a recursion.
_FOLDABLE = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b, "negative": lambda a: -a,
    "greater": lambda a, b: a > b, "greater_equal": lambda a, b: a >= b,
    "less": lambda a, b: a < b, "less_equal": lambda a, b: a <= b,
    "equal": lambda a, b: a == b, "not_equal": lambda a, b: a != b,
}


class Builder:
    """``folds``: primitive name -> fold(builder, args, constant values), a
    rewrite tried before the operation is made (optimize/folds.py)."""

    def __init__(self, facts=None, folds=None):
        self.facts = facts or Facts()
        self.folds = folds or {}
        self.stmts = []
        self.loc = None
        self.named = set()  # vars that carry a user's name
        self.backward = False  # set while the reverse pass builds
        self.note = ""
        self.math = False      # operations made now are written with `math` (see Op.math)
        self.numbers = False   # NUMBERS: NumPy's functions of Python numbers as math's too
        self.overrides = {}    # prim -> registered gradient name, while lowering
        self.customs = {}      # Var -> how to differentiate a custom_gradient call
        self.modules = set()   # the modules the user's function calls (a rule may too)
        self.deps = []         # (namespace, name, value) resolved while lowering
        self.free = {}         # emitted name -> FreeVar, one per distinct value
        self.param_locs = {}   # parameter Var -> where the user declared it
        self.products = {}     # where(m, g, 0.0) that is g * m -> its operands (selects.py)
        self.origins = {}      # a var no operation makes (a loop's carried value, an if's
        #                        merged one) -> the values it may be (frontend/writes.py)
        self.float_params = set()  # parameters checked to be floating point (ad/seeds.py)
        self.leaves = {}       # a leaf read from a container argument -> (argument, path)
        self.container_uses = set()  # arguments used as containers (frontend/containers.py)
        self.varargs = None    # the parameter of ``*args``, if the function has one
        self.list_tapes = set()  # tapes that are lists the function reads (np.stack(xs))
        self.adjoints = {}     # var -> the var it is (part of) the adjoint of: x_bar of x

    # -- making operations ---------------------------------------------------
    def op(self, prim, *args, hint=None, **params):
        args = tuple(a if isinstance(a, (Var, Const)) else Const(a) for a in args)
        folded = self._fold(prim, args, params)
        if folded is not None:
            return folded
        target = Var(hint or _default_hint(prim, args))
        note = self.note
        op = Op(target, prim, args, tuple(sorted(params.items())), self.loc,
                note, self.backward, self.overrides.get(prim, ""),
                _math_flag(self.math or self.numbers, prim))
        op.effect = is_effect(prim)
        self.append(op)
        return target

    def free_var(self, value):
        """One FreeVar per distinct global object; same-named ones get _1, _2..."""
        if not isinstance(value, FreeVar):
            return value
        base, n = value.hint, 0
        while value.hint in self.free and self.free[value.hint].value is not value.value:
            n += 1
            value.hint = f"{base}_{n}"
        return self.free.setdefault(value.hint, value)

    def append(self, stmt):
        self.stmts.append(stmt)
        if isinstance(stmt, Op):
            self.facts.record(stmt)

    def add(self, a, b, **kw):
        return self.op("add", a, b, **kw)

    def sub(self, a, b, **kw):
        return self.op("subtract", a, b, **kw)

    def mul(self, a, b, **kw):
        return self.op("multiply", a, b, **kw)

    def div(self, a, b, **kw):
        return self.op("divide", a, b, **kw)

    def neg(self, a, **kw):
        return self.op("negative", a, **kw)

    def total(self, terms, hint=None):
        """The sum of ``terms`` (None when there are none: a symbolic zero)."""
        terms = [t for t in terms if t is not None]
        if not terms:
            return None
        result = terms[0]
        for term in terms[1:]:
            result = self.add(result, term, hint=hint)
        return result

    # -- blocks and locations --------------------------------------------------
    @contextlib.contextmanager
    def block(self):
        """Collect the statements made inside the ``with`` into a new list."""
        saved, self.stmts = self.stmts, []
        new = self.stmts
        try:
            yield new
        finally:
            self.stmts = saved

    @contextlib.contextmanager
    def into(self, stmts):
        """Append to the existing list ``stmts`` inside the ``with``."""
        saved, self.stmts = self.stmts, stmts
        try:
            yield stmts
        finally:
            self.stmts = saved

    @contextlib.contextmanager
    def noting(self, note):
        """Attach the comment ``note`` to the operations made inside the ``with``."""
        saved, self.note = self.note, note
        try:
            yield
        finally:
            self.note = saved

    @contextlib.contextmanager
    def math_spelling(self, flag):
        """The operations made inside the ``with`` are the user's `math` calls,
        or their derivatives, when ``flag``: those of a function `math` has
        are written with it where their operands are Python numbers."""
        saved, self.math = self.math, flag
        try:
            yield
        finally:
            self.math = saved

    @contextlib.contextmanager
    def at(self, loc):
        saved, self.loc = self.loc, loc
        try:
            yield
        finally:
            self.loc = saved

    # -- folding -----------------------------------------------------------------
    def _fold(self, prim, args, params):
        values = [const_value(a) for a in args]
        if prim in _FOLDABLE and all(v is not None for v in values):
            return Const(_FOLDABLE[prim](*values))
        if prim in ("equal", "not_equal") and all(  # `mode == "tanh"` of constants
                isinstance(a, Const) and isinstance(a.value, (str, type(None))) for a in args):
            return Const(_FOLDABLE[prim](*(a.value for a in args)))
        every = self.folds.get("*")  # a fold for any operation (optimize/spreads.py)
        if every is not None:
            made = every(self, prim, args, params)
            if made is not None:
                return made
        fold = self.folds.get(prim)
        return fold(self, args, values) if fold else None


_SIGNS = {("greater", 0): "positive", ("less", 0): "negative",
          ("greater_equal", 0): "nonnegative", ("less_equal", 0): "nonpositive"}


def _default_hint(prim, args):
    names = [a.hint for a in args if isinstance(a, Var)]
    if prim in ("greater", "less", "greater_equal", "less_equal", "equal", "not_equal"):
        zero = len(args) == 2 and const_value(args[1]) == 0 and names
        return f"{names[0]}_{_SIGNS[prim, 0]}" if zero and (prim, 0) in _SIGNS else "mask"
    if prim == "getitem" and names:
        index = [a.value for a in args[1:] if isinstance(a, Const)]
        if len(index) == len(args) - 1 and all(isinstance(i, int) for i in index):
            return names[0] + "".join(str(i) if i >= 0 else "_last" * (i == -1)
                                      or f"_m{-i}" for i in index)
        if len(index) == 1 and isinstance(index[0], slice) and index[0].step is None:
            start, stop = index[0].start or 0, index[0].stop or 0
            if start == 0 and stop < 0:
                return names[0] + "_head"
            if start > 0 and stop == 0:
                return names[0] + "_tail"
        return names[0] + "_part"
    if prim == "T" and len(names) == 1 and _short_name(names[0]):
        return names[0] + "_t"  # (K_t for K.T, so Q @ K.T is Q_K_t, not Q_T_K)
    if prim in _PRODUCTS and len(args) == 2 and len(names) == 2 \
            and all(_short_name(n) for n in names):  # `X_W` for X @ W: its factors
        return "_".join(names)
    if prim in _ARITHMETIC:  # `t`, not `add_exp_negative_z`: a name of no operator
        return "t"
    if len(names) == 1 and len(names[0]) <= 16 and not names[0].startswith("_") \
            and names[0] != "t" and not names[0].startswith("t_"):
        return f"{prim}_{names[0]}" if prim.isidentifier() else "t"  # exp_x, sum_exp_x
    return prim if prim in _NAMED_RESULTS else "t"


_ARITHMETIC = {"add", "subtract", "multiply", "divide", "negative", "power", "square",
               "true_divide", "reciprocal", "positive", "float_power", "sum_to", "unreduce",
               "pass_gradient", "clip", "full_like", "zeros_like"}
_PRODUCTS = {"matmul", "dot", "outer", "inner"}


def _short_name(name):
    return len(name) <= 8 and not name.startswith("_") and not re.fullmatch(r"t(_\d+)?", name)


# (a product of factors with long names is `t`: `matmul_bar` would name the
# adjoint after an operator, not after anything the user wrote)
_NAMED_RESULTS = {"stack", "concatenate", "where", "array", "maximum", "minimum", "clip",
                  "hstack", "vstack"}


# Op.math of a NumPy function of Python numbers computed with `math` in a
# gradient only (specialise.py): it falls back to NumPy's where math raises.
NUMBERS = "numbers"
# math's functions of floats that give floats (math.floor gives an int, and
# math.fabs of an int a float, where NumPy keeps the kind)
_FLOAT_VALUED = frozenset({"sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2",
                           "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "exp",
                           "expm1", "log", "log1p", "log2", "log10", "sqrt", "hypot"})


def _math_flag(flag, prim):
    """Op.math of a new ``prim`` operation made under ``flag``."""
    if not flag or not getattr(TABLE.get(prim), "math", ()):
        return False
    return flag if flag is not NUMBERS or prim in _FLOAT_VALUED else False
