"""for and while loops: forward loop, reverse loop, and the numbers they give."""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from numeric import assert_grad
from symdiff.errors import UnsupportedSyntaxError
from symdiff.runtime.helpers import _matmul_adjoint_a_sum

RNG = np.random.default_rng(3)
W = RNG.normal(size=(4, 4)) * 0.5
H0 = RNG.normal(size=4)
XS = RNG.normal(size=(6, 4))


def recurrence(W, h0, xs):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


def horner(c, x):
    y = 0.0
    for i in range(c.shape[0]):
        y = y * x + c[i]
    return y


def accumulate(x, n):
    total = 0.0
    s = 0.0
    for i in range(1, n, 2):
        total += np.sum(x ** i) / i
        s = s + total * x[0]
    return total + s


def branch_in_loop(x):
    acc = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            acc = acc + np.sqrt(x[i])
        else:
            acc = acc * 0.5 + x[i] ** 2
    return acc


def nested(A):
    total = 0.0
    for i in range(A.shape[0]):
        row = 1.0
        for j in range(A.shape[1]):
            row = row * np.cos(A[i, j]) + A[i, j]
        total = total + row * row
    return total


def over_rows(A, w):
    s = 0.0
    for row in A:
        s = s + np.sin(row @ w)
    return s


def over_zip(xs, ys):
    s = 0.0
    for a, b in zip(xs, ys):
        s = s + a * b ** 2
    return s


def over_enumerate(xs):
    s = 0.0
    for i, a in enumerate(xs):
        s = s + i * a ** 2
    return s


def over_enumerated_zip(xs, ys):
    s = 0.0
    for i, (a, b) in enumerate(zip(xs, ys)):
        s = s + (i + 1) * a * np.sin(b)
    return s


def shrink(x):
    while np.sum(x ** 2) > 1:
        x = x / 2
    return np.sum(x ** 3)


def with_break(x, limit):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] ** 2
        if s > limit:
            break
    return s


def with_continue(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        s = s + np.exp(x[i])
    return s


def while_with_break(x):
    y = x
    n = 0
    while n < 10:
        y = y * 1.5 + 0.1
        n = n + 1
        if np.sum(y) > 5:
            break
    return np.sum(y ** 2)


def rnn_cell(W, U, b, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t] + b)
    return np.sum(h ** 2)


def row_recurrence(W, h0, xs):  # a row vector times the matrix
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W + xs[t])
    return np.sum(h ** 2)


def batch_recurrence(W, H0, xs):  # each row of H0 starts a sequence
    H = H0
    for t in range(xs.shape[0]):
        H = np.tanh(H @ W + xs[t])
    return np.sum(H ** 2)


def readout(W, v, xs):  # a dot product per step, summed in the loop
    h = np.zeros(W.shape[0])
    total = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        total = total + (v @ h - 0.5) ** 2
    return total


CASES = [
    (recurrence, (W, H0, XS), (0, 1, 2)),
    (readout, (W, RNG.normal(size=4), XS[:3]), (0, 1)),
    (rnn_cell, (W, RNG.normal(size=(4, 2)), RNG.normal(size=4), RNG.normal(size=(3, 2))),
     (0, 1, 2)),
    (row_recurrence, (W, H0, XS), (0, 1)),
    (batch_recurrence, (W, RNG.normal(size=(2, 4)), XS), (0, 1)),
    (horner, (RNG.normal(size=5), 0.7), (0, 1)),
    (accumulate, (RNG.uniform(0.5, 1.5, size=3), 7), 0),
    (branch_in_loop, (np.array([0.5, -1.0, 2.0, -0.3]),), 0),
    (nested, (RNG.normal(size=(3, 2)),), 0),
    (over_rows, (RNG.normal(size=(3, 2)), RNG.normal(size=2)), (0, 1)),
    (over_zip, (RNG.normal(size=4), RNG.normal(size=4)), (0, 1)),
    (over_enumerate, (RNG.normal(size=4),), 0),
    (over_enumerated_zip, (RNG.normal(size=4), RNG.normal(size=3)), (0, 1)),
    (shrink, (np.array([3.0, -2.0]),), 0),
    (with_break, (np.array([0.5, 1.0, 2.0, 3.0]), 2.0), 0),
    (with_continue, (np.array([0.5, -1.0, 2.0]),), 0),
    (while_with_break, (np.array([0.2, 0.3]),), 0),
]


@pytest.mark.parametrize("f, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_loop_gradients_match_finite_differences(f, args, wrt):
    assert_grad(f, symdiff.grad(f, wrt=wrt), args, wrt=wrt)


def test_zero_trips_and_varying_trip_counts_with_one_compiled_gradient():
    df = symdiff.grad(recurrence, wrt=(0, 1, 2))
    for steps in (0, 1, 4):
        xs = XS[:steps]
        assert_grad(recurrence, df, (W, H0, xs), wrt=(0, 1, 2))
    gW, gh0, gxs = df(W, H0, XS[:0])
    np.testing.assert_array_equal(gW, np.zeros_like(W))
    np.testing.assert_array_equal(gh0, 2 * H0)


def test_while_trip_count_differs_between_calls():
    df = symdiff.grad(shrink)
    for x in (np.array([0.1, 0.2]), np.array([3.0, -2.0]), np.array([40.0, 1.0])):
        assert_grad(shrink, df, (x,))


def test_generated_code_keeps_loops_as_loops():
    text = symdiff.source(symdiff.grad(recurrence, wrt=0))
    code = [line.strip() for line in text.splitlines() if not line.strip().startswith("#")]
    assert sum(line.startswith("for ") for line in code) == 2  # forward and reverse
    assert "tape.append((" in text
    assert "in reversed(tape):" in text


@pytest.mark.parametrize("f, spelled", [
    (rnn_cell, "W_bar = _matmul_adjoint_a_sum(W_bar_parts, W)"),
    (row_recurrence, "W_bar = _matmul_adjoint_b_sum(W_bar_parts, W)")])
def test_a_matrix_the_loop_multiplies_by_gets_one_product_after_it(f, spelled):
    text = symdiff.source(symdiff.grad(f, wrt=0))
    assert "W_bar_parts.append((" in text and spelled in text
    assert "W_bar +=" not in text  # no outer product per iteration


def test_tape_saves_only_what_the_backward_needs():
    def poly(x, n):
        y = 0.0
        for i in range(n):
            y = y + x ** i
        return y

    text = symdiff.source(symdiff.grad(poly))
    saved = next(line for line in text.splitlines() if "tape.append" in line)
    # the accumulator is not saved, nor its shape: the result is checked to be a
    # number, so it is one in every iteration (ad/seeds.py scalar_carries)
    assert saved.strip() == "tape.append(i)" and "_sum_to" not in text
    assert_grad(poly, symdiff.grad(poly), (0.7, 5))


def test_second_derivative_style_loop_over_constant_tuple_is_unrolled():
    def f(x):
        s = 0.0
        for k in (1.0, 2.0, 3.0):
            s = s + np.sin(k * x)
        return s

    assert_grad(f, symdiff.grad(f), (0.4,))
    assert "for " not in symdiff.source(symdiff.grad(f)).split('"""')[2]


def else_on_loop(x):
    for i in range(3):
        x = x * 2
    else:
        x = x + 1
    return np.sum(x)


def float_bound(x):
    for i in range(2.5):
        x = x * 2
    return np.sum(x)


def stuck(x):
    n = 0
    while n < 3:
        x = x * 2
    return np.sum(x)


def writes_element(x):
    y = x * 1.0
    for i in range(3):
        y[i] = y[i] * 2
    return np.sum(y)


@pytest.mark.parametrize("f, words", [
    (else_on_loop, "else"), (float_bound, "integer"), (stuck, "condition"),
])
def test_loop_errors_name_the_problem(f, words):
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(f)
    assert words in str(info.value)
    assert info.value.lineno is not None and info.value.hint


def while_true_with_a_test(x):
    while True:
        norm = np.sum(x ** 2)
        if not norm > 1.0:
            break
        x = x * 0.5 + 0.01 * np.sin(x)
    return np.sum(x ** 3)


def test_while_true_with_a_leading_test_is_a_while_loop():
    for x in (np.array([3.0, -2.0]), np.array([0.1, 0.2])):  # several trips, none
        assert_grad(while_true_with_a_test, symdiff.grad(while_true_with_a_test), (x,))


def while_true_never_breaks(x):
    while True:
        x = x * 0.5
    return np.sum(x)


def test_a_loop_may_write_into_an_array_it_made():
    check_grads(writes_element, (np.array([0.5, -1.0, 2.0, 0.3]),))
    assert "y[i] = " in symdiff.source(symdiff.grad(writes_element))


def while_true_breaks_in_an_inner_loop_only(x):
    while True:
        for i in range(3):
            x = x * 0.5
            if i > 1:
                break
    return np.sum(x)


@pytest.mark.parametrize("f", [while_true_never_breaks, while_true_breaks_in_an_inner_loop_only])
def test_while_true_without_a_break_is_an_error_that_names_it(f):
    """It said "the loop never changes what its condition reads", with the
    hint to update a variable of the condition, which `True` has none of."""
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(f)
    assert "`while True:` runs forever" in info.value.message, info.value.message
    assert "if done: break" in info.value.hint and "range(max_steps)" in info.value.hint
    assert info.value.source_line.strip() == "while True:"


def newton_sqrt(a):
    x = a * 1.0
    while True:  # until converged: the break depends on the values
        x_new = 0.5 * (x + a / x)
        if np.max(np.abs(x_new - x)) < 1e-13:
            break
        x = x_new
    return np.sum(x_new ** 3)


def while_true_breaks_in_the_middle(x):
    k = 0
    while True:
        k += 1
        if k > 4:
            x = x * 2.0
            break
        x = np.sin(x) + 0.1 * x * x
    return np.sum(x * x)


def test_while_true_with_a_break_anywhere_in_its_body_runs_until_it():
    """``while True: ... if c: break ...`` was refused as a loop whose
    condition never changes."""
    a = np.array([1.0, 4.0, 2.0, 3.0])
    g = symdiff.grad(newton_sqrt)(a)
    np.testing.assert_allclose(g, 1.5 * np.sqrt(a), rtol=1e-10)  # d/da a^1.5
    check_grads(newton_sqrt, (a,))
    for x in (np.array([0.5, -1.0, 2.0]), np.array([0.0, 0.3, -0.2])):
        assert_grad(while_true_breaks_in_the_middle,
                    symdiff.grad(while_true_breaks_in_the_middle), (x,))
        check_grads(while_true_breaks_in_the_middle, (x,))


def test_shapes_a_loop_saves_are_read_cheaply_and_work_for_python_floats():
    def scaled(x, n):
        y = 0.0
        for i in range(n):
            y = y + x * 2.0 + np.sin(x) * i
        return np.sum(y)  # (y may be an array: its shapes are saved)

    text = symdiff.source(symdiff.grad(scaled))
    assert "np.shape(t)" in text        # x * 2.0 is a Python float for a float x
    assert "t_shape_2 = t_2.shape" in text  # np.sin(x) * i gives a NumPy value
    g = symdiff.grad(scaled)(0.3, 4)
    assert g == pytest.approx(4 * 2.0 + np.cos(0.3) * 6, rel=1e-12)


def test_a_carried_value_that_grows_by_broadcasting_gets_its_own_shape_back():
    def f(h0, x):
        h = h0
        for i in range(3):
            h = h + x * i
        return np.sum(h * h)

    h0, x = np.array([1.0]), np.array([1.0, 2.0, 3.0])
    g = symdiff.grad(f)(h0, x)
    assert g.shape == (1,)  # h becomes [4, 7, 10]: d/dh0 sum(h^2) = 2 * 21
    np.testing.assert_allclose(g, [42.0], rtol=1e-14)
    assert_grad(f, symdiff.grad(f, wrt=(0, 1)), (h0, x), wrt=(0, 1))


def sums_an_array(W, x):
    return np.sum(_matmul_adjoint_a_sum(x, W))


def test_the_tape_sum_helper_takes_a_tape():
    with pytest.raises(UnsupportedSyntaxError, match="adds up the pairs a loop appended"):
        symdiff.grad(sums_an_array)


def read_by_one_branch_in_a_loop(x):
    total = 0.0 * x
    for i in range(3):
        v = np.log(x ** 2 + 1.0)  # read only by the `else` below, and by the backward pass
        if np.sum(total) < 0.5:
            total = total + x
        else:
            total = total + v * x
    return np.sum(total)


def test_a_value_the_reverse_loop_reads_stays_outside_the_branch_that_reads_it():
    # moved into the `else`, it was unbound where the tape saves it (the `if` side)
    check_grads(read_by_one_branch_in_a_loop, (np.array([0.2, 0.1]),))


def _tanh_rnn(W, U, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h ** 2)


@pytest.mark.parametrize("steps", [0, 1, 6])
def test_gathered_matrix_gradients_written_as_products_of_arrays(steps):
    """Specialised: the states in one preallocated array, the rows both
    matrices share written by index in another, one product after the loop
    (no branch: a loop that ran no iteration gives arrays of no rows, whose
    products are zeros), xs read as it is; against central differences
    (tests/test_loop_tapes.py has more)."""
    rng = np.random.default_rng(steps)
    W, U = 0.5 * rng.normal(size=(3, 3)), rng.normal(size=(3, 2))
    xs = rng.normal(size=(steps, 2))
    df = symdiff.grad(_tanh_rnn, wrt=(0, 1))
    source = symdiff.source(df, W, U, xs)
    assert "t_bars = np.empty((shape0, W.shape[0]))" in source, source
    assert "W_bar = t_bars.T @ hs[:-1]" in source, source
    assert "U_bar = t_bars.T @ xs" in source, source
    assert "_matmul_adjoint" not in source and "np.stack" not in source
    assert "if " not in source and "tape" not in source, source
    W_bar, U_bar = df(W, U, xs)
    if steps == 0:
        assert not W_bar.any() and not U_bar.any() and W_bar.shape == W.shape
    else:
        check_grads(_tanh_rnn, (W, U, xs), wrt=(0, 1))


def test_gathered_products_of_mixed_dtypes_keep_the_matrix_dtype():
    rng = np.random.default_rng(1)
    W, U = rng.normal(size=(3, 3)).astype(np.float32), rng.normal(size=(3, 2))
    xs = rng.normal(size=(4, 2))
    W_bar, U_bar = symdiff.grad(_tanh_rnn, wrt=(0, 1))(W, U, xs)
    assert W_bar.dtype == np.float32 and U_bar.dtype == np.float64
