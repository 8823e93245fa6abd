"""The shape, ordering and statistics functions at their special points: ties
(shared evenly, the same for every spelling), zeros (cumprod exact to second
order), constant slices (std), NaN, dtypes, and the refusals users meet.
Each row of rows_shapes.py and rows_reductions.py is checked in every mode by
test_primitives.py; this file checks what central differences cannot."""
import inspect
import warnings

import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from numeric import numeric_grad
from symdiff.errors import InPlaceWriteError, NoDerivativeRuleError
from symdiff.runtime import helpers as runtime

RNG = np.random.default_rng(14)
TIED = np.array([0.5, -0.2, 0.5, 0.1, 0.5])  # three entries tie for the max
THIRDS = np.array([1, 0, 1, 0, 1]) / 3.0


# ---- ties: shared evenly, the same for every spelling ---------------------------------------
@pytest.mark.parametrize("spelling", [
    lambda x: np.max(x),
    lambda x: np.sort(x)[-1],
    lambda x: np.sort(x, axis=None)[4],
    lambda x: np.quantile(x, 1.0),
    lambda x: np.percentile(x, 100.0, method="lower"),
    lambda x: np.median(x[np.array([0, 2, 4, 1, 3])]),
], ids=["max", "sort", "sort-flat", "quantile", "percentile", "median"])
def test_tied_entries_share_the_gradient_evenly(spelling):
    assert np.allclose(symdiff.grad(spelling)(TIED), THIRDS, rtol=0, atol=1e-15)


def test_ties_of_sort_share_the_gradients_of_the_places_they_share():
    x = np.array([[0.3, 0.1], [0.3, 0.1], [-0.5, 0.1]])
    w = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    g = symdiff.grad(lambda x: np.sum(np.sort(x, axis=0) * w))(x)
    # column 0 sorts to (-0.5, 0.3, 0.3): the two 0.3s share 3 and 5; column 1 ties thrice
    assert np.allclose(g, [[4.0, 4.0], [4.0, 4.0], [1.0, 4.0]])


def test_ptp_at_ties_and_at_a_constant_slice():
    g = symdiff.grad(lambda x: np.sum(np.ptp(x, axis=1)))(np.array([TIED, np.full(5, 0.7)]))
    assert np.allclose(g[0], THIRDS - [0, 1, 0, 0, 0]) and np.all(g[1] == 0.0)


# ---- cumprod: exact where entries are zero, to the second order -----------------------------
def _cumprod_gradient(x, w):
    """d/dx of sum(w * cumprod(x)), by products of the other entries."""
    return np.array([sum(w[j] * np.prod(np.delete(x[:j + 1], i)) for j in range(i, len(x)))
                     for i in range(len(x))])


def _cumprod_hessian(x, w):
    n = len(x)
    return np.array([[0.0 if i == k else
                      sum(w[j] * np.prod(np.delete(x[:j + 1], [i, k]))
                          for j in range(max(i, k), n)) for k in range(n)] for i in range(n)])


@pytest.mark.parametrize("x", [[0.5, 0.0, -1.2, 0.7], [0.0, 0.0, 2.0, 1.5], [1.3, -0.4, 0.9, 0.0],
                               [0.0, 1.1, -0.8, 0.0], [0.0, 0.0, 0.0, 0.0], [1.2, 0.8, -1.1, 0.6]])
def test_cumprod_is_exact_at_zeros_to_the_second_order(x):
    x, w = np.array(x), np.array([0.7, -1.3, 0.4, 2.1])

    def loss(x):
        return np.sum(w * np.cumprod(x))
    assert np.allclose(symdiff.grad(loss)(x), _cumprod_gradient(x, w), rtol=1e-14, atol=0)
    assert np.allclose(symdiff.hessian(loss)(x), _cumprod_hessian(x, w), rtol=1e-14, atol=0)
    _, tangent = symdiff.jvp(lambda x: np.cumprod(x))(x, np.ones(4))
    expected = [sum(np.prod(np.delete(x[:j + 1], i)) for i in range(j + 1)) for j in range(4)]
    assert np.allclose(tangent, expected, rtol=1e-14, atol=0)


def _recurrence_by_loop(a, b):
    y = np.array(b, dtype=float)
    for i in range(1, len(y)):
        y[i] += a[i] * y[i - 1]
    return y


@pytest.mark.parametrize("a", [RNG.uniform(0.5, 1.5, 37), np.where(np.arange(37) % 5, 1.1, 0.0),
                               np.where(np.arange(37) % 2, 1e150, 1e-150), np.full(37, 1e-200)],
                         ids=["through products", "zeros", "wide range", "underflowing"])
def test_the_recurrence_is_the_loop_it_stands_for(a):
    b = RNG.normal(size=37)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fast = runtime._recurrence(a, b)
        back = runtime._recurrence(a, b, reverse=True)
    for got, expected in ((fast, _recurrence_by_loop(a, b)),
                          (back, _recurrence_by_loop(np.r_[0.0, a[:0:-1]], b[::-1])[::-1])):
        assert np.allclose(got, expected, rtol=1e-12, atol=1e-14 * np.max(np.abs(expected)))


# ---- std at a constant slice: the kink policy's 0 -------------------------------------------
@pytest.mark.parametrize("value, n", [(0.1, 3), (0.7, 7), (2.0, 4)])
def test_std_of_a_constant_slice_has_gradient_zero_in_every_mode(value, n):
    x = np.full((2, n), value)
    x[1] = np.linspace(-1.0, 1.3, n)

    def loss(x):
        return np.sum(np.std(x, axis=1, ddof=1))
    gradient = symdiff.grad(loss)(x)
    assert np.all(gradient[0] == 0.0) and np.all(gradient[1] != 0.0)
    _, tangent = symdiff.jvp(lambda x: np.std(x, axis=1))(x, RNG.normal(size=x.shape))
    assert tangent[0] == 0.0
    assert np.all(symdiff.grad(lambda x: np.std(x))(np.full(3, 0.1)) == 0.0)


def test_var_of_a_constant_slice_is_flat():
    assert np.allclose(symdiff.grad(lambda x: np.var(x))(np.full(3, 0.1)), 0.0, atol=1e-15)


# ---- NaN: left out by nansum and nanmean, never hidden elsewhere ----------------------------
def test_nan_entries_get_gradient_zero_from_nansum_and_nanmean():
    x = np.array([[0.3, np.nan, -0.8], [0.2, 0.4, 0.6]])
    assert np.array_equal(symdiff.grad(lambda x: np.nansum(x))(x), [[1, 0, 1], [1, 1, 1]])
    g = symdiff.grad(lambda x: np.sum(np.nanmean(x, axis=1)))(x)
    assert np.allclose(g, [[0.5, 0.0, 0.5], [1 / 3, 1 / 3, 1 / 3]])


def test_nan_entries_get_gradient_zero_from_nanmax_and_nanmin_and_ties_share():
    """np.nanmax / np.nanmin were refused ("no derivative rule"): the gradient
    goes to the extremum, shared by ties as np.max's, and is 0 at NaN entries
    (in forward mode too, whatever the tangent there); a slice of NaN only
    has a NaN extremum and NaN gradients, as np.max of a NaN."""
    x = np.array([[0.3, np.nan, -0.8], [0.2, 0.6, 0.6]])
    assert np.array_equal(symdiff.grad(lambda x: np.nanmax(x))(x), [[0, 0, 0], [0, 0.5, 0.5]])
    g = symdiff.grad(lambda x: np.sum(np.nanmin(x, axis=1) * np.array([2.0, 3.0])))(x)
    assert np.array_equal(g, [[0, 0, 2], [3, 0, 0]])
    assert np.array_equal(symdiff.grad(lambda x: np.sum(np.nanmax(x, axis=0)))(x),
                          [[1, 0, 0], [0, 1, 1]])
    _, dot = symdiff.jvp(lambda x: np.nanmax(x))(x, np.array([[1, np.nan, 1], [1, 4, 2.0]]))
    assert dot == 3.0
    only_nan = np.array([[np.nan, np.nan], [0.1, 0.2]])
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        g = symdiff.grad(lambda x: np.sum(np.nanmax(x, axis=1)))(only_nan)
    assert np.all(np.isnan(g[0])) and np.array_equal(g[1], [0, 1])


def test_a_running_maximum_s_gradient_goes_to_the_entries_it_took_its_values_from():
    """np.maximum.accumulate / np.minimum.accumulate were refused: each result
    entry's gradient goes to the entry it took its value from, shared by ties
    before it (np.max's policy); from a NaN on (which the running value keeps)
    it is NaN."""
    x = np.array([1.0, 3.0, 0.5, 3.0, 2.0, 4.0, 4.0, 1.0])
    w = np.arange(1.0, 9.0)
    g = symdiff.grad(lambda x: np.sum(np.maximum.accumulate(x) * w))(x)
    assert np.array_equal(g, [1, 2 + 3 + 4 / 2 + 5 / 2, 0, 4 / 2 + 5 / 2, 0, 6 + 7 / 2 + 8 / 2,
                              7 / 2 + 8 / 2, 0])
    _, dot = symdiff.jvp(lambda x: np.sum(np.maximum.accumulate(x) * w))(x, w)
    assert dot == pytest.approx(g @ w, rel=1e-15)
    m = np.array([[2.0, 1.0, 3.0], [1.0, 1.0, 0.5]])
    weights = np.array([[1.0, 1.0, 0.5], [2.0, 1.0, 3.0]])
    g = symdiff.grad(lambda m: np.sum(np.minimum.accumulate(m, axis=1) * weights))(m)
    assert np.array_equal(np.minimum.accumulate(m, axis=1), [[2, 1, 1], [1, 1, 0.5]])
    assert np.array_equal(g, [[1, 1 + 0.5, 0], [2 + 1 / 2, 1 / 2, 3]])
    g = symdiff.grad(lambda x: np.sum(np.maximum.accumulate(x)))(np.array([1.0, np.nan, 2.0]))
    assert g[0] == 1.0 and np.all(np.isnan(g[1:]))


def test_builtin_max_and_min_of_a_vector_are_python_s():
    """max(x) of a vector was refused ("only as max(a, b, ...)"): it is
    Python's: the largest entry, a later NaN passed over, a NaN first kept;
    ties share the gradient as np.max's. Of a matrix NumPy refuses to
    compare rows, and of a number Python raises: refused."""
    def f(x):
        return max(x) ** 2 + min(x * 2.0)

    x = np.array([0.3, 1.4, -0.2, 2.0, 0.9])
    np.testing.assert_allclose(symdiff.grad(f)(x), numeric_grad(f, [x], wrt=0), rtol=1e-7)
    check_grads(f, (x,))
    assert np.array_equal(symdiff.grad(lambda x: max(x))(np.array([1.0, 3.0, 3.0])), [0, 0.5, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for y in ([1.0, np.nan, 3.0], [np.nan, 1.0, 3.0], [2.0, 1.0, np.nan]):
            y = np.array(y)
            value, g = symdiff.value_and_grad(lambda x: max(x) + min(x))(y)
            assert np.array_equal(value, max(y) + min(y), equal_nan=True)
            if not np.isnan(y[0]):
                assert np.isfinite(g).all() and g[np.isnan(y)].sum() == 0.0
    for bad in (np.ones((2, 2)), 2.0):
        with pytest.raises(symdiff.errors.UnsupportedSyntaxError) as info:
            symdiff.grad(lambda x: max(x))(bad)
        assert "vector" in info.value.message and "np.max(x)" in info.value.hint


def test_nan_in_a_slice_makes_its_median_and_std_gradient_nan():
    x = np.array([[0.3, np.nan, -0.8], [0.2, 0.4, 0.6]])
    for loss in (lambda x: np.sum(np.median(x, axis=1)), lambda x: np.sum(np.std(x, axis=1))):
        g = symdiff.grad(loss)(x)
        assert np.all(np.isnan(g[0])) and np.all(np.isfinite(g[1]))


def test_select_keeps_where_s_guarantee_no_nan_from_a_choice_not_taken():
    x = np.array([-1.0, 0.0, 0.25, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = symdiff.grad(lambda x: np.sum(np.select([x > 1, x > 0], [np.log(x), np.sqrt(x)])))(x)
    assert np.allclose(g, [0.0, 0.0, 1.0, 0.25])


# ---- dtypes: the gradient has the argument's precision --------------------------------------
@pytest.mark.parametrize("function", [
    lambda x: np.cumprod(x), lambda x: np.sort(x, axis=0), lambda x: np.diff(x, axis=0),
    lambda x: np.var(x, axis=1), lambda x: np.std(x), lambda x: np.median(x, axis=0),
    lambda x: np.hstack([x, x]), lambda x: np.pad(x, 1, "reflect"), lambda x: np.tile(x, 2),
    lambda x: np.repeat(x, 2, axis=1), lambda x: np.roll(x, 1), lambda x: np.ptp(x, axis=0),
    lambda x: np.take(x, [0, 0, 2], axis=1), lambda x: np.nanmean(x),
    lambda x: x.astype(np.float64), lambda x: np.average(x, axis=1),
], ids=lambda f: inspect.getsource(f).split("lambda x: ")[-1].rstrip(",\n)]"))
def test_float32_in_float32_out(function):
    x = RNG.normal(size=(3, 3)).astype(np.float32)
    g = symdiff.grad(lambda x: np.sum(function(x)))(x)
    assert g.dtype == np.float32 and g.shape == x.shape


def test_a_cast_sends_the_gradient_back_in_the_input_s_precision():
    x = RNG.normal(size=3)
    g = symdiff.grad(lambda x: np.sum(x.astype(np.float32) ** 2))(x)
    assert g.dtype == np.float64 and np.allclose(g, 2 * x, rtol=1e-6)
    assert np.all(symdiff.grad(lambda x: np.sum(x.astype(int) * x))(x + 5.5) == np.floor(x + 5.5))


# ---- argument forms -------------------------------------------------------------------------
def test_split_unpacks_and_keeps_numpy_s_errors():
    def halves(x):
        a, b = np.split(x, 2)
        return np.sum(a * b)
    x = RNG.normal(size=4)
    assert np.allclose(symdiff.grad(halves)(x), np.r_[x[2:], x[:2]])
    with pytest.raises(ValueError, match="equal division"):
        symdiff.grad(halves)(RNG.normal(size=5))


def test_average_returns_what_numpy_returns():
    x, w = RNG.normal(size=(2, 3)), np.array([0.5, 1.0, 2.0])
    for form in (lambda x: np.average(x, axis=1, weights=w, returned=True),
                 lambda x: np.average(x, returned=True), lambda x: np.average(x, 0, w[:2])):
        got = symdiff.value_and_grad(lambda x: np.sum(np.hstack(form(x))))(x)[0]
        assert np.isclose(got, np.sum(np.hstack(form(x))))
    with pytest.raises(ValueError, match="Length of weights"):
        symdiff.grad(lambda x: np.average(x, axis=0, weights=w))(x)


# ---- refusals: located, with a hint ---------------------------------------------------------
def sorts_in_place(x):
    x.sort()
    return np.sum(x)


@pytest.mark.parametrize("function, error, words", [
    (sorts_in_place, InPlaceWriteError, "in place"),
    (lambda x: np.sum(np.pad(x, 1, mode="mean")), NoDerivativeRuleError, "mode='mean'"),
    (lambda x: np.quantile(x, 0.3, method="weibull"), NoDerivativeRuleError, "weibull"),
    (lambda x: np.quantile(x, x[0] ** 2), NoDerivativeRuleError, "respect to q"),
    (lambda x: np.sum(np.rollaxis(x[None], -1, 1) ** 2), NoDerivativeRuleError, "rank"),
    (lambda x: np.sum(np.take(x, [0, 9], mode="clip")), NoDerivativeRuleError, "clip"),
    (lambda x: np.sum(x.astype(np.complex128).real), symdiff.SymdiffError, ""),
    (lambda x: np.median(x, overwrite_input=True), NoDerivativeRuleError, "overwrite"),
])
def test_what_is_not_differentiated_is_refused_where_it_is_written(function, error, words):
    with pytest.raises(error) as info:
        symdiff.grad(function)(np.array([0.3, -0.1, 0.7]))
    assert info.value.lineno is not None and info.value.hint and words in info.value.message


# ---- the helpers: each the transpose of the NumPy function it undoes ------------------------
def _transposes(forward, adjoint, x):
    """<forward(x), g> == <x, adjoint(g)> for a random g."""
    g = RNG.normal(size=np.shape(forward(x)))
    assert np.isclose(np.sum(forward(x) * g), np.sum(x * adjoint(g)), rtol=1e-12)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_unpad_is_the_transpose_of_pad(mode):
    x = RNG.normal(size=(2, 3))
    for width in (1, (2, 5), ((0, 4), (3, 1))):
        _transposes(lambda x: np.pad(x, width, mode),
                    lambda g: runtime._unpad(g, x, width, mode), x)


def test_the_layout_helpers_are_transposes():
    x = RNG.normal(size=(3, 4))
    _transposes(lambda x: np.repeat(x, [2, 0, 1], axis=0),
                lambda g: runtime._unrepeat(g, x, [2, 0, 1], axis=0), x)
    _transposes(lambda x: np.repeat(x, 3), lambda g: runtime._unrepeat(g, x, 3), x)
    _transposes(lambda x: np.tile(x, (2, 1, 3)), lambda g: runtime._untile(g, x, (2, 1, 3)), x)
    _transposes(lambda x: np.array_split(x, 3, axis=1)[2],
                lambda g: runtime._unsplit(g, x, 2, 3, axis=1, how="array_split"), x)
    index = RNG.integers(0, 4, size=(3, 6))
    _transposes(lambda x: np.take_along_axis(x, index, axis=1),
                lambda g: runtime._untake_along_axis(g, x, index, axis=1), x)
    _transposes(lambda x: np.diagonal(x, -1), lambda g: runtime._undiagonal(g, x, -1), x)
    _transposes(lambda x: np.diag(x, 1), lambda g: runtime._undiag(g, x, 1), x)
    _transposes(lambda x: np.tril(x), lambda g: np.tril(g), x)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
def test_quantile_weights_give_numpy_s_quantile(method):
    x = RNG.normal(size=(4, 7))
    q = np.array([0.0, 0.15, 0.5, 0.8, 1.0])
    for axis in (None, 1, (0, 1)):
        weights = runtime._quantile_weights(x, q, axis, method)
        reduced = tuple(1 + i for i in runtime._axes(axis, 2))
        assert np.allclose(np.sum(weights * x, axis=reduced),
                           np.quantile(x, q, axis, method=method))
    g = RNG.normal(size=(5, 7))
    t = RNG.normal(size=x.shape)
    assert np.isclose(np.sum(runtime._quantile_tangent(t, x, q, axis=0, method=method) * g),
                      np.sum(t * runtime._quantile_adjoint(g, x, q, axis=0, method=method)))


@pytest.mark.parametrize("helper", ["_recurrence", "_tie_mean", "_unpad", "_unrepeat", "_untile",
                                    "_unsplit", "_untake_along_axis", "_undiag", "_undiagonal",
                                    "_weights_along", "_quantile_adjoint", "_quantile_tangent"])
def test_each_new_helper_stands_alone_in_a_written_module(helper):
    namespace = {"np": np}
    for name in runtime.uses(helper):
        exec(inspect.getsource(runtime.HELPERS[name]), namespace)
    assert set(runtime.uses(helper)) <= set(namespace)
