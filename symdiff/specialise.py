"""Gradients specialised for the arguments they are called with.

``symdiff.grad(f)`` compiles the generic gradient at once (errors are found
there, and ``symdiff.source(df)`` shows it), and returns a small dispatcher,
generated for ``f``'s parameters, that looks the arguments' shapes, dtypes
and Python types up in a table (as ``jax.jit`` and numba do, for the
signature of the call; the type of each argument too: a JAX or a Dask
array of the same shape and dtype as a NumPy one is another signature). A
miss computes the signature (`ArgSig`: the number
of axes, which of them have length one, the dtype; or which arguments are
Python floats), compiles a gradient for it, once per signature, and calls
it: its source has plain NumPy where the generic one calls helpers that
decide shapes at run time (``g.sum(axis=0)``, ``h.T @ g``).

The guard costs one dictionary look-up of a tuple of two attributes per
argument, about 0.1 µs per argument (benchmarks/README.md).
"""
from __future__ import annotations

import inspect
import linecache
import threading

from .ir.patterns import signature_of
from .log import logger
from .pipeline import compile_gradient
from .runtime.loader import load, source_file

_KINDS = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
          inspect.Parameter.KEYWORD_ONLY)
_MAX_KEYS = 512  # distinct shapes remembered per gradient (then the table starts again)


class Specialiser:
    """The gradients of one compiled function, by argument signature.
    ``compile_for(signature)`` returns the function for a signature (a dict
    of parameter name -> ArgSig), or None for the generic one."""

    def __init__(self, generic, compile_for):
        self.generic = generic
        self.compile_for = compile_for
        self.signature = inspect.signature(generic)
        self.names = list(self.signature.parameters)
        self.table = {}          # key of the call (shapes, dtypes, types) -> function
        self.by_signature = {}   # tuple of ArgSig -> function
        self.lock = threading.RLock()

    def bound(self, args, kwargs):
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return [bound.arguments[name] for name in self.names]

    def function_for(self, *args, **kwargs):
        """The gradient for arguments like these (compiled at the first call)."""
        values = self.bound(args, kwargs)
        sigs = signature_of(values)
        with self.lock:
            fn = self.by_signature.get(sigs)
            if fn is None:
                foreign = any(s.kind == "other" and hasattr(v, "shape") and hasattr(v, "dtype")
                              for s, v in zip(sigs, values))
                # another array library: the generic code, which works with any
                fn = None if foreign else self.compile_for(dict(zip(self.names, sigs)))
                fn = fn if fn is not None else self.generic
                self.by_signature[sigs] = fn
            return fn

    def __call__(self, *args, **kwargs):
        """The dispatcher's slow path: the function for these arguments,
        remembered under the key the dispatcher computes."""
        fn = self.function_for(*args, **kwargs)
        try:
            key = tuple(part for v in self.bound(args, kwargs)
                        for part in (getattr(v, "shape", None), getattr(v, "dtype", None),
                                     type(v)))
            with self.lock:
                if len(self.table) >= _MAX_KEYS:
                    self.table.clear()
                self.table[key] = fn
        except TypeError:  # an unhashable shape: not remembered
            pass
        return fn


def dispatcher(generic, compile_for):
    """A function with ``generic``'s parameters that calls the gradient
    specialised for its arguments; None when its parameters cannot be
    forwarded (``*args``, ``**kwargs``)."""
    spec = Specialiser(generic, compile_for)
    params = list(spec.signature.parameters.values())
    if any(p.kind not in _KINDS for p in params):
        return None
    names = [p.name for p in params]
    if not names:
        return None
    bare = spec.signature.replace(parameters=[
        p.replace(default=inspect.Parameter.empty, annotation=inspect.Parameter.empty)
        for p in params], return_annotation=inspect.Signature.empty)
    call = ", ".join(p.name if p.kind != inspect.Parameter.KEYWORD_ONLY
                     else f"{p.name}={p.name}" for p in params)
    key = ", ".join(
        f"_getattr({n}, 'shape', None), _getattr({n}, 'dtype', None), _type({n})"
        for n in names)
    name = generic.__name__
    source = (f"def {name}{bare}:\n"
              f"    # the gradient compiled for arguments of these shapes and types\n"
              f"    try:\n"
              f"        special = _table[{key}]\n"
              f"    except (KeyError, TypeError):\n"
              f"        special = _specialise({call})\n"
              f"    return special({call})\n")
    filename = source_file(f"{name}.dispatch", source)  # (tracebacks show its lines)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"_table": spec.table, "_specialise": spec, "_getattr": getattr,
                 "_type": type, "__name__": "symdiff.generated"}
    exec(compile(source, filename, "exec"), namespace)
    fn = namespace[name]
    fn.__defaults__ = generic.__defaults__
    fn.__kwdefaults__ = generic.__kwdefaults__
    fn.__doc__ = generic.__doc__
    fn.__qualname__ = generic.__qualname__
    fn.__signature__ = spec.signature
    fn.__symdiff_generic__ = generic
    fn.__symdiff_specialiser__ = spec
    return fn


def gradient_function(compiled, f, wrt, mode, overrides, target=None, checks=True):
    """The function ``symdiff.grad`` returns for the generic gradient
    ``compiled`` of ``target`` (default ``f``): a dispatcher to gradients
    specialised for the arguments, or the generic gradient itself where its
    parameters cannot be forwarded."""
    generic = load_gradient(compiled, f, wrt, mode, overrides)

    def compile_for(signature):
        numbers = mode == "grad" and checks and any(
            s.kind in ("float", "int") for s in signature.values())
        special = compile_gradient(target or f, wrt, mode, overrides, signature=signature,
                                   checks=checks, numbers=numbers)
        logger.debug("%s: specialised for %s in %.1f ms", special.name, signature,
                     sum(special.timer.times.values()) * 1e3)
        if special.numbers == "none":
            return load_gradient(special, f, wrt, mode, overrides)
        exact = compile_gradient(target or f, wrt, mode, overrides, signature=signature,
                                 checks=checks)
        if special.numbers == "unsafe":
            return load_gradient(exact, f, wrt, mode, overrides)
        return with_fallback(load_gradient(special, f, wrt, mode, overrides),
                             load_gradient(exact, f, wrt, mode, overrides))
    front = dispatcher(generic, compile_for)
    if front is None:
        return generic
    front.__symdiff_source__ = generic.__symdiff_source__
    return _label(front, f, wrt, mode, overrides)


def with_fallback(fast, exact):
    """``fast`` (NumPy's functions of Python numbers as `math`'s: a loop over
    floats computes in floats, not NumPy scalars), and ``exact`` where math
    raises (``math.log(0.0)``, ``1.0 / 0.0``, where NumPy gives -inf and
    inf): the same numbers up to rounding, and NumPy's where they differ."""
    params = inspect.signature(exact).parameters
    call = ", ".join(p if params[p].kind != inspect.Parameter.KEYWORD_ONLY else f"{p}={p}"
                     for p in params)
    name = exact.__name__
    source = (f"def {name}{inspect.signature(exact)}:\n"
              f"    try:\n"
              f"        return _with_math({call})\n"
              f"    except (ArithmeticError, ValueError):  # where NumPy gives inf or NaN\n"
              f"        return _with_numpy({call})\n")
    filename = source_file(f"{name}.numbers", source)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"_with_math": fast, "_with_numpy": exact, "__name__": "symdiff.generated"}
    exec(compile(source, filename, "exec"), namespace)
    fn = namespace[name]
    for attr in ("__wrapped__", "__wrapped_function__", "__symdiff_wrt__", "__symdiff_mode__",
                 "__symdiff_overrides__", "__doc__", "__qualname__", "__defaults__",
                 "__kwdefaults__"):
        if hasattr(exact, attr):
            setattr(fn, attr, getattr(exact, attr))
    fn.__signature__ = inspect.signature(exact)
    fn.__symdiff_source__ = fast.__symdiff_source__
    fn.__symdiff_exact__ = exact
    return fn


def load_gradient(compiled, f, wrt, mode, overrides):
    """The gradient ``compiled`` loaded, labelled as made from ``f``."""
    fn = load(compiled.source, compiled.name, compiled.origin, compiled.free,
              compiled.np_alias, compiled.modules, compiled.library)
    # The gradient takes f's arguments (vjp and jvp: and the seeds): say
    # so before __wrapped__, which inspect.signature would otherwise follow.
    fn.__signature__ = inspect.signature(fn)
    return _label(fn, f, wrt, mode, overrides)


def _label(fn, f, wrt, mode, overrides):
    fn.__wrapped__ = f  # as functools.wraps has it; the CLI rebuilds from it
    fn.__wrapped_function__ = f  # the name before 0.2 (deprecated)
    fn.__symdiff_wrt__ = wrt
    fn.__symdiff_mode__ = mode
    fn.__symdiff_overrides__ = dict(overrides or {})
    return fn


def specialised(df, *args, **kwargs):
    """The plain function ``df(*args, **kwargs)`` runs: the gradient
    specialised for arguments like these (compiled now if it was not), with
    no dispatch in front of it; what ``numba.njit`` can compile, for a
    gradient made with ``checks=False``."""
    function_for = getattr(df, "__symdiff_function_for__", None)  # containers.py
    if function_for is not None:
        return function_for(*args, **kwargs)
    specialiser = getattr(df, "__symdiff_specialiser__", None)
    if specialiser is None:
        if getattr(df, "__symdiff_source__", None) is None:
            raise TypeError(f"{df!r} was not made by symdiff")
        return df
    return specialiser.function_for(*args, **kwargs)
