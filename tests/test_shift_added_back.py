"""A log-sum-exp with its max added back, ``m + log(sum(exp(a - m)))``, does
not change as ``m`` moves: ``m`` gets no gradient (no tie-splitting block),
in every common spelling, in the generic and the specialised source; a
function that does change with ``m`` keeps its gradient. Reference
derivatives: central differences, and scipy's softmax."""
import numpy as np
import pytest

import symdiff
from numeric import numeric_grad

A = np.random.default_rng(5).normal(size=(4, 3))
A[1, 2] = A[1, 0]  # a tie for the max of a row


def row_index(a):
    m = np.max(a, axis=1)
    return np.sum(m + np.log(np.sum(np.exp(a - m[:, None]), axis=1)))


def kept(a):
    m = np.max(a, axis=1, keepdims=True)
    return np.sum(m + np.log(np.sum(np.exp(a - m), axis=1, keepdims=True)))


def methods_added_last(a):
    m = a.max(axis=1)
    return np.sum(np.log(np.exp(a - m[:, None]).sum(axis=1)) + m)


def expanded(a):
    m = np.max(a, axis=1)
    return np.sum(np.log(np.sum(np.exp(a - np.expand_dims(m, 1)), axis=1)) + m)


def last_axis(a):  # (axis=-1: proved where the rank is known, the specialised source)
    m = np.max(a, axis=-1, keepdims=True)
    return -np.sum(a[:, :1] - (m + np.log(np.sum(np.exp(a - m), axis=-1, keepdims=True))))


def twice_the_shift(a):  # changes with m: its gradient stays
    m = np.max(a, axis=1)
    return np.sum(2.0 * m + np.log(np.sum(np.exp(a - m[:, None]), axis=1)))


@pytest.mark.parametrize("f", [row_index, kept, methods_added_last, expanded, last_axis])
def test_the_max_added_back_gets_no_gradient(f):
    df = symdiff.grad(f)
    sources = [symdiff.source(df, A)] + ([symdiff.source(df)] if f is not last_axis else [])
    for source in sources:
        assert "is_max" not in source and "_ties" not in source, source
    np.testing.assert_allclose(df(A), numeric_grad(f, (A,)), rtol=1e-6, atol=1e-8)


def test_the_gradient_is_the_softmax():
    softmax = np.exp(A) / np.sum(np.exp(A), axis=1, keepdims=True)
    np.testing.assert_allclose(symdiff.grad(row_index)(A), softmax, rtol=1e-13)


def test_a_function_that_changes_with_the_max_keeps_its_gradient():
    df = symdiff.grad(twice_the_shift)
    assert "is_max" in symdiff.source(df, A)
    b = A + np.array([[0.0, 0.0, 0.3]])  # (no ties: central differences hold)
    np.testing.assert_allclose(df(b), numeric_grad(twice_the_shift, (b,)), rtol=1e-6,
                               atol=1e-8)


def branch_reads_the_shifted(z, flag):
    m = np.max(z, axis=1)
    s = z - m[:, None]
    if flag:
        s = s * s  # not a shift of s: the max's gradient matters
    return np.sum(s)


def test_a_branch_that_reads_the_shifted_value_ends_the_proof():
    # the proof once skipped what an `if` read: m got no gradient, a wrong one
    z = np.array([[0.3, -1.2, 2.0], [1.0, 1.5, -0.5]])
    df = symdiff.grad(branch_reads_the_shifted)
    for flag in (True, False):
        expected = numeric_grad(lambda z: branch_reads_the_shifted(z, flag), (z,))
        np.testing.assert_allclose(df(z, flag), expected, rtol=1e-6, atol=1e-8)
