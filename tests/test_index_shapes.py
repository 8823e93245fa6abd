"""Shapes through advanced indexing, in a gradient specialised for its
arguments: ``z[np.arange(n), labels]``, the two halves of ``np.triu_indices``,
``P[1:] - P[:-1]`` of a matrix. Where the shapes follow from the arguments'
signature, the gradient has no broadcasting or indexing helper, and an index
whose positions cannot repeat is written in place (``z_bar[rows, labels] -=
c``) rather than by ``np.add.at``. Patterns are checked against NumPy's own
result shapes; gradients against central differences."""
import re

import numpy as np
import pytest
import scipy.special as scipy_special

import symdiff
from check_grads import check_grads
from numeric import numeric_grad
from symdiff.ir import patterns as pat
from symdiff.ir.indexing import indexed

RNG = np.random.default_rng(23)


# ---- patterns of x[index] against NumPy's result shapes ----------------------------------
def _take(shape):
    return ("take", pat.named_patterns([shape])[0]), np.zeros(shape, dtype=int)


@pytest.mark.parametrize("x_shape, parts", [
    ((4, 5), [_take((3,)), _take((3,))]),                    # z[rows, cols]
    ((4, 5, 6), [slice(None), _take((2, 3))]),               # x[:, i] with i of (2, 3)
    ((4, 5, 6), [_take((3,)), slice(None), _take((3,))]),    # not adjacent: advanced first
    ((4, 5, 6), [0, slice(None), _take((3,))]),              # an int joins the advanced group
    ((4, 5, 6), [_take((3,)), 0]),                           # adjacent with an int
    ((4, 5), [None, _take((2,))]),                           # a new axis before
    ((4, 5, 6), [Ellipsis, _take((3,))]),                    # after an ellipsis
    ((4, 1), [_take((3,)), slice(None)]),                    # a length-one axis kept
])
def test_patterns_of_advanced_indices_match_numpy(x_shape, parts):
    pattern = pat.named_patterns([x_shape])[0]
    symbolic = [p[0] if type(p) is tuple else p for p in parts]
    concrete = tuple(p[1] if type(p) is tuple else p for p in parts)
    # (names of the index arrays: ``named_patterns`` of their own shapes, checked by rank
    # and by the axes of length one, which is what a pattern promises)
    found = indexed(pattern, symbolic)
    shape = np.zeros(x_shape)[concrete].shape
    assert found is not None and len(found) == len(shape), (found, shape)
    assert all((entry == 1) == (n == 1) for entry, n in zip(found, shape) if entry is not None)


def test_a_mask_gives_an_axis_of_unknown_length():
    found = indexed(("a", "b", "c"), [("mask", 2)])
    assert found == (None, "c")
    assert np.zeros((4, 5, 6))[np.ones((4, 5), bool)].shape == (20, 6)


# ---- generated code ------------------------------------------------------------------------
def cross_entropy_of_labels(W, X, labels):
    z = X @ W
    return np.mean(scipy_special.logsumexp(z, axis=1) - z[np.arange(X.shape[0]), labels])


def pair_energy(P):
    i, j = np.triu_indices(P.shape[0], 1)
    r2 = np.sum((P[i] - P[j]) ** 2, axis=1)
    return np.sum(1.0 / r2 ** 3)


def chain_of_springs(P, rest):
    d = P[1:] - P[:-1]
    return 0.5 * np.sum((np.linalg.norm(d, axis=1) - rest) ** 2)


W = RNG.normal(size=(4, 3))
X = RNG.normal(size=(10, 4))
LABELS = np.array([0, 2, 1, 1, 0, 2, 2, 1, 0, 0])
P = RNG.normal(size=(5, 3)) * 2.0
CASES = [(cross_entropy_of_labels, (W, X, LABELS)), (pair_energy, (P,)),
         (chain_of_springs, (P, 0.5))]
HELPERS = ("_sum_to", "_unindex", "_unreduce", "full_like", "expand_dims")


@pytest.mark.parametrize("f, args", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_gradients_match_central_differences_with_no_helper(f, args):
    df = symdiff.grad(f)
    np.testing.assert_allclose(df(*args), numeric_grad(f, args), rtol=1e-6, atol=1e-8)
    source = symdiff.source(df, *args)
    assert not [h for h in HELPERS if h in source], source


def test_distinct_positions_are_written_in_place():
    """Rows ``np.arange(n)`` with one label each name distinct entries: no
    np.add.at (which is slower), one subtraction into the softmax's array."""
    source = symdiff.source(symdiff.grad(cross_entropy_of_labels), W, X, LABELS)
    assert "np.add.at" not in source and "labels] -= " in source, source


def test_positions_that_may_repeat_are_added_up():
    """``P[i]`` and ``P[j]`` of the pairs of rows: a row appears in many pairs."""
    source = symdiff.source(symdiff.grad(pair_energy), P)
    assert source.count("np.add.at(P_bar, ") == 2 and "np.zeros_like(P)" in source, source


def test_labels_that_repeat_a_row_are_added_up():
    """The same row twice (not ``np.arange``): its gradient is the sum of both."""
    def picked(z, rows, cols):
        return np.sum(z[rows, cols] ** 2)

    z = RNG.normal(size=(3, 4))
    rows, cols = np.array([0, 0, 2]), np.array([1, 1, 3])
    df = symdiff.grad(picked)
    np.testing.assert_allclose(df(z, rows, cols), numeric_grad(picked, (z, rows, cols)),
                               rtol=1e-6, atol=1e-8)
    assert "np.add.at" in symdiff.source(df, z, rows, cols)


def test_a_single_row_of_pairs_still_broadcasts_right():
    """Two points: one pair, rows of length one; three points: three pairs."""
    for n in (2, 3):
        points = RNG.normal(size=(n, 2))
        np.testing.assert_allclose(symdiff.grad(pair_energy)(points),
                                   numeric_grad(pair_energy, (points,)), rtol=1e-6)


def packed_covariance(L_flat, X):
    n = X.shape[1]
    L = np.zeros((n, n))
    L[np.tril_indices(n)] = L_flat
    S = L @ L.T + 1e-3 * np.eye(n)
    sign, logdet = np.linalg.slogdet(S)
    return logdet + np.trace(np.linalg.solve(S, X.T @ X)) / X.shape[0]


def test_values_written_at_distinct_positions_read_their_gradient_back():
    """``L[np.tril_indices(n)] = L_flat``: each position once, so L_flat's
    gradient is ``L_bar[tril_indices]`` (no helper for repeated positions);
    a trace of a matrix is a number, so no check of the result's shape."""
    args = (RNG.normal(size=6), RNG.normal(size=(8, 3)))
    df = symdiff.grad(packed_covariance)
    np.testing.assert_allclose(df(*args), numeric_grad(packed_covariance, args), rtol=1e-6)
    source = symdiff.source(df, *args)
    assert "_assigned" not in source and "_require_scalar" not in source, source
    assert "L_bar[tril_indices]" in source, source


# ---- patterns of values whose axes move, against NumPy -----------------------------------
class _Facts:
    """What the pattern functions read: the pattern of each operand."""

    def __init__(self, *patterns):
        self.patterns = dict(enumerate(patterns))

    def pattern(self, atom):
        return self.patterns[atom]


class _Op:
    def __init__(self, prim, count, **params):
        self.prim, self.args, self.params = prim, tuple(range(count)), params

    def param(self, name, default=None):
        return self.params.get(name, default)


def _named(*shapes):
    return pat.named_patterns(shapes)


def _agrees(found, shape, names):
    """``found`` says what ``shape`` is: its rank, its ones, its named lengths."""
    return found is not None and len(found) == len(shape) and all(
        (entry == 1) == (n == 1) and (not pat.is_named(entry) or names[entry] == n)
        for entry, n in zip(found, shape) if entry is not None)


@pytest.mark.parametrize("shape, source, destination", [
    ((2, 3, 4), 0, 1), ((2, 3, 4), 0, -1), ((2, 3, 4), -1, 0), ((2, 3, 4), (0, 1), (2, 0)),
    ((2, 1, 4), (0, 2), (1, 0))])
def test_moveaxis_patterns_match_numpy(shape, source, destination):
    from symdiff.rules.axis_patterns import moved_pattern
    (pattern,) = _named(shape)
    names = dict(zip(pattern, shape))
    found = moved_pattern(_Op("moveaxis", 1, source=source, destination=destination),
                          _Facts(pattern))
    assert _agrees(found, np.moveaxis(np.zeros(shape), source, destination).shape, names)


@pytest.mark.parametrize("axis1, axis2", [(0, 1), (0, -1), (2, 1)])
def test_swapaxes_patterns_match_numpy(axis1, axis2):
    from symdiff.rules.axis_patterns import swapped_axes_pattern
    (pattern,) = _named((2, 3, 4))
    found = swapped_axes_pattern(_Op("swapaxes", 1, axis1=axis1, axis2=axis2), _Facts(pattern))
    assert _agrees(found, np.swapaxes(np.zeros((2, 3, 4)), axis1, axis2).shape,
                   dict(zip(pattern, (2, 3, 4))))


@pytest.mark.parametrize("shapes, axis", [(((3, 4), (3, 4)), 0), (((3, 4), (3, 4)), -1),
                                          (((3,), (3,), (3,)), 1), (((1, 4),), 0)])
def test_stack_patterns_match_numpy(shapes, axis):
    from symdiff.rules.axis_patterns import stacked_pattern
    patterns = [_named(s)[0] for s in shapes]  # (each named alike: one shape)
    found = stacked_pattern(_Op("stack", len(shapes), axis=axis), _Facts(*patterns))
    made = np.stack([np.zeros(s) for s in shapes], axis=axis).shape
    assert _agrees(found, made, dict(zip(patterns[0], shapes[0])))


@pytest.mark.parametrize("shapes, axis", [(((3, 4), (2, 4)), 0), (((3, 4), (3, 1)), 1),
                                          (((5,), (2,)), 0)])
def test_concatenate_patterns_match_numpy(shapes, axis):
    from symdiff.rules.axis_patterns import joined_pattern
    patterns = _named(*shapes)
    names = {}
    for p, s in zip(patterns, shapes):
        names.update(zip(p, s))
    found = joined_pattern(_Op("concatenate", len(shapes), axis=axis), _Facts(*patterns))
    made = np.concatenate([np.zeros(s) for s in shapes], axis=axis).shape
    assert _agrees(found, made, names) and found[axis] is None


def multiclass_hinge(W, X, labels):
    S = X @ W
    rows = np.arange(len(labels))
    margins = np.maximum(0.0, S - S[rows, labels][:, None] + 1.0)
    margins[rows, labels] = 0.0
    return np.sum(margins) / len(labels)


def test_a_gradient_read_for_the_value_placed_in_it_is_written_in_place():
    """The label's own entry gets minus the row's sum: ``t_bar[rows, labels]
    -= t_bar.sum(axis=1)`` (the sum is taken before the write), no zeroed
    array and no third array for the difference."""
    W, X = RNG.normal(size=(3, 4)), RNG.normal(size=(6, 3))
    labels = np.array([0, 3, 1, 1, 2, 0])
    df = symdiff.grad(multiclass_hinge)
    np.testing.assert_allclose(df(W, X, labels), numeric_grad(multiclass_hinge, (W, X, labels)),
                               rtol=1e-6, atol=1e-8)
    source = symdiff.source(df, W, X, labels)
    assert "zeros_like" not in source and "labels] -= " in source, source


def test_the_sum_of_a_negated_gradient_is_negated_once():
    """``rest_bar = -t.sum()``, not ``(-t).sum()``: one negation, not one per entry."""
    source = symdiff.source(symdiff.grad(chain_of_springs, wrt=(0, 1)), P, 0.5)
    assert "(-t).sum()" not in source and "rest_bar = -t.sum()" in source, source


@pytest.mark.parametrize("shape, k, axes", [
    ((2, 3), 1, (0, 1)), ((2, 3), 2, (0, 1)), ((2, 3), -1, (0, 1)), ((2, 3, 4), 1, (0, 2)),
    ((2, 3, 4), 3, (2, 1)), ((1, 3), 1, (0, 1))])
def test_rot90_patterns_match_numpy(shape, k, axes):
    from symdiff.rules.axis_patterns import rotated_pattern
    (pattern,) = _named(shape)
    found = rotated_pattern(_Op("rot90", 1, k=k, axes=axes), _Facts(pattern))
    assert _agrees(found, np.rot90(np.zeros(shape), k, axes).shape, dict(zip(pattern, shape)))


@pytest.mark.parametrize("shape, index", [
    ((4, 5), (slice(None, None, -1),)), ((4, 5), (slice(None, None, -1), slice(None, None, -1))),
    ((4, 5), (slice(None), slice(None, None, -1))), ((1, 5), (slice(None, None, -1), 0)),
    ((4, 5), (slice(None, None, -2),)), ((4, 5), (slice(1, None, -1),))])
def test_patterns_of_reversed_slices_match_numpy(shape, index):
    from symdiff.ir.patterns import indexed as basic_indexed
    (pattern,) = _named(shape)
    found = basic_indexed(pattern, list(index))
    made = np.zeros(shape)[index].shape
    assert found is not None and len(found) == len(made)
    names = dict(zip(pattern, shape))
    assert all(entry is None or (entry == 1) == (n == 1) and
               (not pat.is_named(entry) or names[entry] == n)
               for entry, n in zip(found, made)), (found, made)


@pytest.mark.parametrize("rows", [((1.0, 2.0, 3.0), (4.0, 5.0, 6.0)), ((1.0,), (2.0,)),
                                  ((1.0, 2.0),)])
def test_patterns_of_arrays_of_rows_of_numbers_match_numpy(rows):
    from symdiff.ir.nodes import Const
    from symdiff.rules.axis_patterns import stacked_pattern

    class _Rows(_Facts):
        def producer(self, atom):
            return None
    op = _Op("array", len(rows))
    op.args = tuple(Const(r) for r in rows)
    found = stacked_pattern(op, _Rows())
    made = np.array(rows).shape
    assert found is not None and len(found) == len(made)
    assert all((entry == 1) == (n == 1) for entry, n in zip(found, made)), (found, made)


@pytest.mark.parametrize("x_shape, i_shape, axis", [
    ((4, 5), (4, 1), 1), ((4, 5), (1, 5), 0), ((4, 5), (4, 3), -1), ((2, 3, 4), (2, 3, 1), 2),
    ((4, 1), (4, 3), 1)])
def test_take_along_axis_patterns_match_numpy(x_shape, i_shape, axis):
    from symdiff.rules.ordering import _taken_along_pattern
    x_pattern, i_pattern = pat.named_patterns([x_shape, i_shape])
    found = _taken_along_pattern(_Op("take_along_axis", 2, axis=axis),
                                 _Facts(x_pattern, i_pattern))
    made = np.take_along_axis(np.zeros(x_shape), np.zeros(i_shape, dtype=int), axis=axis).shape
    names = dict(zip(x_pattern + i_pattern, x_shape + i_shape))
    assert found is not None and len(found) == len(made), (found, made)
    assert all(entry is None or (entry == 1) == (n == 1) and
               (not pat.is_named(entry) or names[entry] == n)
               for entry, n in zip(found, made)), (found, made)


@pytest.mark.parametrize("shape, axis", [((3, 1, 4), None), ((3, 1, 4), 1), ((1, 5), 0),
                                         ((2, 3), None), ((1, 1), (0, 1))])
def test_squeeze_patterns_match_numpy(shape, axis):
    from symdiff.rules.axis_patterns import squeezed_pattern
    (pattern,) = _named(shape)
    found = squeezed_pattern(_Op("squeeze", 1, axis=axis), _Facts(pattern))
    assert _agrees(found, np.squeeze(np.zeros(shape), axis=axis).shape,
                   dict(zip(pattern, shape)))


@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 3, 4)])
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_atleast_patterns_match_numpy(shape, rank):
    from symdiff.rules.axis_patterns import at_least_pattern
    (pattern,) = _named(shape) if shape else ((),)
    found = at_least_pattern(rank)(_Op(f"atleast_{rank}d", 1), _Facts(pattern))
    made = getattr(np, f"atleast_{rank}d")(np.zeros(shape)).shape
    assert _agrees(found, made, dict(zip(pattern, shape)))


@pytest.mark.parametrize("shape, n, axis", [((5,), 1, -1), ((3, 5), 2, 0), ((3, 5), 1, 1)])
def test_diff_patterns_match_numpy(shape, n, axis):
    from symdiff.rules.axis_patterns import differenced_pattern
    (pattern,) = _named(shape)
    found = differenced_pattern(_Op("diff", 1, n=n, axis=axis), _Facts(pattern))
    assert _agrees(found, np.diff(np.zeros(shape), n=n, axis=axis).shape,
                   dict(zip(pattern, shape)))


# ---- joins: np.hstack, np.vstack, np.column_stack -------------------------------------------
def _with_intercept(w, X, y):
    Xb = np.hstack([np.ones((X.shape[0], 1)), X])
    return np.sum((Xb @ w - y) ** 2)


def _side_by_side(A, B):
    M = np.hstack([A, B])
    return np.sum(np.tanh(M @ np.ones(M.shape[1])))


def _rows_on_rows(A, B):
    return np.sum(np.sin(np.vstack([A, B])) ** 2)


def _end_to_end(a, b):
    return np.sum(np.exp(np.hstack([a, b])))


@pytest.mark.parametrize("f, args", [
    (_with_intercept, (RNG.normal(size=4), RNG.normal(size=(6, 3)), RNG.normal(size=6))),
    (_side_by_side, (RNG.normal(size=(3, 2)), RNG.normal(size=(3, 4)))),
    (_rows_on_rows, (RNG.normal(size=(2, 3)), RNG.normal(size=(4, 3)))),
    (_end_to_end, (RNG.normal(size=3), RNG.normal(size=5))),
])
def test_a_join_has_the_pattern_of_its_parts_and_gives_blocks_of_its_gradient(f, args):
    """A bias column by np.hstack: the rest of the gradient knows its shape
    (was _sum_to, np.full_like of a square and _matmul_adjoint_b); each
    part's gradient is its block of the join's (was np.atleast_2d, a shape
    of it, and a reshape)."""
    df = symdiff.grad(f, wrt=tuple(range(len(args))) if f is not _with_intercept else 0)
    source = symdiff.source(df, *args)
    for helper in ("_sum_to", "_matmul_adjoint", "full_like", "atleast_2d", "reshape"):
        assert helper not in source, source
    got = df(*args)
    for k in range(len(args) if f is not _with_intercept else 1):
        np.testing.assert_allclose(got[k] if f is not _with_intercept else got,
                                   numeric_grad(f, list(args), wrt=k), rtol=1e-6, atol=1e-8)


def _trailing_axis(x, w):
    return np.sum(np.tanh(x[..., None] * w))


@pytest.mark.parametrize("x", [RNG.normal(size=4), RNG.normal(size=(2, 3))])
def test_an_ellipsis_that_only_adds_an_axis_is_summed_back(x):
    """``x[..., None]``: its gradient is the gradient's sum over the new axis,
    as for ``x[:, None]`` (was ``np.zeros_like(x)`` and a write into
    ``x_bar[..., None]``)."""
    w = RNG.normal(size=3)
    df = symdiff.grad(_trailing_axis)
    source = symdiff.source(df, x, w)
    assert "zeros_like" not in source and "x_bar[" not in source, source
    np.testing.assert_allclose(df(x, w), numeric_grad(_trailing_axis, [x, w]), rtol=1e-6,
                               atol=1e-8)


def _label_loss_take(W, X, y):
    z = X @ W
    lse = np.log(np.sum(np.exp(z), axis=1))
    picked = np.take_along_axis(z, y[:, None], axis=1)[:, 0]
    return np.mean(lse - picked)


def _two_picks(W, X, idx):  # two positions per row, which may repeat: they add
    z = X @ W
    return np.sum(np.take_along_axis(z, idx, axis=1) ** 2)


def test_one_position_per_row_taken_along_an_axis_is_written_back_by_indexing():
    """The gradient of ``np.take_along_axis(z, y[:, None], axis=1)[:, 0]`` is
    the label's entry of each row: ``z_bar[np.arange(n)[:, None], y[:, None]]
    -= 1.0 / n`` into the softmax's, no helper and no take for its shape;
    several positions per row (which may repeat) still add up."""
    rng = np.random.default_rng(5)
    W, X, y = 0.3 * rng.normal(size=(4, 3)), rng.normal(size=(6, 4)), rng.integers(0, 3, 6)
    text = symdiff.source(symdiff.grad(_label_loss_take, wrt=0), W, X, y)
    assert "_untake_along_axis" not in text and "take_along_axis" not in text.split('"""')[-1]
    assert "[np.arange(" in text, text
    check_grads(_label_loss_take, (W, X, y), wrt=(0,))
    idx = np.array([[0, 0], [1, 2], [2, 2], [0, 1], [1, 1], [2, 0]])
    check_grads(_two_picks, (W, X, idx), wrt=(0,))


def _one_output_column(W1, W2, X, y):
    out = np.tanh(X @ W1) @ W2  # (n, 1)
    return np.mean((out[:, 0] - y) ** 2)


def test_a_column_read_whole_has_its_gradient_as_a_column():
    """``out[:, 0]`` of an (n, 1) ``out`` reads every entry: its gradient is
    ``g[:, None]``, not zeros of out's shape with a column written."""
    rng = np.random.default_rng(6)
    args = (rng.normal(size=(3, 4)), rng.normal(size=(4, 1)), rng.normal(size=(6, 3)),
            rng.normal(size=6))
    text = symdiff.source(symdiff.grad(_one_output_column, wrt=(0, 1)), *args)
    assert "zeros_like" not in text and "[:, None]" in text, text
    check_grads(_one_output_column, args, wrt=(0, 1))


def _wrapped_neighbours(values, gamma):
    T = len(values)
    out = np.zeros(T)
    last = 0.0
    for t in range(T - 1, -1, -1):
        last = values[(t + 1) % T] - values[t] + gamma * last
        out[t // 1] = last
    return np.sum(out ** 2)


def test_an_index_computed_with_remainders_of_integers_is_an_integer():
    """``(t + 1) % T`` and ``t // 1`` of Python ints are ints (their dtype was
    taken as float): ``values[(t + 1) % T]`` is a number of known shape, so
    the specialised gradient saves no shapes and calls no ``_sum_to``."""
    rng = np.random.default_rng(10)
    args = (rng.normal(size=5), 0.9)
    text = symdiff.source(symdiff.grad(_wrapped_neighbours, wrt=0), *args)
    assert "_sum_to" not in text and not re.search(r"\.shape\b|_shape\b|np\.shape\(", text), text
    check_grads(_wrapped_neighbours, args, wrt=(0,))
