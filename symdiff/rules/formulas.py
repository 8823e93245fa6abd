"""The local derivatives of elementwise functions, cached so that compiling
rarely needs SymPy (whose import alone takes ~300 ms).

``local(prim, i, constants)`` is the tree (see translate.py) of
``G * d prim / d operand i``. It is looked up in memory, then in the table
shipped with symdiff (``derived.json``, written by ``python -m
symdiff.rules.formulas``), then in a per-user cache file; only on a miss is
SymPy imported, and the result is added to the user cache.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading

import functools

from ..ir.primitive import TABLE

SHIPPED = os.path.join(os.path.dirname(__file__), "derived.json")
_memory = {}
_lock = threading.Lock()
_loaded = False


def key(prim, index, constants):
    formula = TABLE[prim].formula
    text = repr((formula.formula, formula.partials, prim, index, constants))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def local(prim, index, constants):
    """The tree of ``G * d prim / d operand index`` (``constants``: operand
    positions paired with the numbers a call passes there)."""
    k = key(prim, index, constants)
    tree = _memory.get(k)
    if tree is None:
        _load()
        tree = _memory.get(k)
    if tree is None:
        tree = derive(prim, index, constants)
        with _lock:
            _memory[k] = tree
        _save_user_cache()
    return tree


def derive(prim, index, constants):
    """Ask SymPy (slow the first time: it is imported here)."""
    import sympy as sp
    from .translate import to_tree
    seed = sp.Symbol("G", real=True)
    return to_tree(seed * partial(prim, index, constants), seed)


def _user_cache_path():
    base = os.environ.get("SYMDIFF_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "symdiff")
    return os.path.join(base, "derived.json")


def _load():
    global _loaded
    with _lock:
        if _loaded:
            return
        _loaded = True
        for path in (SHIPPED, _user_cache_path()):
            try:
                with open(path, encoding="utf-8") as handle:
                    _memory.update(json.load(handle))
            except (OSError, ValueError):
                pass  # no cache yet, or an unreadable one: derive again


def _save_user_cache():
    """Write the user cache atomically; a read-only home only costs speed."""
    path = _user_cache_path()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with _lock:
            text = json.dumps(_memory, sort_keys=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError:
        pass


def partial(prim, index, constants):
    """d prim / d operand ``index`` as a SymPy expression over the record's
    operands (``a``, ``b``; ``x``, ``loc``, ``scale``...) and ``out``.

    ``constants`` pairs operand positions with the numbers the call passes
    there (``x ** 2`` differentiates as ``2 * x``, not through ``log``).
    """
    record = TABLE[prim]
    return _partial(record.formula, record.operands, index, constants)


@functools.lru_cache(maxsize=None)
def _partial(formula, operands, index, constants):
    """Cached by the formula itself, so a changed record is derived afresh."""
    import sympy as sp
    symbols = [sp.Symbol(name, real=True) for name in operands]
    out = sp.Symbol("out", real=True)
    names = dict(zip(operands, symbols))
    names.update((name, sp.Function(name)) for name in _NOT_SYMPY)
    known = {symbols[i]: _number(sp, v) for i, v in constants}
    expression = sp.sympify(formula.formula, locals=names).xreplace(known)
    if formula.partials:
        derivative = sp.sympify(formula.partials[index], locals={**names, "out": out})
        derivative = derivative.xreplace(known)
    else:
        derivative = sp.diff(expression, symbols[index])
    return _reuse_output(sp, derivative, expression, out)


def _number(sp, value):
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
        return sp.Integer(int(value))
    return sp.Integer(value) if isinstance(value, int) else sp.Rational(value)


def _reuse_output(sp, derivative, formula, out):
    """Write ``formula`` (and its reciprocal) in ``derivative`` as ``out``."""
    if formula.is_Symbol or formula.is_Number:
        return derivative
    replaced = derivative.xreplace({formula: out})
    if formula.is_Pow:
        inverse = sp.Pow(formula.base, -formula.exp)
        replaced = replaced.xreplace({inverse: 1 / out})
    return replaced


# Primitives a formula may call by name which SymPy spells otherwise (its
# trunc is a polynomial's): undefined functions, written back as primitives.
_NOT_SYMPY = ("trunc",)

# Constants worth shipping: the exponents people write.
_EXPONENTS = (2, 3, 4, 0.5, 1.5, -1, -2, -0.5)
# Functions with an order (an operand without a derivative) whose derivatives
# are specialised on a constant order, and the orders worth shipping: those
# derivatives reach (sinc: spherical_jn of order 1, then 0 and 2), and those
# people write.
ORDERS = {"polygamma": range(5), "iv": range(4), "ive": range(4),
          "spherical_jn": range(4)}


def shipped_keys():
    """Every (prim, index, constants) in the shipped table."""
    for prim, record in sorted(TABLE.items()):
        if record.formula is None:
            continue
        for index in range(len(record.operands)):
            if differentiable(record.formula, index):
                yield prim, index, ()
    for p in _EXPONENTS:
        yield "power", 0, ((1, p),)
        yield "float_power", 0, ((1, p),)
    for prim, orders in ORDERS.items():
        for n in orders:
            yield prim, 1, ((0, n),)


def differentiable(formula, index):
    """Whether the formula has a derivative in operand ``index``: not where its
    ``partials`` say None (an integer order or count, such as polygamma's n)."""
    return not formula.partials or formula.partials[index] is not None


def write_shipped():
    table = {key(*k): derive(*k) for k in shipped_keys()}
    with open(SHIPPED, "w", encoding="utf-8") as handle:
        json.dump(table, handle, sort_keys=True, indent=0)
        handle.write("\n")
    return len(table)


if __name__ == "__main__":
    from symdiff import rules  # noqa: F401 (fills the table)
    print(f"wrote {write_shipped()} derivatives to {SHIPPED}")
