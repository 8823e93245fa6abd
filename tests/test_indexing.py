"""Every index form NumPy documents gives the right gradient, to the second
order, or is refused when compiling: none is silently wrong.

Repeated positions add up (advanced indexing); a list in an index is
positions, not a tuple of indices (``W[[0, 1]]`` is rows 0 and 1).
"""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from symdiff.errors import NoDerivativeRuleError

W = np.arange(12.0).reshape(4, 3) / 7 + 0.1
MASK = np.array([True, False, True, True])
ROWS = np.array([3, 0, 3])

FORMS = [
    ("integer", lambda a: a[1]),
    ("negative integer", lambda a: a[-1, 0]),
    ("slice", lambda a: a[1:3]),
    ("negative step", lambda a: a[::-1, 1]),
    ("strided slice", lambda a: a[::2, ::2]),
    ("newaxis", lambda a: a[None, 1, :, np.newaxis]),
    ("ellipsis", lambda a: a[..., 1]),
    ("list of rows", lambda a: a[[0, 1]]),
    ("list out of order", lambda a: a[[2, 0]]),
    ("list with repeats", lambda a: a[[0, 1, 0]]),
    ("nested list", lambda a: a[[[0, 1], [3, 3]]]),
    ("list of columns", lambda a: a[:, [0, 2]]),
    ("two lists", lambda a: a[[1, 3, 1], [0, 2, 0]]),
    ("integer array", lambda a: a[ROWS]),
    ("array made inside", lambda a: a[np.array([1, 3])]),
    ("boolean mask", lambda a: a[MASK]),
    ("mask from the values", lambda a: a[a > 0.5]),
    ("mask and slice", lambda a: a[MASK, 1:]),
    ("computed list", lambda a: a[[len(a) - 1, 0]]),
    ("np.ix_", lambda a: a[np.ix_([0, 2], [1, 2])]),
    ("list and integer", lambda a: a[[0, 3], 1]),
]


@pytest.mark.parametrize("name, index", FORMS, ids=[name for name, _ in FORMS])
def test_index_form(name, index):
    check_grads(lambda a: index(a) * 1.5, (W,))


def test_the_generated_index_is_the_one_written():
    source = symdiff.source(symdiff.grad(lambda a: np.sum(a[[0, 1, 0]] ** 2)))
    assert "a[[0, 1, 0]]" in source and "_unindex_add" in source


@pytest.mark.parametrize("spelled", ["r_", "c_"])
def test_index_tricks_of_computed_values_are_refused(spelled):
    join = getattr(np, spelled)

    def f(a):
        return np.sum(join[a[0], a[1]] ** 2)
    with pytest.raises(NoDerivativeRuleError) as info:
        symdiff.grad(f)(W)
    assert "`join[...]`" in info.value.message  # as the user wrote it
    assert ("np.concatenate" if spelled == "r_" else "np.column_stack") in info.value.hint
    assert info.value.lineno == f.__code__.co_firstlineno + 1


def test_index_tricks_of_constants_still_work():
    check_grads(lambda a: a[np.r_[0, 2:4]] * 2.0, (W,))
