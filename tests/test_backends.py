"""The array library of the inputs runs the gradient (docs/backends.md).

The canonical functions (golden_functions.py) on array-api-strict arrays
(the reference implementation, which rejects anything not in the standard),
Dask arrays (still lazy until .compute()), JAX arrays (eagerly and under
jax.jit), PyTorch tensors, and CuPy arrays where a GPU exists: the same
values as NumPy's gradients, in the inputs' library, dtype and device.
The test extra installs every library but CuPy.
"""
import subprocess
import sys

import array_api_strict as xs
import dask
import dask.array as da
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import symdiff
from golden_functions import GOLDEN, clip_norm, logistic, rosenbrock
from symdiff.errors import NonFloatArgumentError, UnsupportedBackendError


def _inputs():
    rng = np.random.default_rng(0)
    normal = rng.normal
    return {
        "piecewise": (normal(size=5), normal(size=5)),
        "rosenbrock": (normal(size=6),),
        "logistic": (normal(size=3), normal(size=(7, 3)), (rng.random(7) > 0.5) * 1.0, 0.1),
        "mlp": (normal(size=(4, 5)), normal(size=5), normal(size=(5, 3)), normal(size=3),
                normal(size=(6, 4)), np.eye(3)[rng.integers(0, 3, 6)]),
        "huber": (2 * normal(size=8),),
        "sqrt_where": (normal(size=8),),
        "clip_norm": (normal(size=4), normal(size=4)),
        "relu_layer": (normal(size=4), normal(size=(3, 4))),
        "uses_helper": (normal(size=5),),
        "scalar_expression": (0.3, 0.7, 1.1),
        "rnn": (0.5 * normal(size=(3, 3)), normal(size=(3, 2)), normal(size=3),
                normal(size=(4, 2)), normal(size=3)),
    }


INPUTS = _inputs()
STRICT = type(xs.asarray(0.0))  # array_api_strict's array class
NAMES = sorted(GOLDEN)


def _tuple(g):
    return g if isinstance(g, tuple) else (g,)


def _numpy_gradient(name):
    f, wrt = GOLDEN[name]
    return _tuple(symdiff.grad(f, wrt)(*INPUTS[name]))


def _run(name, convert, call=None):
    f, wrt = GOLDEN[name]
    args = tuple(convert(a) if isinstance(a, np.ndarray) else a for a in INPUTS[name])
    df = symdiff.grad(f, wrt)
    return args, _tuple((call or (lambda fn, *a: fn(*a)))(df, *args))


def _close(got, want):
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(np.asarray(g), w, rtol=0, atol=1e-10)


@pytest.fixture
def x64():
    """JAX in double precision, as NumPy computes (restored afterwards)."""
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", before)


# -- array-api-strict: nothing outside the standard ------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_array_api_strict(name):
    args, got = _run(name, xs.asarray)
    arrays = [a for a in args if isinstance(a, STRICT)]
    for g in got:
        if arrays:
            assert isinstance(g, STRICT) and g.dtype == xs.float64
            assert g.device == arrays[0].device
    _close([np.from_dlpack(g) if isinstance(g, STRICT) else g for g in got],
           _numpy_gradient(name))


# -- Dask: lazy and chunked ------------------------------------------------------------------
def _chunked(a):
    return da.from_array(a, chunks=tuple(max(1, n // 2) for n in a.shape))


@pytest.mark.parametrize("name", NAMES)
def test_dask_stays_lazy(name):
    with dask.config.set(scheduler="sync"):
        args, got = _run(name, _chunked)
        lazy = [g for g in got if isinstance(g, da.Array)]
        if any(isinstance(a, da.Array) for a in args) and name != "clip_norm":
            # (clip_norm's `if` on a reduction computes that one value, as f does)
            assert len(lazy) == len(got)
        for g in lazy:
            assert g.dtype == np.float64
        _close(dask.compute(*got), _numpy_gradient(name))


def test_dask_gradient_computes_nothing_before_compute():
    calls = []

    def counting(dsk, keys, **kwargs):
        calls.append(keys)
        return dask.get(dsk, keys, **kwargs)
    w, X, y, lam = INPUTS["logistic"]
    X = da.from_array(np.tile(X, (50, 1)), chunks=(70, 3))
    y = da.from_array(np.tile(y, 50), chunks=70)
    with dask.config.set(scheduler=counting):
        g = symdiff.grad(logistic)(w, X, y, lam)
        assert not calls
        assert isinstance(g, (da.Array, np.ndarray))
    want = symdiff.grad(logistic)(w, np.asarray(X), np.asarray(y), lam)
    np.testing.assert_allclose(np.asarray(g), want, atol=1e-12)


def _l2_logistic(w, X, y, lam):
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * lam * np.sum(w ** 2)


def _l2_poisson(w, X, y, lam):
    eta = X @ w
    return np.sum(np.exp(eta) - y * eta) + 0.5 * lam * np.sum(w ** 2)


@pytest.mark.parametrize("loss", [_l2_logistic, _l2_poisson])
def test_dask_hessian_is_lazy_and_a_newton_step_matches_numpy(loss):
    """symdiff.hessian differentiates generated code: read back for Dask
    arrays, its shape helpers (``_sum_to``, ``_matmul_adjoint_b``) are written
    out, and the rows are stacked by Dask (np.stack would compute them)."""
    calls = []

    def counting(dsk, keys, **kwargs):
        calls.append(keys)
        return dask.get(dsk, keys, **kwargs)
    rng = np.random.default_rng(1)
    X, w = rng.normal(size=(400, 4)) / 2, 0.1 * rng.normal(size=4)
    y = (rng.random(400) < 0.5) * 1.0 if loss is _l2_logistic else rng.poisson(1.0, 400) * 1.0
    Xd, yd = da.from_array(X, chunks=(100, 4)), da.from_array(y, chunks=100)
    with dask.config.set(scheduler=counting):
        H = symdiff.hessian(loss, wrt="w")(w, Xd, yd, 0.5)
        g = symdiff.grad(loss)(w, Xd, yd, 0.5)
        assert not calls and isinstance(H, da.Array) and H.shape == (4, 4)
        text = symdiff.source(symdiff.vjp(symdiff.grad(loss)), w, Xd, yd, 0.5, w)
        assert not [line for line in text.splitlines() if "_sum_to(" in line.split("#")[0]]
    want_H = symdiff.hessian(loss, wrt="w")(w, X, y, 0.5)
    got_H, got_g = dask.compute(H, g, scheduler="sync")
    np.testing.assert_allclose(got_H, want_H, rtol=0, atol=1e-10)
    np.testing.assert_allclose(np.linalg.solve(got_H, got_g),
                               np.linalg.solve(want_H, symdiff.grad(loss)(w, X, y, 0.5)),
                               rtol=0, atol=1e-10)


@pytest.mark.parametrize("convert", [torch.asarray, jnp.asarray], ids=["torch", "jax"])
def test_hessian_stays_in_the_inputs_library(convert, x64):
    rng = np.random.default_rng(2)
    X, y, w = rng.normal(size=(30, 3)), rng.poisson(1.0, 30) * 1.0, 0.1 * np.ones(3)
    got = symdiff.hessian(_l2_poisson, wrt="w")(*map(convert, (w, X, y)), 0.5)
    assert type(got) is type(convert(w))
    np.testing.assert_allclose(np.asarray(got), symdiff.hessian(_l2_poisson, wrt="w")(
        w, X, y, 0.5), rtol=0, atol=1e-10)


# -- JAX: eager and under jax.jit ------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_jax_eager(name, x64):
    args, got = _run(name, jnp.asarray)
    for g in got:
        if any(isinstance(a, jax.Array) for a in args):
            assert isinstance(g, jax.Array) and g.dtype == jnp.float64
    _close(got, _numpy_gradient(name))


def _jitted(fn, *args):
    static = tuple(i for i, a in enumerate(args) if not isinstance(a, jax.Array))
    return jax.jit(fn, static_argnums=static)(*args)


@pytest.mark.parametrize("name", [n for n in NAMES if n != "clip_norm"])
def test_jax_jit_of_the_gradient(name, x64):
    args, got = _run(name, jnp.asarray, call=_jitted)
    for g in got:
        assert isinstance(g, jax.Array)
    _close(got, _numpy_gradient(name))


def test_jax_jit_of_a_python_if_on_data_fails_as_jax_grad_does(x64):
    """clip_norm branches on the norm of its input: jax.jit cannot trace that,
    for symdiff's gradient or JAX's own (jax.lax.cond is JAX's way)."""
    v, w = map(jnp.asarray, INPUTS["clip_norm"])
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(symdiff.grad(clip_norm, ("v", "w")))(v, w)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(jax.grad(clip_norm, (0, 1)))(v, w)


def _ends(x):
    return x[0] * x[-1] + np.sum(x[1:-1] ** 2)


def test_jax_in_place_writes_are_at_updates(x64):
    x = jnp.asarray(INPUTS["rosenbrock"][0])
    text = symdiff.source(symdiff.grad(_ends), x)
    assert ".at[0]" in text and "x_bar[" not in text
    assert "`np` is jax.numpy" in " ".join(text.split())
    np.testing.assert_allclose(jax.jit(symdiff.grad(_ends))(x),
                               symdiff.grad(_ends)(np.asarray(x)), rtol=0, atol=1e-12)


def test_jax_slice_gradients_are_pads_and_selects_stay_selects(x64):
    """Under jax.jit a pad fuses into the sum that reads it, where writes into
    zeros are scatters (``.at[1:].add``); and XLA selects without a branch,
    so the NumPy trick for np.where is not used. NumPy's code is unchanged."""
    x = INPUTS["rosenbrock"][0]
    text = symdiff.source(symdiff.grad(rosenbrock), jnp.asarray(x))
    assert "_padded(" in text and ".at[" not in text and "x_bar[" not in text
    assert "_padded" not in symdiff.source(symdiff.grad(rosenbrock), x)
    f, wrt = GOLDEN["sqrt_where"]
    z = INPUTS["sqrt_where"][0]
    text = symdiff.source(symdiff.grad(f, wrt), jnp.asarray(z))
    assert "np.where(" in text and "np.logical_not" not in text
    assert "np.logical_not" in symdiff.source(symdiff.grad(f, wrt), z)
    for shape, index in [((7, 4), np.s_[2:, :-1]), ((3,), np.s_[5:]), ((4, 3), np.s_[1:3])]:
        g = np.arange(np.prod(shape), dtype=float).reshape(shape)[index]
        want = np.zeros(shape)
        want[index] = g
        got = symdiff.runtime.helpers._padded(jnp.asarray(g), jnp.zeros(shape), index)
        np.testing.assert_array_equal(np.asarray(got), want)


# -- PyTorch ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_torch(name):
    args, got = _run(name, torch.asarray)
    for g in got:
        if any(isinstance(a, torch.Tensor) for a in args):
            assert isinstance(g, torch.Tensor) and g.dtype == torch.float64
            assert g.device == args[0].device
    _close([g.numpy() if isinstance(g, torch.Tensor) else g for g in got],
           _numpy_gradient(name))


def test_arrays_made_by_the_gradient_are_on_the_inputs_device():
    """rnn's ``h = np.zeros(n)`` is made on the device of ``W`` (PyTorch's meta
    device stands in for a GPU: computing there checks devices, not values)."""
    f, wrt = GOLDEN["rnn"]
    args = [torch.asarray(a, device="meta") for a in INPUTS["rnn"]]
    df = symdiff.grad(f, wrt)
    assert "device=W.device" in symdiff.source(df, *args)
    for g, a in zip(df(*args), args):
        assert g.device == a.device and g.shape == a.shape


def test_float32_stays_float32():
    w, X, y, lam = (a.astype(np.float32) if isinstance(a, np.ndarray) else a
                    for a in INPUTS["logistic"])
    want = symdiff.grad(logistic)(w, X, y, lam)
    assert want.dtype == np.float32
    got = symdiff.grad(logistic)(*(torch.asarray(a) for a in (w, X, y)), lam)
    assert got.dtype == torch.float32
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
    got = symdiff.grad(logistic)(*(xs.asarray(a) for a in (w, X, y)), lam)
    assert got.dtype == xs.float32


# -- CuPy: where a GPU exists ----------------------------------------------------------------
def _gpu():
    try:
        import cupy
        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # not installed, or no CUDA device
        return None


@pytest.mark.skipif(_gpu() is None, reason="CuPy needs a CUDA GPU (the one skip allowed)")
@pytest.mark.parametrize("name", NAMES)
def test_cupy(name):
    cupy = _gpu()
    args, got = _run(name, cupy.asarray)
    for g in got:
        if any(isinstance(a, cupy.ndarray) for a in args):
            assert isinstance(g, cupy.ndarray) and g.device == args[0].device
    _close([cupy.asnumpy(g) for g in got], _numpy_gradient(name))


# -- refusals and checks ---------------------------------------------------------------------
def test_a_function_outside_the_standard_is_refused_naming_the_library():
    def repeated(x):
        return np.sum(x[np.array([0, 0, 1])] ** 2)  # a gradient added with np.add.at
    x = np.array([1.0, 2.0, 3.0])
    df = symdiff.grad(repeated)
    np.testing.assert_allclose(df(x), [4.0, 4.0, 0.0])
    with pytest.raises(UnsupportedBackendError, match="array-api-strict") as info:
        df(xs.asarray(x))
    assert "np.add.at" in str(info.value) and info.value.lineno is not None
    with pytest.raises(UnsupportedBackendError, match="PyTorch"):
        df(torch.asarray(x))


def test_another_library_called_through_is_refused():
    """scipy.special would pull a tensor into host memory as NumPy: refused."""
    import scipy.special

    def f(x):
        return np.sum(scipy.special.expit(x))
    with pytest.raises(UnsupportedBackendError, match="scipy.special"):
        symdiff.grad(f)(torch.asarray([1.5, 2.5]))


def test_arrays_of_two_libraries_are_refused():
    f, wrt = GOLDEN["piecewise"]
    x, w = INPUTS["piecewise"]
    with pytest.raises(UnsupportedBackendError, match="one array library"):
        symdiff.grad(f, wrt)(torch.asarray(x), xs.asarray(w))


def test_integer_tensors_are_refused_by_the_checks():
    f, wrt = GOLDEN["piecewise"]
    x = torch.asarray([1, 2, 3])
    with pytest.raises(NonFloatArgumentError, match="dtype int64"):
        symdiff.grad(f, wrt)(x, x * 1.0)


def test_same_shapes_in_another_library_are_another_signature(x64):
    x = INPUTS["rosenbrock"][0]
    df = symdiff.grad(rosenbrock)
    assert isinstance(df(x), np.ndarray)
    assert isinstance(df(jnp.asarray(x)), jax.Array)
    assert isinstance(df(x), np.ndarray)
    assert "jax.numpy" not in symdiff.source(df, x)


def test_numpy_users_import_no_other_library():
    code = ("import sys, numpy as np, symdiff\n"
            "from golden_functions import GOLDEN\n"
            "f, wrt = GOLDEN['mlp']\n"
            "a, b = np.ones((2, 2)), np.ones(2)\n"
            "symdiff.grad(f, wrt)(a, b, a, b, np.ones((3, 2)), np.ones((3, 2)))\n"
            "print(sorted(m for m in ('array_api_compat', 'dask', 'jax', 'torch', "
            "'array_api_strict', 'cupy', 'numba') if m in sys.modules))\n")
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=here, env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                              [os.path.dirname(here), here])))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
