"""Runtime helpers of generated code, against what they stand for."""
import numpy as np
import pytest

from symdiff.runtime.helpers import (_matmul_adjoint_a, _matmul_adjoint_a_sum, _matmul_adjoint_b,
                             _matmul_adjoint_b_sum)

RNG = np.random.default_rng(3)


def one_by_one(adjoint, parts, matrix, side):
    total = np.zeros_like(matrix)
    for g, other in parts:
        total += adjoint(g, matrix, other) if side == "a" else adjoint(g, other, matrix)
    return total


PARTS = {
    "vectors": lambda m, k: [(RNG.normal(size=m), RNG.normal(size=k)) for _ in range(5)],
    "matrices": lambda m, k: [(RNG.normal(size=(m, 2)), RNG.normal(size=(k, 2)))
                              for _ in range(3)],
    "mixed ranks": lambda m, k: [(RNG.normal(size=m), RNG.normal(size=k)),
                                 (RNG.normal(size=(m, 2)), RNG.normal(size=(k, 2)))],
    "many (stacked 128 at a time)": lambda m, k: [(RNG.normal(size=m), RNG.normal(size=k))
                                                  for _ in range(300)],
    "one": lambda m, k: [(RNG.normal(size=m), RNG.normal(size=k))],
    "none": lambda m, k: [],
}


@pytest.mark.parametrize("kind", PARTS)
def test_matmul_adjoint_a_sum_is_the_sum_of_the_adjoints(kind):
    W = RNG.normal(size=(4, 3))
    parts = PARTS[kind](4, 3)
    expected = one_by_one(_matmul_adjoint_a, parts, W, "a")
    np.testing.assert_allclose(_matmul_adjoint_a_sum(parts, W), expected, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("kind", PARTS)
def test_matmul_adjoint_b_sum_is_the_sum_of_the_adjoints(kind):
    W = RNG.normal(size=(4, 3))
    # a @ W with a of 4 columns gives g of 3: parts are (g, a)
    parts = [(g.T if np.ndim(g) == 2 else g, a.T if np.ndim(a) == 2 else a)
             for a, g in PARTS[kind](4, 3)]
    expected = one_by_one(_matmul_adjoint_b, parts, W, "b")
    np.testing.assert_allclose(_matmul_adjoint_b_sum(parts, W), expected, rtol=1e-13, atol=1e-14)


def test_matmul_adjoint_sums_keep_the_matrix_dtype():
    W = np.ones((2, 2), dtype=np.float32)
    parts = [(np.ones(2), np.ones(2))] * 3  # float64 factors, as += into W's zeros
    assert _matmul_adjoint_a_sum(parts, W).dtype == np.float32
    assert _matmul_adjoint_b_sum(parts, W).dtype == np.float32
    assert _matmul_adjoint_a_sum([], W).dtype == np.float32


@pytest.mark.parametrize("g", [0.7, np.float64(0.7), np.array(0.7), np.float32(0.7)])
def test_matmul_adjoints_of_a_dot_product_of_vectors(g):
    a, b = RNG.normal(size=3), RNG.normal(size=3)
    np.testing.assert_allclose(_matmul_adjoint_a(g, a, b), 0.7 * b, rtol=1e-6)
    np.testing.assert_allclose(_matmul_adjoint_b(g, a, b), 0.7 * a, rtol=1e-6)
    assert np.shape(_matmul_adjoint_a(g, a, b)) == (3,)


@pytest.mark.parametrize("kind", ["python floats", "numpy scalars", "many"])
def test_sums_over_a_loop_of_dot_products(kind):
    v = RNG.normal(size=4)  # the loop computes v @ h_t: parts are (g_t, h_t)
    count = 300 if kind == "many" else 6
    parts = [(float(RNG.normal()) if kind == "python floats" else np.float64(RNG.normal()),
              RNG.normal(size=4)) for _ in range(count)]
    expected = sum(g * h for g, h in parts)
    np.testing.assert_allclose(_matmul_adjoint_a_sum(parts, v), expected, rtol=1e-12)
    np.testing.assert_allclose(_matmul_adjoint_b_sum(parts, v), expected, rtol=1e-12)
