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

from .elementwise import ELEMENTWISE, partial

SHIPPED = os.path.join(os.path.dirname(__file__), "derived.json")
_memory = {}
_lock = threading.Lock()
_loaded = False


def key(prim, index, constants):
    rule = ELEMENTWISE[prim]
    text = repr((rule.formula, rule.grads, prim, index, constants))
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


# Constants worth shipping: the exponents people write.
_EXPONENTS = (2, 3, 4, 0.5, 1.5, -1, -2, -0.5)


def shipped_keys():
    """Every (prim, index, constants) in the shipped table."""
    for prim, rule in ELEMENTWISE.items():
        arity = 2 if "b" in _symbols(rule.formula) else 1
        for index in range(arity):
            yield prim, index, ()
    for p in _EXPONENTS:
        yield "power", 0, ((1, p),)


def _symbols(formula):
    import re
    return set(re.findall(r"\b[ab]\b", formula))


def write_shipped():
    table = {key(*k): derive(*k) for k in shipped_keys()}
    with open(SHIPPED, "w", encoding="utf-8") as handle:
        json.dump(table, handle, sort_keys=True, indent=0)
        handle.write("\n")
    return len(table)


if __name__ == "__main__":
    print(f"wrote {write_shipped()} derivatives to {SHIPPED}")
