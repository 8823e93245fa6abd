"""Writes into arrays: ``out[i] = v``, ``out[mask] += v``, ``A[:, j] -= v``,
``np.add.at``, in loops and branches, compute what NumPy computes and are
differentiated correctly (to the second order, against central
differences); generated code writes them in place where nothing can tell, so
a loop filling an array stays O(n); what would change the caller's array, or
would differ from NumPy (a view read after its array was written), is refused
with the reason."""
import time

import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from numeric import numeric_grad
from symdiff.errors import InPlaceWriteError, NonFloatArgumentError

X = np.array([0.5, -1.0, 2.0, 0.3, 1.2])
M = np.arange(12.0).reshape(3, 4) / 7 - 0.4


def euler(k, x0):
    n = 8
    x = np.zeros(n)
    x[0] = x0
    for i in range(1, n):
        x[i] = x[i - 1] - k * x[i - 1] * 0.1
    return np.sum(x ** 2)


def trajectory(W, s0):
    traj = np.empty((5, 3))
    traj[0] = s0
    for t in range(1, 5):
        traj[t, :] = np.tanh(W @ traj[t - 1])
    return np.sum(traj[1:] ** 2) + np.sum(traj[:, 0])


def stencil(u):
    for step in range(3):
        new = u.copy()
        new[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u = new
    return np.sum(u ** 3)


def masked(x):
    y = x.copy()
    y[y > 0.4] = 0.0
    y[x < 0.0] = x[x < 0.0] ** 2
    return np.sum(y * x)


def repeated(x):
    y = x * 2.0
    y[[0, 0, 1]] = x[:3] ** 2        # NumPy keeps one value per position
    y[[2, 2, 4]] += np.sin(x[1:4])   # a[i] = a[i] + v: the repeat adds once
    return np.sum(y ** 2)


def columns(A, v):
    A = A * 1.0
    for j in range(A.shape[1]):
        A[:, j] -= v[j] * A[:, 0]
    return np.sum(A ** 2)


def branches(x):
    out = np.zeros_like(x)
    for i in range(len(x)):
        if x[i] > 0.4:
            out[i] = x[i] ** 2
        else:
            out[i] = np.sin(x[i]) * out[i - 1]
    return np.sum(out * x)


def scatter_add(x):
    out = np.zeros(3)
    np.add.at(out, [0, 2, 0, 2], x[:4])
    np.add.at(out, np.s_[1:], x[3:] * 2.0)
    return np.sum(out ** 2)


def nested_target(A):
    B = np.zeros((3, 4))
    for i in range(3):
        B[i][1:] = A[i, :3] * A[i, 3]
    return np.sum(B ** 2)


def other_name_follows(x):
    g = x * 2.0
    k = g
    g[1:3] = x[:2] ** 2
    return np.sum(k * x)


def broadcast_value(x):
    out = np.ones((2, 5))
    out[:, 1:4] = x[:3]           # one row, written into both
    out[0, ::2] = np.sum(x)       # a scalar, into three places
    return np.sum(out ** 2)


def tuple_target(x):
    out = np.zeros(3)
    out[0], out[2] = x[0] * x[1], np.cos(x[2])
    return np.sum(out * np.arange(1.0, 4.0))


def in_a_branch(x, flag):
    y = x.copy()
    if flag > 0:
        y[0] = 3.0 * x[1]
    return np.sum(y ** 2)


CASES = [
    (euler, (0.3, 1.5)),
    (trajectory, (M[:, :3], np.array([0.2, -0.4, 0.6]))),
    (stencil, (X,)),
    (masked, (X,)),
    (repeated, (X,)),
    (columns, (M, np.array([0.5, -0.2, 0.3, 0.9]))),
    (branches, (X,)),
    (scatter_add, (X,)),
    (nested_target, (M,)),
    (other_name_follows, (X,)),
    (broadcast_value, (X,)),
    (tuple_target, (X,)),
    (in_a_branch, (X, 1.0)),
    (in_a_branch, (X, -1.0)),
]


@pytest.mark.parametrize("f, args", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in
                                                enumerate(CASES)])
def test_the_value_is_numpy_s_and_the_derivatives_are_right(f, args):
    wrt = tuple(i for i, a in enumerate(args) if not (f is in_a_branch and i == 1))
    value, _ = symdiff.value_and_grad(f, wrt=wrt)(*args)
    assert np.isclose(value, f(*(np.copy(a) for a in args)), rtol=1e-13)
    check_grads(f, args, wrt=wrt)


def test_a_loop_filling_an_array_is_written_in_place_and_stays_linear():
    source = symdiff.source(symdiff.grad(euler))
    assert "x[i] = " in source and "_setitem" not in source
    assert "x_bar[i] = 0.0" in source and "+= " in source

    def long(k, n):
        x = np.zeros(n)
        x[0] = 1.0
        for i in range(1, n):
            x[i] = x[i - 1] - k * x[i - 1] * 0.001
        return np.sum(x)

    gradient = symdiff.grad(long)

    def seconds(n):
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            gradient(0.3, n)
            best = min(best, time.perf_counter() - start)
        return best
    # a copy of the array per iteration would make 10x the length cost ~100x
    assert seconds(20000) < 30 * seconds(2000)


def test_a_view_that_keeps_its_values_is_copied_where_it_is_made():
    source = symdiff.source(symdiff.grad(trajectory))
    assert "traj[t, :] = " in source and ".copy()" in source


def masked_sum_of_a_broadcast_in_a_branch(x):  # the long fuzz run's program, reduced
    v = np.sum(x) * np.ones(3)
    if np.max(v) > 100.0:
        s = 6.0
    else:
        s = np.sum(v[v < 0.0]) + v[1]
    return s * v[0]


def test_a_write_in_place_leaves_the_array_it_is_made_from_to_later_readers():
    # In reverse over reverse, `g_bar[mask] = 0.0` wrote into `_sum_to(g_bar, ...)`,
    # which is g_bar's own array; g_bar had been copied for a reader moved after
    # the write (into a branch), but the write was made from the copy too, so
    # that reader saw zeros: half the second derivative.
    check_grads(masked_sum_of_a_broadcast_in_a_branch, (np.array([-1.3, -0.4, -0.7]),))


def last_wins(x):
    y = np.zeros(2)
    y[[0, 0]] = x[:2]          # NumPy keeps x[1] at position 0
    return y[0] * 3.0


def adds_once(x):
    y = np.zeros(2)
    y[[0, 0]] += x[:2]         # y[[0, 0]] = y[[0, 0]] + x[:2]: x[1] again
    return y[0] * 3.0


def adds_up(x):
    y = np.zeros(2)
    np.add.at(y, [0, 0], x[:2])  # both
    return y[0] * 3.0


@pytest.mark.parametrize("f, expected", [(last_wins, [0.0, 3.0]), (adds_once, [0.0, 3.0]),
                                         (adds_up, [3.0, 3.0])])
def test_repeated_positions_keep_one_value_as_numpy_does(f, expected):
    x = np.array([0.7, -0.2])
    value, g = symdiff.value_and_grad(f)(x)
    assert value == f(x.copy())
    np.testing.assert_array_equal(g, expected)


# ---- refused, with the reason ---------------------------------------------------------------
def into_argument(x):
    x[0] = 1.0
    return np.sum(x)


def into_alias_of_argument(x):
    y = x
    y[1:] *= 2.0
    return np.sum(y)


def into_view(x):
    out = np.zeros((2, 3))
    row = out[0]
    row[1] = x[0]
    return np.sum(out)


def view_read_after_write(x):
    g = np.zeros_like(x)
    h = g[1:]
    g[2] = x[0]
    return np.sum(h * x[1:])


def alias_read_in_loop(x):
    out = x.copy()
    first = out[:2]
    for i in range(3):
        out[i] = first[0] * x[i]
    return np.sum(out)


GLOBAL = np.zeros(3)


def into_global(x):
    GLOBAL[0] = x[0]
    return np.sum(GLOBAL * x[:3])


def added_into_a_name_a_branch_may_share(x):  # the long oracle fuzz run (seed 7032), reduced
    a = x * 2.0
    y = np.sin(a) if np.sum(x) > 100.0 else a
    a += 1.0  # NumPy's y is a, changed: 4 * 3 here; not 4 * 2
    return np.sum(y)


def added_into_an_array_a_view_reads(x):
    a = np.outer(x, x)
    y = a[0]  # a row, a view (of a vector, a number: a copy, tests/test_item_copies.py)
    a += 1.0
    return np.sum(y)


@pytest.mark.parametrize("f, words, hint", [
    (into_argument, ["argument `x`", "caller's array"], "x = x.copy()"),
    (into_alias_of_argument, ["`y`", "argument `x`"], "y = y.copy()"),
    (into_view, ["view", "`out`"], "out[i, j] = v"),
    (view_read_after_write, ["`h`", "`g`", "changed in place"], ".copy()"),
    (alias_read_in_loop, ["`first`", "`out`"], ".copy()"),
    (into_global, ["global `GLOBAL`"], "GLOBAL.copy()"),
    (added_into_a_name_a_branch_may_share, ["`a`", "`y`", "a += 1.0"], "a = a + ..."),
    (added_into_an_array_a_view_reads, ["`a`", "`y`", "a += 1.0"], "a = a + ..."),
])
def test_what_would_differ_from_numpy_is_refused(f, words, hint):
    with pytest.raises(InPlaceWriteError) as info:
        symdiff.grad(f)(X.copy())
    for word in words:
        assert word in info.value.message, info.value.message
    assert hint in info.value.hint and info.value.lineno is not None


def test_differentiated_values_written_into_an_integer_array_are_an_error():
    def f(x, counts):
        out = np.zeros_like(counts)
        out[0] = x[0]   # NumPy truncates: no derivative
        return np.sum(out * x[:3])
    with pytest.raises(NonFloatArgumentError) as info:
        symdiff.grad(f)(X, np.array([1, 2, 3]))
    assert "`out` written into" in str(info.value)
    assert np.allclose(symdiff.grad(f)(X, np.array([1.0, 2.0, 3.0]))[:3],
                       [2 * X[0], 0.0, 0.0] + np.array([X[0], 0, 0]) * 0)


# ---- index gradients added into one array (optimize/scatter_sums.py) ----------------------
def _total_variation(u, f):        # np.diff twice: four slices of one gradient
    return 0.5 * np.sum((u - f) ** 2) + np.sum(np.sqrt(np.diff(u, axis=0) ** 2 + 1e-3)) \
        + np.sum(np.sqrt(np.diff(u, axis=1) ** 2 + 1e-3))


def _slices_written_out(u):        # the same differences, as slices
    return np.sum((u[1:] - u[:-1]) ** 2) + np.sum(np.sin(u))


def _picked_twice(v):              # an index with a repeat: np.add.at into the sum
    return np.sum(np.sin(v[[0, 2, 2]])) + np.sum(v ** 2)


def _from_an_argument(u, c):       # c is the caller's: never written into
    return np.sum(u * c) + np.sum(np.diff(u, axis=0) ** 2)


@pytest.mark.parametrize("f, args, lines", [
    (_total_variation, (M, M[::-1] / 2), ("u_bar = u - f", "u_bar[1:] += ",
                                                  "u_bar[:-1] -= ", "u_bar[:, :-1] -= ")),
    (_slices_written_out, (M,), ("u_bar = np.cos(u)", "u_bar[:-1] -= 2.0 * ")),
    (_picked_twice, (X,), ("v_bar = 2.0 * v", "np.add.at(v_bar, [0, 2, 2], ")),
    (_from_an_argument, (M, M[::-1].copy()), ("u_bar[:-1] -= ",)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_index_gradients_are_added_into_one_array(f, args, lines):
    source = symdiff.source(symdiff.grad(f), *args)
    code = source.split('"""')[-1]
    for line in lines:
        assert line in code, source
    assert "+= -" not in code and "empty_like" not in code.replace(
        "t = np.empty_like(u)", ""), source  # (the one zero-padded buffer of an argument's sum)
    kept = [a.copy() for a in args]
    check_grads(f, args, wrt=tuple(range(len(args))))
    symdiff.grad(f)(*args)
    assert all(np.array_equal(a, k) for a, k in zip(args, kept))


# ---- NumPy functions that write into an argument (frontend/in_place_calls.py) -------------
def _diagonal_filled(x):             # a contrastive loss's own diagonal out of the softmax
    S = x @ x.T
    np.fill_diagonal(S, -np.inf)
    return np.sum(np.exp(S - S.max(axis=1, keepdims=True)) * np.arange(3.0))


def _tall_diagonal(x):               # (i, i) for i < 3 of a 5x3 matrix: NumPy's wrap=False
    y = np.sin(x)
    np.fill_diagonal(y, 0.25)
    return np.sum(y ** 2)


def _diagonal_of_values(x, d):       # a vector along the diagonal: both get gradients
    y = x ** 2
    np.fill_diagonal(y, d * 3.0)
    return np.sum(y * np.arange(9.0).reshape(3, 3))


def _diagonal_of_a_cube(x):          # every axis of one length: (i, i, i)
    y = np.cos(x)
    np.fill_diagonal(y, 1.0)
    return np.sum(y ** 3)


def _diagonal_read_old_and_new(x):   # the old array is read again: a copy, then the write
    y = x * 2.0
    z = y * 1.0
    old = np.sum(z * x)
    np.fill_diagonal(z, 0.0)
    return old + np.sum(z ** 2)


@pytest.mark.parametrize("f, args", [
    (_diagonal_filled, (M[:, :2] * 2.0,)),
    (_tall_diagonal, (np.vstack([M[:, :3], M[:2, 1:]]),)),
    (_tall_diagonal, (M,)),
    (_diagonal_of_values, (M[:, :3], np.array([0.3, -0.6, 1.1]))),
    (_diagonal_of_a_cube, (np.arange(27.0).reshape(3, 3, 3) / 20 - 0.6,)),
    (_diagonal_read_old_and_new, (M[:, :3],)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_fill_diagonal_is_a_write_at_numpy_s_positions(f, args):
    value, _ = symdiff.value_and_grad(f, wrt=tuple(range(len(args))))(*args)
    assert np.isclose(value, f(*(np.copy(a) for a in args)), rtol=1e-13)
    check_grads(f, args, wrt=tuple(range(len(args))))


def test_a_write_the_old_array_outlives_is_a_copy_and_a_write_not_a_helper():
    source = symdiff.source(symdiff.grad(_diagonal_read_old_and_new), M[:, :3])
    code = source.split('"""')[-1]
    assert "_setitem" not in code and ".copy()" in code, source
    assert "] = 0.0" in code, source


def put_into(x):
    y = x * 2.0
    np.put(y, [0], 5.0)
    return np.sum(y ** 2)


def copied_into(x):
    y = x * 2.0
    np.copyto(y, x ** 2)
    return np.sum(y ** 2)


def placed_into(x):
    y = x * 2.0
    np.place(y, y > 1.0, 0.0)
    return np.sum(y ** 2)


def masked_into(x):
    y = x * 2.0
    np.putmask(y, y > 1.0, x)
    return np.sum(y ** 2)


def nan_to_num_in_place(x):
    y = np.log(x)
    np.nan_to_num(y, copy=False)
    return np.sum(y ** 2)


def wrapped_diagonal(x):
    y = np.outer(x, x)
    np.fill_diagonal(y, 0.0, wrap=True)
    return np.sum(y)


def diagonal_filled_in_an_expression(x):
    y = np.outer(x, x)
    return np.fill_diagonal(y, 0.0) is None and np.sum(y)


@pytest.mark.parametrize("f, words, hint", [
    (put_into, ["np.put", "in place"], "a.flat[ind] = v"),
    (copied_into, ["np.copyto", "in place"], "np.where(where, src, a)"),
    (placed_into, ["np.place", "in place"], "a[mask] = v"),
    (masked_into, ["np.putmask", "in place"], "np.where(mask, v, a)"),
    (nan_to_num_in_place, ["copy=False", "`y` in place"], "y = np.nan_to_num(y)"),
    (wrapped_diagonal, ["np.fill_diagonal", "wrap=True"], "a[rows, cols] = v"),
    (diagonal_filled_in_an_expression, ["np.fill_diagonal", "returns None"],
     "statement of its own"),
])
def test_numpy_functions_that_write_into_an_argument_are_refused(f, words, hint):
    # Lowered as calls, their result (None) unread, they changed nothing the
    # gradient saw: a wrong gradient with no error (np.put, np.copyto).
    with pytest.raises(InPlaceWriteError) as info:
        symdiff.grad(f)(np.abs(X) + 0.1)
    for word in words:
        assert word in info.value.message, info.value.message
    assert hint in info.value.hint and info.value.lineno is not None


# ---- views read on the right of a write, or kept in a list --------------------------------
def _swap_numbers(x):                # numbers read are copies: a swap, as in NumPy
    v = x * 1.0
    v[0], v[1] = v[1], v[0]
    return np.sum(v * np.arange(5.0))


def _swap_rows(x):                   # rows read are views: NumPy's both rows are the old y[1]
    y = x.reshape(5, 1) * np.ones(2)
    y[0], y[1] = y[1], y[0]
    return np.sum(y * np.arange(10.0).reshape(5, 2))


def _alias_after_a_write(x):         # b is a, changed
    a = x * 1.0
    a[0], b = 7.0, a
    return np.sum(b * x)


@pytest.mark.parametrize("f", [_swap_numbers, _swap_rows, _alias_after_a_write],
                         ids=lambda f: f.__name__)
def test_a_tuple_assignment_reads_views_after_the_writes_before_them(f):
    # Read as values, y[0], y[1] = y[1], y[0] swapped two rows where NumPy's
    # views make both the old y[1]: a wrong value and gradient, no error.
    value, _ = symdiff.value_and_grad(f)(X)
    assert value == f(X.copy())
    check_grads(f, (X,))
    generic = symdiff.source(symdiff.grad(f))   # the rank decided when the code runs
    compile(generic, "generic", "exec")


def _rows_kept_in_a_list(x):
    y = x.reshape(5, 1) * np.ones(2)
    rows = []
    for i in range(2):
        rows.append(y[i])
        y[i] = y[i] * 2.0            # NumPy's rows[i] shows this
    return np.sum(rows[0] + rows[1])


def _one_row_appended_each_time(x):
    out = np.zeros((3, 5))
    rows = []
    for i in range(3):
        out[0] = x * i               # every item of rows is a view of row 0
        rows.append(out[0])
    return np.sum(np.stack(rows) ** 2)


def _row_kept_before_a_write(x):
    y = x * np.ones((2, 5))
    rows = [y[0]]
    y[0] = 5.0
    return np.sum(rows[0] * x)


@pytest.mark.parametrize("f", [_rows_kept_in_a_list, _one_row_appended_each_time,
                               _row_kept_before_a_write], ids=lambda f: f.__name__)
def test_a_list_of_views_of_an_array_written_later_is_refused_where_read(f):
    with pytest.raises(InPlaceWriteError) as info:
        symdiff.grad(f)(X)
    assert "`rows` holds views of" in info.value.message, info.value.message
    assert ".copy()" in info.value.hint and info.value.lineno is not None


def test_appending_copies_is_the_remedy():
    def copies(x):
        y = x.reshape(5, 1) * np.ones(2)
        rows = []
        for i in range(2):
            rows.append(y[i].copy())
            y[i] = y[i] * 2.0
        return np.sum(rows[0] + rows[1]) + np.sum(y ** 2)
    check_grads(copies, (X,))


# ---- writes made by a function the differentiated one calls ------------------------------
def _set_first(a, v):
    a[0] = v
    return 0.0


def _written_by_a_helper(x):         # NumPy's y is changed by the call: its gradient sees it
    y = x * 2.0
    _set_first(y, x[1] ** 2)
    return np.sum(y ** 2)


def _set_key(d, v):
    d["a"] = v
    return 0


def _dict_changed_by_a_helper(x):
    d = {"a": x[0]}
    _set_key(d, x[1] ** 2)
    return d["a"] * x[2]


def _dict_changed_through_another_name(x):
    d = {"a": x[0]}
    e = d
    e["a"] = x[1] ** 2
    return d["a"] * x[2]


@pytest.mark.parametrize("f", [_written_by_a_helper, _dict_changed_by_a_helper,
                               _dict_changed_through_another_name], ids=lambda f: f.__name__)
def test_a_change_through_another_name_or_a_helper_is_seen_by_the_caller(f):
    # (was: the helper's name followed the write and the caller's did not: the
    # value and gradient of the array or dict as it was before the call)
    value, _ = symdiff.value_and_grad(f)(X)
    assert value == f(X.copy())
    check_grads(f, (X,))


def _add_into(a):
    a += 1.0
    return a


def test_an_augmented_assignment_in_a_helper_to_the_caller_s_array_is_refused():
    def f(x):
        y = x * 2.0
        z = _add_into(y)       # NumPy's y is z: both changed
        return np.sum(y * z)
    with pytest.raises(InPlaceWriteError) as info:
        symdiff.grad(f)(X)
    assert "`a` is another name for `y`" in info.value.message, info.value.message
    assert "a = a + ..." in info.value.hint

    def g(x):                  # a value no name of the caller holds: nothing can tell
        return np.sum(_add_into(x * 2.0) ** 2)
    check_grads(g, (X,))


def _array_in_a_dict_then_written(x):
    y = x * 1.0
    d = {"y": y, "t": (y, 2.0)}
    y[1] = 0.0                       # NumPy's d["y"] and d["t"][0] are y: changed too
    return np.sum(d["y"] * x) + np.sum(d["t"][0] ** 2)


def _dict_item_written_by_its_name(x):
    d = {"y": x * 1.0}
    w = d["y"]
    w[1] = 0.0
    return np.sum(d["y"] * x)


@pytest.mark.parametrize("f", [_array_in_a_dict_then_written, _dict_item_written_by_its_name],
                         ids=lambda f: f.__name__)
def test_a_container_holding_the_array_written_into_holds_the_new_values(f):
    value, _ = symdiff.value_and_grad(f)(X)
    assert value == f(X.copy())
    check_grads(f, (X,))


def test_a_helper_changing_an_array_the_loop_does_not_assign_is_refused():
    def put(a, i, v):
        a[i] = v
        return a

    def f(x):
        y = np.zeros(3)
        for i in range(3):
            put(y, i, x[i] ** 2)     # each iteration changes y: the loop does not carry it
        return np.sum(y * x[:3])
    with pytest.raises(InPlaceWriteError) as info:
        symdiff.grad(f)(X)
    assert "changes `y` in place" in info.value.message
    assert "y = f(y, ...)" in info.value.hint

    def g(x):                        # the remedy
        y = np.zeros(3)
        for i in range(3):
            y = put(y, i, x[i] ** 2)
        return np.sum(y * x[:3])
    value, _ = symdiff.value_and_grad(g)(X)
    assert value == g(X.copy())
    check_grads(g, (X,))


def _correlated_by_loops(img, k):
    H, W = img.shape
    out = np.zeros((H - 2, W - 2))
    for i in range(H - 2):
        for j in range(W - 2):
            out[i, j] = np.sum(img[i:i + 3, j:j + 3] * k)
    return np.sum(out ** 2)


def test_nested_loops_filling_an_array_write_in_place():
    # (was: `out_1 = out_1.copy()` before each write of the inner loop, and the
    # array saved for each outer iteration: the reverse loop's recomputed inner
    # loop lost the facts of its counters and carried array, so its rules
    # checked the array's dtype at run time and read it for an index's shape)
    img, k = np.arange(30.0).reshape(5, 6) / 10 - 1.2, np.array([[0.5, -1.0, 0.2]] * 3)
    source = symdiff.source(symdiff.grad(_correlated_by_loops, wrt=(0, 1)), img, k)
    forward = source.split("out_bar = ")[0]
    assert ".copy()" not in forward and "_require_float" not in source, source
    assert "_assigned" not in source, source
    # the inner loop's gradients go into its accumulators in place (was: a new
    # zero-filled array per inner iteration: the accumulator's buffer merged with
    # the outer loop's, so neither could be written into)
    assert "img_bar_1[s, s_1] += " in source and "img_bar += img_bar_1" in source, source
    check_grads(_correlated_by_loops, (img, k))


def slices_added_to_in_a_loop(x):
    y = np.zeros(6)
    for i in range(4):
        y[i:i + 3] += x[i] * x[1:4]
    return np.sum(y ** 2)


def picked_places_set_in_a_loop(x):
    y = np.zeros(6)
    idx = np.array([0, 2, 2])  # a repeated place: the last value written stays
    for i in range(3):
        y[idx] = y[idx] + x[i] * x[1:4]
    return np.sum(y ** 2)


@pytest.mark.parametrize("f", [slices_added_to_in_a_loop, picked_places_set_in_a_loop])
def test_second_derivative_of_a_loop_writing_at_a_computed_index(f):
    """The gradient of a write at an index symdiff cannot show names each place
    once is ``_assigned(y_bar, y, index)``, which reads ``y`` for its shape only;
    the loop's tape saved ``y`` itself, an array the loop changes in place, so
    differentiating the gradient again (hessian, jvp of grad) refused symdiff's
    own code with an InPlaceWriteError (present before 2026-11-25's changes).
    The tape saved ``y``'s shape; now it saves nothing of ``y``: the reverse
    loop reads the ``y`` the forward loop leaves, of the same shape and dtype
    (optimize/carried_shapes.py)."""
    x = np.array([0.5, -1.0, 2.0, 0.3, 1.2])
    check_grads(f, (x,))
    source = symdiff.source(symdiff.grad(f), x)
    assert "_assigned(y_bar, y, " in source.replace("\n", " ").replace("  ", " "), source
    saved = source.split("tape.append(")[1].split(")")[0]
    assert "y" not in saved.replace("y_part", "").split(", "), source


def stiffness_assembled_in_loops(x, u):
    K = np.zeros((3, 3))
    for t in range(2):                 # (a finite-element assembly's loops)
        for a in range(3):
            for b in range(3):
                K[a, b] += x[t] * x[a] * x[b]
    return u @ K @ u


def test_second_derivative_of_an_array_written_in_nested_loops():
    """The gradient writes the carried array in place through the loops'
    names for it (``K_1 = K``; ``K_2 = K_1``; ``K_2[a, b] = t``), which makes
    ``K`` stale in the loop over ``a``: differentiating that gradient again
    refused symdiff's own code ("a function the loop calls changes `K` in
    place"). A name a write in the loop made stale, which nothing in the loop
    reads, stays stale after it."""
    x, u = np.array([0.3, 0.5, 0.7]), np.array([1.0, -2.0, 0.5])
    # u @ K @ u with K = (x0 + x1) x x^T: its Hessian in u is 2 K
    hessian = symdiff.hessian(stiffness_assembled_in_loops, wrt=1)(x, u)
    assert np.allclose(hessian, 2 * (x[0] + x[1]) * np.outer(x, x), rtol=1e-12)
    check_grads(stiffness_assembled_in_loops, (x, u))


def _alias_read_in_the_loop(x):
    K = np.zeros(3)
    K1 = K
    s = 0.0
    for a in range(2):
        s = s + np.sum(K)              # the second iteration reads the first's writes
        K2 = K1
        for b in range(3):
            K2[b] += x[b] * (a + 1.0)
        K1 = K2
    return np.sum(K1 ** 2) + s


def _alias_read_after_the_loop(x):
    K = np.zeros(3)
    K1 = K
    for a in range(2):
        K2 = K1
        for b in range(3):
            K2[b] += x[b] * (a + 1.0)
        K1 = K2
    return np.sum(K ** 2)


def test_a_name_an_inner_loop_writes_through_is_refused_where_read():
    with pytest.raises(InPlaceWriteError) as info:
        symdiff.grad(_alias_read_in_the_loop)(X[:3])
    assert "the loop reads `K`" in info.value.message and "`K2`" in info.value.hint
    with pytest.raises(InPlaceWriteError, match="`K` shares its array with `K2`"):
        symdiff.grad(_alias_read_after_the_loop)(X[:3])


def diagonal_loaded(m):
    a = m[:, :3] @ m[:, :3].T
    d = np.arange(3)
    a[d, d] += 1.0
    return np.linalg.slogdet(a)[1]


def transposed_inverse_written(a):
    b = np.linalg.inv(a).T
    b[0, 1] = 2.0 * a[0, 0]
    return np.sum(b ** 2)


@pytest.mark.parametrize("f, shape", [(diagonal_loaded, (3, 4)),
                                      (transposed_inverse_written, (3, 3))])
def test_a_view_of_an_array_nothing_else_names_may_be_written_into(f, shape):
    """``b = np.linalg.inv(a).T; b[0, 1] = v`` changes only the unnamed
    inverse, which nothing else shows: it was refused as a write into a view.
    slogdet's gradient is such a view, ``np.linalg.inv(a).mT``, which the
    gradient of ``a[d, d] += 1.0`` writes into, so the second derivative of
    ``diagonal_loaded`` refused symdiff's own gradient (present before
    2026-11-25's changes). A view of an array another name holds is still
    refused."""
    m = np.random.default_rng(2).normal(size=shape) + 2 * np.eye(*shape)
    check_grads(f, (m,))
    u, step, grad = np.random.default_rng(3).normal(size=shape), 1e-6, symdiff.grad(f)
    expected = (grad(m + step * u) - grad(m - step * u)) / (2 * step)
    hvp = np.tensordot(symdiff.hessian(f)(m), u, axes=2)
    np.testing.assert_allclose(hvp, expected, rtol=1e-5, atol=1e-6)


def named_array_written_through_a_view(a):
    c = a @ a
    b = c.T
    b[0, 1] = 0.0  # c changes too
    return np.sum(c)


def test_a_view_of_an_array_another_name_holds_is_still_refused():
    # (a transpose is a view of all of `c`: the write is NumPy's, and the
    # read of `c` after it is refused, as for any other name of the array)
    with pytest.raises(InPlaceWriteError, match="`c` shares its array with `b`"):
        symdiff.grad(named_array_written_through_a_view)(np.eye(3))


def filled_empty_like(x):
    y = np.empty_like(x)
    for i in range(x.shape[0]):
        y[i] = x[i] ** 2 * np.sin(x[i])
    return np.sum(y * x)


def filled_empty(x):
    y = np.empty((2, 2))
    y[0] = x[:2] ** 2
    y[1, :] = np.cos(x[1:])
    return np.sum(y ** 2)


@pytest.mark.parametrize("f", [filled_empty_like, filled_empty])
def test_an_empty_array_written_over_has_the_writes_gradient(f):
    """np.empty_like(x) had "no derivative rule" (np.empty worked): its
    values carry no gradient, the writes over them do."""
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(symdiff.value_and_grad(f)(x)[0], f(x))
    np.testing.assert_allclose(symdiff.grad(f)(x), numeric_grad(f, [x], wrt=0), rtol=1e-6)
    check_grads(f, (x,))
