"""if / elif / else, conditional expressions and symdiff.cond."""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from numeric import assert_grad


def clip_norm(v, w):
    n2 = np.sum(v ** 2)
    if n2 > 1:
        v = v / np.sqrt(n2)
    return np.sum(v * w)


def early_return(x):
    if x > 0:
        return x ** 2
    y = np.sin(x)
    return y * 3


def elif_chain(x):
    if x > 2:
        y = x ** 3
    elif x > 0:
        y = np.exp(x)
    else:
        y = -x
    return y * x


def nested(x, y):
    if x > y:
        if x > 2 * y:
            z = x * y
        else:
            z = x - y
    else:
        z = np.exp(y)
    return z * x


def assigned_in_one_branch(x):
    scale = 1.0
    if x < 0:
        scale = 3.0
        t = x * x
        return t * scale
    return np.sin(x) * scale


def conditional_expression(x):
    return np.sum(x ** 2) if np.sum(x) > 0 else np.sum(np.cos(x))


def with_cond(x, a):
    offset = 2.0 * a
    return symdiff.cond(np.sum(x) > 0,
                        lambda v: np.sum(v * offset),
                        lambda v: np.sum(v ** 2) - offset, x)


def with_cond_defs(x, a):
    def grow(v):
        return np.sum(np.exp(v) * a)

    def shrink(v):
        return np.sum(v) * a ** 2

    return symdiff.cond(a > 1, grow, shrink, x)


@pytest.mark.parametrize("x", [0.7, -0.4, 2.5])
@pytest.mark.parametrize("f", [early_return, elif_chain, assigned_in_one_branch])
def test_scalar_branches(f, x):
    assert_grad(f, symdiff.grad(f), (x,))


@pytest.mark.parametrize("x, y", [(3.0, 1.0), (1.5, 1.0), (0.5, 1.0)])
def test_nested_conditionals_differentiate_only_the_branch_taken(x, y):
    assert_grad(nested, symdiff.grad(nested, wrt=(0, 1)), (x, y), wrt=(0, 1))


@pytest.mark.parametrize("v", [np.array([1.0, 2.0]), np.array([0.1, -0.2])])
def test_predicate_computed_from_the_inputs(v):
    w = np.array([0.5, -1.0])
    assert_grad(clip_norm, symdiff.grad(clip_norm, wrt=(0, 1)), (v, w), wrt=(0, 1))


@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.array([-1.0, 0.5])])
def test_conditional_expression(x):
    assert_grad(conditional_expression, symdiff.grad(conditional_expression), (x,))


@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.array([-1.0, 0.5])])
@pytest.mark.parametrize("f", [with_cond, with_cond_defs])
@pytest.mark.parametrize("a", [0.5, 1.5])
def test_symdiff_cond_with_lambdas_and_nested_defs(f, x, a):
    assert_grad(f, symdiff.grad(f, wrt=(0, 1)), (x, a), wrt=(0, 1))


def test_only_the_branch_taken_is_evaluated_backward():
    # The branch not taken would divide by zero; the gradient never touches it.
    def f(x):
        if x > 0:
            return np.log(x)
        return x * 2.0

    df = symdiff.grad(f)
    assert df(-1.0) == 2.0
    assert df(0.5) == pytest.approx(2.0)


def test_generated_code_keeps_the_branch_and_reuses_the_choice():
    text = symdiff.source(symdiff.grad(clip_norm))
    assert text.count("n2 > 1") == 2      # once in the code, once in the comment
    assert text.count("if mask:") == 2    # forward choice, reused backward


def test_array_predicate_is_an_error_at_the_if_line():
    def f(x):
        if x > 0:
            return np.sum(x)
        return np.sum(-x)

    df = symdiff.grad(f)
    with pytest.raises(symdiff.SymdiffError) as info:
        df(np.array([1.0, -1.0]))
    err = info.value
    assert type(err).__name__ == "ArrayPredicateError"
    assert err.lineno == f.__code__.co_firstlineno + 1
    assert "np.where" in str(err)


def same_condition_twice(x, y):
    big = np.sum(x) > 1.0
    if big:
        e = np.exp(y)        # assigned in one branch only ...
    else:
        q = np.sin(y) * x
    if big:
        r = e * x            # ... and read under the same condition
    else:
        r = q + y ** 2
    return np.sum(r)


@pytest.mark.parametrize("x", [np.array([0.9, 0.8]), np.array([0.1, -0.3])],
                         ids=["taken", "not taken"])
def test_a_name_from_one_branch_is_read_under_the_same_condition(x):
    y = np.array([0.4, -1.2])
    for wrt in (0, 1):
        assert_grad(same_condition_twice, symdiff.grad(same_condition_twice, wrt=wrt),
                    (x, y), wrt=wrt)


def reads_one_branch_name_outside(x):
    if x > 0:
        e = np.exp(x)
    return e + x


def test_reading_a_name_assigned_in_one_branch_elsewhere_is_an_error():
    with pytest.raises(symdiff.SymdiffError) as info:
        symdiff.grad(reads_one_branch_name_outside)
    err = info.value
    assert type(err).__name__ == "UnknownNameError"
    assert "only one branch" in str(err) and "both branches" in str(err)
    assert err.lineno == reads_one_branch_name_outside.__code__.co_firstlineno + 3


def maybe_assigned_twice(x):
    if x[0] > 0:
        e = np.exp(x[1])
    if x[1] > 0:
        e = x[2]
    return e


def test_a_name_still_maybe_unassigned_after_a_second_if_is_an_error():
    with pytest.raises(symdiff.SymdiffError) as info:
        symdiff.grad(maybe_assigned_twice)
    assert type(info.value).__name__ == "UnknownNameError"
    assert "only one branch" in str(info.value)


def constant_test_then_an_update(x):
    v = x
    if 0.5 > 0.0:  # decided when compiling
        w = np.sum(x)
    else:
        w = np.sin(np.sum(x))
    v = 0.5 * v + x  # ran twice: the statements after such an `if` were lowered twice
    for i in range(2):
        if 2 > 1:
            v = v * 1.5
        v = v + w
    return np.sum(v ** 2)


def test_statements_after_an_if_decided_when_compiling_run_once():
    x = np.array([0.25, 0.5])
    value, _ = symdiff.value_and_grad(constant_test_then_an_update)(x)
    assert value == constant_test_then_an_update(x)
    check_grads(constant_test_then_an_update, (x,))


def _clip_norm(v, w):  # in the branch not taken, the gradients are the arguments
    n2 = np.sum(v ** 2)
    if n2 > 1:
        v = v / np.sqrt(n2)
    return np.sum(v * w)


@pytest.mark.parametrize("scale", [0.1, 10.0], ids=["argument side", "computed side"])
def test_a_gradient_that_is_an_argument_on_one_side_of_an_if_is_a_copy(scale):
    """The caller may change the gradient in place: never their own array."""
    v, w = scale * np.array([0.3, -0.4]), np.array([2.0, 5.0])
    v_bar, w_bar = symdiff.grad(_clip_norm, wrt=(0, 1))(v, w)
    for gradient in (v_bar, w_bar):
        assert not np.shares_memory(gradient, v) and not np.shares_memory(gradient, w)
    v_bar += 1.0
    w_bar += 1.0
    np.testing.assert_array_equal(v, scale * np.array([0.3, -0.4]))
    np.testing.assert_array_equal(w, [2.0, 5.0])
    check_grads(_clip_norm, (v, w))


def _two_ifs_on_one_test(x):
    if x[0] > 0:
        y = x * 2.0
    else:
        y = np.sin(x)
    if x[0] > 0:
        z = y * y
    else:
        z = y - np.cos(y)
    return np.sum(z * x)


@pytest.mark.parametrize("first", [0.7, -0.4])
def test_two_ifs_on_one_condition_are_one(first):
    """optimize/joined_branches.py: one `if` for both, the second's reads of
    the first's values those of its own side; forward, reverse, second order."""
    x = np.array([first, 0.3, -1.2])
    body = symdiff.source(symdiff.grad(_two_ifs_on_one_test), x).split('"""')[-1]
    tests = [line for line in body.splitlines() if line.startswith("    if ")]
    assert len(tests) == 2, body  # one forward, one backward
    check_grads(_two_ifs_on_one_test, (x,))


def _joins_inside_a_join(x):
    if x[0] > 0:
        y = x * 2.0
    else:
        y = np.sin(x)
    if x[0] > 0:
        if x[1] > 0:
            z = y * y
        else:
            z = y
        if x[1] > 0:
            w = z * 3.0
        else:
            w = z - np.cos(z)
    else:
        w = y
    return np.sum(w * x)


@pytest.mark.parametrize("signs", [(1, 1), (1, -1), (-1, 1), (-1, -1)])
def test_ifs_joined_inside_joined_ifs(signs):
    """The inner ifs of the second of two joined ifs are joined once (each
    statement in one block: a statement twice made CSE loop forever; found by
    the fuzz run, program 252)."""
    x = np.array([0.7 * signs[0], 0.4 * signs[1], -1.1])
    check_grads(_joins_inside_a_join, (x,))
