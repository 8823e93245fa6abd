"""The public entry points: grad, value_and_grad, vjp, jvp, jacobian, hessian,
source and show_ir."""
from __future__ import annotations

import functools
import inspect
import os
import threading
import unicodedata
from typing import Any, Callable, Mapping, Optional, ParamSpec, Sequence, Union, overload

import numpy as np

from .controls import active_overrides, validate
from .errors import WrtError
from .ir.printer import format_function
from .locations import caller_loc
from .log import StageTimer, logger, verbose as verbose_logging
from .pipeline import STAGES, compile_gradient
from .ir.patterns import signature_of
from .specialise import gradient_function, specialised  # noqa: F401 (public)

P = ParamSpec("P")

_cache: dict[Any, Any] = {}
_lock = threading.RLock()
_stats = {"hits": 0, "misses": 0}
_DEBUG = 10


Wrt = Union[int, str, Sequence[Union[int, str]]]
"""A position, a name, or several of them (a tuple of gradients)."""
Overrides = Optional[Mapping[str, str]]
"""Op name -> registered gradient rule name, e.g. ``{"floor": "identity"}``."""


@overload
def grad(f: Callable[P, Any], wrt: Wrt = 0, *, overrides: Overrides = None,
         verbose: bool = False, checks: bool = True) -> Callable[P, Any]: ...


@overload
def grad(f: None = None, wrt: Wrt = 0, *, overrides: Overrides = None,
         verbose: bool = False, checks: bool = True
         ) -> Callable[[Callable[P, Any]], Callable[P, Any]]: ...


def grad(f: Callable[P, Any] | None = None, wrt: Wrt = 0, *, overrides: Overrides = None,
         verbose: bool = False, checks: bool = True) -> Any:
    """The gradient of scalar-valued ``f`` with respect to argument(s) ``wrt``.

    ``wrt`` is a position, a name, or a tuple of them (then the gradient is a
    tuple). Works as ``grad(f)``, ``@grad`` and ``@grad(wrt=...)``; as a
    decorator it replaces ``f`` by its gradient (``f`` itself stays at
    ``gradient.__wrapped__``). The gradient takes the arguments ``f`` takes,
    defaults and keyword-only ones included.

    Each gradient has the shape of its argument and keeps its precision: a
    float32 array gives a float32 gradient; a NumPy scalar or 0-d array gives
    a 0-d result of its dtype (``np.ndim(g) == 0``); a Python float gives a
    float (possibly an ``np.float64``, which is one). Integer and boolean
    arguments may be passed, but not differentiated (NonFloatArgumentError).
    ``print``, ``logging`` and ``warnings.warn`` calls in ``f`` run in the
    gradient's forward pass, as in ``f``; nothing they read gets a gradient.

    ``verbose=True`` prints what this compile did (the ``symdiff`` logger at
    DEBUG: cache lookup, stages and their times).

    ``checks=False`` leaves out the runtime checks of the arguments and of
    the output (a wrong argument is then not named): the code is plain
    enough for ``numba.njit`` (see `specialised`).
    """
    if f is None:
        return functools.partial(grad, wrt=wrt, overrides=overrides, verbose=verbose,
                                 checks=checks)
    return _compile(f, wrt, "grad", overrides, verbose, checks)


@overload
def value_and_grad(f: Callable[P, Any], wrt: Wrt = 0, *, overrides: Overrides = None,
                   verbose: bool = False, checks: bool = True
                   ) -> Callable[P, tuple[Any, Any]]: ...


@overload
def value_and_grad(f: None = None, wrt: Wrt = 0, *, overrides: Overrides = None,
                   verbose: bool = False, checks: bool = True
                   ) -> Callable[[Callable[P, Any]], Callable[P, tuple[Any, Any]]]: ...


def value_and_grad(f: Callable[P, Any] | None = None, wrt: Wrt = 0, *,
                   overrides: Overrides = None, verbose: bool = False,
                   checks: bool = True) -> Any:
    """Like `grad`, but the function returns ``(value, gradient)``."""
    if f is None:
        return functools.partial(value_and_grad, wrt=wrt, overrides=overrides,
                                 verbose=verbose, checks=checks)
    return _compile(f, wrt, "value_and_grad", overrides, verbose, checks)


@overload
def vjp(f: Callable[..., Any], wrt: Wrt = 0, *, overrides: Overrides = None,
        verbose: bool = False) -> Callable[..., tuple[Any, Any]]: ...


@overload
def vjp(f: None = None, wrt: Wrt = 0, *, overrides: Overrides = None,
        verbose: bool = False
        ) -> Callable[[Callable[..., Any]], Callable[..., tuple[Any, Any]]]: ...


def vjp(f: Callable[..., Any] | None = None, wrt: Wrt = 0, *, overrides: Overrides = None,
        verbose: bool = False) -> Any:
    """``vjp(f)(*args, v)`` is ``(f(*args), v^T J)``: reverse mode with the
    cotangent ``v`` (shaped like the output) as the seed; any output shape."""
    if f is None:
        return functools.partial(vjp, wrt=wrt, overrides=overrides, verbose=verbose)
    return _compile(f, wrt, "vjp", overrides, verbose)


@overload
def jvp(f: Callable[..., Any], wrt: Wrt = 0, *,
        verbose: bool = False) -> Callable[..., tuple[Any, Any]]: ...


@overload
def jvp(f: None = None, wrt: Wrt = 0, *, verbose: bool = False
        ) -> Callable[[Callable[..., Any]], Callable[..., tuple[Any, Any]]]: ...


def jvp(f: Callable[..., Any] | None = None, wrt: Wrt = 0, *, verbose: bool = False) -> Any:
    """``jvp(f)(*args, *tangents)`` is ``(f(*args), J @ tangents)``: forward mode,
    one pass, one tangent per argument in ``wrt`` (shaped like it)."""
    if f is None:
        return functools.partial(jvp, wrt=wrt, verbose=verbose)
    return _compile(f, wrt, "jvp", None, verbose)


@overload
def jacobian(f: Callable[P, Any], wrt: Wrt = 0, *, overrides: Overrides = None,
             verbose: bool = False) -> Callable[P, Any]: ...


@overload
def jacobian(f: None = None, wrt: Wrt = 0, *, overrides: Overrides = None,
             verbose: bool = False) -> Callable[[Callable[P, Any]], Callable[P, Any]]: ...


def jacobian(f: Callable[P, Any] | None = None, wrt: Wrt = 0, *,
             overrides: Overrides = None, verbose: bool = False) -> Any:
    """``jacobian(f)(*args)``: the array of d output[i] / d input[j], shaped
    ``output.shape + input.shape`` (a tuple of them for a tuple ``wrt``; for
    a function returning a tuple, a tuple with one entry per output).

    One vector-Jacobian product per output entry; ``symdiff.source`` shows
    the generated product.
    """
    if f is None:
        return functools.partial(jacobian, wrt=wrt, overrides=overrides, verbose=verbose)
    fn = f
    pullback = vjp(fn, wrt, overrides=overrides, verbose=verbose)
    many = isinstance(wrt, (tuple, list))
    wrts = list(wrt) if many else [wrt]

    def jacobian_fn(*args: Any) -> Any:
        with np.errstate(all="ignore"):  # only the output's shape is wanted here
            out = fn(*args)
        several = isinstance(out, tuple)
        shapes = [np.shape(o) for o in (out if several else (out,))]
        blocks = []
        for k, shape in enumerate(shapes):
            rows = []
            for index in np.ndindex(shape):
                seeds = [np.zeros(s) for s in shapes]
                seeds[k][index] = 1.0
                grads = pullback(*args, tuple(seeds) if several else seeds[0])[1]
                rows.append(grads if many else (grads,))
            block = tuple(_stack([r[j] for r in rows], shape, _arg(args, w, fn))
                          for j, w in enumerate(wrts))
            blocks.append(block if many else block[0])
        return tuple(blocks) if several else blocks[0]

    setattr(jacobian_fn, "__symdiff_source__", source(pullback))
    jacobian_fn.__wrapped__ = fn  # type: ignore[attr-defined]
    jacobian_fn.__name__ = "jacobian_" + getattr(fn, "__name__", "f")
    return jacobian_fn


@overload
def hessian(f: Callable[P, Any], wrt: Wrt = 0, *, overrides: Overrides = None,
            verbose: bool = False) -> Callable[P, Any]: ...


@overload
def hessian(f: None = None, wrt: Wrt = 0, *, overrides: Overrides = None,
            verbose: bool = False) -> Callable[[Callable[P, Any]], Callable[P, Any]]: ...


def hessian(f: Callable[P, Any] | None = None, wrt: Wrt = 0, *,
            overrides: Overrides = None, verbose: bool = False) -> Any:
    """The Hessian of scalar ``f``: the Jacobian of its generated gradient,
    shaped ``x.shape + x.shape``; for a tuple ``wrt`` the blocks
    ``((H_aa, H_ab), (H_ba, H_bb))``. (symdiff differentiates its own code.)"""
    if f is None:
        return functools.partial(hessian, wrt=wrt, overrides=overrides, verbose=verbose)
    return jacobian(grad(f, wrt, overrides=overrides, verbose=verbose), wrt,
                    verbose=verbose)


def _stack(rows, out_shape, arg):
    arg_shape = np.shape(arg)
    if not rows:
        return np.zeros(out_shape + arg_shape)
    return np.reshape(np.stack([np.asarray(r, dtype=float) for r in rows]),
                      out_shape + arg_shape)


def _arg(args, wrt, f):
    if isinstance(wrt, int):
        return args[wrt]
    names = list(inspect.signature(f).parameters)
    return args[names.index(wrt)]


def source(df: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """The generated source of a function made by symdiff: the generic one,
    or, given arguments, the one specialised for arguments like them (their
    number of axes, which have length one, their dtypes, which are Python
    numbers), which ``df(*args, **kwargs)`` runs."""
    text = getattr(df, "__symdiff_source__", None)
    if text is None:
        raise TypeError(f"{df!r} was not made by symdiff")
    specialiser = getattr(df, "__symdiff_specialiser__", None)
    if (args or kwargs) and specialiser is not None:
        return str(specialiser.function_for(*args, **kwargs).__symdiff_source__)
    return str(text)


class IRText(str):
    """The IR as text; shown as text (not a quoted string) at a prompt."""

    def __repr__(self) -> str:
        return str(self)


def show_ir(f: Callable[..., Any], stage: str = "optimized", *, wrt: Wrt = 0,
            mode: str = "grad", overrides: Overrides = None,
            args: Optional[Sequence[Any]] = None) -> IRText:
    """The IR of ``f``'s derivative at ``stage``, as text: "lowered" (``f``
    itself, as the compiler reads it), "gradient" (after differentiation),
    "optimized" (after the optimisation passes: what the source is written
    from), or "all". ``f`` may also be a function `grad` (or another entry
    point) made: its ``wrt``, mode and overrides are used then. ``args``:
    the IR specialised for arguments like these (see `source`)."""
    stages = STAGES if stage == "all" else (stage,)
    if any(s not in STAGES for s in stages):
        raise ValueError(f"stage={stage!r}: choose one of {', '.join(STAGES)} or 'all'")
    if hasattr(f, "__symdiff_mode__"):
        f, wrt, mode, overrides = (f.__wrapped__, f.__symdiff_wrt__,  # type: ignore
                                   f.__symdiff_mode__, f.__symdiff_overrides__)
    overrides = {**active_overrides(), **(validate(overrides, caller_loc()) if overrides
                                          else {})}
    seen: dict[str, str] = {}

    def observe(name: str, fn: Any) -> None:
        if name in stages:
            seen[name] = format_function(fn)
    signature = None
    if args is not None:
        names = list(inspect.signature(getattr(f, "__symdiff_generic__", f)).parameters)
        signature = dict(zip(names, signature_of(list(args))))
    compile_gradient(f, wrt, mode, overrides, observe=observe, signature=signature)
    if len(stages) == 1:
        return IRText(seen[stages[0]])
    return IRText("\n".join(f"# {name}\n{seen[name]}" for name in stages))


def _compile(f, wrt, mode, overrides, verbose=False, checks=True):
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
    code = getattr(f, "__code__", f)
    scope = getattr(f, "__globals__", None)
    cells = _closure_contents(f)
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
        try:
            compiled = compile_gradient(f, wrt, mode, overrides, timer=timer, checks=checks)
        except WrtError as err:
            raise _at_the_call(err) from None
        with timer("load"):
            fn = gradient_function(compiled, f, wrt, mode, overrides, checks)
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
