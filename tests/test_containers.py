"""Containers of arrays (pytrees): dicts, lists, tuples, named tuples,
dataclasses, objects and ``*args`` of arrays and floats, nested, as
arguments, in ``wrt``, read inside the function and returned. The gradient
has the argument's structure; derivatives are checked against central
differences to the second order (``hessian``, in blocks), in every mode."""
import dataclasses
import inspect
from typing import NamedTuple

import numpy as np
import pytest

import symdiff
from symdiff.errors import UnsupportedSyntaxError, WrtError

RNG = np.random.default_rng(3)
X = RNG.normal(size=(5, 3))
Y = RNG.normal(size=5)


def mlp(params, X, y):
    h = X
    for W, b in params:
        h = np.tanh(h @ W + b)
    return np.mean((h[:, 0] - y) ** 2)


def regression(params, X, y):
    z = X @ params["W"] + params["b"]
    return np.mean((z - y) ** 2) + params["decay"] * np.sum(params["W"] ** 2)


def nested(params, X):
    enc, dec = params["layers"]
    h = np.tanh(X @ enc["W"])
    total = 0.0
    for name, value in params["extra"].items():
        total = total + np.sum(value ** 2)
    if "scale" in params:
        total = total * params["scale"]
    return np.sum((h @ dec["W"]) ** 2) + total + len(params["layers"])


def indexed(weights, X):
    h = X
    for i in range(len(weights)):
        h = np.sin(h @ weights[i])
    return np.sum(h ** 2)


def zipped(weights, scales, X):
    h = X
    for W, s in zip(weights, scales):
        h = np.tanh(s * (h @ W))
    return np.sum(h)


class Pair(NamedTuple):
    W: np.ndarray
    b: np.ndarray


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    activation: str = "tanh"


def named(pair, X):
    return np.sum(np.tanh(X @ pair.W + pair.b) ** 2)


def data(layer, X):
    z = X @ layer.W + layer.b
    out = np.tanh(z) if layer.activation == "tanh" else z
    return np.sum(out ** 2)


def varargs(*xs):
    total = 0.0
    for x in xs:
        total = total + np.sum(np.sin(x) * x)
    return total


def layers(n):
    sizes = [3] + [4] * n + [1]
    return [(RNG.normal(size=(a, b)) * 0.5, RNG.normal(size=b)) for a, b in
            zip(sizes, sizes[1:])]


DICT = {"W": RNG.normal(size=(3, 1)), "b": np.array([0.3]), "decay": 0.1}
NESTED = {"layers": ({"W": RNG.normal(size=(3, 2))}, {"W": RNG.normal(size=(2, 2))}),
          "extra": {"u": RNG.normal(size=2), "v": 0.4}, "scale": 1.5, "n": 3}


def enumerated_item(params, X):  # the list of a dict's key: the hunt's failure
    h = np.tanh(X @ params["W"])
    for k, scale in enumerate(params["layers"]):
        h = h * scale + k
    return np.sum(h ** 2)


def zipped_slices(params, X):
    h = np.tanh(X @ params["W"])
    for k, (a, b) in enumerate(zip(list(params["layers"]), params["layers"][1:])):
        h = h * a + b * k
    return np.sum(h ** 2)


def counted_item(params, X):
    h = np.tanh(X @ params["W"])
    for i in range(len(params["layers"])):
        h = h * params["layers"][i]
    return np.sum(h ** 2)


ITEMS = {"W": RNG.normal(size=(3, 2)),
         "layers": [RNG.normal(size=2), 0.7, RNG.normal(size=(1, 2))]}


def copied_dict(params, X):
    """dict(params) is a new dict of the same arrays (it had "no derivative
    rule for `dict`"): a key set in the copy leaves params' value as it was."""
    q = dict(params)
    q["W"] = q["W"] * 2.0
    q["scale"] = 3.0
    r = np.tanh(X @ q["W"] + q["b"])
    return np.sum(r ** 2) * q["scale"] + np.sum(params["W"] ** 3) + len(params)


CASES = [
    ("list of pairs", mlp, (layers(2), X, Y)),
    ("enumerate an item", enumerated_item, (ITEMS, X)),
    ("zip items' slices", zipped_slices, (ITEMS, X)),
    ("counter indexes an item", counted_item, (ITEMS, X)),
    ("dict", regression, (DICT, X, Y[:, None])),
    ("dict copied", copied_dict, (DICT, X)),
    ("nested", nested, (NESTED, X)),
    ("indexed by a counter", indexed, ([RNG.normal(size=(3, 3)), RNG.normal(size=(3, 2))], X)),
    ("zip", zipped, ((RNG.normal(size=(3, 3)), RNG.normal(size=(3, 2))), [0.5, 1.5], X)),
    ("named tuple", named, (Pair(RNG.normal(size=(3, 2)), RNG.normal(size=2)), X)),
    ("dataclass", data, (Layer(RNG.normal(size=(3, 2)), RNG.normal(size=2)), X)),
]


def _flat(f, args, wrt):
    """f as a function of one vector: the leaves of argument ``wrt``."""
    x0, unflatten = symdiff.flatten(args[wrt])

    def flat(x):
        given = list(args)
        given[wrt] = unflatten(x)
        return f(*given)
    return x0, unflatten, flat


def _central(fun, x0, step=1e-6):
    return np.array([(np.asarray(fun(x0 + step * e)) - np.asarray(fun(x0 - step * e)))
                     / (2 * step) for e in np.eye(len(x0))])


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_gradients_have_the_arguments_structure_and_are_right(name, f, args):
    value, g = symdiff.value_and_grad(f)(*args)
    assert np.isclose(value, f(*args))
    assert symdiff.ir.trees.structure(g).kind == symdiff.ir.trees.structure(args[0]).kind
    x0, unflatten, flat = _flat(f, args, 0)
    np.testing.assert_allclose(symdiff.flatten(g)[0], _central(flat, x0), rtol=1e-6,
                               atol=1e-8)
    # second order: the Hessian's blocks, against differences of the gradient
    H = symdiff.hessian(f)(*args)
    tree = symdiff.ir.trees.structure(args[0])
    floats = [(v, p) for v, (p, leaf) in zip(symdiff.ir.trees.leaves(args[0], tree),
                                             symdiff.ir.trees.paths(tree))
              if leaf.kind == "float"]
    blocks = dict(zip([p for p, _ in symdiff.ir.trees.paths(tree)],
                      symdiff.ir.trees.leaves(H, tree)))
    got = np.vstack([np.hstack([
        np.reshape(dict(zip([p for p, _ in symdiff.ir.trees.paths(tree)],
                            symdiff.ir.trees.leaves(blocks[pa], tree)))[pb],
                   (np.size(va), np.size(vb))) for vb, pb in floats]) for va, pa in floats])
    grad_of = symdiff.grad(f)

    def gradient_vector(x):
        given = list(args)
        given[0] = unflatten(x)
        return symdiff.flatten(grad_of(*given))[0]
    np.testing.assert_allclose(got, _central(gradient_vector, x0).T, rtol=1e-5, atol=1e-6)


def test_a_dict_gradient_has_the_same_keys_and_none_where_there_is_none():
    params = dict(DICT, name="ridge", steps=np.arange(3))
    g = symdiff.grad(regression, wrt="params")(params, X, Y[:, None])
    assert list(g) == list(params)
    assert g["name"] is None and g["steps"] is None and isinstance(g["decay"], float)


def test_generated_code_reads_the_leaves_by_key_and_names_them_after_it():
    text = symdiff.source(symdiff.grad(regression), DICT, X, Y[:, None])
    assert "params_W = params['W']" in text
    assert "return {'W': params_W_bar, 'b': params_b_bar, 'decay':" in text
    text = symdiff.source(symdiff.grad(mlp), layers(1), X, Y)
    assert "W = params[0][0]" in text and "return [(W_bar" in text


def test_named_tuples_and_dataclasses_are_rebuilt_as_themselves():
    pair = Pair(RNG.normal(size=(3, 2)), RNG.normal(size=2))
    g = symdiff.grad(named)(pair, X)
    assert type(g) is Pair
    layer = Layer(RNG.normal(size=(3, 2)), RNG.normal(size=2), "linear")
    g = symdiff.grad(data)(layer, X)
    assert type(g) is Layer and g.activation == "linear"  # a static field kept
    np.testing.assert_allclose(g.b, np.sum(2 * (X @ layer.W + layer.b), axis=0))


def test_a_new_structure_compiles_again_and_arrays_use_the_array_gradient():
    df = symdiff.grad(mlp)
    assert len(df(layers(1), X, Y)) == 2 and len(df(layers(3), X, Y)) == 4

    def plain(w, X):
        return np.sum((X @ w) ** 2)
    dp = symdiff.grad(plain)
    assert not hasattr(dp, "__symdiff_for__")  # not compiled per structure of its arguments
    assert inspect.getsource(dp.__symdiff_generic__.__code__) == symdiff.source(dp)


def tanh_layer(params, X, y):
    h = np.tanh(X @ params["W"] + params["b"])
    return np.sum((h @ params["v"] - y) ** 2)


def _layer(d, k, bias_length):
    return {"W": RNG.normal(size=(d, k)), "b": RNG.normal(size=bias_length),
            "v": RNG.normal(size=k)}


def test_the_leaves_shapes_specialise_the_code_as_arguments_do():
    params = _layer(3, 4, 4)
    text = symdiff.source(symdiff.grad(tanh_layer, wrt="params"), params, X, Y)
    text = " ".join(text.split())  # (the docstring wraps)
    assert "_sum_to" not in text and "_matmul_adjoint" not in text and "_unreduce" not in text
    assert "params['W']: float64[a, b]" in text and "X: float64[c, a]" in text
    assert "params_b_bar = " in text and ".sum(axis=0)" in text  # the bias's gradient
    generic = symdiff.source(symdiff.grad(tanh_layer, wrt="params"))
    assert "_sum_to" in generic  # (the code for the structure, generic in shapes)


@pytest.mark.parametrize("bias_length", [4, 1])
def test_a_leaf_of_another_shape_is_another_gradient_and_right(bias_length):
    """A bias of length 1 broadcast over four units sums its gradient: the
    gradient specialised for length 4 must not be reused for it."""
    df = symdiff.grad(tanh_layer, wrt="params")
    for length in (4, bias_length, 4):
        params = _layer(3, 4, length)
        g = df(params, X, Y)
        x0, unflatten, flat = _flat(tanh_layer, (params, X, Y), 0)
        np.testing.assert_allclose(symdiff.flatten(g)[0], _central(flat, x0), rtol=1e-6,
                                   atol=1e-8)
        assert g["b"].shape == (length,)


def test_leaves_of_python_floats_and_float32_arrays():
    params = {"W": RNG.normal(size=(3, 2)).astype(np.float32), "scale": 0.5}

    def scaled(params, X):
        return params["scale"] * np.sum((X.astype(np.float32) @ params["W"]) ** 2)
    df = symdiff.grad(scaled)
    g = df(params, X)
    assert g["W"].dtype == np.float32 and np.ndim(g["scale"]) == 0
    text = " ".join(symdiff.source(df, params, X).split())  # (the docstring wraps)
    assert "params['W']: float32[a, b]" in text
    expected = 2 * params["scale"] * X.astype(np.float32).T @ (X.astype(np.float32)
                                                               @ params["W"])
    np.testing.assert_allclose(g["W"], expected, rtol=1e-5)


def test_value_and_grad_vjp_jvp_and_a_part_of_a_container():
    (value, g) = symdiff.value_and_grad(regression, wrt=("params", "X"))(DICT, X, Y[:, None])
    assert set(g[0]) == set(DICT) and g[1].shape == X.shape
    g_w = symdiff.grad(regression, wrt="params.W")(DICT, X, Y[:, None])
    np.testing.assert_allclose(g_w, g[0]["W"])
    tangent = {"W": np.ones((3, 1)), "b": np.ones(1), "decay": 1.0}
    _, dot = symdiff.jvp(regression, wrt="params")(DICT, X, Y[:, None], tangent)
    assert np.isclose(dot, sum(np.sum(g[0][k] * tangent[k]) for k in DICT))
    _, back = symdiff.vjp(regression, wrt="params")(DICT, X, Y[:, None], 2.0)
    np.testing.assert_allclose(back["W"], 2.0 * g[0]["W"])


def returns_a_dict(w):
    return {"sq": w ** 2, "sum": np.sum(w)}


def test_a_dict_returned_for_vjp_and_jacobian():
    w = np.array([0.5, -1.0, 2.0])
    value, back = symdiff.vjp(returns_a_dict)(w, {"sq": np.ones(3), "sum": 2.0})
    np.testing.assert_allclose(back, 2 * w + 2.0)
    J = symdiff.jacobian(returns_a_dict)(w)
    np.testing.assert_allclose(J["sq"], np.diag(2 * w))
    np.testing.assert_allclose(J["sum"], np.ones(3))


def test_star_args_are_specialised_on_how_many_are_given():
    a, b = np.array([0.3, 1.0]), np.array([[0.5], [2.0]])
    ga, gb = symdiff.grad(varargs, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(ga, np.sin(a) + a * np.cos(a))
    np.testing.assert_allclose(gb, np.sin(b) + b * np.cos(b))
    assert "def grad_varargs(*xs):" in symdiff.source(symdiff.grad(varargs), a, b)


class Model:
    def __init__(self):
        self.W = RNG.normal(size=(3, 2))
        self.b = np.zeros(2)
        self.activation = np.tanh

    def forward(self, X):
        return self.activation(X @ self.W + self.b)

    def loss(self, X, y):
        return np.mean((self.forward(X)[:, 0] - y) ** 2)


def test_a_bound_method_reads_its_object_where_it_is_called():
    model = Model()
    dX = symdiff.grad(model.loss)(X, Y)  # d/dX: self's attributes are constants
    x0, unflatten = symdiff.flatten(X)
    np.testing.assert_allclose(
        np.ravel(dX), _central(lambda x: model.loss(unflatten(x), Y), x0), rtol=1e-6,
        atol=1e-8)
    g = symdiff.grad(model.loss, wrt="self")(X, Y)
    assert set(g) == {"W", "b", "activation"} and g["activation"] is None
    gW = symdiff.grad(model.loss, wrt="self.W")(X, Y)
    np.testing.assert_allclose(gW, g["W"])
    model.W = model.W * 2.0  # the next call sees the new weights
    assert not np.allclose(symdiff.grad(model.loss, wrt="self.W")(X, Y), gW)


def loss_of_a_model_argument(X, model, y):  # a method called on an argument
    return model.loss(X, y)


def test_a_method_of_an_object_argument_is_inlined_where_it_is_called():
    # (was refused: "`model.loss` is not a method of arrays", where `model.W`
    # of the same argument was read as the object's attribute)
    model = Model()
    dX = symdiff.grad(loss_of_a_model_argument)(X, model, Y)
    np.testing.assert_allclose(dX, symdiff.grad(model.loss)(X, Y))
    x0, unflatten = symdiff.flatten(X)
    np.testing.assert_allclose(
        np.ravel(dX), _central(lambda x: model.loss(unflatten(x), Y), x0), rtol=1e-6,
        atol=1e-8)


def test_flatten_for_scipy_optimize():
    import scipy.optimize as scipy_optimize
    params = {"W": np.zeros((3, 1)), "b": np.zeros(1), "decay": 1}  # (an int: a constant)
    value_and_grad = symdiff.value_and_grad(regression, wrt="params")
    x0, unflatten = symdiff.flatten(params)

    def fun(x):
        value, g = value_and_grad(unflatten(x), X, Y[:, None])
        return value, symdiff.flatten(g)[0]
    result = scipy_optimize.minimize(fun, x0, jac=True, method="BFGS")
    assert result.success and unflatten(result.x)["W"].shape == (3, 1)


def test_refusals_name_the_problem():
    def by_variable(params, key):
        return np.sum(params[key]) + np.sum(params["W"])
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(by_variable)({"W": np.ones(2)}, "W")
    assert "constant key" in info.value.message
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(regression)({"W": np.ones((3, 1)), "decay": 0.1}, X, Y)
    assert "no key 'b'" in info.value.message and "['W', 'decay']" in info.value.hint
    with pytest.raises(WrtError):
        symdiff.grad(regression, wrt="params.nope")(DICT, X, Y)

    def built_by_keywords(x):
        return np.sum(dict(a=x)["a"])
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(built_by_keywords)(np.ones(2))
    assert "a copy of a dict" in info.value.message and "{" in info.value.hint


CLI_SOURCE = '''import numpy as np


def ridge(params, X, y):
    r = X @ params["w"] + params["b"] - y
    return np.mean(r ** 2) + 0.1 * np.sum(params["w"] ** 2)


def start():
    return {"w": np.zeros(3), "b": 0.0}
'''


def test_the_command_line_writes_a_module_for_the_structure_of_an_example(tmp_path):
    import json
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    (tmp_path / "ridge_model.py").write_text(CLI_SOURCE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))

    def cli(*args):
        return subprocess.run([sys.executable, os.path.join(root, "cli.py"), *args],
                              cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=120)
    refused = cli("ridge_model.py::ridge", "--wrt", "params")
    assert refused.returncode == 2 and "--like params=" in refused.stderr
    done = cli("ridge_model.py::ridge", "--wrt", "params", "--like", "params=start()",
               "-o", "ridge_grad.py")
    assert done.returncode == 0, done.stderr
    run = subprocess.run([sys.executable, "-c", (
        "import sys, json; sys.modules['symdiff'] = None\n"
        "import numpy as np, ridge_grad\n"
        "X = np.arange(15.0).reshape(5, 3) / 10; y = np.ones(5)\n"
        "g = ridge_grad.grad_ridge({'w': np.ones(3), 'b': 0.5}, X, y)\n"
        "print(json.dumps({k: np.asarray(v).tolist() for k, v in g.items()}))")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    X, y = np.arange(15.0).reshape(5, 3) / 10, np.ones(5)
    r = X @ np.ones(3) + 0.5 - y
    np.testing.assert_allclose(got["w"], 2 * X.T @ r / 5 + 0.2)
    assert np.isclose(got["b"], 2 * np.mean(r))
    # the module is specialised for the example's leaves: it says so, and
    # refuses leaves of another signature rather than return a wrong gradient
    text = (tmp_path / "ridge_grad.py").read_text()
    assert "params['w']: float64[a], params['b']: float" in " ".join(text.split())
    refused = subprocess.run([sys.executable, "-c", (
        "import numpy as np, ridge_grad\n"
        "ridge_grad.grad_ridge({'w': np.ones((3, 1)), 'b': 0.5}, np.ones((5, 3)), np.ones(5))")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "TypeError" in refused.stderr
    assert "with --like for arguments like them" in refused.stderr


def test_a_list_inside_an_argument_is_looped_over_item_by_item():
    """``enumerate(params["layers"])`` (or ``zip`` of ``list(...)`` and a slice
    of it) ran over the list as one array when the list was not a plain name:
    its items, of different shapes, were stacked, and the gradient with
    respect to ``params`` raised NumPy's ValueError (same shapes: TypeError);
    ``params["layers"][i]`` with ``i`` of a constant range was refused (present
    before 2026-11-25's changes). They are unrolled as a named list's are;
    test_gradients_have_the_arguments_structure_and_are_right checks them."""
    for f in (enumerated_item, zipped_slices, counted_item):
        g = symdiff.grad(f)(ITEMS, X)
        assert [np.shape(v) for v in g["layers"]] == [(2,), (), (1, 2)]
