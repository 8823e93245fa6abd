"""Generated names do not depend on line breaking, and generated code is
always accepted when read back (issue 19, defect 4)."""
import ast
import importlib.util
import re
import sys

import numpy as np
import pytest
import scipy.special

import symdiff
from check_grads import check_grads
from numeric import numeric_grad

# An elif whose predicate line is long: with a long file name in its message,
# its mask used to get a line, and the name `mask`, of its own.
ELIF = '''
import numpy as np


def f(x):
    if x[0] > 1.0:
        y = np.sin(x) * 2.0
    elif x[1] * 3.0 + np.arctan(x)[0] > 0.25:
        y = np.arctan(x) ** 2
    else:
        y = x * 3.0
    return np.sum(y)
'''

POINTS = [np.array([2.0, 0.3]), np.array([0.1, 0.3]), np.array([0.1, -0.9])]


def _load(path, text):
    path.write_text(text)
    name = path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _shape(text, stem):
    """The code without its layout and with the file's name left out."""
    return ast.dump(ast.parse(text.replace(stem + ".py", "FILE.py")))


def _names(text):
    return re.findall(r"^\s*(\w+) = ", text, flags=re.M)


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    where = tmp_path_factory.mktemp("names")
    return [(stem, _load(where / f"{stem}.py", ELIF))
            for stem in ("h", "elif_in_a_file_with_a_rather_long_name")]


def test_the_file_name_changes_no_generated_name(modules):
    (short, a), (long_, b) = modules
    for mode in (symdiff.grad, symdiff.value_and_grad, symdiff.vjp, symdiff.jvp):
        text_a, text_b = symdiff.source(mode(a.f)), symdiff.source(mode(b.f))
        assert max(map(len, text_b.splitlines())) <= 79
        assert _names(text_a) == _names(text_b)
        assert _shape(text_a, short) == _shape(text_b, long_), (text_a, text_b)


@pytest.mark.parametrize("x", POINTS, ids=["if", "elif", "else"])
def test_second_order_reads_the_generated_code_back(modules, x):
    hessians = []
    for _, module in modules:
        df = symdiff.grad(module.f)
        h = symdiff.hessian(module.f)(x)
        np.testing.assert_allclose(h, np.array([numeric_grad(lambda v: df(v)[i], (x,))
                                                for i in range(2)]), rtol=1e-6, atol=1e-7)
        t = np.array([0.4, -1.3])
        np.testing.assert_allclose(symdiff.jvp(df)(x, t)[1], h @ t, rtol=1e-10, atol=1e-12)
        hessians.append(h)
    np.testing.assert_array_equal(*hessians)


def name_held_before_the_if(x):
    # Code shaped like a generated gradient: `mask` holds a dead value when the
    # branch assigns it again, and a later `if` on the same condition reads it.
    mask = x[0] > 0.0
    y = np.where(mask, x, 0.5 * x)
    c = np.sum(x) > 0.0
    if c:
        mask = np.sum(y) > 1.0
        if mask:
            d = np.sin(x)
            z = d * 2.0
        else:
            z = x
    else:
        z = x
    if c:
        if mask:
            w = d * z
        else:
            w = z * y
    else:
        w = z
    return np.sum(w)


@pytest.mark.parametrize("x", [np.array([1.0, 0.7]), np.array([0.3, 0.1]),
                               np.array([-1.0, 0.2])], ids=["inner", "outer", "neither"])
def test_a_name_reassigned_in_a_branch_reads_as_that_branch_value(x):
    df = symdiff.grad(name_held_before_the_if)
    np.testing.assert_allclose(df(x), numeric_grad(name_held_before_the_if, (x,)),
                               rtol=1e-6, atol=1e-7)
    t = np.array([0.4, -1.3])
    expected = numeric_grad(lambda v: np.sum(df(v) * t), (x,))
    np.testing.assert_allclose(symdiff.hessian(name_held_before_the_if)(x) @ t, expected,
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(symdiff.jvp(df)(x, t)[1], expected, rtol=1e-6, atol=1e-7)


def loop_after_a_branch(x):
    if np.max(np.abs(x)) < 0.9:
        v = x * x
    else:
        v = np.sqrt(x ** 2 + 0.5)  # its gradient reads v, after the loop ran
    for i in range(3):
        v = 0.5 * v + np.tanh(x ** 3)
    return np.sum(v)


def test_a_loop_does_not_take_the_name_of_a_value_read_after_it():
    # the loop's value was named `v` like the branch's value it starts from;
    # the loop overwrote `v`, and the sqrt's gradient read the loop's result
    x = np.array([1.2, -0.3, 0.7])
    check_grads(loop_after_a_branch, (x,))
    check_grads(loop_after_a_branch, (0.5 * x,))


def _two_logsumexps(a, b):
    first = a - scipy.special.logsumexp(a)
    return -np.sum(scipy.special.logsumexp(first + b, axis=1))


def test_a_name_the_compiler_chose_is_one_values():
    """Two shifts ("top") are two quantities: top and top_1, never one name
    reassigned (a user's own name is reassigned as the user did)."""
    a, b = np.array([0.2, -0.1, 0.4]), np.arange(6.0).reshape(2, 3) / 7
    source = symdiff.source(symdiff.grad(_two_logsumexps), a, b)
    assert source.count("    top = ") == 1 and source.count("    top_1 = ") == 1, source


def _huber_with_a_parameter(r, delta):
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta)))


def test_an_if_s_test_made_just_before_it_is_written_in_the_if():
    """``if delta > 0:``, not ``delta_positive = delta > 0`` then
    ``if delta_positive:`` (the clip's bound known only when the code runs)."""
    r = np.array([-2.0, 0.3, 1.5])
    df = symdiff.grad(_huber_with_a_parameter, wrt=0)
    source = symdiff.source(df, r, 1.0)
    # (a choice of two expressions: `r_bar = np.clip(...) if delta > 0 else ...`)
    assert "if delta > 0" in source and "delta_positive" not in source, source
    np.testing.assert_allclose(df(r, 1.0), np.clip(r, -1.0, 1.0))
    np.testing.assert_allclose(df(r, -1.0), -np.sign(r))  # (the other side of the if)


# ---- one name per value (issue: generated code a careful person would write) -------------
def _scores(query_rows, key_rows, value_rows):
    scores = query_rows @ key_rows.T / 2.0
    return np.sum((np.tanh(scores) @ value_rows) ** 2)


def _attention(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    a = np.exp(s - scipy.special.logsumexp(s, axis=1, keepdims=True))
    return np.sum((a @ V) ** 2)


def _specialised(f, args, wrt):
    """The specialised gradient's source, after checking its values."""
    df = symdiff.grad(f, wrt=wrt)
    for got, i in zip(df(*args), wrt):
        np.testing.assert_allclose(got, numeric_grad(f, args, i), rtol=1e-6, atol=1e-7)
    return symdiff.source(df, *args)


def test_two_adjoints_of_unnamed_values_never_share_a_name():
    """The adjoints of two products the user named neither (``matmul_bar``
    both) are two quantities: a name never stands for two."""
    rng = np.random.default_rng(0)
    args = tuple(rng.standard_normal((4, 3)) for _ in range(3))
    for source in (_specialised(_scores, args, (0, 1, 2)),
                   symdiff.source(symdiff.grad(_scores, wrt=(0, 1, 2)))):
        names = _names(source)
        assert len(names) == len(set(names)), source


def test_a_product_is_named_after_its_factors():
    """``a @ V`` of no name of its own gives ``a_V`` (its adjoint ``a_V_bar``),
    not the primitive's name ``matmul``."""
    rng = np.random.default_rng(1)
    args = tuple(rng.standard_normal((5, 3)) for _ in range(3))
    source = _specialised(_attention, args, (0, 1, 2))
    assert "a_V_bar = 2.0 * (a @ V)" in source and "matmul" not in source, source


def test_a_transpose_of_a_transpose_is_the_value():
    """``Q @ K.T``: Q's gradient is ``g @ K`` (not ``g @ T_K.T``) and K's is
    ``g.T @ Q`` (not ``(Q.T @ g).T``)."""
    rng = np.random.default_rng(2)
    args = tuple(rng.standard_normal((5, 3)) for _ in range(3))
    source = _specialised(_attention, args, (0, 1, 2))
    assert re.search(r"Q_bar = \w+ @ K$", source, re.M), source
    assert re.search(r"K_bar = \w+\.T @ Q$", source, re.M), source
    assert ".T.T" not in source and not re.search(r"\)\.T\b", source), source


def _two_heads(U, V, H):
    return np.sum(np.tanh(H @ U)) + np.sum(np.sin(H @ V))


def test_a_transpose_read_twice_is_written_where_it_is_read():
    """``H.T @ a`` and ``H.T @ b``, as a careful person writes them: a
    transpose costs nothing, a name for it (``H_t = H.T``) a line."""
    rng = np.random.default_rng(3)
    args = (rng.standard_normal((3, 2)), rng.standard_normal((3, 2)),
            rng.standard_normal((5, 3)))
    df = symdiff.grad(_two_heads, wrt=(0, 1))
    source = symdiff.source(df, *args)
    assert source.count("H.T @ ") == 2 and "H_t" not in source, source
    for k in (0, 1):
        np.testing.assert_allclose(df(*args)[k], numeric_grad(_two_heads, list(args), wrt=k),
                                   rtol=1e-6, atol=1e-8)


def _smooth_l1(x, y, beta):
    d = np.abs(x - y)
    return np.mean(np.where(d < beta, 0.5 * d ** 2 / beta, d - 0.5 * beta))


def test_an_adjoint_that_is_only_an_argument_s_gradient_takes_its_name():
    """The adjoint of ``t = x - y`` is x's gradient and nothing else here:
    ``x_bar = np.clip(t, -beta, beta) / ...``, ``return x_bar``."""
    x, y = np.array([0.3, -1.2, 2.0, 0.1]), np.array([0.1, 0.4, -0.3, 0.05])
    source = _specialised(_smooth_l1, (x, y, 0.5), (0,))
    assert "x_bar = np.clip(t, -beta, beta)" in source and "return x_bar," in source, source
    assert "t_bar" not in source, source
    # read by y's gradient too, it keeps the name of what it is: t's adjoint
    both = _specialised(_smooth_l1, (x, y, 0.5), (0, 1))
    assert "t_bar = np.clip(t, -beta, beta)" in both and "y_bar = -t_bar" in both, both


def _relu_mlp(W1, b1, W2, b2, X, y):
    h = np.maximum(X @ W1 + b1, 0.0)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)


def test_a_size_is_read_from_an_argument_of_that_shape():
    """``(out - y).size`` is ``y.size``: read from a product (``h @ W2``), it
    would give the product a line and a name of its own."""
    rng = np.random.default_rng(3)
    args = (rng.standard_normal((4, 5)), rng.standard_normal(5), rng.standard_normal((5, 3)),
            rng.standard_normal(3), rng.standard_normal((6, 4)), rng.standard_normal((6, 3)))
    source = _specialised(_relu_mlp, args, (0, 1, 2, 3))
    assert "y.size" in source and "out = h @ W2 + b2" in source, source


def _cosine(a, b):
    return 1.0 - np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))


def test_a_rule_s_comment_is_written_once_above_what_it_describes():
    rng = np.random.default_rng(4)
    args = (rng.standard_normal(6), rng.standard_normal(6))
    source = _specialised(_cosine, args, (0, 1))
    note = "# at x = 0 the norm has a kink: its gradient there is 0"
    assert source.count(note) == 1, source
    after = source.split(note)[1].splitlines()[1]
    assert "np.where(norm_a != 0.0" in after, source


def _gate(weights_matrix, inputs_vector):
    return np.sum(np.tanh(weights_matrix @ inputs_vector) ** 2)


def test_no_name_is_an_operator_s():
    """The adjoint of ``weights_matrix @ inputs_vector`` (factors with long
    names) is ``t_bar``, not ``matmul_bar``: a name of no operator."""
    rng = np.random.default_rng(8)
    args = (rng.normal(size=(3, 4)), rng.normal(size=4))
    text = symdiff.source(symdiff.grad(_gate, wrt=(0, 1)), *args)
    code = text.split('"""')[-1]
    assert "matmul" not in code and "t_bar = " in code, text
    check_grads(_gate, args, wrt=(0, 1))
