"""The same spellings differentiated by JAX (`jax.jit(jax.grad(f))`), autograd
and PyTorch (autograd on CPU tensors), when they are installed.

Each peer runs a copy of the spelling's own code whose global names are that
framework's: `np` is `jax.numpy`, `autograd.numpy` or a small NumPy-like shim
over torch, and so are `scipy` (`scipy.special.logsumexp`, `scipy.linalg`'s
triangular and Cholesky solves), a from-imported `logsumexp`, `math` and
`symdiff` (`stop_gradient`, `straight_through`, as each framework writes them).
What a framework cannot run is reported with the first line of its error.

Inputs are converted to the framework's own arrays once, outside the timing (a
user of that framework keeps them that way), and outputs stay its arrays; the
harness converts them to NumPy only to check them. None of these frameworks is
a dependency: `available()` lists the ones that import (see
requirements-peers.txt).
"""
from __future__ import annotations

import importlib.util
import inspect
import math
import os
import types

import numpy as np

from cases import positional, wrt_positions

NAMES = ("jax", "autograd", "torch")


def available():
    return [n for n in NAMES if importlib.util.find_spec(n) is not None]


def versions(names):
    from importlib.metadata import PackageNotFoundError, version
    out = {}
    for n in names:
        try:
            out[n] = version(n)
        except PackageNotFoundError:
            out[n] = "?"
    return out


class Port:
    """A framework's gradient of one spelling, ready to time."""

    def __init__(self, grad_fn, args, to_numpy, value):
        self.grad_fn = grad_fn        # called as grad_fn(*args), returns framework arrays
        self.args = args              # the spelling's arguments, as framework values
        self.to_numpy = to_numpy      # framework gradient(s) -> tuple of NumPy arrays
        self.value = value            # the ported function's value at args (a float)


def make(name, case, spelling, args):
    """Port `spelling` of `case` to framework `name` at the named arguments `args`."""
    if spelling.overrides:
        raise NotImplementedError("gradient override: no counterpart without a custom rule")
    return {"jax": _jax, "autograd": _autograd, "torch": _torch}[name](case, spelling, args)


def _rebind(fn, names):
    """fn with the given global names replaced (everything else as in its module)."""
    scope = dict(fn.__globals__)
    scope.update({k: v for k, v in names.items() if k in scope})
    return types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__,
                              fn.__closure__)


class _Namespace(types.SimpleNamespace):
    pass


def _math_like(np_like):
    """`math.sin` and friends as the framework's elementwise functions."""
    class MathLike:
        pi = math.pi

        def __getattr__(self, name):
            return getattr(np_like, {"atan": "arctan"}.get(name, name))
    return MathLike()


def _names(np_like, special, linalg, stop_gradient):
    return {
        "np": np_like, "numpy": np_like, "math": _math_like(np_like),
        "scipy": _Namespace(special=special, linalg=linalg),
        "logsumexp": special.logsumexp,
        "symdiff": _Namespace(
            stop_gradient=stop_gradient,
            straight_through=lambda fwd, bwd: bwd + stop_gradient(fwd - bwd)),
    }


# ---------------------------------------------------------------------- JAX
def _jax(case, spelling, args):
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import jax.scipy.linalg as jlinalg
    import jax.scipy.special as jspecial
    f = _rebind(spelling.fn, _names(jnp, jspecial, jlinalg, jax.lax.stop_gradient))
    pos = wrt_positions(spelling.fn, case.wrt)
    g = jax.jit(jax.grad(f, argnums=pos if case.many else pos[0]))
    call_args = tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a
                      for a in positional(spelling.fn, args))

    def grad_fn(*a):
        return jax.block_until_ready(g(*a))

    def to_numpy(out):
        return tuple(np.asarray(o) for o in out) if case.many else (np.asarray(out),)
    return Port(grad_fn, call_args, to_numpy, float(f(*call_args)))


# ----------------------------------------------------------------- autograd
def _autograd(case, spelling, args):
    import autograd
    import autograd.numpy as anp
    import autograd.scipy.linalg as alinalg
    import autograd.scipy.special as aspecial
    from autograd.tracer import getval   # the value without its trace: stop_gradient
    f = _rebind(spelling.fn, _names(anp, aspecial, alinalg, getval))
    pos = wrt_positions(spelling.fn, case.wrt)
    g = autograd.grad(f, pos if case.many else pos[0])
    call_args = positional(spelling.fn, args)

    def to_numpy(out):
        return tuple(np.asarray(o) for o in out) if case.many else (np.asarray(out),)
    return Port(g, call_args, to_numpy, float(f(*call_args)))


# -------------------------------------------------------------------- torch
class _TorchNumPy:
    """Just enough of NumPy's spelling, over torch, for the functions in cases/."""

    pi = math.pi

    def __init__(self, torch):
        self.t = torch
        self.linalg = _Namespace(cholesky=torch.linalg.cholesky, solve=torch.linalg.solve,
                                 slogdet=torch.linalg.slogdet)

    def _a(self, x):
        return x if self.t.is_tensor(x) else self.t.as_tensor(x, dtype=self.t.float64)

    def _reduce(self, fn, x, axis, keepdims):
        return fn(x) if axis is None else fn(x, dim=axis, keepdim=keepdims)

    def sum(self, x, axis=None, keepdims=False):
        return self._reduce(self.t.sum, x, axis, keepdims)

    def mean(self, x, axis=None, keepdims=False):
        return self._reduce(self.t.mean, x, axis, keepdims)

    def max(self, x, axis=None, keepdims=False):
        return self._reduce(self.t.amax, x, axis, keepdims)

    def where(self, c, a, b):
        return self.t.where(c, self._a(a), self._a(b))

    def logaddexp(self, a, b):
        return self.t.logaddexp(self._a(a), self._a(b))

    def minimum(self, a, b):
        return self.t.minimum(self._a(a), self._a(b))

    def maximum(self, a, b):
        return self.t.maximum(self._a(a), self._a(b))

    def clip(self, x, lo, hi):
        return self.t.clamp(x, lo, hi)

    def dot(self, a, b):
        return self.t.matmul(a, b)

    def einsum(self, spec, *operands):
        return self.t.einsum(spec, *operands)

    def zeros(self, shape):
        return self.t.zeros(shape, dtype=self.t.float64)

    def eye(self, n):
        return self.t.eye(n, dtype=self.t.float64)

    def __getattr__(self, name):
        fn = getattr(self.t, {"arctan": "atan"}.get(name, name))
        return lambda x: fn(self._a(x))


def _torch_special(torch):
    def logsumexp(x, axis=None, keepdims=False):
        dims = tuple(range(x.dim())) if axis is None else axis
        return torch.logsumexp(x, dim=dims, keepdim=keepdims)
    return _Namespace(logsumexp=logsumexp)


def _torch_linalg(torch):
    def solve_triangular(a, b, lower=False):
        return torch.linalg.solve_triangular(a, b[:, None], upper=not lower)[:, 0]

    def cho_factor(a, lower=False):
        return torch.linalg.cholesky(a, upper=not lower), lower

    def cho_solve(factor, b):
        c, lower = factor
        return torch.cholesky_solve(b[:, None], c, upper=not lower)[:, 0]
    return _Namespace(solve_triangular=solve_triangular, cho_factor=cho_factor,
                      cho_solve=cho_solve)


def _torch(case, spelling, args):
    import torch
    torch.set_num_threads(1)
    f = _rebind(spelling.fn, _names(_TorchNumPy(torch), _torch_special(torch),
                                    _torch_linalg(torch), lambda x: x.detach()))
    names = list(inspect.signature(spelling.fn).parameters)
    call_args = []
    for name, a in zip(names, positional(spelling.fn, args)):
        if isinstance(a, np.ndarray) or name in case.wrt:
            a = torch.as_tensor(a, dtype=torch.float64)
            if name in case.wrt:
                a = a.clone().requires_grad_(True)
        call_args.append(a)
    pos = wrt_positions(spelling.fn, case.wrt)

    def grad_fn(*a):
        return torch.autograd.grad(f(*a), [a[p] for p in pos])

    def to_numpy(out):
        return tuple(o.numpy() for o in out)
    with torch.no_grad():
        value = float(f(*call_args))
    return Port(grad_fn, tuple(call_args), to_numpy, value)
