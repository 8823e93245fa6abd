"""Rewrites that make generated gradients faster: each one must compute the
same values (special points included) and show in the generated code."""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from numeric import assert_grad


# ---- where(|x| <= c, x, c * sign(x)) is clip(x, -c, c) ---------------------------------
def huber(r):
    a = np.abs(r)
    return np.sum(np.where(a <= 1.0, 0.5 * r ** 2, a - 0.5))


def huber_mean_strict(r):
    a = np.abs(r)
    return np.mean(np.where(a < 2.0, 0.5 * r ** 2, 2.0 * (a - 1.0)))


def huber_flipped(r):
    a = np.abs(r)
    return np.sum(np.where(1.5 < a, 1.5 * (a - 0.75), 0.5 * r ** 2))


def not_huber(r):  # the outer branch's slope (1) is not the bound (2): no clip
    a = np.abs(r)
    return np.sum(np.where(a <= 2.0, 0.5 * r ** 2, a))


SPECIAL = np.array([-3.0, -2.0, -1.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0,
                    np.inf, -np.inf, np.nan])


def _where_reference(r, c, scale=1.0, strict=False):
    inside = np.abs(r) < c if strict else np.abs(r) <= c
    return scale * np.where(inside, r, c * np.sign(r))


@pytest.mark.parametrize("f, c, scale, strict", [
    (huber, 1.0, 1.0, False), (huber_flipped, 1.5, 1.0, True),
])
def test_huber_gradient_is_a_clip_with_the_same_values(f, c, scale, strict):
    df = symdiff.grad(f)
    assert "np.clip(r, " in symdiff.source(df) and "np.where" not in symdiff.source(df)
    with np.errstate(invalid="ignore"):
        got = df(SPECIAL.copy())
    np.testing.assert_array_equal(got, _where_reference(SPECIAL, c, scale, strict))
    assert np.signbit(got[5]) and not np.signbit(got[6])  # -0.0 stays -0.0
    assert_grad(f, df, (np.linspace(-3.3, 3.1, 13),))


def test_a_common_factor_leaves_the_where_before_the_clip():
    df = symdiff.grad(huber_mean_strict)
    text = symdiff.source(df)
    assert "np.clip(r, -2.0, 2.0)" in text and "np.sign" not in text
    r = SPECIAL[np.isfinite(SPECIAL)]
    np.testing.assert_allclose(df(r), _where_reference(r, 2.0, 1.0 / r.size, strict=True),
                               rtol=1e-15)
    assert_grad(huber_mean_strict, df, (np.linspace(-3.3, 3.1, 13),))


def test_clip_keeps_float32():
    g = symdiff.grad(huber)(np.array([-2.0, 0.5, 3.0], dtype=np.float32))
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g, [-1.0, 0.5, 1.0])


def test_a_slope_other_than_the_bound_is_not_a_clip():
    df = symdiff.grad(not_huber)
    assert "np.clip" not in symdiff.source(df)
    r = np.array([-3.0, -2.0, 0.5, 2.0, 2.5])
    np.testing.assert_array_equal(df(r), [-1.0, -2.0, 0.5, 2.0, 1.0])


def scaled_branches(x):
    # where(c, 2 * h, 0.2 * h) may become h * where(c, 2, 0.2) only if that keeps
    # float32: it does not (a where of two Python floats is float64), so it stays
    h = np.where(x > 0, x, 0.1 * x)
    return np.sum(h ** 2)


def test_factoring_a_where_keeps_the_dtype():
    g = symdiff.grad(scaled_branches)(np.array([-1.0, 2.0], dtype=np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, [-0.02, 4.0], rtol=1e-6)


# ---- constants meet across a gradient passed on as is (overrides={"floor": "identity"})
def quantize(x, y):
    q = np.floor(x * 8.0) / 8.0
    return np.sum((q - y) ** 2) + 0.01 * np.sum(x ** 2)


def test_constants_fold_across_an_identity_override():
    df = symdiff.grad(quantize, overrides={"floor": "identity"})
    text = symdiff.source(df)
    assert "# gradient of floor overridden by 'identity'" in text
    assert "8.0" not in text.split("overridden")[1]  # no `/ 8.0` then `8.0 *`
    x, y = np.array([-1.3, 0.0, 0.06, 2.5]), np.array([0.5, -0.2, 0.1, 2.0])
    q = np.floor(x * 8.0) / 8.0
    np.testing.assert_allclose(df(x, y), 2.0 * (q - y) + 0.02 * x, rtol=1e-15)


# ---- index gradients of one array add up in one buffer -----------------------------------
def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def three_slices(x):
    return np.sum(x[:-2] * x[1:-1] * x[2:])


def repeated_and_sliced(x, i):
    return np.sum(x[i] ** 2) + np.sum(np.sin(x[:3])) + np.sum(x[i] * 2.0)


def rows_and_columns(x):
    return np.sum(x[0] * x[1:]) + np.sum(x[:, 0] ** 2)


def test_rosenbrock_gradient_fills_one_buffer():
    df = symdiff.grad(rosenbrock)
    text = symdiff.source(df)
    assert text.count("_unindex_sum(") == 1 and "x_bar[1:] += " in text
    x = np.linspace(-1.2, 1.3, 7)
    assert_grad(rosenbrock, df, (x,))
    first, second = df(x), df(x)
    assert first is not second and not np.shares_memory(first, second)
    np.testing.assert_array_equal(first, second)


@pytest.mark.parametrize("f, args, spelled", [
    (three_slices, (np.linspace(-1.0, 2.0, 6),), "x_bar[1:-1] += "),
    (repeated_and_sliced, (np.linspace(-1.0, 2.0, 6), np.array([0, 4, 4, 1])),
     "x_bar[:3] += "),
    (rows_and_columns, (np.arange(12.0).reshape(4, 3) / 7.0,), "x_bar[0] += "),
])
def test_index_gradients_add_in_place(f, args, spelled):
    df = symdiff.grad(f)
    assert spelled in symdiff.source(df)
    assert_grad(f, df, args)


def test_index_gradients_in_one_buffer_keep_float32():
    g = symdiff.grad(rosenbrock)(np.array([0.5, -1.0, 2.0], dtype=np.float32))
    assert g.dtype == np.float32


# ---- a sum placed in zeros is added straight into them (inplace.sums_in_place) ----------
@pytest.mark.parametrize("a, b, like, index", [
    (np.arange(4.0), np.linspace(-1, 1, 4), np.zeros(5), np.s_[:-1]),
    (np.arange(4.0, dtype=np.float32), np.ones(4, np.float32), np.zeros(5, np.float32),
     np.s_[1:]),
    (np.arange(4.0, dtype=np.float32), np.ones(4), np.zeros(5, np.float32), np.s_[1:]),
    (np.arange(4.0), 2.5, np.zeros(5), np.s_[1:]),
    (np.array([np.inf, -0.0, np.nan]), np.array([1.0, -0.0, 1.0]), np.ones(5),
     np.s_[::2]),
    (np.ones((2, 3)), np.arange(3.0), np.zeros((3, 4)), (slice(1, None), slice(None, -1))),
    (np.ones((1, 3)), np.arange(6.0).reshape(2, 3), np.zeros((3, 3)), np.s_[:2]),
    # big enough for np.empty, zeroed outside the slices only
    (np.arange(99999.0), np.ones(99999), np.empty(10 ** 5), np.s_[1:]),
    (np.arange(99998.0), np.ones(99998), np.empty(10 ** 5), np.s_[1:-1]),
    (np.ones((299, 297), np.float32), np.float32(2.0), np.empty((300, 300), np.float32),
     np.s_[1:, 2:-1]),
    (np.ones((0, 300)), np.ones(300), np.empty((300, 300)), np.s_[5:5]),
    (np.ones((0, 300)), np.ones(300), np.empty((300, 300)), np.s_[7:3]),
    (np.ones((150, 300)), np.ones(300), np.empty((300, 300)), np.s_[::2]),
])
def test_a_sum_written_into_its_place_is_the_sum_placed(a, b, like, index):
    from symdiff.runtime.helpers import _unindex, _unindex_sum
    got, expected = _unindex_sum(a, b, like, index), _unindex(a + b, like, index)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert not np.shares_memory(got, like)
    np.testing.assert_array_equal(got, expected)
    assert np.array_equal(np.signbit(got), np.signbit(expected))


@pytest.mark.parametrize("g, like, index", [
    (np.ones(99999), np.empty(10 ** 5), np.s_[:-1]),
    (np.ones((298, 300)), np.empty((300, 300)), np.s_[1:-1]),
    (np.ones(300, np.float32), np.empty((300, 300), np.float32), np.s_[5, :]),
    (np.ones(150), np.empty((300, 300)), np.s_[::2, 0]),
    (np.ones((300, 300)), np.empty((300, 300)), ()),
    (2.0, np.empty((300, 300)), np.s_[3:9, 4:]),
    (np.ones(99999, np.float32), np.empty(10 ** 5), np.s_[1:]),  # float64 gradient
])
def test_a_big_index_gradient_is_zero_outside_the_index(g, like, index):
    from symdiff.runtime.helpers import _unindex
    got = _unindex(g, like, index)
    expected = np.zeros(like.shape, np.result_type(g, like, 0.0))
    expected[index] = g
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def placed_sum(x):
    s = x[1:] * 2.0 + np.sin(x[1:])
    return np.sum(x[:-1] * s) + np.sum(np.cos(x[1:]))


def test_a_sum_of_gradients_of_a_slice_is_added_into_the_buffer():
    df = symdiff.grad(rosenbrock)
    text = symdiff.source(df)
    assert "_unindex_sum(x_head_bar, x_head_bar_1, x, np.s_[:-1])" in text
    assert "_unindex(" not in text
    for dtype in (np.float64, np.float32):
        x = np.array([0.5, -1.0, 2.0, 0.0, -0.0, 1e-310], dtype=dtype)
        assert df(x).dtype == dtype
    assert_grad(rosenbrock, df, (np.linspace(-1.2, 1.3, 7),))
    assert_grad(placed_sum, symdiff.grad(placed_sum), (np.linspace(-1.2, 1.3, 7),))
    x, v = np.linspace(-1.2, 1.3, 7), np.linspace(0.3, -0.5, 7)
    _, tangent = symdiff.jvp(df)(x, v)  # (the generated code differentiated again)
    np.testing.assert_allclose(tangent, symdiff.hessian(rosenbrock)(x) @ v, rtol=1e-13)


# ---- so generated code can be differentiated again, `g[i] += v` into a fresh array ---------
def fills_fresh_buffer(x):
    g = np.zeros_like(x)
    g[1:] += x[:-1] ** 2
    g[:2] += np.sin(x[1:3])
    return np.sum(g * x)


def fills_fresh_sum(x):
    g = x * 3.0
    g[1, ...] += x[0] ** 2
    g[-1] += 1.0
    return np.sum(g ** 2)


def test_adding_into_part_of_a_fresh_array():
    x = np.linspace(-1.0, 1.5, 5)
    assert_grad(fills_fresh_buffer, symdiff.grad(fills_fresh_buffer), (x,))
    assert_grad(fills_fresh_sum, symdiff.grad(fills_fresh_sum), (x,))


def reads_before_writing(x):
    g = np.zeros_like(x)
    h = g[1:]  # a view: the write below changes it
    g[1:] += x[1:]
    return np.sum(h * x[1:])


def two_names(x):
    g = x * 2.0
    k = g
    g[0] += 1.0
    return np.sum(k)


def writes_in_loop(x):
    g = np.zeros_like(x)
    for i in range(2):
        g[i] += x[i] ** 2
    return np.sum(g)


def adds_at_index_array(x, i):
    g = x * 3.0
    g[i] += 1.0  # a repeated position gets 1.0 once: no gradient operation
    return np.sum(g ** 2)


def test_adding_into_an_array_a_view_of_which_is_read_later_is_refused():
    with pytest.raises(symdiff.SymdiffError) as info:
        symdiff.grad(reads_before_writing)(np.linspace(-1.0, 1.5, 5))
    assert "in place" in str(info.value) and info.value.lineno is not None


@pytest.mark.parametrize("f", [two_names, writes_in_loop, adds_at_index_array])
def test_adding_into_an_array_as_numpy_does(f):
    """Another name for the array follows the write; a repeated position of
    an index array gets the value once, as in NumPy (tests/test_writes.py)."""
    args = (np.linspace(-1.0, 1.5, 5),) + ((np.array([0, 3, 3]),) if f is
                                            adds_at_index_array else ())
    value, _ = symdiff.value_and_grad(f)(*args)
    assert value == f(*(a.copy() for a in args))
    check_grads(f, args, wrt=(0,))


def test_hessian_of_code_that_adds_into_one_buffer():
    H = symdiff.hessian(rosenbrock)(np.array([0.5, -1.0, 2.0, 0.3]))
    x = np.array([0.5, -1.0, 2.0, 0.3])
    expected = np.diag(np.r_[1200 * x[:-1] ** 2 - 400 * x[1:] + 2, 0.0] + np.r_[0.0, [200.0] * 3])
    expected += np.diag(-400 * x[:-1], 1) + np.diag(-400 * x[:-1], -1)
    np.testing.assert_allclose(H, expected, rtol=1e-12)


# ---- runtime helpers: quick paths give what the general ones give ---------------------------
@pytest.mark.parametrize("g, like", [
    (np.ones(3), 0.5), (np.ones(3, dtype=np.float32), 2), (np.ones((2, 3)), np.float32(1.0)),
    (np.ones((2, 3)), np.ones((1, 3))), (np.ones(3), [1.0, 2.0, 3.0]), (2.0, np.ones(3)),
    (np.ones((4, 2)), (2,)), (np.ones((2, 3)), np.ones(3)), (np.float64(2.0), 1.0),
])
def test_sum_to_quick_paths(g, like):
    from symdiff.runtime.helpers import _sum_to
    shape = like if isinstance(like, tuple) else np.shape(like)
    got = _sum_to(g, like)
    assert np.shape(got) == shape
    np.testing.assert_array_equal(got, _sum_to_reference(np.asarray(g), shape))


def _sum_to_reference(g, shape):
    """Sum the leading axes, then the axes where ``shape`` has a 1."""
    if g.ndim < len(shape):
        return np.broadcast_to(g, shape)
    g = g.sum(axis=tuple(range(g.ndim - len(shape))))
    ones = tuple(i for i, n in enumerate(shape) if n == 1)
    return g.sum(axis=ones, keepdims=True) if shape else g


@pytest.mark.parametrize("g, like, dtype", [
    (np.ones(2), np.zeros(4), np.float64), (1.0, np.zeros(4, dtype=np.float32), np.float32),
    (np.ones(2, dtype=np.float32), np.zeros(4), np.float64),
    (np.ones(2), np.zeros(4, dtype=np.float32), np.float64),
    (np.ones(2, dtype=np.float32), np.zeros(4, dtype=np.float32), np.float32),
    (np.ones(2), np.zeros(4, dtype=int), np.float64), (1j, np.zeros(4), np.complex128),
])
def test_unindex_dtype_is_the_result_type(g, like, dtype):
    from symdiff.runtime.helpers import _unindex
    out = _unindex(g, like, np.s_[1:3])
    assert out.dtype == dtype == np.result_type(g, like, 0.0)
    np.testing.assert_array_equal(out, [0.0, g, g, 0.0] if np.ndim(g) == 0 else [0, 1, 1, 0])


# ---- a keepdims reduction of x broadcasts against x: its gradient is a plain np.sum ---------
def log_softmax_loss(z, Y):
    z = z - np.max(z, axis=1, keepdims=True)
    log_probs = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(Y * log_probs) / z.shape[0]


def test_keepdims_reductions_need_no_broadcasting_helper():
    df = symdiff.grad(log_softmax_loss)
    text = symdiff.source(df)
    assert "_sum_to(" in text  # Y's shape is unknown, so Y * ... still needs one
    assert text.count("_sum_to(") == 1
    assert "= log_probs_bar.sum(axis=1, keepdims=True)" in text  # (its sign: in a difference)
    z = np.array([[0.3, -1.2, 2.0], [1.0, 1.0, -0.5]])  # a tie for the max in row 2
    Y = np.array([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5]])
    assert_grad(log_softmax_loss, df, (z, Y))


def sqrt_sum(x):
    return np.sum(np.sqrt(x))


def negated_mean(x):
    return -np.sum(x ** 2) / x.shape[0]


def test_constants_fold_into_quotients():
    text = symdiff.source(symdiff.grad(sqrt_sum))
    assert "0.5 / np.sqrt(x)" in text and "2.0" not in text  # not 1.0 / (2.0 * ...)
    assert_grad(sqrt_sum, symdiff.grad(sqrt_sum), (np.array([0.5, 2.0, 3.0]),))
    text = symdiff.source(symdiff.grad(negated_mean))
    # one pass over the array: the constants meet the length first
    assert "x * (-2.0 / np.shape(x)[0])" in text and "-(" not in text
    assert_grad(negated_mean, symdiff.grad(negated_mean), (np.array([0.5, 2.0, 3.0]),))


# ---- a value a run-time check proved scalar needs no broadcasting helper -------------------
def penalised(w, lam):
    return 0.5 * lam * np.sum(w ** 2) + np.sum(np.sin(w))


def test_a_checked_scalar_needs_no_sum_to():
    """`lam` decides the output's shape, so `_require_scalar(lam)` runs before
    the backward pass: after it, `w * lam` provably has w's shape."""
    df = symdiff.grad(penalised)
    text = symdiff.source(df)
    assert "_require_scalar(lam," in text and "_sum_to(" not in text
    w = np.array([0.3, -1.2, 2.0])
    assert_grad(penalised, df, (w, 0.7))
    assert_grad(penalised, df, (w, np.float64(0.7)))
    assert df(w.astype(np.float32), 0.7).dtype == np.float32
    with pytest.raises(symdiff.SymdiffError, match=r"scalar output.*\(3,\)"):
        df(w, np.ones(3))  # not a wrong gradient: the check stops it


# ---- matmul adjoints: quick paths for the common ranks give what the general path gives ----
@pytest.mark.parametrize("a_shape, b_shape", [
    ((4, 3), (3, 2)), ((4, 3), (3,)), ((3,), (3, 2)), ((3,), (3,)), ((2, 4, 3), (3, 2)),
    ((4, 3), (2, 3, 5)),
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matmul_adjoints_match_the_definition(a_shape, b_shape, dtype):
    from symdiff.runtime.helpers import _matmul_adjoint_a, _matmul_adjoint_b
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(a_shape).astype(dtype), rng.standard_normal(b_shape).astype(dtype)
    g = rng.standard_normal(np.shape(a @ b)).astype(dtype)
    g = float(g) if np.ndim(g) == 0 else g  # a Python number: the general path
    da, db = _matmul_adjoint_a(g, a, b), _matmul_adjoint_b(g, a, b)
    assert da.shape == a.shape and db.shape == b.shape
    assert da.dtype == dtype and db.dtype == dtype
    # d/da of sum(g * (a @ b)), by the product's bilinearity: entry by entry
    for x, dx, other in ((a, da, lambda u: u @ b), (b, db, lambda u: a @ u)):
        expected = np.zeros(x.shape)
        for k in np.ndindex(x.shape):
            e = np.zeros(x.shape, dtype)
            e[k] = 1.0
            expected[k] = np.sum(np.asarray(g, np.float64) * other(e))
        np.testing.assert_allclose(dx, expected, rtol=1e-5 if dtype == np.float32 else 1e-12)


# ---- run-time checks: quick paths first, the same answers ----------------------------------
SCALARS = [True, np.bool_(False), np.array(True), 1, 2.5, np.float32(1.0), np.array(0.5)]
ARRAYS = [np.array([True]), [True, False], np.zeros((2, 2)), np.zeros(0)]


@pytest.mark.parametrize("value", SCALARS + ARRAYS)
def test_scalar_checks_accept_exactly_the_scalars(value):
    from symdiff.runtime.helpers import _require_scalar, _scalar_predicate
    scalar = np.ndim(value) == 0
    for check, error in ((_scalar_predicate, symdiff.errors.ArrayPredicateError),
                         (_require_scalar, symdiff.errors.NonScalarOutputError)):
        if scalar:
            assert check(value, message="f.py:1:1") is value
        else:
            with pytest.raises(error, match=str(np.shape(value)).replace("(", r"\(")
                               .replace(")", r"\)")):
                check(value, message="f.py:1:1")
    if scalar:  # among others, in any position
        assert _require_scalar(2.0, value, np.float64(1.0), message="f.py:1:1") == 2.0
    else:
        with pytest.raises(symdiff.errors.NonScalarOutputError):
            _require_scalar(2.0, np.float64(1.0), value, message="f.py:1:1")


@pytest.mark.parametrize("value, ok", [
    (1.0, True), (np.float32(1.0), True), (np.zeros(2), True), (np.zeros(2, np.float16), True),
    (np.zeros((), np.longdouble), True), (np.zeros(2).astype(">f8"), True),
    (1, False), (True, False), (np.arange(2), False), (1j, False), ([1.0, 2.0], False),
    ([1, 2], False), ((1.0,), False),
])
def test_float_check_accepts_exactly_the_floating_point_values(value, ok):
    from symdiff.runtime.helpers import _require_float
    for args in ((value,), (np.zeros(2), value), (value, 2.0, np.zeros(3))):
        messages = tuple(f"f.py:1:{k + 1}: argument `a{k}`" for k in range(len(args)))
        if ok:
            assert _require_float(*args, messages=messages) is args[0]
        else:
            where = next(k for k, a in enumerate(args) if a is value)
            with pytest.raises(symdiff.errors.NonFloatArgumentError,
                               match=f"argument `a{where}`"):
                _require_float(*args, messages=messages)


# ---- a loop over numbers: no shape helpers ------------------------------------------------
def fixed_point(a):
    x = 1.0
    for i in range(50):
        x = 0.5 * (x + a / x)
    return x


def fixed_point_by_hand(a):
    x, xs = 1.0, []
    for i in range(50):
        xs.append(x)
        x = 0.5 * (x + a / x)
    x_bar, a_bar = 1.0, 0.0
    for x in reversed(xs):
        a_bar += x_bar * 0.5 / x
        x_bar = x_bar * 0.5 * (1.0 - a / (x * x))
    return a_bar


def test_a_loop_over_numbers_calls_no_array_helpers():
    # its speed against the hand-written loop: benchmarks/cases/scalar_loops.py
    gradient = symdiff.grad(fixed_point)
    text = symdiff.source(gradient)
    body = text[text.index("for i in range(50):"):]
    assert "_sum_to" not in body and "shape" not in body and "_scalar_predicate" not in body
    assert gradient(2.0) == pytest.approx(fixed_point_by_hand(2.0), rel=1e-12)


def euler_stepper(theta0, k):
    theta, omega = theta0, 0.0
    for _ in range(50):
        omega += 0.01 * (-k * np.sin(theta) - 0.1 * omega)
        theta += 0.01 * omega
    return theta


def test_a_value_the_result_reads_through_another_is_a_number_too():
    # omega starts as a number and its update is one (theta's update reads it)
    gradient = symdiff.grad(euler_stepper, wrt=(0, 1))
    text = symdiff.source(gradient)
    body = text[text.index("for _ in range(50):"):]
    assert "_sum_to" not in body and "shape" not in body, text
    check_grads(euler_stepper, (0.7, 1.3), wrt=(0, 1), order=2)


def test_a_gradient_for_a_python_float_starts_from_a_python_float():
    # np.zeros_like(a)[()] is a NumPy scalar: every later operation on it is NumPy's
    text = symdiff.source(symdiff.grad(fixed_point), 2.0)
    assert "zeros_like" not in text and "[()]" not in text, text
    g = symdiff.grad(fixed_point)(2.0)
    assert type(g) is float and g == pytest.approx(fixed_point_by_hand(2.0), rel=1e-12)


def newton_root(a):
    x = 1.0
    for _ in range(30):
        x -= (x * x - a) / (2.0 * x)
    return x


def test_a_newton_step_gradient_cancels_what_its_terms_share():
    # x_bar - 2 x (x_bar / (2 x)) + ...: read through the quotient the other
    # adjoint reads too, the terms cancel, and the reverse step is two lines
    text = symdiff.source(symdiff.grad(newton_root), 2.0)
    body = "\n".join(line for line in text[text.index("in reversed(tape)"):].splitlines()
                     if not line.strip().startswith("#"))
    assert ("x_bar = x_bar * t_1 / x" in body or "x_bar = t_1 * x_bar / x" in body) \
        and body.count(" = ") == 2, text
    assert "-" not in body, text  # (the signs met in the sums)
    g = symdiff.grad(newton_root)(2.0)
    assert type(g) is float and g == pytest.approx(0.5 / 2.0 ** 0.5, rel=1e-12)


def quarter(x):
    return np.sum(np.sin(x) / 4)


def third(x):
    return np.sum(np.sin(x) / 3)


def test_a_gradient_divided_by_a_power_of_two_is_multiplied_exactly():
    x = np.array([0.3, -2.0, 1e-310, 5e307, np.inf, np.nan])
    with np.errstate(invalid="ignore"):
        text = symdiff.source(symdiff.grad(quarter))
        assert "np.cos(x) * 0.25" in text, text
        np.testing.assert_array_equal(symdiff.grad(quarter)(x), np.cos(x) / 4)
        text = symdiff.source(symdiff.grad(third))  # 1 / 3 is not exact: a division
        assert "np.cos(x) / 3" in text, text
        np.testing.assert_array_equal(symdiff.grad(third)(x), np.cos(x) / 3)


def test_a_loop_over_numbers_saves_one_number_per_iteration():
    # t = a / x is one operation on the x saved: computed again, not saved in a tuple
    text = symdiff.source(symdiff.grad(fixed_point), 2.0)
    assert "tape.append(x)" in text and "for x in reversed(tape):" in text, text
    assert symdiff.grad(fixed_point)(2.0) == pytest.approx(0.5 / 2.0 ** 0.5, rel=1e-12)
    # arrays are saved, not computed again (that costs a pass over them)
    text = symdiff.source(symdiff.grad(lambda a: np.sum(fixed_point(a))), np.ones(3))
    assert "tape.append((x, t))" in text, text


def test_a_loop_invariant_operation_on_numbers_leaves_the_loop():
    # -k is the same in every iteration: computed once, its gradient gathered
    gradient = symdiff.grad(euler_stepper, wrt=(0, 1))
    text = symdiff.source(gradient, 0.7, 1.3)
    assert text.index("t = -k") < text.index("for _ in range(50)"), text
    assert "tape.append((theta, sin_theta))" in text, text
    check_grads(euler_stepper, (0.7, 1.3), wrt=(0, 1), order=1)


def steps(x, k, n):
    for _ in range(n):
        x = x * (1.0 / k)  # (a division may fail: it stays in the loop)
    return x


def test_a_division_stays_in_its_loop():
    assert symdiff.grad(steps)(2.0, 0.0, 0) == 1.0  # no iteration: 1 / 0 never computed
    assert symdiff.grad(steps)(2.0, 4.0, 2) == 1.0 / 16.0


def sliced(x, a):
    s = 1.0
    for _ in range(3):
        s = s * a + np.sum(x[1:]) / s  # (a loop body that reads a slice, a constant)
    return s


def test_a_loop_over_numbers_that_slices_an_array():
    args = (np.array([0.5, 1.5, 2.0]), 0.7)
    assert_grad(sliced, symdiff.grad(sliced, wrt=(0, 1)), args, wrt=(0, 1))
    check_grads(sliced, args, wrt=(0, 1), order=1)


def numpy_scalar_stepper(theta0, k):
    theta, omega = theta0, 0.0
    for _ in range(20):
        omega = omega + 0.01 * (-k * np.sin(theta) - 0.1 * omega)  # NumPy scalars from here
        theta = theta + 0.01 * omega
    return theta


def test_a_carried_number_numpy_makes_a_scalar_gets_a_number_for_its_gradient():
    # omega starts a Python float and becomes a np.float64: np.zeros_like(omega)
    # would be a 0-d array, and every operation on its adjoint ~1 us
    text = symdiff.source(symdiff.grad(numpy_scalar_stepper, wrt=(0, 1)), 0.7, 1.3)
    assert "zeros_like" not in text, text
    theta_bar, k_bar = symdiff.grad(numpy_scalar_stepper, wrt=(0, 1))(0.7, 1.3)
    assert np.ndim(theta_bar) == 0 and not isinstance(theta_bar, np.ndarray)
    check_grads(numpy_scalar_stepper, (0.7, 1.3), wrt=(0, 1), order=2)
    f32 = symdiff.grad(numpy_scalar_stepper, wrt=(0, 1))(np.float32(0.7), np.float32(1.3))
    assert all(np.asarray(g).dtype == np.float32 for g in f32), f32
