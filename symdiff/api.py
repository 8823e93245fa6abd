"""The public entry points: grad, value_and_grad, source."""
from __future__ import annotations

import functools
import inspect
import threading
import unicodedata

import numpy as np

from .pipeline import compile_gradient
from .controls import active_overrides, validate
from .runtime.loader import load
from .locations import caller_loc

_cache = {}
_lock = threading.RLock()


def grad(f=None, wrt=0, *, overrides=None):
    """The gradient of scalar-valued ``f`` with respect to argument(s) ``wrt``.

    ``wrt`` is a position, a name, or a tuple of them (then the gradient is a
    tuple). Works as ``grad(f)``, ``@grad`` and ``@grad(wrt=...)``. The
    gradient takes the arguments ``f`` takes, defaults and keyword-only ones
    included.

    Each gradient has the shape of its argument and keeps its precision: a
    float32 array gives a float32 gradient; a NumPy scalar or 0-d array gives
    a 0-d result of its dtype (``np.ndim(g) == 0``); a Python float gives a
    float (possibly an ``np.float64``, which is one). Integer and boolean
    arguments may be passed, but not differentiated (NonFloatArgumentError).
    ``print``, ``logging`` and ``warnings.warn`` calls in ``f`` run in the
    gradient's forward pass, as in ``f``; nothing they read gets a gradient.
    """
    if f is None:
        return functools.partial(grad, wrt=wrt, overrides=overrides)
    return _compile(f, wrt, "grad", overrides)


def value_and_grad(f=None, wrt=0, *, overrides=None):
    """Like `grad`, but the function returns ``(value, gradient)``."""
    if f is None:
        return functools.partial(value_and_grad, wrt=wrt, overrides=overrides)
    return _compile(f, wrt, "value_and_grad", overrides)


def vjp(f=None, wrt=0, *, overrides=None):
    """``vjp(f)(*args, v)`` is ``(f(*args), v^T J)``: reverse mode with the
    cotangent ``v`` (shaped like the output) as the seed; any output shape."""
    if f is None:
        return functools.partial(vjp, wrt=wrt, overrides=overrides)
    return _compile(f, wrt, "vjp", overrides)


def jvp(f=None, wrt=0):
    """``jvp(f)(*args, *tangents)`` is ``(f(*args), J @ tangents)``: forward mode,
    one pass, one tangent per argument in ``wrt`` (shaped like it)."""
    if f is None:
        return functools.partial(jvp, wrt=wrt)
    return _compile(f, wrt, "jvp", None)


def jacobian(f=None, wrt=0, *, overrides=None):
    """``jacobian(f)(*args)``: the array of d output[i] / d input[j], shaped
    ``output.shape + input.shape`` (a tuple of them for a tuple ``wrt``; for
    a function returning a tuple, a tuple with one entry per output).

    One vector-Jacobian product per output entry; ``symdiff.source`` shows
    the generated product.
    """
    if f is None:
        return functools.partial(jacobian, wrt=wrt, overrides=overrides)
    pullback = vjp(f, wrt, overrides=overrides)
    many = isinstance(wrt, (tuple, list))
    wrts = list(wrt) if many else [wrt]

    def jacobian_fn(*args):
        with np.errstate(all="ignore"):  # only the output's shape is wanted here
            out = f(*args)
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
            block = tuple(_stack([r[j] for r in rows], shape, _arg(args, w, f))
                          for j, w in enumerate(wrts))
            blocks.append(block if many else block[0])
        return tuple(blocks) if several else blocks[0]

    jacobian_fn.__symdiff_source__ = source(pullback)
    jacobian_fn.__wrapped__ = f
    jacobian_fn.__name__ = "jacobian_" + getattr(f, "__name__", "f")
    return jacobian_fn


def hessian(f=None, wrt=0, *, overrides=None):
    """The Hessian of scalar ``f``: the Jacobian of its generated gradient,
    shaped ``x.shape + x.shape``; for a tuple ``wrt`` the blocks
    ``((H_aa, H_ab), (H_ba, H_bb))``. (symdiff differentiates its own code.)"""
    if f is None:
        return functools.partial(hessian, wrt=wrt, overrides=overrides)
    return jacobian(grad(f, wrt, overrides=overrides), wrt)


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


def source(df):
    """The generated source of a function made by symdiff."""
    text = getattr(df, "__symdiff_source__", None)
    if text is None:
        raise TypeError(f"{df!r} was not made by symdiff")
    return text


def _compile(f, wrt, mode, overrides):
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
           tuple(sorted(overrides.items())))
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit[2] is code and hit[3] is scope \
                and all(a is b for a, b in zip(hit[4], cells)) and _still_valid(hit):
            return hit[0]
        compiled = compile_gradient(f, wrt, mode, overrides)
        fn = load(compiled.source, compiled.name, compiled.origin, compiled.free,
                  compiled.np_alias)
        # The gradient takes f's arguments (vjp and jvp: and the seeds): say so
        # before __wrapped__, which inspect.signature would otherwise follow.
        fn.__signature__ = inspect.signature(fn)
        fn.__wrapped__ = f  # as functools.wraps has it; the CLI rebuilds from it
        fn.__wrapped_function__ = f  # the name before 0.2 (deprecated)
        fn.__symdiff_wrt__ = wrt
        fn.__symdiff_mode__ = mode
        fn.__symdiff_overrides__ = dict(overrides or {})
        _cache[key] = (fn, compiled, code, scope, cells)
        return fn


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
