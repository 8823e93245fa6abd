"""Gradients of the same case functions by autograd, JAX and PyTorch, when installed.

The case functions call NumPy through the global name `np`; each framework
gets a copy of the function whose `np` is that framework's NumPy (autograd's
`autograd.numpy`, `jax.numpy`, or a small NumPy-like shim over torch). None of
them is a dependency: `available()` lists the ones that import, and a case a
framework cannot run is reported with a short reason instead of a ratio.
"""
from __future__ import annotations

import importlib.util
import types

import numpy as np

NAMES = ("autograd", "jax", "torch")


def available():
    return [n for n in NAMES if importlib.util.find_spec(n) is not None]


def _rebind(fn, np_like):
    g = dict(fn.__globals__)
    g["np"] = np_like
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


def _split(case):
    return case.wrt_positions, isinstance(case.wrt, tuple)


def make(name, case, args):
    """A function of the case's arguments returning the gradient(s), like `case.hand`."""
    return {"autograd": _autograd, "jax": _jax, "torch": _torch}[name](case, args)


def _autograd(case, args):
    import autograd
    import autograd.numpy as anp
    f = _rebind(case.fn, anp)
    pos, many = _split(case)

    def grad_fn(*call_args):
        def of(ws):
            full = list(call_args)
            for p, w in zip(pos, ws):
                full[p] = w
            return f(*full)
        g = autograd.grad(of)(tuple(call_args[p] for p in pos))
        return tuple(g) if many else g[0]
    return grad_fn


def _jax(case, args):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    f = _rebind(case.fn, jnp)
    pos, many = _split(case)
    g = jax.jit(jax.grad(f, argnums=pos if many else pos[0]))

    def grad_fn(*call_args):
        out = jax.block_until_ready(g(*call_args))
        return tuple(np.asarray(o) for o in out) if many else np.asarray(out)
    return grad_fn


class _TorchNumPy:
    """Just enough of NumPy's spelling, over torch, for the functions in cases.py."""

    def __init__(self, torch):
        self.t = torch

    def _a(self, x):
        return x if self.t.is_tensor(x) else self.t.as_tensor(x, dtype=self.t.float64)

    def sum(self, x, axis=None, keepdims=False):
        return self.t.sum(x) if axis is None else self.t.sum(x, dim=axis, keepdim=keepdims)

    def mean(self, x, axis=None, keepdims=False):
        return self.t.mean(x) if axis is None else self.t.mean(x, dim=axis, keepdim=keepdims)

    def max(self, x, axis=None, keepdims=False):
        return self.t.amax(x) if axis is None else self.t.amax(x, dim=axis, keepdim=keepdims)

    def where(self, c, a, b):
        return self.t.where(c, self._a(a), self._a(b))

    def logaddexp(self, a, b):
        return self.t.logaddexp(self._a(a), self._a(b))

    def zeros(self, shape):
        return self.t.zeros(shape, dtype=self.t.float64)

    def __getattr__(self, name):
        fn = getattr(self.t, {"arctan": "atan"}.get(name, name))
        return lambda x: fn(self._a(x))


def _torch(case, args):
    import torch
    torch.set_num_threads(1)
    f = _rebind(case.fn, _TorchNumPy(torch))
    pos, many = _split(case)

    def grad_fn(*call_args):
        full = [torch.as_tensor(a, dtype=torch.float64) if not isinstance(a, int) else a
                for a in call_args]
        for p in pos:
            full[p] = full[p].clone().requires_grad_(True)
        out = torch.autograd.grad(f(*full), [full[p] for p in pos])
        out = tuple(o.numpy() for o in out)
        return out if many else out[0]
    return grad_fn
