"""What symdiff refuses, it refuses for the right reason, with a hint that
works; and what Python programmers write that it can do, it does."""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from symdiff.errors import UnknownNameError, UnsupportedSyntaxError

X = np.array([0.5, 1.0, -0.3])


def test_a_product_with_one_is_a_new_array_that_may_be_added_into():
    def f(x):
        z = x * 1.0
        z += np.sin(x)
        return np.sum(z * z)
    check_grads(f, (X,))
    assert "z = x * 1.0" in symdiff.source(symdiff.grad(f))


def factorial_power(x, n):
    return x if n <= 1 else x * factorial_power(x, n - 1)


def unbounded_power(x, n):
    return x if np.sum(n) <= 1 else x * unbounded_power(x, n - 1)


def test_a_recursion_of_constant_depth_is_unrolled():
    check_grads(lambda x: factorial_power(x, 4), (X,))


def test_a_recursion_of_run_time_depth_is_refused_as_such():
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(lambda x: np.sum(unbounded_power(x, x)))
    assert "calls itself" in info.value.message and "loop" in info.value.hint
    assert "changed" not in info.value.message  # (it once said the file changed)


def test_a_name_first_assigned_in_a_loop_is_its_last_value_after_it():
    def f(x):
        for i in range(3):
            h = np.tanh(x) * i
        return np.sum(h)
    check_grads(f, (X,))
    assert "h = None" in symdiff.source(symdiff.grad(f))  # (as Python: set if the loop ran)


def test_a_name_a_loop_sets_in_a_branch_and_read_after_it_says_so():
    def f(x):
        for i in range(3):
            if i > 0:
                h = np.tanh(x) * i
        return np.sum(h)
    with pytest.raises(UnknownNameError) as info:
        symdiff.grad(f)
    assert "first assigned inside the loop" in info.value.message
    assert "before the loop" in info.value.hint
    assert info.value.lineno == f.__code__.co_firstlineno + 4


def test_breakpoint_names_where_to_step_instead():
    def f(x):
        breakpoint()
        return np.sum(x)
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(f)
    assert "breakpoint()" in info.value.message and "pdb" in info.value.hint
