"""Defects the long fuzz runs found (2026-11-24, on the codegen2 branch and
on main after the merges; all three also on main at df38808), as the fuzzer
wrote them: kept as strict xfails until they were fixed, now tests."""
import warnings

import numpy as np
import pytest

import symdiff


def sum_of_a_mask_in_a_branch(x0, x1):  # as the fuzzer wrote it
    v0 = ((np.sum(x0[x0 > 0.5]) ** 2 + 0.5) ** np.tanh((3.0 * 1.5)) if (np.max(np.exp(-1.0) - ((np.sum(x1) * np.ones((3,))) / ((-1.0) ** 2 + 1.0)))) > 0.5 else 0.25)  # noqa: E501
    for i1 in range(2):
        v0 = 0.5 * v0 + i1 + (i1 + 3.0)
    if np.sin(0.5) > 0.0:
        return 0.5 + (np.tanh(3.0) + 0.5)
    return v0


def test_second_derivative_through_a_branch_not_taken():
    # (fixed: the zero adjoint was made from a value the other side of an `if`
    # made; reduced in test_higher_order.py)
    x0 = np.array([1.30400005, 0.94708096, -0.70373524])
    x1 = np.array([1.73457853, 2.37672554, 3.04132598])  # the else side
    df = symdiff.grad(sum_of_a_mask_in_a_branch, wrt=(0, 1))
    _, (d_x0, d_x1) = symdiff.vjp(df, wrt=(0, 1))(x0, x1, (np.ones(3), np.ones(3)))
    # the value is a constant (np.sin(0.5) > 0.0): every second derivative is 0
    assert np.array_equal(d_x0, np.zeros(3)) and np.array_equal(d_x1, np.zeros(3))


def sqrt_of_a_sum_not_taken(x0, x1, x2):  # as the fuzzer wrote it
    v6 = np.where(np.logical_not(np.mean(np.stack([np.min(x2) for k7 in range(1)]), axis=0) > np.maximum((1.5 if (np.mean((np.sum(x1) * np.ones((2, 1))))) > 0.0 else 3.0), np.minimum(1.5, 0.5))), sum((np.sum(x2) * np.ones((1,))) for k9 in range(3)), sum(np.sqrt((np.sum(x2) * np.ones((2, 1)))) for k8 in range(1)))  # noqa: E501
    v10 = x1
    v11 = np.sqrt(np.maximum(np.square(v6), 0.0) ** 2 + 0.5)
    return np.sum(np.where(np.logical_not(np.where(~(np.where((np.sum(x2) * np.ones((1,))) < (np.sum(x2) * np.ones((1,))), (np.sum(x2) * np.ones((1,))), 2.0) >= np.clip(1.5, -0.5, 1.0)), np.clip(0.5, -0.5, 1.0), np.sin((np.sum(v6) * np.ones((1,))))) > 0), 0.0, (np.log(np.where(~(np.where((np.sum(x2) * np.ones((1,))) < (np.sum(x2) * np.ones((1,))), (np.sum(x2) * np.ones((1,))), 2.0) >= np.clip(1.5, -0.5, 1.0)), np.clip(0.5, -0.5, 1.0), np.sin((np.sum(v6) * np.ones((1,)))))) * np.ones((3,)))))  # noqa: E501


def test_a_broadcast_sum_under_sqrt_on_the_side_not_taken():
    # (fixed: the side not taken is a loop, `sum(... for k8 in range(1))`, which
    # no guard reaches; the where's condition is one number, so the loop's
    # reverse runs only where that side is chosen; reduced in test_where_dataflow.py)
    x0, x1 = np.array([-1.70043529, 0.0]), np.array([-0.20273436, 0.05, -0.5])
    x2 = np.array([[0.56444429, 0.56444429, -1.48030213], [-0.98763185, -1.85625534, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = symdiff.grad(sqrt_of_a_sum_not_taken, wrt=2)(x0, x1, x2)
    assert np.all(np.isfinite(g))


def reverse_over_reverse_through_two_ifs(x0):  # as the fuzzer wrote it
    v0 = np.square((np.sum(x0) * np.ones((3,)))[::-1] + np.max(x0, axis=0))
    if (np.max(np.mean(np.stack([(v0 * np.ones((1, 3))) for k1 in range(2)]), axis=0))) < -0.5:
        v2 = sum(2.0 for k3 in range(3))
    else:
        v2 = np.sum(v0[v0 > 0.0]) - v0[1]
    if (np.sum(np.mean(np.stack([(v2 * np.ones((1, 3))) for k4 in range(3)]), axis=0))) > 0.0:
        return np.sum(np.where(np.logical_not(((((np.sum(v0) * np.ones((1,))) - v2) ** 2 + 0.5) ** np.tanh(np.where(np.logical_not(v2 > -0.5), 0.0, np.log(v2)))) > 0.5), np.sum(v0[v0 > 0.5]), (np.sqrt(((((np.sum(v0) * np.ones((1,))) - v2) ** 2 + 0.5) ** np.tanh(np.where(np.logical_not(v2 > -0.5), 0.0, np.log(v2))))) * np.ones((3,)))))  # noqa: E501
    return np.sum(np.negative(2.0 / 2.0) / np.min((np.sum(x0) * np.ones((1, 3))) - x0, axis=1))


def test_reverse_over_reverse_through_two_ifs_and_comprehensions():
    # (fixed: a write in place went into the array a copy for later readers was
    # made of; reduced in test_writes.py)
    x0 = np.array([[-1.22601421, 0.5, 0.0], [0.0, 1.05387616, -1.83604699]])
    rng = np.random.default_rng(0)
    u, w = rng.normal(size=x0.shape), rng.normal(size=x0.shape)
    gradient = symdiff.grad(reverse_over_reverse_through_two_ifs)
    _, hu = symdiff.jvp(gradient)(x0, u)           # forward over reverse: right
    _, wh = symdiff.vjp(gradient)(x0, w)           # reverse over reverse
    wh = wh[0] if isinstance(wh, tuple) else wh
    assert np.isclose(np.sum(wh * u), np.sum(w * hu), rtol=1e-6)



def number_placed_by_an_empty_mask(x0, x1, x2):  # as the fuzzer wrote it (14:20, quick run)
    v0 = (sum((np.sum(x2) * np.ones((3,))) @ (np.sum(x2) * np.ones((3,))) for k1 in range(2))) * np.negative((np.sum(x1) * np.ones((2, 3)))).mean()  # noqa: E501
    for i2 in range(1):
        v0 = 0.5 * v0 + np.arctan((0.25 if (np.mean((x0 * np.ones((1, 3))))) > 1.0 else 2.0))
    x0 = np.sum(np.maximum((np.sum(x2) * np.ones((3,))) / (np.sum(x1) * np.ones((2, 3))), np.mean((v0 * np.ones((2, 3)))))[np.maximum((np.sum(x2) * np.ones((3,))) / (np.sum(x1) * np.ones((2, 3))), np.mean((v0 * np.ones((2, 3))))) > 0.5])  # noqa: E501
    v3 = np.log(np.maximum(np.log((np.sum(x1) * np.ones((2, 3))) ** 2 + 0.5), 0.0) ** 2 + 0.5)
    return np.sum(np.where(np.logical_not(((((v0 * np.ones((1,))) ** 2 + 0.5) ** np.tanh((np.sum(x2) * np.ones((1,))))) / (np.where(x1 > -0.5, np.sqrt(x1), x1) ** 2 + 1.0)) > 0.0), 0.0, np.sum(np.where(np.logical_not((np.sum(v3) * np.ones((1, 3))) > (x0 * np.ones((1, 1)))), (x0 * np.ones((1, 3))), v3 ** 1.5)[np.where(np.logical_not((np.sum(v3) * np.ones((1, 3))) > (x0 * np.ones((1, 1)))), (x0 * np.ones((1, 3))), v3 ** 1.5) > -0.5]) / ((((v0 * np.ones((1,))) ** 2 + 0.5) ** np.tanh((np.sum(x2) * np.ones((1,))))) / (np.where(x1 > -0.5, np.sqrt(x1), x1) ** 2 + 1.0))))  # noqa: E501


def test_reverse_over_reverse_through_a_number_placed_by_an_empty_mask():
    """``np.sum(w[mask])``'s gradient places one number at the mask's
    positions (``w_bar[mask] = c``); the gradient of that in c is the sum
    over the places, here none (was: an empty array broadcast to w's shape)."""
    args = (np.array(1.2655424029597384), np.array([1.9460352990674994, -1.366755513152532]),
            np.array([[-1.9291582409371677], [-1.8370076549143244]]))
    rng = np.random.default_rng(1)
    u = tuple(rng.normal(size=np.shape(a)) for a in args)
    w = tuple(rng.normal(size=np.shape(a)) for a in args)
    gradient = symdiff.grad(number_placed_by_an_empty_mask, wrt=(0, 1, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _, hu = symdiff.jvp(gradient, wrt=(0, 1, 2))(*args, *u)
        _, wh = symdiff.vjp(gradient, wrt=(0, 1, 2))(*args, w)
    assert np.isclose(sum(np.sum(a * b) for a, b in zip(wh, u)),
                      sum(np.sum(a * b) for a, b in zip(w, hu)), rtol=1e-6)


def cone_read_under_a_where_on_a_number(x1):  # reduced from oracle seed 770188440
    v9 = x1 * np.ones((3,))
    v10 = np.sqrt(v9)
    v16 = np.where(v9 <= 0.25, np.where(x1 <= 0, np.where(v9 <= 0.0, 0.0, v10), 0.0),
                   v10 * np.ones((2, 3)))
    return np.sum(v16) + np.sum(v9)


@pytest.mark.parametrize("x1", [-1.33, 0.1, 0.8])
def test_a_cone_s_adjoint_merged_from_an_if_is_summed_to_its_value_s_shape(x1):
    """The adjoints of a where's cone flow at the where's shape ((2, 3) here,
    of values of (3,)); an adjoint merged from an `if` (a where on a number)
    has that shape on one side and the value's on the other, and is summed to
    the value's shape where it leaves the cone (was: added unsummed, 6.0
    where the derivative is 3.0)."""
    from numeric import numeric_grad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = symdiff.grad(cone_read_under_a_where_on_a_number)(x1)
        expected = numeric_grad(cone_read_under_a_where_on_a_number, (x1,))
    assert np.isclose(got, expected, rtol=1e-6)


def nan_read_by_a_condition_s_loop(x0):  # reduced from oracle seed 770188598
    v7 = x0 ** 1.5  # NaN at a negative entry; the else side is taken
    v11 = np.sin(v7) if np.sum(v7) > 0.0 else x0 * 2.0
    if np.max(np.mean(np.stack([v7 * np.ones((2, 3)) for k in range(3)]), axis=0)) >= 0.5:
        v18 = np.abs(x0)  # noqa: F841
    return np.sum(v11)


def nan_read_by_a_condition_s_list(x0):  # the same, a list of the value itself
    v7 = x0 ** 1.5
    v11 = np.sin(v7) if np.sum(v7) > 0.0 else x0 * 2.0
    flag = np.max(np.mean(np.stack([v7 for k in range(3)]), axis=0)) >= 0.5
    return np.sum(v11) + float(flag)


@pytest.mark.parametrize("f", [nan_read_by_a_condition_s_loop, nan_read_by_a_condition_s_list])
def test_a_loop_that_only_feeds_a_condition_does_not_pin_a_value_s_backward(f):
    """A value read by a branch and, through a loop (a comprehension), only
    by a condition: the loop hands it no adjoint, so its backward runs only
    where the branch was taken (was: zero times the NaN local derivative of
    x ** 1.5 at the negative entry)."""
    x0 = np.array([0.26597705, 1.04501568, -1.76266804])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = symdiff.grad(f)(x0)
    np.testing.assert_array_equal(got, [2.0, 2.0, 2.0])


def value_of_an_if_read_by_a_later_if(x, s):  # reduced from oracle seeds 441874891, 441876080
    if s > 0.0:
        y = np.sqrt(x - 2.0)  # NaN where x < 2; read only by the later if's else
        w = x * 3.0  # read everywhere: the first if cannot move as a whole
    else:
        y = x
        w = x
    if s > 1.0:
        out = np.sum(w ** 2)
    else:
        out = np.sum(y) + np.sum(w)
    return out


def chain_of_an_if_read_by_a_later_if(x, s):  # the same through two operations
    if s > 0.0:
        u = x - 2.0
        y = np.sqrt(u) * 3.0
        w = np.sin(x)
    else:
        y = x
        w = x
    if np.sum(w) > -10.0:
        out = np.sum(w * x)
    else:
        out = np.sum(y)
    return out


@pytest.mark.parametrize("f, s, expected", [
    (value_of_an_if_read_by_a_later_if, 1.5, lambda x: 18.0 * x),
    (chain_of_an_if_read_by_a_later_if, 1.5, lambda x: np.cos(x) * x + np.sin(x))])
def test_a_value_an_if_makes_read_only_by_a_later_if_s_side_not_taken(f, s, expected):
    """Its backward runs (inside the first if's reverse) only under the test
    that the later side reading it was taken: no zero adjoint meets the NaN
    local derivative of sqrt at x < 2 (was NaN at those entries)."""
    x = np.array([1.0, 3.0, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = symdiff.grad(f, wrt=0)(x, s)
    np.testing.assert_allclose(got, expected(x), rtol=1e-12)


def test_the_side_that_reads_it_still_gets_its_gradient():
    x = np.array([2.5, 3.0, 4.5])
    got = symdiff.grad(value_of_an_if_read_by_a_later_if, wrt=0)(x, 0.5)
    np.testing.assert_allclose(got, 0.5 / np.sqrt(x - 2.0) + 3.0, rtol=1e-12)
    H = symdiff.hessian(value_of_an_if_read_by_a_later_if, wrt=0)(x, 0.5)
    np.testing.assert_allclose(H, np.diag(-0.25 * (x - 2.0) ** -1.5), rtol=1e-10, atol=1e-12)


# ---- the oracle fuzz of 2026-11-24, seeds 123450000.. --------------------------------------
def _h0(p0, p1):  # oracle seed 123450117, as the fuzzer wrote it
    v1 = ((np.sum(p1) * np.ones((1, 1))) + (np.sum(p1) * np.ones((1,)))) - np.where(np.logical_not(3.0 > 0.5), (np.sum(p0) * np.ones((1,))), (np.sum(p0) * np.ones((2, 1))))  # noqa: E501
    return v1


def loop_whose_tape_became_a_range(x0, x1, x2):
    v3 = x1 + (-1.0)
    for i2 in range(2):
        if (np.max(np.negative((x0 ** 2 + 0.5) ** np.tanh(2.0)))) < 1.0:
            x2 = x2
            v4 = _h0(x2, (np.sum(x2) * np.ones((2, 3)))) + ((np.sum(v3) * np.ones((2, 1))) + (np.sum(x1) * np.ones((1, 1))))  # noqa: E501
        else:
            v4 = np.cos((np.sum(x1) * np.ones((2, 1))))
        v3 = 0.5 * v3 + ((-1.0) ** 2.0) - (x1 ** 2)
    v5 = np.arcsin(x2)
    return np.sum(np.sin(v5)) + np.sum(x1 ** 2)


def test_a_loop_left_with_nothing_to_run_is_not_written():
    """The specialised gradient's reverse loop reads its counter from a
    range, so the forward loop had an empty body: an IndentationError."""
    from numeric import numeric_grad
    args = (np.array([0.0, 0.6279186]), np.array([-0.79573456, -1.70290006, 0.22419841]),
            np.array([-0.5, 0.4]))
    df = symdiff.grad(loop_whose_tape_became_a_range, wrt=(0, 1, 2))
    for got, k in zip(df(*args), (0, 1, 2)):
        assert np.allclose(got, numeric_grad(loop_whose_tape_became_a_range, args, wrt=k))


def negated_product_read_by_a_dead_sum(x1):  # reduced from oracle seed 123450186
    v1 = -np.maximum(np.sum(x1) * np.ones((2,)), np.sum(x1) * np.ones((1,)))
    v2 = np.maximum(x1, x1)
    return np.sum(np.where(v2 <= 0.25, np.sum(v1) * np.ones((1,)), np.sqrt(v2)))


def test_a_sign_moved_out_of_a_product_goes_to_the_sum_the_result_reads():
    """``p + (-a) @ b`` is ``p - a @ b`` only in the sum that is used: a dead
    copy of the sum, also reading the product, took the sign (2 off)."""
    from numeric import numeric_grad
    x1 = np.array([1.58962932, 0.79735393, -1.56248897])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = symdiff.grad(negated_product_read_by_a_dead_sum)(x1)
    assert np.allclose(got, numeric_grad(negated_product_read_by_a_dead_sum, (x1,)))


def divided_by_a_count(x2):  # reduced from oracle seed 123451482
    n = sum(k for k in range(1))  # 0
    v8 = np.dot(x2, x2) / n
    return np.sum(x2) + np.sum(np.where(abs(n) > 0.1, np.sin(v8 * v8), 0.5))


def test_a_divisor_made_of_counts_still_guards_the_numerator():
    """A divisor of lengths or counts has no gradient, but the numerator's is
    1 / n: where n is 0 on the side not taken, the guard keeps that finite."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = symdiff.grad(divided_by_a_count)(np.array([0.5, -0.3]))
    assert np.allclose(got, [1.0, 1.0])


def stacked_in_one_branch_read_by_a_later_return(x0, x1, x2):  # long fuzz, 2026-11-24
    if (np.mean(np.log1p(np.tanh(np.sum(x1, axis=1)) + 1.0))) >= -0.5:
        v9 = np.where(np.abs(0.5) <= 0.5, (x2 * np.ones((1, 3))), np.mean(np.stack([(x2 * np.ones((3,))) for k10 in range(3)]), axis=0))  # noqa: E501
    else:
        v9 = np.where(np.cos((np.sum(x1) * np.ones((3,)))) <= (x2 + 3.0), np.where(np.logical_not(2.0 > 0.0), (np.sum(x0) * np.ones((1, 3))), (np.sqrt(2.0) * np.ones((1, 3)))), np.where(np.logical_not((np.sum(x0) * np.ones((1,))) > -0.5), (x2 * np.ones((1,))), np.sqrt((np.sum(x0) * np.ones((1,))))))  # noqa: E501
    v11 = np.tanh((x2 * np.ones((3,))))
    v12 = ((sum(x2 for k14 in range(2))) * (sum(x1 for k13 in range(1)))) - np.square(((x2 * np.ones((1,))) ** 2 + 0.5) ** np.tanh((np.sum(x0) * np.ones((1,)))))  # noqa: E501
    if (np.max(np.negative(v9))) > 0.0:
        return np.sum(np.dot((np.mean(np.stack([v9 for k15 in range(2)]), axis=0) - np.tanh(v12)), ((v11 / (x2 ** 2 + 1.0)) - np.log((np.sum(v12) * np.ones((1,)))))))  # noqa: E501
    return np.outer((v12 @ v11) / (((np.sum(x0) * np.ones((1,))) - (np.sum(x0) * np.ones((1,)))) ** 2 + 1.0), np.cos(x2) * np.where(np.logical_not(x2 > -0.5), -1.0, (np.sqrt(x2) * np.ones((3,))))).sum()  # noqa: E501


def test_a_value_lifted_under_a_later_test_keeps_its_operands_backward_with_it():
    """``v9`` (an `if`'s result, a where on a number over a list stacked in a
    loop) is read only by the side of a later `if` that returns: its backward
    ran under that test, the stacked list's outside it, reading an adjoint
    made only under the test (UnboundLocalError; present before 2026-11-24's
    second session). Now the chain's backward stays whole, outside."""
    from numeric import numeric_grad
    f = stacked_in_one_branch_read_by_a_later_return
    x0, x1 = np.array([[2.0], [-0.45660634]]), np.array([[0.0, -0.18281657, 0.0], [0.0] * 3])
    for x2 in (0.3, 1.2):
        args = (x0, x1, x2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            value, grads = symdiff.value_and_grad(f, wrt=(0, 1, 2))(*args)
            for k, got in enumerate(grads):
                assert np.allclose(got, numeric_grad(f, args, wrt=k), rtol=1e-6, atol=1e-8)


def carried_through_one_side_of_a_branch(x):  # reduced from oracle seed 163991693
    v = x
    y = x
    for i in range(2):
        if y > 1.5:  # taken in the second iteration: v is not read there
            y = y * 2.0
        else:
            v = np.exp(1000.0 * v)  # inf in the first iteration
            y = y + 1.0
    return y


def carried_in_a_branch_once(x):
    v = x
    y = x
    for i in range(1):
        if y < 1.5:
            v = np.exp(1000.0 * v)  # inf; nothing after the loop reads it
            y = y + 1.0
    return y


@pytest.mark.parametrize("f", [carried_through_one_side_of_a_branch,
                               carried_in_a_branch_once])
def test_a_carried_value_only_its_own_branch_reads_gets_no_backward(f):
    """``v`` feeds only itself, on one side of an `if` that also updates the
    returned ``y``: the `if` made every value it merges count as reached from
    ``v``, so ``v``'s backward ran, its zero adjoint times exp's inf local
    derivative (NaN in x; present before 2026-11-24's changes)."""
    from numeric import numeric_grad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = symdiff.grad(f)(1.0)
    assert np.isfinite(got)
    assert np.allclose(got, numeric_grad(f, (1.0,)), rtol=1e-6)


def picked_entries_summed(x):  # the long fuzz run's vjp(grad) failure, reduced
    return np.sum(x[[1, 0], 2]) * np.sum(x ** 2)


def test_a_number_spread_into_picked_places_has_a_number_s_second_derivative():
    """``np.sum(x[[1, 0], 2])``'s gradient places one number at two entries
    (``_unindex_add(s_bar, x, ...)``); differentiating that again read the two
    entries back as ``s_bar``'s gradient without summing them to a number:
    a broadcast error in the Hessian (present before 2026-11-24's changes)."""
    from check_grads import check_grads
    x = np.array([[0.0, 0.0, -0.9], [1.3, 0.2, -1.9]])
    check_grads(picked_entries_summed, (x,))


def squared_row_norms(a):
    return np.sum(np.linalg.norm(a, axis=1) ** 2)


def squared_matrix_norms(s):
    return np.sum(np.linalg.norm(s, axis=(1, 2)) ** 2)


@pytest.mark.parametrize("f, shape", [(squared_row_norms, (2, 3)),
                                      (squared_matrix_norms, (2, 3, 2))])
def test_a_squared_norm_along_an_axis_has_its_gradient(f, shape):
    """``sum(norm(a, axis=1) ** 2)``: the chain rule's ``2 * norm`` over the
    norm left the number 2.0, which the rule then widened to the kept axis,
    ``np.expand_dims(2.0, axis=1)``: an AxisError for every axis but the
    first (present before 2026-11-25's changes). A number is not widened."""
    from check_grads import check_grads
    a = np.random.default_rng(4).normal(size=shape)
    a[0] = 0.0  # a row whose norm is 0: no kink for the square
    assert np.allclose(symdiff.grad(f)(a), 2 * a)
    check_grads(f, (a,))


def _h1_seed_902141842(p0, p1):  # the oracle fuzz's seed 902141842, as it wrote it
    v0 = np.where(~((np.sum(p0) * np.ones((1,))) > 0), 0.0,
                  np.log((np.sum(p0) * np.ones((1,))))) * (np.sum(p0) * np.ones((2, 1)))
    return ((np.sum(v0) * np.ones((1,))) * v0) + np.sqrt(v0)


def _seed_902141842(x0, x1):
    v1 = np.where(np.mean(np.stack([x1 for k2 in range(1)]), axis=0)
                  > np.log1p(np.tanh(0.25) + 1.0),
                  np.arctan((np.sum(x0) * np.ones((2,)))), x1 ** 3)
    v3 = x1 - x1
    v4 = np.sqrt(v3)
    v5 = v4 * (v3 if (np.max((x1 * np.ones((3,))))) < 1.0 else v3)
    if np.sum(v3) > 100.0:
        v6 = np.sin(v5)
    elif not (np.min(v3) > 0.5):
        v6 = x1 * v3
    else:
        v6 = np.sin(v5)
    v7 = np.where(v3 > 0.5, 2.0 * v4, 0.0)
    for i8 in range(2):
        if (np.mean(_h1_seed_902141842(np.log(x0 ** 2 + 0.5), np.log1p(
                np.tanh((np.sum(v1) * np.ones((1, 3)))) + 1.0)))) >= 0.5:
            v9 = np.sin((x1 * np.ones((1, 3))) - (v7 * np.ones((1, 3))))  # noqa: F841
        else:
            v9 = (v7 * np.ones((1, 3)))  # noqa: F841
        v3 = v3 + (v3 / (v3 ** 2 + 1.0)) / (3.0 ** 2 + 1.0)
    return 0.5 * (np.sum(v6)) + 0.5 * (np.sum(v7))


def test_a_forward_sum_that_is_zero_meets_the_algebra():
    """``x1 - x1`` is a forward sum whose normal form has no terms: collecting
    terms against it raised ValueError (not enough values to unpack)."""
    args = (np.array([[-1.16092645, 0.9574054, 1.02593172], [-0.18836011, 1.22200578, 0.0]]),
            -0.19780095841242717)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g0, g1 = symdiff.grad(_seed_902141842, wrt=(0, 1))(*args)
    assert not np.any(g0) and g1 == 0.0  # (v6 = x1 * 0 and v7 = 0: no gradient)


def _summed_maxima(x0):  # the central-differences fuzz's program, reduced
    v9 = x0[:, -1]
    return np.mean(np.minimum(np.exp(np.sum(v9) * np.ones((3,))) ** 3,
                              sum(np.max(x0, axis=0) for k in range(3))))


def test_a_tangent_broadcast_to_its_value_s_shape_is_not_written_into():
    """jvp of grad: a tangent made by ``np.broadcast_to`` (a read-only view)
    was written into in place (``x0_bar_dot[:, -1] = t_dot``): ValueError,
    assignment destination is read-only. Such a write stays a copy."""
    x0 = np.array([[1.40255884, -1.20820236, 0.15477966], [-0.15829438, -1.0701976, 0.0]])
    v = np.ones_like(x0)
    gradient = symdiff.grad(_summed_maxima)
    _, tangent = symdiff.jvp(gradient)(x0, v)
    expected = (gradient(x0 + 1e-6 * v) - gradient(x0 - 1e-6 * v)) / 2e-6
    np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-7)
