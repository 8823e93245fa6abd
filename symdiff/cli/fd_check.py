"""``symdiff FILE.py::FUNC --check``: a written gradient against finite differences.

The module text that would be written is executed, and its ``grad_FUNC`` and
``value_and_grad_FUNC`` are compared, on random inputs of the shapes given,
with central differences of the user's own function.
"""
from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass

import numpy as np

from ..errors import CommandLineError, SymdiffError

STEP = 1e-6


@dataclass
class CheckResult:
    name: str           # of the user's function
    shapes: dict        # argument -> shape, () for a scalar
    errors: dict        # label ("d/dx", "value") -> max error
    tol: float

    @property
    def passed(self):
        return all(err <= self.tol for err in self.errors.values())


def parse_shapes(items):
    """``["x=3,4", "w=4", "s="]`` -> ``{"x": (3, 4), "w": (4,), "s": ()}``."""
    shapes = {}
    for item in items or ():
        name, sep, dims = item.partition("=")
        try:
            shape = tuple(int(d) for d in dims.split(",")) if dims.strip() else ()
        except ValueError:
            shape = None
        if not sep or not name.isidentifier() or shape is None or min(shape, default=1) < 0:
            raise CommandLineError(f"--shapes: cannot read {item!r}",
                                   hint="write NAME=DIMS, e.g. x=3,4 w=4 (x= for a scalar)")
        shapes[name] = shape
    return shapes


def run_check(text, compiled, target, user, shapes, tol=1e-5, seed=0):
    """Check the module ``text`` for ``target``; `compiled` is its grad `Compiled`."""
    namespace = _execute(text, user)
    fn = inspect.unwrap(target.fn)
    params = _params(fn, shapes, target.name)
    args = _random_args(params, shapes, seed)
    wrt = compiled.wrt_names
    many = isinstance(wrt, tuple)
    grads = _call(namespace[compiled.name], args, "the generated gradient")
    value, vg_grads = _call(namespace["value_and_" + compiled.name], args,
                            "the generated value-and-gradient")
    errors = {}
    for i, name in enumerate(wrt if many else (wrt,)):
        got, got_vg = (grads[i], vg_grads[i]) if many else (grads, vg_grads)
        expected = _numeric(fn, args, params.index(name))
        errors[f"d/d{name}"] = max(_error(got, expected), _error(got_vg, expected))
    errors["value"] = _error(value, _call(fn, args, target.name))
    return CheckResult(target.name, {p: shapes.get(p) for p in params if p in shapes},
                       errors, tol)


def _execute(text, user):
    sys.modules.setdefault(user.import_name, user.module)
    namespace = {"__name__": "symdiff_check"}
    exec(compile(text, "<symdiff check>", "exec"), namespace)
    return namespace


def _params(fn, shapes, name):
    params, missing = [], []
    for p in inspect.signature(fn).parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            continue
        if p.name in shapes:
            params.append(p.name)
        elif p.default is p.empty:
            missing.append(p.name)
        else:
            break  # this and later arguments keep their defaults
    extra = sorted(set(shapes) - set(params))
    if missing or extra:
        what = f"no shape for {', '.join(missing)}" if missing else \
            f"{name} has no argument {', '.join(extra)} (or it follows a default)"
        raise CommandLineError(f"--shapes: {what}",
                               hint=f"give a shape for each argument of {name}, e.g. "
                                    f"--shapes {' '.join(n + '=3' for n in params + missing)}")
    return params


def _random_args(params, shapes, seed):
    rng = np.random.default_rng(seed)
    return [float(rng.normal()) if shapes[p] == () else rng.normal(size=shapes[p])
            for p in params]


def _call(fn, args, what):
    try:
        with np.errstate(all="ignore"):
            return fn(*args)
    except SymdiffError:
        raise  # a check of the generated code: it says where, and how to fix it
    except Exception as exc:  # the user's code
        hint = None if "hint:" in str(exc) else "check that --shapes fit the function"
        raise CommandLineError(f"--check: {what} failed on random inputs: "
                               f"{type(exc).__name__}: {exc}", hint=hint) from None


def _numeric(fn, args, index):
    """d fn / d args[index] by central differences, entry by entry."""
    x = np.asarray(args[index], dtype=float)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = STEP * max(1.0, abs(x[i]))
        hi, lo = list(args), list(args)
        hi[index], lo[index] = x + step, x - step
        if np.ndim(args[index]) == 0:
            hi[index], lo[index] = float(hi[index]), float(lo[index])
        diff = _call(fn, hi, "the function") - _call(fn, lo, "the function")
        grad[i] = diff / (2 * step[i])
    return grad


def _error(got, expected):
    """Max difference, relative to the size of ``expected`` where that exceeds 1."""
    got = np.asarray(got, dtype=float)
    expected = np.asarray(expected, dtype=float)
    if got.shape != expected.shape:
        return float("inf")
    if got.size == 0:
        return 0.0
    diff = np.abs(got - expected)
    if not np.all(np.isfinite(diff)):
        return float("inf")
    return float(np.max(diff) / max(1.0, float(np.max(np.abs(expected)))))
