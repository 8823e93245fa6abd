"""Changing how gradients flow: exact semantics, not numerics."""
import numpy as np
import pytest

import symdiff
from symdiff.errors import RegistrationError

X = np.array([-2.0, -1.0, 1.0])
NOISE = np.random.default_rng(7).uniform(0.9, 1.1, size=3)


# ---- the noisy-forward question ---------------------------------------------------
def noisy_sum(x):
    y = x ** 2
    z = symdiff.backward_as(np.sqrt(y * NOISE), np.sqrt(y))
    return np.sum(z)


def noisy_square(x):
    y = x ** 2
    z = symdiff.backward_as(np.sqrt(y * NOISE), np.sqrt(y))
    return np.sum(3 * z ** 2)


def noise_itself(x):
    y = x ** 2
    z = np.sqrt(y * symdiff.backward_as(NOISE, 1.0))
    return np.sum(3 * z ** 2)


def trick_at_the_end(x):
    y = x ** 2
    clean = np.sqrt(y)
    z = symdiff.stop_gradient(np.sqrt(y * NOISE) - clean) + clean
    return np.sum(3 * z ** 2)


def test_backward_as_gives_the_clean_gradient_exactly():
    np.testing.assert_array_equal(symdiff.grad(noisy_sum)(X), [-1.0, -1.0, 1.0])
    np.testing.assert_array_equal(symdiff.grad(noisy_square)(X), 6 * X)
    np.testing.assert_array_equal(symdiff.grad(noise_itself)(X), 6 * X)


def test_backward_as_keeps_the_noisy_value():
    value, grad = symdiff.value_and_grad(noisy_sum)(X)
    assert value == np.sum(np.sqrt(X ** 2 * NOISE))
    np.testing.assert_array_equal(grad, [-1.0, -1.0, 1.0])


def test_stop_gradient_trick_is_not_clean_mid_graph():
    # downstream derivatives still see the noisy value: 6 * z_noisy * sign(x)
    expected = 6 * np.sqrt(X ** 2 * NOISE) * np.sign(X)
    np.testing.assert_allclose(symdiff.grad(trick_at_the_end)(X), expected, rtol=1e-15)
    assert not np.allclose(expected, 6 * X)


def test_stop_gradient_everywhere():
    def f(x, a):
        def helper(v):
            return v * symdiff.stop_gradient(v)
        w = np.where(x > 0, symdiff.stop_gradient(x) * x, x)
        if a > 0:
            w = w + symdiff.stop_gradient(a * x)
        return np.sum(w + helper(x))

    x = np.array([-1.0, 2.0])
    gx = symdiff.grad(f)(x, 1.0)
    np.testing.assert_array_equal(gx, np.where(x > 0, x, 1.0) + x)


# ---- straight-through ---------------------------------------------------------------
def test_straight_through_estimator():
    def f(x):
        q = symdiff.straight_through(np.floor(x * 4) / 4, x)
        return np.sum(q ** 2)

    x = np.array([0.1, 0.6, -0.3])
    q = np.floor(x * 4) / 4
    np.testing.assert_array_equal(symdiff.grad(f)(x), 2 * q)


# ---- overrides -----------------------------------------------------------------------------
def quantise(x):
    return np.sum((np.floor(x * 4) / 4 - 0.3) ** 2)


def test_floor_override_identity_three_ways():
    x = np.array([0.1, 0.6])
    expected = 2 * (np.floor(x * 4) / 4 - 0.3)
    np.testing.assert_array_equal(symdiff.grad(quantise)(x), [0.0, 0.0])
    by_argument = symdiff.grad(quantise, overrides={"floor": "identity"})
    np.testing.assert_array_equal(by_argument(x), expected)
    with symdiff.gradient_override({"floor": "identity"}):
        around = symdiff.grad(quantise)
    np.testing.assert_array_equal(around(x), expected)
    assert "overridden by 'identity'" in symdiff.source(by_argument)


@symdiff.register_gradient("TimesFive")
def times_five(g, x):
    return 5 * g


def test_override_inside_a_with_block_affects_only_that_block():
    def f(x):
        with symdiff.gradient_override({"floor": "TimesFive"}):
            a = np.floor(x)
        b = np.floor(x)
        return np.sum(a + 2 * b + x)

    df = symdiff.grad(f)
    np.testing.assert_array_equal(df(np.array([0.1, 0.6])), [6.0, 6.0])
    assert "times_five" in symdiff.source(df)
    assert f(np.array([1.5])) == 1.0 + 2.0 + 1.5   # the forward is unchanged


def test_registering_twice_is_an_error_unless_replace():
    with pytest.raises(RegistrationError):
        symdiff.register_gradient("TimesFive")(lambda g, x: g)
    symdiff.register_gradient("TimesFive", replace=True)(times_five)


@pytest.mark.parametrize("mapping, closest", [({"flor": "identity"}, "floor"),
                                              ({"floor": "identiy"}, "identity"),
                                              ({"floor": "TimesFiv"}, "TimesFive")])
def test_misspelled_overrides_name_the_closest(mapping, closest):
    with pytest.raises(RegistrationError) as info:
        symdiff.grad(quantise, overrides=mapping)
    assert closest in str(info.value)


# ---- custom_gradient -------------------------------------------------------------------------
@symdiff.custom_gradient
def clip_grad(x):
    def backward(g):
        return np.clip(g, -1.0, 1.0)
    return x, backward


@symdiff.custom_gradient
def safe_sqrt(x):
    y = np.sqrt(x)

    def backward(g):
        return g * 0.5 / np.maximum(y, 1e-6)
    return y, backward


@symdiff.custom_gradient
def scaled_product(a, b):
    def backward(g):
        return 2.0 * g * b, None
    return a * b, backward


def test_clipped_gradient_used_twice():
    def f(x):
        return np.sum(clip_grad(x) * 3.0) + np.sum(clip_grad(x ** 2))

    x = np.array([0.1, 2.0])
    np.testing.assert_array_equal(symdiff.grad(f)(x), 1.0 + 2 * x)
    assert clip_grad(x) is x  # called normally, it is just the value


def test_custom_gradient_safe_at_zero():
    def f(x):
        return np.sum(safe_sqrt(x))

    grad = symdiff.grad(f)(np.array([0.0, 4.0]))
    np.testing.assert_array_equal(grad, [0.5e6, 0.25])


def test_custom_gradient_with_several_inputs():
    def f(a, b):
        return np.sum(scaled_product(a, b))

    a, b = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    ga, gb = symdiff.grad(f, wrt=(0, 1))(a, b)
    np.testing.assert_array_equal(ga, 2.0 * b)
    np.testing.assert_array_equal(gb, [0.0, 0.0])


# ---- backward_as and loops --------------------------------------------------------
def noisy_before_loop(x):
    y = symdiff.backward_as(x * NOISE, x)
    s = 0.0
    for i in range(3):
        s = s + np.sin(y) * (i + 1.0)
        y = y * 1.1
    return np.sum(s)


def clean_loop(x):
    y = x
    s = 0.0
    for i in range(3):
        s = s + np.sin(y) * (i + 1.0)
        y = y * 1.1
    return np.sum(s)


def noisy_inside_loop(x):
    s = 0.0
    for i in range(3):
        z = symdiff.backward_as(x * NOISE, x)
        s = s * 0.5 + np.sin(z) * (i + 1.0)
    return np.sum(s)


def clean_inside_loop(x):
    s = 0.0
    for i in range(3):
        s = s * 0.5 + np.sin(x) * (i + 1.0)
    return np.sum(s)


@pytest.mark.parametrize("noisy, clean", [(noisy_before_loop, clean_loop),
                                          (noisy_inside_loop, clean_inside_loop)],
                         ids=["before", "inside"])
def test_backward_as_flows_through_loops(noisy, clean):
    value, grad = symdiff.value_and_grad(noisy)(X)
    np.testing.assert_allclose(grad, symdiff.grad(clean)(X), rtol=1e-14)
    assert value == pytest.approx(noisy(X), rel=1e-15)  # the noisy value
    assert value != pytest.approx(clean(X))
