"""Compiling from several threads at once: safe, and one cached result.

Threads start together (a barrier) and the interpreter switches between them
as often as it can, so compiles really overlap.
"""
import logging
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import symdiff
from numeric import assert_grad

THREADS = 8
X = np.array([0.3, -0.7, 1.2])
log = logging.getLogger("symdiff.tests.concurrency")


@pytest.fixture(autouse=True)
def busy_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def together(jobs):
    """Run the callables in ``jobs`` on threads started at the same moment."""
    barrier = threading.Barrier(len(jobs))

    def run(job):
        barrier.wait()
        return job()
    with ThreadPoolExecutor(len(jobs)) as pool:
        return list(pool.map(run, jobs))


def shared(x):
    h = np.tanh(x * 2.0)
    for i in range(2):
        h = h * 0.5 + np.sin(h)
    return np.sum(np.where(h > 0, np.sqrt(np.abs(h)), h ** 2))


def test_the_same_function_from_many_threads_gives_one_object():
    symdiff.gradient_cache._cache.clear()
    results = together([lambda: symdiff.grad(shared)] * THREADS)
    assert all(r is results[0] for r in results)
    assert symdiff.grad(shared) is results[0]
    assert_grad(shared, results[0], (X,))


def _make(k):
    def f(x):
        return np.sum(np.sin(x * k) ** 2 + x ** k)
    f.__qualname__ = f"made_{k}"
    return f


def a(x):
    return np.sum(np.exp(x) * x)


def b(x, w):
    return np.sum(np.tanh(x @ w))


def c(x):
    print("c runs")
    log.info("c logs %s", x.shape)
    return np.sum(np.maximum(x, 0.0) ** 2)


def d(x):
    acc = 0.0
    for row in x:
        acc = acc + np.sum(row ** 3)
    return acc


def test_different_functions_from_many_threads(capsys):
    symdiff.gradient_cache._cache.clear()
    funcs = [a, b, c, d] * 2
    wrts = [0, (0, 1), 0, 0] * 2
    results = together([lambda f=f, w=w: symdiff.grad(f, wrt=w) for f, w in zip(funcs, wrts)])
    for f, w, r in zip(funcs, wrts, results):
        assert symdiff.grad(f, wrt=w) is r  # one cached result each
    assert results[0] is results[4] and results[2] is results[6]
    W = np.array([[0.5, -1.0], [1.5, 0.25], [-0.5, 2.0]])
    assert_grad(a, results[0], (X,))
    assert_grad(b, results[1], (X, W), (0, 1))
    assert_grad(c, results[2], (X,))
    assert_grad(d, results[3], (np.array([[0.5, 1.0], [-1.0, 2.0]]),))


def test_sources_do_not_depend_on_what_other_threads_compile():
    """Names reserved for one function's generated code (the `log` of a
    `log.info` call) must not leak into another's."""
    def uses_log_name(x):
        log = np.log(x * x + 1.0)
        return np.sum(log * x)
    symdiff.gradient_cache._cache.clear()
    alone = symdiff.source(symdiff.grad(uses_log_name))
    for _ in range(3):
        symdiff.gradient_cache._cache.clear()
        results = together([lambda: symdiff.grad(c), lambda: symdiff.grad(uses_log_name)]
                           * (THREADS // 2))
        assert symdiff.source(results[1]) == alone
    assert "log = " in alone


def test_closures_made_in_threads():
    symdiff.gradient_cache._cache.clear()
    funcs = [_make(k) for k in (2, 3, 4, 2)]
    results = together([lambda f=f: symdiff.grad(f) for f in funcs])
    for f, r in zip(funcs, results):
        assert_grad(f, r, (X,))


def test_overrides_in_one_thread_do_not_reach_another():
    def rounded(x):
        return np.sum(np.floor(x) * x)
    symdiff.gradient_cache._cache.clear()
    start = threading.Barrier(2)

    def with_override():
        with symdiff.gradient_override({"floor": "identity"}):
            start.wait()
            return symdiff.grad(rounded)

    def without():
        start.wait()
        return symdiff.grad(rounded)
    with ThreadPoolExecutor(2) as pool:
        over, plain = pool.submit(with_override), pool.submit(without)
        over, plain = over.result(), plain.result()
    np.testing.assert_allclose(plain(X), np.floor(X))
    np.testing.assert_allclose(over(X), np.floor(X) + X)


def test_calling_gradients_from_many_threads():
    df = symdiff.grad(shared)
    expected = df(X)
    inputs = [X + 0.01 * k for k in range(THREADS)]
    results = together([lambda v=v: df(v) for v in inputs])
    for v, r in zip(inputs, results):
        np.testing.assert_allclose(r, df(v))
    np.testing.assert_allclose(results[0], expected)
