"""Random draws inside a differentiated function are constants of the forward
pass: drawn once per call, where the function draws them, never merged, never
dropped, never drawn again by the reverse pass (also where a loop's branch
draws), and a draw whose parameters depend on a differentiated value is refused."""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from symdiff.errors import InPlaceWriteError, NoDerivativeRuleError, UnsupportedSyntaxError

X = np.array([0.5, -1.0, 2.0])
RNG = np.random.default_rng(7)  # a global generator


def two_draws(x):
    u = np.random.normal(size=3)
    v = np.random.normal(size=3)
    return np.sum(x * u) + np.sum(x * x * v)


def test_two_draws_are_two_draws_and_value_and_grad_shares_them():
    np.random.seed(3)
    value, g = symdiff.value_and_grad(two_draws)(X)
    np.random.seed(3)
    u, v = np.random.normal(size=3), np.random.normal(size=3)
    assert np.isclose(value, np.sum(X * u) + np.sum(X * X * v))
    assert np.allclose(g, u + 2 * X * v)
    np.random.seed(3)
    assert np.isclose(two_draws(X), value)


def draws_in_order(x, rng):
    a = rng.standard_normal()
    b = rng.standard_normal()
    rng.normal(size=5)  # read by nothing: it still moves the stream on
    c = rng.uniform(-1.0, 1.0, size=x.shape)
    return np.sum(x * (b - 2.0 * a)) + np.sum(c * x ** 2)


def test_a_generator_argument_draws_in_the_order_of_the_function():
    g = symdiff.grad(draws_in_order)(X, np.random.default_rng(5))
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(), rng.standard_normal()
    rng.normal(size=5)
    c = rng.uniform(-1.0, 1.0, size=3)
    assert np.allclose(g, (b - 2.0 * a) + 2 * c * X)
    assert "rng.normal(size=5)" in symdiff.source(symdiff.grad(draws_in_order))


def seeded(x):
    rng = np.random.default_rng(11)
    s = 0.0
    for i in range(4):
        u = rng.standard_normal(3)
        if i % 2 == 1:
            w = rng.normal(0.0, 2.0, size=3)
            s = s + np.sum(np.sin(x * w) * u)
        else:
            s = s + np.sum(x * x * u)
    return s


def test_draws_in_a_loop_and_in_its_branches_are_saved_not_drawn_again():
    check_grads(seeded, (X,))
    source = symdiff.source(symdiff.grad(seeded))
    assert source.count("rng.normal(") == 1 and source.count("rng.standard_normal(") == 1


def global_draw(x):
    return np.sum(x * RNG.standard_normal(3))


def test_a_global_generator():
    state = RNG.bit_generator.state
    g = symdiff.grad(global_draw)(X)
    RNG.bit_generator.state = state
    assert np.allclose(g, RNG.standard_normal(3))


def legacy(x):
    return np.sum(x * np.random.randn(3)) + np.sum(x * np.random.rand(3))


def test_legacy_functions_and_seeding_make_it_repeatable():
    np.random.seed(0)
    first = symdiff.grad(legacy)(X)
    np.random.seed(0)
    assert np.array_equal(symdiff.grad(legacy)(X), first)


def test_a_draw_with_a_differentiated_parameter_is_refused():
    def f(mu):
        rng = np.random.default_rng(0)
        return np.sum(rng.normal(mu, 1.0))
    with pytest.raises(NoDerivativeRuleError) as info:
        symdiff.grad(f)(X)
    assert "mu + sigma * rng.standard_normal" in info.value.hint
    assert info.value.lineno == f.__code__.co_firstlineno + 2


def test_the_reparameterized_draw_is_differentiated():
    def f(mu, sigma):
        rng = np.random.default_rng(0)
        return np.sum((mu + sigma * rng.standard_normal(3)) ** 2)
    check_grads(f, (X, np.array([0.5, 1.5, 1.0])))


def test_shuffle_in_place_is_refused_with_permutation_as_the_hint():
    def f(x, rng):
        rng.shuffle(x)
        return np.sum(x)
    with pytest.raises(InPlaceWriteError) as info:
        symdiff.grad(f)
    assert "rng.permutation(len(x))" in info.value.hint


def test_a_draw_in_a_nested_loop_is_refused_with_a_way_to_write_it():
    def f(x):
        rng = np.random.default_rng(0)
        s = 0.0
        for i in range(2):
            for j in range(2):
                s = s + np.sum(x * rng.normal(size=3))
            s = s * 0.5 + np.sum(x)
        return s
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(f)(X)
    assert "before the loops" in info.value.hint
