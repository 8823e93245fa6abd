"""Statements written as a careful person writes them: a loop over a
sequence's items as the user wrote it (``for x in xs:``), a transpose where it
is read (``h @ W.T``, not ``W_t = W.T`` before the loop), an adjoint read once
folded into the line reading it where that line stays under 79 columns, a
solve's vector right-hand side a vector (``np.outer(alpha, alpha)``) and
cho_factor's factor passed to the routines that read only its triangle as it
is (no mask multiplied in). Each form's derivatives are checked against
central differences (check_grads), so a rewrite that changed a value fails.
"""
import re

import numpy as np
import scipy.linalg

import symdiff
from check_grads import check_grads

RNG = np.random.default_rng(11)


def _code(text):
    """The lines of code: no docstring, no comments."""
    body = text.split('"""')[-1]
    return "\n".join(line.split("  #")[0] for line in body.splitlines()
                     if line.strip() and not line.strip().startswith("#"))


def rnn_rows(W, U, xs):
    h = np.zeros(W.shape[0])
    for x in xs:
        h = np.tanh(np.dot(W, h) + np.dot(U, x))
    return np.sum(h ** 2)


def running_sum(w, xs):
    total = 0.0
    for x in xs:
        total = total + np.sin(w * x)
    return np.sum(total)


def rnn_row_vectors(W, U, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W.T + xs[t] @ U.T)
    return np.sum(h ** 2)


def _rnn_args():
    return 0.4 * RNG.normal(size=(4, 4)), RNG.normal(size=(4, 3)), RNG.normal(size=(5, 3))


def test_a_loop_over_items_is_written_as_the_user_wrote_it():
    args = _rnn_args()
    code = _code(symdiff.source(symdiff.grad(rnn_rows, wrt=(0, 1)), *args))
    # (the index is read by the tape the gradient saves: enumerate gives both)
    assert re.search(r"for (\w+), x in enumerate\(xs\):", code), code
    assert "= xs[" not in code, code
    check_grads(rnn_rows, args, wrt=(0, 1))
    w, xs = RNG.normal(size=3), RNG.normal(size=(4, 3))
    code = _code(symdiff.source(symdiff.grad(running_sum, wrt=0), w, xs))
    assert "for x in xs:" in code and "= xs[" not in code, code
    check_grads(running_sum, (w, xs), wrt=(0,))


def test_a_transpose_moved_out_of_a_loop_is_written_where_it_is_read():
    args = _rnn_args()
    code = _code(symdiff.source(symdiff.grad(rnn_row_vectors, wrt=(0, 1)), *args))
    assert "h @ W.T + xs[t] @ U.T" in code, code
    assert not re.search(r"^\s*\w+ = [WU]\.T$", code, flags=re.M), code
    check_grads(rnn_row_vectors, args, wrt=(0, 1))


def mlp(W1, W2, X, Y):
    h = np.tanh(X @ W1)
    logits = h @ W2
    return np.sum((logits - Y) ** 2)


def test_an_adjoint_read_once_is_folded_into_its_reader():
    args = (RNG.normal(size=(3, 5)), RNG.normal(size=(5, 2)), RNG.normal(size=(6, 3)),
            RNG.normal(size=(6, 2)))
    code = _code(symdiff.source(symdiff.grad(mlp, wrt=(0, 1)), *args))
    assert not re.search(r"\bh_bar\b", code), code
    assert re.search(r"\(1\.0 - h \*\* 2\) \* \(\w+ @ W2\.T\)", code), code
    check_grads(mlp, args, wrt=(0, 1))


def gp_cho_solve(K, y):
    factor = scipy.linalg.cho_factor(K, lower=True)
    alpha = scipy.linalg.cho_solve(factor, y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(factor[0])))


def gp_triangular(K, y):
    L = np.linalg.cholesky(K)
    v = scipy.linalg.solve_triangular(L, y, lower=True)
    return 0.5 * np.sum(v * v) + np.sum(np.log(np.diag(L)))


def _spd(n):
    a = RNG.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def test_a_vector_right_hand_side_stays_a_vector():
    K, y = _spd(5), RNG.normal(size=5)
    for f in (gp_cho_solve, gp_triangular):
        code = _code(symdiff.source(symdiff.grad(f, wrt=0), K, y))
        assert "[:, None]" not in code and ".mT" not in code, code
        assert "np.outer(" in code, code
        check_grads(f, (K, y), wrt=(0,))
    # a matrix right-hand side: columns, as the rule writes them
    Y = RNG.normal(size=(5, 2))
    code = _code(symdiff.source(symdiff.grad(gp_triangular, wrt=0), K, Y))
    assert "np.outer(" not in code, code
    check_grads(gp_triangular, (K, Y), wrt=(0,))


def test_cho_factor_s_factor_goes_to_potri_as_it_is():
    """potri reads the factor's triangle only: cho_factor's other triangle
    (a's entries) needs no mask multiplied in first; the whole gradient is
    K^-1 - alpha alpha^T on the lower triangle, half on the diagonal."""
    K, y = _spd(6), RNG.normal(size=6)
    code = _code(symdiff.source(symdiff.grad(gp_cho_solve, wrt=0), K, y))
    potri = re.search(r"dpotri\((\w+), lower=True\)", code)
    assert potri and not re.search(rf"^\s*{potri.group(1)} = .*\*", code, flags=re.M), code
    inverse = np.linalg.inv(K)
    alpha = np.linalg.solve(K, y)
    expected = (inverse - np.outer(alpha, alpha)) * (np.tri(6) - 0.5 * np.eye(6))
    np.testing.assert_allclose(symdiff.grad(gp_cho_solve, wrt=0)(K, y), expected,
                               rtol=1e-10, atol=1e-12)
    check_grads(gp_cho_solve, (K, y), wrt=(0,))


def rnn_range(W, U, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h ** 2)


def test_each_line_s_comment_heads_one_block_around_a_loop():
    """The reverse loop's saved rows belong to the line computing them, and
    the gradients gathered after the loop to the loop's block: ``# Lnn`` of
    the ``for`` line once (it was above the tape, inside the loop again, and
    after it)."""
    args = _rnn_args()
    text = symdiff.source(symdiff.grad(rnn_range, wrt=(0, 1)), *args)
    comments = re.findall(r"^\s*# (L\d+):", text, flags=re.M)
    assert len(comments) == len(set(comments)), text
    check_grads(rnn_range, args, wrt=(0, 1))


def rnn_projected(W, U, xs):
    inputs = xs @ U.T
    h = np.zeros(W.shape[0])
    for t in range(len(xs)):
        h = np.tanh(W @ h + inputs[t])
    return np.sum(h ** 2)


def rnn_projected_part(W, U, xs):  # the loop reads only some rows: zeros elsewhere
    inputs = xs @ U.T
    h = np.zeros(W.shape[0])
    for t in range(len(xs) - 2):
        h = np.tanh(W @ h + inputs[t])
    return np.sum(h ** 2)


def test_a_gradient_placed_row_by_row_into_zeros_is_the_loop_s_rows():
    """``inputs_bar[t] += t_bar`` in a reverse loop over every row, with the
    rows of ``t_bar`` saved for ``W``'s gradient anyway: ``inputs_bar`` is
    those rows (one array, not a second filled with the same rows)."""
    args = _rnn_args()
    code = _code(symdiff.source(symdiff.grad(rnn_projected, wrt=(0, 1)), *args))
    assert "zeros_like" not in code and "+=" not in code, code
    check_grads(rnn_projected, args, wrt=(0, 1))
    # rows the loop does not reach keep their zeros
    check_grads(rnn_projected_part, args, wrt=(0, 1))


def rnn_from(W, U, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h ** 2)


def test_states_that_start_at_zeros_are_saved_into_zeros():
    """The saved states of a loop whose state starts at ``np.zeros``: one
    array made with np.zeros, no ``hs[0] = h``; a state from an argument is
    written first."""
    args = _rnn_args()
    code = _code(symdiff.source(symdiff.grad(rnn_range, wrt=(0, 1)), *args))
    assert re.search(r"hs = np\.zeros\(\(", code) and "hs[0] =" not in code, code
    check_grads(rnn_range, args, wrt=(0, 1))
    h0 = RNG.normal(size=4)
    code = _code(symdiff.source(symdiff.grad(rnn_from, wrt=(0, 1, 3)), *args, h0))
    assert "hs[0] = h" in code and "np.zeros((" not in code, code
    check_grads(rnn_from, args + (h0,), wrt=(0, 1, 3))


def gated_steps(Wz, Wh, xs):  # a GRU-like cell: the state joined with the input
    h = np.zeros(Wz.shape[0])
    for x in xs:
        z = 1.0 / (1.0 + np.exp(-(Wz @ np.concatenate([h, x]))))
        h = (1 - z) * h + z * np.tanh(Wh @ np.concatenate([h, x]))
    return np.sum(h ** 2)


def test_a_slice_read_as_an_index_is_written_where_it_is_read():
    """The state's part of a joined vector's gradient is ``g[:h.shape[0]]``
    where it is read, not a named ``slice(0, h.shape[0], None)``."""
    args = (0.3 * RNG.normal(size=(3, 5)), 0.3 * RNG.normal(size=(3, 5)),
            RNG.normal(size=(4, 2)))
    code = _code(symdiff.source(symdiff.grad(gated_steps, wrt=(0, 1)), *args))
    assert "slice(" not in code and "[:h.shape[0]]" in code, code
    check_grads(gated_steps, args, wrt=(0, 1))
