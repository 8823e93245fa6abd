"""The public entry points: grad, value_and_grad, vjp, jvp, jacobian, hessian,
source and show_ir."""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Mapping, Optional, ParamSpec, Sequence, Union, overload

import numpy as np

from .controls import active_overrides, validate
from .ir.printer import format_function
from .locations import caller_loc
from .ir.trees import Leaf, is_container, leaves, paths, rebuild, structure
from .pipeline import STAGES, compile_gradient
from .ir.patterns import library_of, signature_of
from .runtime.namespaces import namespace
from .emit.backends import BACKENDS
from .gradient_cache import compile_cached as _compile
from .specialise import specialised  # noqa: F401 (public)

P = ParamSpec("P")

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

    def jacobian_fn(*args: Any, **kwargs: Any) -> Any:
        with np.errstate(all="ignore"):  # only the output's shape is wanted here
            out = fn(*args, **kwargs)
        args = _every_argument(fn, args, kwargs)  # (the pullback takes them all, in order)
        # outputs and arguments may be containers (a tuple, a dict...): one
        # block per leaf of the output and leaf of the argument, in their structures
        out_tree = structure(out) if is_container(out) else Leaf("float")
        outputs = leaves(out, out_tree)
        shapes = [np.shape(o) for o in outputs]
        like = tuple(_arg(args, w, fn) for w in wrts) if many else _arg(args, wrt, fn)
        like_tree = structure(like) if is_container(like) else Leaf("float")
        kinds = [leaf.kind for _, leaf in paths(like_tree)]
        likes = list(zip(leaves(like, like_tree), kinds))
        per_output = []
        for k, shape in enumerate(shapes):
            rows = []
            for index in np.ndindex(shape):
                seeds = [np.zeros(s) for s in shapes]
                seeds[k][index] = 1.0
                seeds = [_seed_like(s, o) for s, o in zip(seeds, outputs)]
                grads = pullback(*args, rebuild(out_tree, seeds))[1]
                rows.append(leaves(grads, like_tree))
            blocks = [_stack([r[j] for r in rows], shape, v) if kind == "float" else None
                      for j, (v, kind) in enumerate(likes)]
            per_output.append(rebuild(like_tree, blocks))
        return rebuild(out_tree, per_output)

    if getattr(pullback, "__symdiff_source__", None) is not None:  # (containers: once called)
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


def _seed_like(seed, output):
    """A NumPy seed as an array of ``output``'s library, dtype and device
    (a PyTorch tensor cannot meet a NumPy array)."""
    library = library_of(output)
    if library is None:
        return seed
    where = {"device": output.device} if BACKENDS[library].devices else {}
    return namespace(library).asarray(seed, dtype=output.dtype, **where)


def _stack(rows, out_shape, arg):
    """The rows of a Jacobian as one array, in their own library's: Dask's
    stay lazy, JAX's and PyTorch's stay on their device (never np.asarray)."""
    arg_shape = np.shape(arg)
    if not rows:
        return np.zeros(out_shape + arg_shape)
    library = next((found for found in map(library_of, rows) if found is not None), None)
    if library is not None:
        xp = namespace(library)
        return xp.reshape(xp.stack([xp.asarray(r) for r in rows]), out_shape + arg_shape)
    return np.reshape(np.stack([np.asarray(r, dtype=float) for r in rows]),
                      out_shape + arg_shape)


def _every_argument(f, args, kwargs):
    """``f``'s arguments in its signature's order, defaults filled in (a
    generated pullback takes every argument, then the cotangent)."""
    try:
        signature = inspect.signature(f)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return args
    bound.apply_defaults()
    found = []
    for name, p in signature.parameters.items():
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            found.extend(bound.arguments.get(name, ()))
        elif p.kind is inspect.Parameter.VAR_KEYWORD:
            if bound.arguments.get(name):
                return args  # (names beyond the signature: as given)
        else:
            found.append(bound.arguments[name])
    return tuple(found)


def _arg(args, wrt, f):
    """The argument ``wrt`` names (a position, a name, or a dotted path)."""
    if isinstance(wrt, int):
        return args[wrt]
    name, *steps = wrt.split(".")
    value = args[list(inspect.signature(f).parameters).index(name)]
    for step in steps:
        value = value[step] if isinstance(value, dict) else \
            value[int(step)] if isinstance(value, (list, tuple)) and step.isdigit() \
            else getattr(value, step)
    return value


def source(df: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """The generated source of a function made by symdiff: the generic one,
    or, given arguments, the one ``df(*args, **kwargs)`` runs: compiled for
    the structure of their containers (symdiff/containers.py) and specialised
    for arguments like them (their number of axes, which have length one,
    their dtypes, which are Python numbers: symdiff/specialise.py)."""
    if args or kwargs:
        specialise = getattr(df, "__symdiff_specialise__", None)
        if specialise is not None:
            return str(specialise(*args, **kwargs))
        specialiser = getattr(df, "__symdiff_specialiser__", None)
        if specialiser is not None:
            return str(specialiser.function_for(*args, **kwargs).__symdiff_source__)
    text = getattr(df, "__symdiff_source__", None)
    if text is None and getattr(df, "__symdiff_structure_source__", None) is not None:
        text = df.__symdiff_structure_source__()  # generic for the last structure seen
    if text is None:
        what = "compiled where it is called, for its arguments: pass them, " \
            "symdiff.source(df, *args)" if hasattr(df, "__symdiff_specialise__") \
            else "not made by symdiff"
        raise TypeError(f"{df!r} was {what}")
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
