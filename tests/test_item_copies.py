"""An integer per axis of a NumPy array picks a number, a copy.

``t = y[j]; y[j] = y[j + 1]; y[j + 1] = t`` (a swap, bubble sort) was
refused as a read of a view the write changed; for a vector ``y``, NumPy's
``t`` is a NumPy scalar that keeps its value. The arguments' signature says
so (the gradient is compiled where it is called); a row of a matrix is a
view, which the write changes, and is still refused.
"""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from numeric import numeric_grad
from symdiff.errors import InPlaceWriteError

WEIGHTS = np.array([1.0, -2.0, 0.5, 3.0, 1.5])


def swapped(x):
    y = x ** 2
    j = 1
    t = y[j]; y[j] = y[j + 1]; y[j + 1] = t  # noqa: E702
    return np.sum(y * WEIGHTS)


def bubble_sorted(x):
    y = np.sin(x)
    n = y.shape[0]
    for i in range(n):
        for j in range(n - 1 - i):
            if y[j] > y[j + 1]:
                t = y[j]
                y[j] = y[j + 1]
                y[j + 1] = t
    return np.sum(y * WEIGHTS) + y[0] * y[-1]


def swapped_in_a_matrix(m):
    b = m * m
    t = b[0, 1]
    b[0, 1] = b[1, 0]
    b[1, 0] = t
    return np.sum(b * np.arange(4.0).reshape(2, 2)) + b[0, 1] * b[1, 0]


def added_after_an_item_read(x):
    a = x * 2.0
    y = a[0]
    a += 1.0  # NumPy's y keeps its value: a number
    return np.sum(y * a) + y ** 2


X = np.array([0.3, 1.4, -0.2, 2.0, 0.9])
TIES = np.array([0.5, 0.5, 1.0, 0.2, 1.0])  # (np.sin: ties stay ties)


@pytest.mark.parametrize("f, x", [(swapped, X), (bubble_sorted, X),
                                  (added_after_an_item_read, X), (swapped, TIES),
                                  (added_after_an_item_read, TIES)])
def test_an_item_of_a_vector_keeps_its_value_after_a_write(f, x):
    np.testing.assert_allclose(symdiff.value_and_grad(f)(x.copy())[0], f(x.copy()))
    np.testing.assert_allclose(symdiff.grad(f)(x.copy()), numeric_grad(f, [x.copy()], wrt=0),
                               rtol=1e-6, atol=1e-7)
    check_grads(f, (x.copy(),))
    u, step, grad = np.linspace(-1.0, 1.0, 5), 1e-6, symdiff.grad(f)
    expected = (grad(x + step * u) - grad(x - step * u)) / (2 * step)
    np.testing.assert_allclose(symdiff.hessian(f)(x.copy()) @ u, expected, rtol=1e-5,
                               atol=1e-6)


def sorted_by_numpy(x):
    s = np.sort(np.sin(x))
    return np.sum(s * WEIGHTS) + s[0] * s[-1]


@pytest.mark.parametrize("x", [X, TIES], ids=["ordinary", "ties"])
def test_the_sorted_values_and_their_gradient_are_numpy_s(x):
    """Bubble sort puts sin(x) in order, a tie left as it is (np.argsort's
    stable order): the gradient is each sorted position's weight, there too."""
    order = np.argsort(np.sin(x), kind="stable")
    s = np.sin(x)[order]
    expected = np.zeros(5)
    expected[order] = np.cos(x[order]) * (WEIGHTS + np.eye(5)[0] * s[-1] + np.eye(5)[-1] * s[0])
    np.testing.assert_allclose(bubble_sorted(x.copy()), sorted_by_numpy(x))
    np.testing.assert_allclose(symdiff.grad(bubble_sorted)(x.copy()), expected, rtol=1e-12)


def test_an_integer_per_axis_of_a_matrix_is_a_number_too():
    m = np.array([[0.5, -1.2], [2.0, 0.7]])
    check_grads(swapped_in_a_matrix, (m,))
    np.testing.assert_allclose(symdiff.grad(swapped_in_a_matrix)(m),
                               numeric_grad(swapped_in_a_matrix, [m], wrt=0), rtol=1e-6)


def row_swapped(a):
    b = a * 1.0
    t = b[0]  # a view of a row: b[0] = b[1] changes it
    b[0] = b[1]
    b[1] = t
    return np.sum(b * np.arange(6.0).reshape(3, 2))


def row_added_into(x):
    a = np.outer(x, x)
    y = a[0]
    a += 1.0
    return np.sum(y)


@pytest.mark.parametrize("f, arg", [(row_swapped, np.ones((3, 2))),
                                    (row_added_into, X),
                                    (swapped, np.ones((5, 2)))])
def test_a_row_of_a_matrix_is_a_view_and_still_refused(f, arg):
    with pytest.raises(InPlaceWriteError) as info:
        symdiff.grad(f)(arg)
    assert info.value.lineno is not None and info.value.source_line


def test_without_the_arguments_the_refusal_says_what_decides():
    with pytest.raises(InPlaceWriteError) as info:
        symdiff.show_ir(swapped)
    assert "its array's shape decides" in info.value.message
    assert "symdiff.source(df, x)" in info.value.hint
    assert "t = y[1]" in symdiff.source(symdiff.grad(swapped), X)
