"""The gradients compiled so far, by function, ``wrt``, mode and overrides.

A function is compiled once: the cache key holds the identity of its code,
globals and closure, and a hit is checked against the names its gradient
read (a redefined helper compiles again). A miss compiles the generic
gradient and loads it behind the dispatcher that specialises it for the
arguments it is called with (specialise.py), or, for a function of
containers, behind the one that compiles it per structure (containers.py).
"""
from __future__ import annotations

import inspect
import os
import threading
import unicodedata
from typing import Any

from .controls import active_overrides, validate
from .errors import WrtError
from .locations import caller_loc
from .log import StageTimer, logger, verbose as verbose_logging
from .containers import (Deferred, is_specialising, loaded, plain_target,
                         specialised_target, specialising)
from .frontend.containers import ContainerUse
from .pipeline import compile_gradient
from .specialise import gradient_function

_cache: dict[Any, Any] = {}
_lock = threading.RLock()
_stats = {"hits": 0, "misses": 0}
_DEBUG = 10


def compile_cached(f, wrt, mode, overrides, verbose=False, checks=True):
    if verbose:
        with verbose_logging():
            return _compile_cached(f, wrt, mode, overrides, checks)
    return _compile_cached(f, wrt, mode, overrides, checks)


def _compile_cached(f, wrt, mode, overrides, checks=True):
    f = getattr(f, "__symdiff_generic__", f)  # a gradient made by symdiff: its code
    # an unknown op is the user's mistake on the line that called grad()
    given = validate(overrides, caller_loc()) if overrides else {}
    overrides = {**active_overrides(), **given}
    wrt_key = tuple(map(_nfkc, wrt)) if isinstance(wrt, (list, tuple)) else _nfkc(wrt)
    # The same code object (a function made again by a factory, or a closure
    # remade on each call) reuses its gradient. Code objects compare by value,
    # not by file or globals, so the key holds their identity: two modules with
    # the same `def f` but different globals are different functions. The entry
    # keeps the code and globals alive, so their ids are not reused meanwhile.
    code = getattr(getattr(f, "__func__", f), "__code__", f)
    scope = getattr(f, "__globals__", None)
    cells = _closure_contents(getattr(f, "__func__", f)) + (
        (f.__self__,) if inspect.ismethod(f) else ())
    key = (id(code), id(scope), tuple(map(id, cells)), wrt_key, mode,
           tuple(sorted(overrides.items())), checks)
    with _lock:
        hit = _cache.get(key)
        same = hit is not None and hit[2] is code and hit[3] is scope \
            and all(a is b for a, b in zip(hit[4], cells))
        if same and _still_valid(hit):
            _stats["hits"] += 1
            if logger.isEnabledFor(_DEBUG):
                logger.debug("%s of %s: cache hit (hits %d, misses %d)", mode,
                             hit[1].origin, _stats["hits"], _stats["misses"])
            return hit[0]
        _stats["misses"] += 1
        if logger.isEnabledFor(_DEBUG):
            why = "changed: " + _changed(hit) if same else "miss"
            logger.debug("%s of %s: cache %s (hits %d, misses %d); compiling", mode,
                         _describe(f), why, _stats["hits"], _stats["misses"])
        timer = StageTimer()
        compiled, fn, target = None, None, plain_target(f)
        try:
            if target is not None:
                compiled = compile_gradient(target, wrt, mode, overrides, timer=timer,
                                            checks=checks, defer=True)
                with timer("load"):
                    fn = gradient_function(compiled, f, wrt, mode, overrides, target, checks)
        except WrtError as err:
            raise _at_the_call(err) from None
        except ContainerUse:  # compiled where it is called, for its arguments
            compiled, fn = None, None
        if compiled is None or compiled.containers or is_specialising(f):
            fn = specialising(f, wrt, mode, lambda trees, signature: loaded(compile_gradient(
                specialised_target(f, trees, signature), wrt, mode, overrides, trees=trees,
                signature=signature, checks=checks), f, wrt, mode, overrides),
                None if inspect.ismethod(f) else fn)
            fn.__symdiff_wrt__, fn.__symdiff_mode__ = wrt, mode
            fn.__symdiff_overrides__ = dict(overrides or {})
            compiled = compiled or Deferred(_describe(f))
        _cache[key] = (fn, compiled, code, scope, cells)
        logger.info("compiled %s from %s in %.1f ms", compiled.name, compiled.origin,
                    sum(timer.times.values()) * 1e3)
        if logger.isEnabledFor(_DEBUG):
            logger.debug("%s: %s", compiled.name, timer.report())
            logger.debug("%s: source in %s", compiled.name,
                         getattr(fn, "__symdiff_generic__", fn).__code__.co_filename)
        return fn


def _at_the_call(err):
    """A bad ``wrt`` is a mistake of the call that gave it (or of the decorator):
    the error points there, and names the function's ``def`` in its hint."""
    call = caller_loc()
    if call is None or err.filename is None:
        return err
    return WrtError(err.message, call, f"{err.hint} (the parameters of the function "
                                       f"at {os.path.basename(err.filename)}:{err.lineno})")


def cache_info():
    """``{"hits": ..., "misses": ..., "size": ...}`` of the gradient cache."""
    with _lock:
        return dict(_stats, size=len(_cache))


def _describe(f):
    """``file.py:LINE (name)`` of a function about to be compiled."""
    code = getattr(f, "__code__", None)
    name = getattr(f, "__qualname__", None) or repr(f)
    if code is None:
        return name
    return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno} ({name})"


def _changed(hit):
    """Which name the cached gradient read holds another object now."""
    for scope, name, value in hit[1].deps:
        if scope.get(name, _GONE) is not value:
            return f"`{name}` is not the object it was"
    return "its code or closure"


def _nfkc(name):
    """A parameter name as Python reads it (``ℌ`` is ``H``)."""
    return unicodedata.normalize("NFKC", name) if isinstance(name, str) else name


def _closure_contents(f):
    """The values ``f`` closes over (an empty cell as a marker of its own)."""
    out = []
    for cell in getattr(f, "__closure__", None) or ():
        try:
            out.append(cell.cell_contents)
        except ValueError:
            out.append(_GONE)
    return tuple(out)


def _still_valid(hit):
    """The names the compiled code resolved (helpers, constants, NumPy) still
    hold the same objects: a redefined helper means compiling again."""
    return all(scope.get(name, _GONE) is value for scope, name, value in hit[1].deps)


_GONE = object()
