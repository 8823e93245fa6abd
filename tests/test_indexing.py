"""Every index form NumPy documents gives the right gradient, to the second
order, or is refused when compiling: none is silently wrong.

Repeated positions add up (advanced indexing); a list in an index is
positions, not a tuple of indices (``W[[0, 1]]`` is rows 0 and 1).
"""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads

W = np.arange(12.0).reshape(4, 3) / 7 + 0.1
A = np.arange(24.0).reshape(4, 3, 2) / 11 + 0.1
V = np.linspace(0.2, 1.5, 8)
MASK = np.array([True, False, True, True])
ROWS = np.array([3, 0, 3])
IDX = np.array([3, 3, -3, 7])
I2 = np.array([[0, 0], [3, 3]])
J2 = np.array([[0, 2], [0, 2]])
PICK = np.array([0, 3])
COLS = np.array([0, 2])


def named_list(a):
    idx = [0, 2]  # a list held by a name is positions too (it once read as a[0, 2])
    return a[idx]


def repeated_list(v):
    return v[[True, False] * 4]  # a list of masks, repeated: still a list


def computed_tuple(a):
    return a[tuple([slice(None), 0])]


# The forms of NumPy's indexing guide (numpy.org/doc/stable/user/basics.indexing),
# each on a matrix W (4, 3), a (4, 3, 2) array A or a vector V.
FORMS = [
    # single elements and chained indexing
    ("integer", lambda a: a[1], W),
    ("negative integer", lambda a: a[-1, 0], W),
    ("chained", lambda a: a[1][2] * a[0][-1], W),
    ("numpy integer", lambda v: v[np.int64(2)] * v, V),
    ("0-d integer array", lambda v: v[np.array(3)] * v, V),
    # slicing and striding
    ("slice", lambda a: a[1:3], W),
    ("strided slice", lambda a: a[::2, ::2], W),
    ("step", lambda v: v[1:7:2], V),
    ("negative start", lambda v: v[-2:10], V),
    ("negative step", lambda v: v[-3:3:-1], V),
    ("reversed", lambda a: a[::-1, 1], W),
    ("slice keeps its axis", lambda a: a[1:2], A),
    ("slice object", lambda v: v[slice(1, 5, 2)], V),
    ("computed bounds", lambda v: v[len(v) - 5:len(v) - 1], V),
    # dimensional indexing tools
    ("ellipsis last", lambda a: a[..., 1], A),
    ("ellipsis first", lambda a: a[1, ...], A),
    ("newaxis", lambda a: a[None, 1, :, np.newaxis], W),
    ("newaxis in the middle", lambda a: a[:, np.newaxis, :], A),
    ("outer difference", lambda v: v[:, None] - v[None, :], V),
    # integer array indexing
    ("list of rows", lambda a: a[[0, 1]], W),
    ("list out of order", lambda a: a[[2, 0]], W),
    ("list with repeats", lambda a: a[[0, 1, 0]], W),
    ("list held by a name", named_list, W),
    ("nested list", lambda a: a[[[0, 1], [3, 3]]], W),
    ("list of columns", lambda a: a[:, [0, 2]], W),
    ("two lists", lambda a: a[[1, 3, 1], [0, 2, 0]], W),
    ("integer array", lambda a: a[ROWS], W),
    ("repeats and negatives", lambda v: v[IDX], V),
    ("array made inside", lambda a: a[np.array([1, 3])], W),
    ("array with a dtype", lambda v: v[np.array([0, 2, 2], dtype=int)], V),
    ("empty index", lambda v: np.sum(v[np.array([], dtype=int)]) + np.sum(v), V),
    ("broadcast index arrays", lambda a: a[I2, J2], A),
    ("computed list", lambda a: a[[len(a) - 1, 0]], W),
    ("np.ix_", lambda a: a[np.ix_([0, 2], [1, 2])], W),
    ("np.ix_ of arrays", lambda a: a[np.ix_(PICK, COLS)], A),
    ("index arrays broadcast by newaxis", lambda a: a[PICK[:, np.newaxis], COLS], A),
    ("positions from the values", lambda v: v[np.argsort(v)][::-1] * v[np.argmax(v)], V),
    # boolean array indexing
    ("boolean mask", lambda a: a[MASK], W),
    ("mask from the values", lambda a: a[a > 0.5], W),
    ("mask of a 3-d array's rows", lambda a: a[MASK], A),
    ("not isnan", lambda v: v[~np.isnan(v)], V),
    ("list of booleans, repeated", repeated_list, V),
    ("0-d boolean", lambda v: v[True] * 2.0, V),
    ("mask and slice", lambda a: a[MASK, 1:], W),
    ("mask and integer", lambda a: a[MASK, 1], A),
    # combining advanced and basic indexing
    ("list and integer", lambda a: a[[0, 3], 1], W),
    ("slice and list", lambda a: a[1:2, [1, 2]], A),
    ("ellipsis and list", lambda a: a[..., [1, 0]], A),
    ("lists apart (their axes go first)", lambda a: a[[0, 1], :, [0, 1]], A),
    ("list in the middle", lambda a: a[:, [0, 2, 2], :], A),
    # variable numbers of indices
    ("tuple index", lambda a: a[(1, 2)], A),
    ("np.s_ index", lambda a: a[np.s_[1:, 0]], A),
    ("tuple() of a list", computed_tuple, A),
    # functions that index
    ("take", lambda a: np.take(a, [2, 0, 2], axis=1), A),
    ("take, flat", lambda a: np.take(a, [5, 1, 5]), A),
    ("take_along_axis", lambda a: np.take_along_axis(a, np.argsort(a, axis=1), axis=1), A),
    ("np.r_ of constants", lambda a: a[np.r_[0, 2:4]], W),
    ("np.r_ of computed values", lambda v: np.r_[v[:2], v[5:]] * 2.0, V),
    ("np.r_ with a number and a range", lambda v: np.r_[v[0], v[3:5], 0:2] * v[:5], V),
    ("np.c_ of computed values", lambda v: np.c_[v, v ** 2] * 2.0, V),
    ("np.c_ of matrices", lambda a: np.c_[a, a[:, :1] ** 2], W),
]


@pytest.mark.parametrize("name, index, x", FORMS, ids=[name for name, _, _ in FORMS])
def test_index_form(name, index, x):
    check_grads(lambda a: index(a) * 1.5, (x,))


def test_the_generated_index_is_the_one_written():
    source = symdiff.source(symdiff.grad(lambda a: np.sum(a[[0, 1, 0]] ** 2)))
    assert "a[[0, 1, 0]]" in source and "_unindex_add" in source


def test_np_r_and_c_are_joins_of_their_parts():
    source = symdiff.source(symdiff.grad(lambda v: np.sum(np.r_[v[:2], v[5:]] ** 2)))
    assert "np.concatenate([" in source and "np.atleast_1d(v_part)" in source


@pytest.mark.parametrize("f, words", [
    (lambda v: np.sum(v.flat[1:3]), ".ravel()"),
    (lambda v: np.sum(np.r_["0,2", v, v]), "directive"),
])
def test_what_is_refused_is_refused_when_compiling(f, words):
    with pytest.raises(symdiff.SymdiffError) as info:
        symdiff.grad(f)(V)
    assert words in str(info.value) and info.value.lineno is not None
