"""Lists and comprehensions: lists known when compiling, lists a loop fills
(read as arrays after it), comprehensions over tuples, arrays, ranges and zip,
generator sums, dict comprehensions, ``*args`` and ``[*a, *b]``: each against
central differences, to the second order, and the loop kept a loop."""
import re

import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from symdiff.errors import UnsupportedSyntaxError

X = np.array([0.3, -0.5, 0.8])
M = np.arange(6.0).reshape(3, 2) / 5 - 0.2


def trajectory(x, n):
    xs = [x]
    for i in range(n):
        x = np.sin(x) * 1.1
        xs.append(x)
    return np.sum(np.stack(xs) ** 2)


def stacked_along_an_axis(x):
    rows = []
    for k in range(3):
        x = np.tanh(x + 0.1 * k)
        rows.append(x)
    return np.sum(np.stack(rows, axis=1) * np.arange(3.0))


def losses_and_last(x):
    losses = []
    for i in range(4):
        x = 0.5 * x + np.cos(x)
        losses.append(np.sum(x ** 2))
    return np.mean(losses) + losses[-1] * len(losses) + sum(losses)


def while_list(x):
    values = []
    i = 0
    while i < 3:
        x = x * 0.9 + np.sin(x)
        values.append(x)
        i = i + 1
    return np.sum(np.array(values) ** 2)


def iterates_a_list(x):
    hs = []
    for k in range(3):
        x = np.tanh(1.2 * x)
        hs.append(x)
    total = 0.0
    for h in hs:
        total = total + np.sum(h * h)
    return total


def known_list(x):
    parts = [x, x ** 2]
    parts.append(np.sin(x))
    for k in (1, 2):
        parts.append(x * k)
    return np.sum(np.stack(parts)) + np.sum(parts[1])


def comprehension_over_rows(X):
    return np.sum(np.array([np.tanh(row) * row for row in X]))


def comprehension_over_range(x):
    return np.sum(np.stack([np.sin(x * k) for k in range(3)]) * x)


def comprehension_over_zip(a, b):
    return np.sum(np.stack([u * np.cos(v) for u, v in zip(a, b)]))


def generator_sum(X, w):
    return sum(np.dot(row, w) ** 2 for row in X)


def dict_comprehension(x):
    params = {"a": x, "b": x[::-1]}
    scaled = {k: 2.0 * v for k, v in params.items()}
    return np.sum(scaled["a"] * scaled["b"])


def helper(*parts, scale=1.0, **more):
    return scale * sum(np.sum(p ** 2) for p in parts) + more.get("extra", 0.0)


def spreads(x):
    pieces = (x, np.sin(x))
    return helper(*pieces, scale=2.0, extra=np.sum(x)) + np.sum(np.stack([*pieces, x]))


CASES = [
    (trajectory, (X, 4), (0,)),
    (stacked_along_an_axis, (X,), None),
    (losses_and_last, (X,), None),
    (while_list, (X,), None),
    (iterates_a_list, (X,), None),
    (known_list, (X,), None),
    (comprehension_over_rows, (M,), None),
    (comprehension_over_range, (X,), None),
    (comprehension_over_zip, (X, X[::-1] * 2.0), None),
    (generator_sum, (M, np.array([0.5, -1.0])), None),
    (dict_comprehension, (X,), None),
    (spreads, (X,), None),
]


@pytest.mark.parametrize("f, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_lists_against_central_differences(f, args, wrt):
    check_grads(f, args, wrt=wrt)


def test_a_loop_filling_a_list_stays_a_loop():
    text = symdiff.source(symdiff.grad(trajectory))
    assert "xs.append(" in text and "np.stack([x, *xs])" in text
    assert "for x_1" in text and "in reversed(tape):" in text and "stack_bar[k]" in text
    text = symdiff.source(symdiff.grad(generator_sum, wrt=(0, 1)))
    assert re.search(r"total(_\d+)? = total \+ ", text) and "stack" not in text  # a sum


@pytest.mark.parametrize("source, words", [
    ("np.sum(np.array([v * 2 for v in x if v > 0]))", "comprehension's `if`"),
    ("np.sum(np.stack([a * b for a in x for b in x]))", "several `for`s"),
    ("np.sum(np.concatenate([x[:k] for k in range(1, len(x))]))", "np.concatenate"),
    ("np.sum(x * np.array([0.0] * len(x) + [1.0]))", "a list operation"),
    ("np.sum(x * np.array([x[0]] * len(x)))", "repeated a number of times"),
])
def test_what_is_refused_says_how_to_write_it(source, words, tmp_path):
    info = _refused(tmp_path, f"    return {source}\n")
    assert words in info.value.message and info.value.hint and info.value.lineno == 5


def _refused(tmp_path, body):
    """The error ``f(x)`` of ``body``, written to a file (so it has lines), raises."""
    path = tmp_path / "refused.py"
    path.write_text("import numpy as np\n\n\ndef f(x):\n" + body)
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(namespace["f"])(X)
    return info


def test_appending_in_a_branch_of_the_loop_is_refused():
    def f(x):
        kept = []
        for k in range(3):
            if k > 0:
                kept.append(x * k)
        return np.sum(np.stack(kept))
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(f)
    assert "top level" in info.value.message


def stacked_in_a_loop_then_accumulated(x):  # the oracle fuzz run (seed 20339), reduced
    acc = 0.0
    for i in range(2):
        x = np.mean(np.stack([x * 2.0 for k in range(3)]), axis=0)
        acc = acc + np.cos(x)
    return np.sum(acc)


def test_a_carried_value_a_list_reaches_in_each_iteration_gets_its_backward():
    # x reaches acc only through the list the inner loop fills: x's carried
    # adjoint was taken for one that only feeds itself and left out (zero)
    check_grads(stacked_in_a_loop_then_accumulated, (np.array([[0.1, 0.8], [-0.2, 1.5]]),))


def _recursive_filter(x):              # an IIR filter reading what it appended
    y = [0.0, 0.0]
    for n in range(x.shape[0]):
        y.append(x[n] - 0.5 * y[-1] + 0.1 * y[-2])
    return np.sum(np.array(y) ** 2)


def _read_after_the_append(x):
    y = [1.0]
    s = 0.0
    for n in range(x.shape[0]):
        y.append(x[n] * 2.0)
        s = s + y[-1] ** 2
    return s


def _length_in_the_loop(x):
    y = []
    s = 0.0
    for n in range(x.shape[0]):
        y.append(x[n])
        s = s + len(y) * x[n]
    return s


@pytest.mark.parametrize("f", [_recursive_filter, _length_in_the_loop],
                         ids=lambda f: f.__name__)
def test_a_list_read_in_the_loop_that_appends_to_it_is_refused(f):
    """Its reads there took the list as it was before the loop (the filter's
    value 2.04 where Python's is 1.88, and the gradient of that, silently),
    or stacked the list inside the loop (a NameError in generated code). Its
    last item, ``y[-1]``, is a value the loop carries (test below); other
    reads are refused, with the remedy."""
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(f)(X)
    assert "read in the loop that appends to it" in info.value.message
    assert "a name the loop reassigns" in info.value.hint and info.value.lineno is not None


def test_the_last_item_read_after_this_iteration_s_append_is_that_item():
    value, _ = symdiff.value_and_grad(_read_after_the_append)(X)
    assert np.isclose(value, _read_after_the_append(X), rtol=1e-14)
    check_grads(_read_after_the_append, (X,))


def _filter_with_names(x):             # the remedy: the values read in names
    y1 = y2 = 0.0
    ys = []
    for n in range(x.shape[0]):
        y_new = x[n] - 0.5 * y1 + 0.1 * y2
        y2, y1 = y1, y_new
        ys.append(y_new)
    return np.sum(np.array(ys) ** 2)


def test_the_remedy_for_a_list_read_while_filled():
    value, _ = symdiff.value_and_grad(_filter_with_names)(X)
    assert np.isclose(value, _recursive_filter(X), rtol=1e-14)
    check_grads(_filter_with_names, (X,))


def _dict_rebuilt(x):
    p = {"a": x[0], "b": x[1]}
    for n in range(3):
        p = {"a": p["a"] * p["b"], "b": p["b"] + 1.0}
    return p["a"] + p["b"]


def _dict_item_set(x):
    p = {"a": x[0], "b": x[1]}
    for n in range(3):
        p["a"] = p["a"] * p["b"]
    return p["a"] + p["b"]


def _tuple_state(x):
    state = (x[0], x[1])
    for n in range(3):
        state = (state[0] * state[1], state[1] + 1.0)
    return state[0] + state[1]


def _list_grown(x):
    y = [x[0]]
    for n in range(x.shape[0]):
        y = y + [x[n] ** 2]
    return np.sum(np.array(y))


def _list_item_set(x):
    ws = [x[0], x[1]]
    for n in range(3):
        ws[0] = ws[0] * ws[1]
    return ws[0] + ws[1]


def _list_remade(x):
    ws = [x[0], x[1]]
    for n in range(3):
        ws = [w * 1.5 for w in ws]
    return ws[0] + ws[1]


@pytest.mark.parametrize("f", [_dict_rebuilt, _dict_item_set, _tuple_state, _list_item_set,
                               _list_remade], ids=lambda f: f.__name__)
def test_a_container_a_loop_changes_has_the_loop_s_values(f):
    """A dict, list or tuple a loop changes kept its value from before the
    loop (the dict's 3 steps gave -0.2, not 2.3875, silently), or failed
    inside symdiff (KeyError, NameError): its items are carried by the loop
    now (tests/test_loop_containers.py)."""
    value, _ = symdiff.value_and_grad(f)(X)
    assert np.isclose(value, f(X), rtol=1e-14)
    check_grads(f, (X,))


def test_a_list_a_loop_grows_is_refused_where_changed():
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(_list_grown)(X)
    assert "the loop changes what `y` holds" in info.value.message and info.value.hint
    assert info.value.lineno == _list_grown.__code__.co_firstlineno + 2  # (the loop)


def _tuple_loop_in_a_loop(x):
    s = 0.0
    for i in range(3):
        for w in (x[0], x[1]):
            s = s + w * w * i
    return s + sum([w * 2.0 for w in (x[2], x[3])])


def test_a_loop_over_a_tuple_inside_a_loop():
    # (was: KeyError '<break>': the inner loop, unrolled, took the outer one's flag)
    x = np.array([0.3, -0.5, 0.8, 1.2])
    value, grad = symdiff.value_and_grad(_tuple_loop_in_a_loop)(x)
    assert value == _tuple_loop_in_a_loop(x)
    assert np.allclose(grad, [6 * x[0], 6 * x[1], 2.0, 2.0], rtol=1e-14)
    check_grads(_tuple_loop_in_a_loop, (x,))


def garch_variances(params, r):  # a hunt's GARCH(1,1): the list's last item, read in its loop
    omega, alpha, beta = params[0], params[1], params[2]
    s2 = [np.var(r)]
    for t in range(1, len(r)):
        s2.append(omega + alpha * r[t - 1] ** 2 + beta * s2[-1])
    s2 = np.array(s2)
    return 0.5 * np.sum(np.log(s2) + r ** 2 / s2)


def forward_messages(log_pi, log_A, obs_ll):  # an HMM's forward pass: the list starts empty
    alphas = []
    for t, ll in enumerate(obs_ll):
        if t == 0:
            a = log_pi + ll
        else:
            m = alphas[-1][:, None] + log_A
            a = np.log(np.sum(np.exp(m), axis=0)) + ll
        alphas.append(a)
        a = alphas[-1] * 0.5  # read after the append: what it appended
    return np.log(np.sum(np.exp(alphas[-1]))) + np.sum(np.stack(alphas) ** 2) + np.sum(a)


def last_in_a_while(x):
    xs = [x]
    i = 0
    while i < 3:
        xs.append(np.sin(xs[-1]) * (1.0 + i))
        i += 1
    return np.sum(np.stack(xs) ** 2)


@pytest.mark.parametrize("f, args", [
    (garch_variances, (np.array([0.05, 0.1, 0.8]), np.array([0.3, -0.5, 0.1, 0.4, -0.2]))),
    (forward_messages, (np.array([-1.2, -0.4]), np.array([[-0.3, -1.4], [-0.9, -0.5]]),
                        np.array([[-0.5, -1.5], [-2.0, -0.1], [-0.7, -0.8]]))),
    (last_in_a_while, (X,)),
], ids=["garch", "hmm", "while"])
def test_the_last_item_of_a_list_read_in_the_loop_that_appends_to_it(f, args):
    # xs[-1] in the loop was read as the last item before the loop, in every
    # iteration (or refused as an index into an empty tuple): a wrong value
    # and gradient, with no error
    check_grads(f, args)
    value, _ = symdiff.value_and_grad(f)(*args)
    assert np.isclose(value, f(*args))


@pytest.mark.parametrize("line, words", [
    ("xs.append(xs[t - 1] * x)", "only its last item"),
    ("xs.append(x * len(xs))", "only its last item"),
    ("xs.append(np.sum(np.array(xs)) * x)", "only its last item"),
])
def test_other_reads_of_a_list_in_the_loop_that_appends_to_it_are_refused(
        line, words, tmp_path):
    info = _refused(tmp_path, f"    xs = [x]\n    for t in range(1, 4):\n        {line}\n"
                    "    return np.sum(np.stack(xs))\n")
    assert words in info.value.message and info.value.hint and info.value.lineno == 7


def test_the_last_item_of_an_empty_list_is_refused_where_every_iteration_reads_it():
    def f(x):
        xs = []
        for t in range(3):
            xs.append(xs[-1] * x)
        return np.sum(np.stack(xs))
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(f)
    assert "first iteration" in info.value.message and "xs = [x0]" in info.value.hint


def garch_preallocated(omega, alpha, beta, r):  # a hunt's GARCH(1,1), a list of n zeros
    T = len(r)
    s2 = [0.0] * T
    s2[0] = np.var(r)
    for t in range(1, T):
        s2[t] = omega + alpha * r[t - 1] ** 2 + beta * s2[t - 1]
    s2 = np.array(s2)
    return 0.5 * np.sum(np.log(s2) + r ** 2 / s2)


def test_a_list_of_zeros_of_a_length_known_at_run_time_is_written_into():
    # `[0.0] * T` was NumPy's one-item array times T in the IR, and a tuple
    # in generated code, which `s2[0] = ...` raised TypeError on
    check_grads(garch_preallocated, (0.05, 0.1, 0.8, np.array([0.3, -0.5, 0.1, 0.4, -0.2])))
    text = symdiff.source(symdiff.grad(garch_preallocated), 0.05, 0.1, 0.8, np.arange(3.0))
    assert "np.full(T, 0.0)" in text
    # np.full of a Python float is of floats: no check of the array's dtype in
    # the reverse loop, which saved the array, copied, in every iteration
    assert "s2.copy()" not in text and "_require_float" not in text, text


def filtered_then_smoothed(q, ys):  # a hunt's Kalman filter: two lists made in one line
    ms, Ps = [], []
    m, P = 0.0, 1.0
    for y in ys:
        P = P + q
        K = P / (P + 0.4)
        m = m + K * (y - m)
        P = (1 - K) * P
        ms.append(m)
        Ps.append(P)
    ms, Ps = np.array(ms), np.array(Ps)
    sm = ms[-1]
    total = sm ** 2
    for t in range(len(ys) - 2, -1, -1):
        G = Ps[t] / (Ps[t] + q)
        sm = ms[t] + G * (sm - ms[t])
        total = total + sm ** 2
    return total


def test_two_lists_made_in_one_assignment():
    # (`ms, Ps = [], []` was a tuple of tuples: "cannot call `ms.append`")
    check_grads(filtered_then_smoothed, (0.3, np.array([0.5, -0.2, 0.9, 0.1, -0.6])))
