"""check_grads: a function's derivatives against central differences, in every
mode symdiff has and to second order (as autograd's check_grads does).

For random directions ``u`` (one per differentiated argument) and random
cotangents, with ``D`` the central difference along ``u`` (in float64):

- forward:   jvp(f)(x, u)                  == D f(x)
- reverse:   <vjp(f)(x, v), u>              == <v, D f(x)>
- second order, of the scalar s(x) = sum(c * f(x)):
  forward over reverse: jvp(grad(s))(x, u) == D grad(s)(x)
  reverse over reverse: <vjp(grad(s))(x, w), u> == <w, D grad(s)(x)>

Every comparison is of finite numbers: a NaN or inf on either side fails.
"""
import numpy as np

import symdiff

STEP = 1e-6


def check_grads(f, args, wrt=None, order=2, seed=0, rtol=1e-6, atol=1e-7, reference=None,
                forward=True):
    """Check ``f(*args)``'s derivatives in the arguments ``wrt`` (positions;
    default: every floating-point argument). Raises AssertionError.

    ``reference``: a function whose ordinary derivative at ``args`` is the one
    ``f`` is meant to have (for stop_gradient, overrides...). ``forward=False``:
    forward mode is refused, with a located error (custom gradients).
    """
    rng = np.random.default_rng(seed)
    wrt = tuple(i for i, a in enumerate(args) if _is_float(a)) if wrt is None else tuple(wrt)
    out = _value(f, args)
    directions = [_like(rng, args[i]) for i in wrt]
    expected = _difference(lambda *a: _value(reference or f, a), args, wrt, directions)

    if forward:
        _, tangent = symdiff.jvp(f, wrt=wrt)(*args, *directions)
        _close(tangent, expected, rtol, atol, "forward (jvp)")
    else:
        try:
            symdiff.jvp(f, wrt=wrt)
        except symdiff.SymdiffError as error:
            assert error.lineno is not None and error.hint, error
        else:
            raise AssertionError("forward mode was expected to be refused")

    cotangent = rng.normal(size=np.shape(out))
    _, grads = symdiff.vjp(f, wrt=wrt)(*args, cotangent if np.ndim(out) else float(cotangent))
    _close(_pair(grads, directions), np.sum(cotangent * expected), rtol, atol, "reverse (vjp)")
    if order < 2:
        return
    weights = rng.normal(size=np.shape(out))
    scalar = _scalarized(f, len(args), weights)
    gradient = symdiff.grad(scalar, wrt=wrt)
    expected = _difference(lambda *a: np.concatenate([np.ravel(g) for g in gradient(*a)]),
                           args, wrt, directions)
    _, hvp = symdiff.jvp(gradient, wrt=wrt)(*args, *directions)
    _close(np.concatenate([np.ravel(h) for h in hvp]), expected, rtol, atol,
           "forward over reverse (jvp of grad)")
    ws = tuple(_like(rng, args[i]) for i in wrt)
    _, back = symdiff.vjp(gradient, wrt=wrt)(*args, ws)
    flat_ws = np.concatenate([np.ravel(w) for w in ws])
    _close(_pair(back, directions), np.sum(flat_ws * expected), rtol, atol,
           "reverse over reverse (vjp of grad)")


def _scalarized(f, arity, weights):
    """``sum(weights * f(...))`` as a function symdiff can read (explicit
    parameters: it does not take ``*args``)."""
    if arity == 1:
        return lambda a: np.sum(weights * f(a))
    if arity == 2:
        return lambda a, b: np.sum(weights * f(a, b))
    if arity == 3:
        return lambda a, b, c: np.sum(weights * f(a, b, c))
    if arity == 4:
        return lambda a, b, c, d: np.sum(weights * f(a, b, c, d))
    raise ValueError(f"no scalarization for {arity} arguments")


def _value(f, args):
    return np.asarray(f(*args), dtype=float)


def _difference(f, args, wrt, directions):
    def at(sign):
        moved = list(args)
        for i, u in zip(wrt, directions):
            moved[i] = args[i] + sign * STEP * u
            if isinstance(args[i], float):
                moved[i] = float(moved[i])
        return np.asarray(f(*moved), dtype=float)
    return (at(1) - at(-1)) / (2 * STEP)


def _pair(grads, directions):
    grads = grads if isinstance(grads, tuple) else (grads,)
    return sum(np.sum(np.asarray(g, dtype=float) * u) for g, u in zip(grads, directions))


def _like(rng, arg):
    return float(rng.normal()) if isinstance(arg, float) else rng.normal(size=np.shape(arg))


def _is_float(arg):
    return isinstance(arg, float) or getattr(getattr(arg, "dtype", None), "kind", "") == "f"


def _close(got, expected, rtol, atol, what):
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    assert got.shape == expected.shape or got.size == expected.size == 1, \
        f"{what}: shape {got.shape}, expected {expected.shape}"
    assert np.all(np.isfinite(got)) and np.all(np.isfinite(expected)), \
        f"{what}: not finite: {got} vs {expected}"
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    error = float(np.max(np.abs(got - expected.reshape(got.shape)), initial=0.0))
    assert error <= atol + rtol * scale, \
        f"{what}: max error {error:.3g} (scale {scale:.3g})\ngot {got}\nexpected {expected}"
