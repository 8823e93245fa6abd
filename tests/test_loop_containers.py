"""Dicts, tuples and lists known when compiling that a loop changes (a
Kalman filter's state dict, a tuple of recursions, ``s = [1.0, 0.0]`` written
at constant positions, a dict of parameters updated by gradient steps): each
of their numbers and arrays is a value the loop carries. Derivatives against
central differences to the second order; values against the function's."""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from symdiff.errors import UnsupportedSyntaxError

Y = np.array([0.5, 0.2, -0.1, 0.4])
X = np.array([[1.0, 0.3], [0.2, -0.5], [0.4, 0.9], [-0.3, 0.1]])


def kalman_state_dict(phi, q, y):  # a hunt's Kalman filter: the state in a dict
    st = {"m": 0.0, "P": 1.0}
    nll = 0.0
    for t in range(len(y)):
        st["m"] = phi * st["m"]
        st["P"] = phi ** 2 * st["P"] + q
        S = st["P"] + 0.5
        nll += 0.5 * (np.log(S) + (y[t] - st["m"]) ** 2 / S)
        K = st["P"] / S
        st["m"] = st["m"] + K * (y[t] - st["m"])
        st["P"] = (1 - K) * st["P"]
    return nll


def tuple_rebound(phi, y):
    s = (1.0, 0.0)
    for t in range(len(y)):
        s = (phi * s[0] + y[t], s[1] + s[0] ** 2)
    return s[0] + s[1]


def list_written_at_positions(phi, y):
    s = [1.0, 0.0]
    for t in range(len(y)):
        s[0] = phi * s[0] + y[t]
        s[1] = s[1] + s[0]
    return s[0] * s[1]


def gradient_steps_on_a_dict(w0, b0, X, y):
    params = {"w": w0, "b": b0 * 1.0, "name": "linear"}
    alias = params
    for k in range(3):
        r = X @ params["w"] + params["b"] - y
        params["w"] = params["w"] - 0.1 * X.T @ r
        params["b"] -= 0.1 * np.sum(r)
    return np.sum((X @ alias["w"] + alias["b"] - y) ** 2)


def nested_loops_and_containers(phi, y):
    st = {"m": np.ones(2), "pair": (1.0, 2.0)}
    for i in range(2):
        for t in range(len(y)):
            st["m"] = np.sin(phi * st["m"]) + y[t]
        a, b = st["pair"]
        st["pair"] = (a * phi + np.sum(st["m"]), b + a)
    return st["pair"][0] * st["pair"][1]


def state_in_a_while(phi, y):
    st = {"m": 1.0}
    k = 0
    while k < 3:
        st["m"] = np.sin(phi * st["m"]) + y[k]
        k += 1
    return st["m"]


def tuple_of_a_number_that_becomes_an_array(a, x):
    pair = (a, 0.0)  # the 0.0 becomes an array of a's shape in the first iteration
    for t in range(len(x)):
        m, s = pair
        pair = (m * x[t], s + m)
    return np.sum(pair[0] * pair[1])


CASES = [
    (tuple_of_a_number_that_becomes_an_array, (np.array([0.3, -0.2]), Y), (0, 1)),
    (kalman_state_dict, (0.8, 0.3, Y), (0, 1)),
    (tuple_rebound, (0.8, Y), (0,)),
    (list_written_at_positions, (0.8, Y), (0,)),
    (gradient_steps_on_a_dict, (np.array([0.1, -0.2]), 0.3, X, Y), (0, 1)),
    (nested_loops_and_containers, (0.8, Y), (0,)),
    (state_in_a_while, (0.8, Y), (0,)),
]


@pytest.mark.parametrize("f, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_a_container_a_loop_changes_carries_its_items(f, args, wrt):
    # the loop's changes were lost (the container after the loop was the one
    # before it: kalman_state_dict's gradient 0.68 off, no error), or the
    # body's values leaked out of it (NameError in generated code)
    check_grads(f, args, wrt=wrt)
    value, _ = symdiff.value_and_grad(f, wrt=wrt)(*args)
    assert np.isclose(value, f(*args))


def test_the_items_are_named_after_the_container_and_key():
    text = symdiff.source(symdiff.grad(kalman_state_dict, wrt=(0, 1)), 0.8, 0.3, Y)
    assert "st_m, st_P = 0.0, 1.0" in text and "st_m, st_P = t_" in text


def test_a_loop_that_changes_a_containers_keys_is_refused():
    def f(phi, y):
        st = {"m": 1.0}
        for t in range(len(y)):
            st["n"] = phi * st["m"]
        return st["m"]
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(f)(0.8, Y)
    assert "keys" in info.value.message and info.value.hint
