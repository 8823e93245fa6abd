"""A loop whose trip count is known before it: what its specialised gradient
saves is in preallocated arrays (optimize/tape_arrays.py), not on lists
stacked after the loop; where that is not known, the lists stay."""
import re

import numpy as np
import pytest

import symdiff
from benchmarks.cases import rnn
from check_grads import check_grads

SPELLINGS = [rnn.rnn, rnn.rnn_rows, rnn.rnn_projected, rnn.rnn_row_vectors]


def _rnn_args(steps, seed=0):
    rng = np.random.default_rng(seed)
    return {"W": 0.5 * rng.normal(size=(4, 4)), "U": rng.normal(size=(4, 3)),
            "b": 0.1 * rng.normal(size=4), "xs": rng.normal(size=(steps, 3)),
            "target": rng.normal(size=4)}


@pytest.mark.parametrize("f", SPELLINGS, ids=lambda f: f.__name__)
def test_every_rnn_spelling_saves_its_states_in_one_array(f):
    source = symdiff.source(symdiff.grad(f, wrt=("W", "U", "b")), **_rnn_args(5))
    assert "np.stack" not in source and "tape = []" not in source and ".append" not in source
    assert "if " not in source, source  # (no branch for a loop that runs no iteration)
    # (h starts at zeros: the states are saved into zeros, no first row written)
    assert "hs = np.zeros((" in source and "hs[0] = h" not in source, source
    assert "t_bars = np.empty((" in source, source
    assert "W_bar = t_bars.T @ hs[:-1]" in source or "W_bar = t_bars_t @ hs[:-1]" in source
    if f is not rnn.rnn_projected:  # (its U's gradient is the projection's: inputs_bar.T @ xs)
        assert "U_bar = t_bars.T @ xs" in source or "U_bar = t_bars_t @ xs" in source, source
        assert "xs_part" not in source  # the row of xs is read, not saved
        assert "b_bar = t_bars.sum(axis=0)" in source and "b_bar +=" not in source, source


@pytest.mark.parametrize("steps", [0, 1, 2, 7])
@pytest.mark.parametrize("f", SPELLINGS, ids=lambda f: f.__name__)
def test_every_rnn_spelling_matches_the_hand_written_gradient(f, steps):
    args = _rnn_args(steps, seed=steps)
    got = symdiff.grad(f, wrt=("W", "U", "b"))(**args)
    for g, want in zip(got, rnn.rnn_hand(**args)):
        assert g.shape == want.shape
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-14)
    if steps == 0:
        assert not any(g.any() for g in got)


TARGET = np.array([0.3, -0.2, 0.1, 0.5])


def rnn_to_target(W, U, b, xs):
    return rnn.rnn(W, U, b, xs, TARGET)


@pytest.mark.parametrize("steps", [0, 3])
def test_second_derivatives_through_the_arrays(steps):
    """jvp of grad, and grad of grad (hessian), compiled from the gradient
    whose specialised form fills the arrays."""
    args = _rnn_args(steps, seed=3)
    check_grads(rnn_to_target, tuple(args[k] for k in ("W", "U", "b", "xs")), wrt=(0, 1, 2))
    b = args["b"]
    hess = symdiff.hessian(lambda b: rnn.rnn(args["W"], args["U"], b, args["xs"], TARGET))
    grad = symdiff.grad(rnn_to_target, wrt="b")
    eps, rows = 1e-6, []
    for k in range(b.size):
        step = np.zeros_like(b)
        step[k] = eps
        rows.append((grad(args["W"], args["U"], b + step, args["xs"]) -
                     grad(args["W"], args["U"], b - step, args["xs"])) / (2 * eps))
    np.testing.assert_allclose(hess(b), np.array(rows), rtol=1e-6, atol=1e-8)


def saved_intermediate(W, xs):
    h = np.ones(W.shape[0])
    for t in range(len(xs)):
        z = W @ h + xs[t]       # z is read by the backward pass: an array of its own
        h = np.sin(z) * h
    return np.sum(h)


def test_a_value_the_body_computes_gets_an_array_of_rows():
    rng = np.random.default_rng(1)
    W, xs = 0.5 * rng.normal(size=(3, 3)), rng.normal(size=(4, 3))
    source = symdiff.source(symdiff.grad(saved_intermediate), W, xs)
    assert "zs = np.empty((" in source and "zs[t] = z" in source, source
    assert "tape = []" not in source and "np.stack" not in source, source
    check_grads(saved_intermediate, (W, xs))
    check_grads(saved_intermediate, (W, xs[:0]))


def indexed_by_the_counter(W, xs):
    inputs = xs * 2.0
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + inputs[t]) * (t + 1)
    return np.sum(h ** 2)


def test_the_counter_is_the_reverse_loops_own():
    rng = np.random.default_rng(2)
    W, xs = 0.5 * rng.normal(size=(3, 3)), rng.normal(size=(5, 3))
    source = symdiff.source(symdiff.grad(indexed_by_the_counter), W, xs)
    assert "range(shape0 - 1, -1, -1)" in source and "tape = []" not in source, source
    assert re.search(r"\(t_\d \+ 1\) \* h_bar", source), source  # t + 1 computed again
    check_grads(indexed_by_the_counter, (W, xs))
    check_grads(indexed_by_the_counter, (W, xs[:1]))


def with_a_break(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        if np.sum(h) > 1.0:
            break
    return np.sum(h ** 2)


def growing(W, xs):
    h = 0.0  # a number first, a vector after one iteration: its shape changes
    for t in range(xs.shape[0]):
        h = np.tanh(W @ (h + xs[t]))
    return np.sum(h ** 2)


def zipped(W, xs, ys):
    h = np.zeros(W.shape[0])
    for x, y in zip(xs, ys):  # as many iterations as the shorter one has rows
        h = np.tanh(W @ h + x * y)
    return np.sum(h ** 2)


def nested(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        for k in range(2):
            h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


@pytest.mark.parametrize("f, arrays", [(with_a_break, True), (growing, False),
                                       (zipped, False), (nested, None)],
                         ids=["break", "shape-changing", "zip", "nested"])
def test_loops_the_arrays_are_not_known_right_for_keep_their_lists(f, arrays):
    rng = np.random.default_rng(4)
    W, xs = 0.5 * rng.normal(size=(3, 3)), 0.5 * rng.normal(size=(4, 3))
    args = (W, xs, rng.normal(size=(6, 3))) if f is zipped else (W, xs)
    source = symdiff.source(symdiff.grad(f), *args)
    if arrays is False or f is with_a_break:
        assert "tape = []" in source, source  # (a break: the count is not known before)
    check_grads(f, args, wrt=(0,))
    check_grads(f, (W, xs[:0]) + args[2:], wrt=(0,))


def test_float32_matrices_keep_their_dtype():
    """The states are float64 (h starts as np.zeros): in an array; the float32
    matrices' gradients are summed by the helper that casts."""
    args = {k: v.astype(np.float32) for k, v in _rnn_args(4).items()}
    df = symdiff.grad(rnn.rnn, wrt=("W", "U", "b"))
    source = symdiff.source(df, **args)
    assert "hs = np.zeros((" in source and "_matmul_adjoint_a_sum(W_bar_parts, W)" in source
    got = df(**args)
    assert all(g.dtype == np.float32 for g in got)
    want = rnn.rnn_hand(**{k: v.astype(float) for k, v in args.items()})
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_the_generic_gradient_keeps_its_tape():
    source = symdiff.source(symdiff.grad(rnn.rnn, wrt=("W", "U", "b")))
    assert "tape.append(" in source and "np.empty" not in source


def fewer_steps_than_rows(W, U, xs):
    h = np.zeros(W.shape[0])
    for t in range(W.shape[0]):  # the rows of xs it reads: xs[:n]
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h ** 2)


def reads_its_update(W, U, xs):
    h = np.zeros(W.shape[0])
    for t in range(len(xs)):
        h = np.tanh(W @ h + xs[t])
        h = U @ h  # U's gradient: the adjoint the reverse loop carries, by rows
    return np.sum(h ** 2)


@pytest.mark.parametrize("f, rows", [(fewer_steps_than_rows, "@ xs[:shape0]"),
                                     (reads_its_update, "h_bars[t_1] = h_bar")])
def test_rows_of_a_longer_array_and_of_the_carried_adjoint(f, rows):
    rng = np.random.default_rng(6)
    W, U = 0.5 * rng.normal(size=(3, 3)), 0.5 * rng.normal(size=(3, 3))
    xs = rng.normal(size=(5, 3))
    source = symdiff.source(symdiff.grad(f, wrt=(0, 1)), W, U, xs)
    assert rows in source and "tape = []" not in source, source
    check_grads(f, (W, U, xs), wrt=(0, 1))
    if f is reads_its_update:
        check_grads(f, (W, U, xs[:0]), wrt=(0, 1))


def _pendulum(theta0, omega0, g, L):
    theta, omega = theta0, omega0
    dt = 0.01
    for _ in range(50):
        omega = omega - dt * g / L * np.sin(theta)
        theta = theta + dt * omega
    return theta ** 2 + omega ** 2


def _unrolled_descent(w, X, y):
    lr = 0.1
    for _ in range(5):
        r = X @ w - y
        w = w - lr * X.T @ r / len(y)
    return np.sum((X @ w - y) ** 2)


@pytest.mark.parametrize("f, args, wrt", [
    (_pendulum, (0.3, 0.1, 9.8, 1.2), (0, 3)),
    (_unrolled_descent, (np.array([0.3, -0.2, 0.5]),
                         np.random.default_rng(8).normal(size=(6, 3)),
                         np.random.default_rng(9).normal(size=6)), (0,)),
])
def test_what_every_iteration_computes_alike_is_computed_once_before_the_loop(f, args, wrt):
    """A loop of constant bounds runs: ``dt * g / L`` (or ``lr * X.T`` and
    ``len(y)``) is computed once before it, not saved on the tape in each
    iteration, and its gradient is gathered over the iterations."""
    df = symdiff.grad(f, wrt=wrt)
    source = symdiff.source(df, *args)
    loop = source.split("for _ in range(")[1].split("# L")[0]
    assert "/ L" not in loop and "X.T" not in loop and "len(y)" not in loop, source
    if f is _pendulum:
        assert "tape.append((theta, sin_theta))" in source, source
    else:
        assert "tape = []" not in source, source
    check_grads(f, args, wrt=wrt)


def _spring_chain(x, k):
    E = 0.0
    for i in range(len(x) - 1):
        E = E + 0.5 * k * (x[i + 1] - x[i] - 1.0) ** 2
    return E


def test_a_difference_placed_in_a_loop_is_subtracted_in_place():
    """``x[i + 1] - x[i]`` in a loop: x's gradient takes ``x_bar[i] -= g`` in
    each iteration (was a zero-filled array of x's shape per iteration,
    subtracted whole: quadratic in len(x))."""
    x = np.cumsum(np.random.default_rng(12).random(7) + 0.5)
    df = symdiff.grad(_spring_chain, wrt=(0, 1))
    source = symdiff.source(df, x, 2.0)
    assert "x_bar[i] -= " in source and "np.zeros_like(x)" in source, source
    assert source.count("zeros_like") == 1, source
    check_grads(_spring_chain, (x, 2.0), wrt=(0, 1))


def _assembled_energy(k, u):  # a 1-D finite-element stiffness matrix, assembled
    n = len(u)
    K = np.zeros((n, n))
    for e in range(n - 1):
        for a in range(2):
            for b in range(2):
                K[e + a, e + b] += k[e] * (1.0 if a == b else -1.0)
    return 0.5 * u @ K @ u


def test_an_assembly_s_gradient_does_not_copy_the_matrix_per_entry():
    """The reverse loops read the assembled matrix for its shape alone, which
    is that of the zeros it began as (shape_origins.py): no entry is written
    again in the reverse pass and no n x n copy is made per entry (it was n^3
    work: 2.2 s at n = 400, for a function that takes under a millisecond)."""
    rng = np.random.default_rng(2)
    k, u = rng.uniform(1.0, 2.0, 6), rng.normal(size=7)
    text = symdiff.source(symdiff.grad(_assembled_energy, wrt=0), k, u)
    assert ".copy()" not in text and not re.search(r"append\([^)]*\bK\b", text), text
    check_grads(_assembled_energy, (k, u), wrt=(0,))
    expected = np.array([0.5 * (u[e] - u[e + 1]) ** 2 for e in range(6)])
    np.testing.assert_allclose(symdiff.grad(_assembled_energy, wrt=0)(k, u), expected,
                               rtol=1e-12)


def _advantages_loss(values, rewards, gamma):  # GAE's spelling: the next value or 0
    T = len(rewards)
    adv = np.zeros(T)
    last = 0.0
    for t in reversed(range(T)):
        next_v = values[t + 1] if t + 1 < T else 0.0
        delta = rewards[t] + gamma * next_v - values[t]
        last = delta + gamma * last
        adv[t] = last
    return np.sum(adv ** 2)


def test_every_gradient_a_reverse_loop_places_is_added_into_one_array():
    """GAE: ``values[t + 1]`` read under an ``if``, ``values[t]`` after it.
    Both gradients go into the carried array in place (``if mask:
    values_bar[t + 1] += g``, ``values_bar[t] -= d``), not through a
    zero-filled array of values' shape on each side of the ``if`` and for the
    subtraction, in every iteration (quadratic in the episode's length)."""
    rng = np.random.default_rng(9)
    args = (rng.normal(size=6), rng.normal(size=6), 0.9)
    text = symdiff.source(symdiff.grad(_advantages_loss, wrt=0), *args)
    loop = text.split("reversed(tape)")[-1]
    assert re.search(r"values_bar\[\w+\] -= ", loop) and \
        re.search(r"values_bar\[\w+\] \+= ", loop) and "zeros_like" not in loop, text
    check_grads(_advantages_loss, args, wrt=(0,))
