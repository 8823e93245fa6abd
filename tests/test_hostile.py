"""Code written the way real code is, in the places real code lives.

Names that collide with the ones symdiff generates, NumPy under other names
or not at all, shadowed builtins, functions redefined after compiling,
closures, defaults, partials and methods, notebook cells, very long and very
deeply nested functions, Unicode names, and print/logging inside the
function. Each gives the right gradient or a SymdiffError that says why.
"""
import functools
import importlib
import inspect
import linecache
import logging
import os
import shutil
import sys
import textwrap
import time
import warnings

import numpy
import numpy as np
import pytest

import symdiff
from numeric import assert_grad
from symdiff.errors import (NoDerivativeRuleError, SourceUnavailableError, SymdiffError,
                            UnknownNameError, UnsupportedSyntaxError)

RNG = np.random.default_rng(11)
X = np.array([0.3, -0.7, 1.2])
A23 = RNG.uniform(-1.0, 1.0, size=(2, 3))

_serial = iter(range(10**6))


def module(tmp_path, text, name=None):
    """Write ``text`` to a new module file and import it."""
    name = name or f"hostile_{os.getpid()}_{next(_serial)}"
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


# ---- names like the ones symdiff generates --------------------------------------------
def generated_names(x_bar, g, t):
    tape = x_bar * g
    _sum_to = np.sin(tape) + t
    x_bar_bar = _sum_to * x_bar
    mask = x_bar > 0
    cond = np.where(mask, x_bar_bar, t)
    for i in range(2):
        tape = tape * 0.5 + np.sum(cond * g)
    return np.sum(tape * t)


def test_user_names_like_generated_ones():
    args = (X, np.array([0.5, 2.0, -1.0]), np.array([1.5, 0.2, 0.7]))
    assert_grad(generated_names, symdiff.grad(generated_names, wrt=(0, 1, 2)), args,
                (0, 1, 2))


def param_named_np(x, np):
    return numpy.sum(numpy.sin(x) * np)


def test_a_parameter_named_np():
    assert_grad(param_named_np, symdiff.grad(param_named_np, wrt=(0, 1)), (X, 1.5), (0, 1))


_unreduce = np.array([1.0, 2.0, 3.0])          # the name of a runtime helper
grad_reads_own_name = np.array([0.5, 0.25, 2.0])  # the generated function's name


def reads_helper_name(x):
    return np.sum(np.mean(x * _unreduce, axis=0) ** 2)


def reads_own_name(x):
    return np.sum(x * grad_reads_own_name)


def test_globals_named_like_generated_code():
    assert_grad(reads_helper_name, symdiff.grad(reads_helper_name), (A23,))
    assert_grad(reads_own_name, symdiff.grad(reads_own_name), (X,))


# ---- NumPy under another name, or not at all --------------------------------------------
def test_numpy_imported_as_jnp(tmp_path):
    m = module(tmp_path, """
        import numpy as jnp

        def f(x):
            np = jnp.cos(x)  # a local that happens to be called np
            return jnp.sum(np * jnp.sin(x) + jnp.where(x > 0, x, 0.0))
    """)
    assert_grad(m.f, symdiff.grad(m.f), (X,))


def test_only_from_numpy_imports(tmp_path):
    m = module(tmp_path, """
        from numpy import exp, sin, where
        from numpy import sum as total

        def f(x):
            return total(where(x > 0, sin(x), exp(x)))
    """)
    assert_grad(m.f, symdiff.grad(m.f), (X,))


def test_no_numpy_at_all(tmp_path):
    m = module(tmp_path, """
        import math

        def f(x, y):
            return math.sin(x) * y + math.exp(-x * x) + abs(y) ** 0.5
    """)
    df = symdiff.grad(m.f, wrt=(0, 1))
    assert_grad(m.f, df, (0.4, 1.7), (0, 1))
    assert all(isinstance(g, float) for g in df(0.4, 1.7))


# ---- shadowed builtins --------------------------------------------------------------------
def shadowed_builtins(x):
    len = 2.0
    float = x * len
    slice = float[1:]
    sum = np.sum(slice)
    abs = np.abs(x)
    max = np.max(abs)
    n = x.shape[0]
    y = x[1:n]
    return sum + max + np.sum(y)


def test_shadowed_builtins():
    assert_grad(shadowed_builtins, symdiff.grad(shadowed_builtins), (X,))


def shadowed_range(x, A):
    range = x * 2.0
    acc = 0.0
    for row in A:  # generated code loops over range(len(A))
        acc = acc + np.sum(row * range)
    return acc


def test_a_variable_named_range():
    assert_grad(shadowed_range, symdiff.grad(shadowed_range), (X, A23))
    value, dot = symdiff.jvp(shadowed_range)(X, A23, X)
    assert dot == pytest.approx(np.sum(symdiff.grad(shadowed_range)(X, A23) * X))


def params_named_builtins(x, A, reversed, len, float):
    acc = 0.0
    for row in A:  # generated code calls range, len and reversed
        acc = acc + np.sum(row * x * reversed) * len
    return acc * float


def test_parameters_named_like_called_builtins():
    """A parameter keeps its name; the builtin it hides is called by another."""
    df = symdiff.grad(params_named_builtins)
    assert_grad(params_named_builtins, df, (X, A23, X[::-1], 2.0, 0.5))
    assert "_reversed(" in symdiff.source(df) and "_len(" in symdiff.source(df)
    value, dot = symdiff.jvp(params_named_builtins)(X, A23, X[::-1], 2.0, 0.5, X)
    assert dot == pytest.approx(np.sum(df(X, A23, X[::-1], 2.0, 0.5) * X))


BUILTINS_AS_GLOBALS = """
    import numpy as np

    range = np.array([1.0, 2.0, 3.0])
    len = np.array([0.5, -1.0, 2.0])
    type = np.array([2.0, 1.0, 0.5])   # the written module's helpers call type()

    def f(x, A):
        acc = 0.0
        for row in A:
            acc = acc + np.sum(row * x * range * len * type)
        return acc

    def g(x, A, reversed):
        acc = 0.0
        for row in A:
            acc = acc + np.sum(row * x * reversed)
        return acc
"""


def test_globals_named_like_builtins(tmp_path):
    m = module(tmp_path, BUILTINS_AS_GLOBALS)
    assert_grad(m.f, symdiff.grad(m.f), (X, A23))
    value, dot = symdiff.jvp(m.f)(X, A23, X)
    assert dot == pytest.approx(np.sum(symdiff.grad(m.f)(X, A23) * X))


def test_builtins_hidden_by_globals_and_parameters_in_a_written_module(tmp_path):
    from symdiff.cli import main
    src = tmp_path / "builtin_names.py"
    src.write_text(textwrap.dedent(BUILTINS_AS_GLOBALS))
    out = tmp_path / "builtin_names_grads.py"
    sys.path.insert(0, str(tmp_path))
    try:
        assert main([str(src) + "::f", "-o", str(out)]) in (0, None)
        assert main([str(src) + "::g", "-o", str(tmp_path / "builtin_names_g.py")]) in (0, None)
        written = importlib.import_module("builtin_names_grads")
        written_g = importlib.import_module("builtin_names_g")
        m = importlib.import_module("builtin_names")
    finally:
        sys.path.remove(str(tmp_path))
    assert "range as range_1" in out.read_text()
    assert_grad(m.f, written.grad_f, (X, A23))
    assert_grad(m.g, written_g.grad_g, (X, A23, X[::-1]))


# ---- the same function, changed -----------------------------------------------------------
def test_redefined_module_is_recompiled(tmp_path):
    name = f"redefined_{os.getpid()}_{next(_serial)}"
    m = module(tmp_path, """
        import numpy as np

        def f(x):
            return np.sum(x ** 2)
    """, name=name)
    first = symdiff.grad(m.f)
    np.testing.assert_allclose(first(X), 2 * X)
    (tmp_path / f"{name}.py").write_text(
        "import numpy as np\n\n\ndef f(x):\n    return np.sum(x ** 3)  # changed\n")
    shutil.rmtree(tmp_path / "__pycache__", ignore_errors=True)
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.invalidate_caches()
        m = importlib.reload(m)
    finally:
        sys.path.remove(str(tmp_path))
    np.testing.assert_allclose(symdiff.grad(m.f)(X), 3 * X ** 2)
    np.testing.assert_allclose(first(X), 2 * X)  # the old gradient is unchanged


def test_edited_but_not_reloaded_is_an_error(tmp_path):
    """The function runs its old code; reading the new text would differentiate
    a different function, silently."""
    m = module(tmp_path, """
        import numpy as np

        def f(x):
            return np.sum(x ** 2)

        def g(x):
            return np.sum(x ** 2)
    """)
    compiled = symdiff.grad(m.f)
    path = m.__file__
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text.replace("x ** 2", "x ** 3"))
    linecache.checkcache(path)
    assert symdiff.grad(m.f) is compiled  # cached: it is the code that runs
    with pytest.raises(SourceUnavailableError) as info:
        symdiff.grad(m.g)
    assert "changed" in info.value.message and "reload" in info.value.hint
    assert info.value.filename == path


def test_redefined_helper_is_noticed(tmp_path):
    m = module(tmp_path, """
        import numpy as np

        def helper(x):
            return x * 2.0

        def f(x):
            return np.sum(helper(x) ** 2)
    """)
    np.testing.assert_allclose(symdiff.grad(m.f)(X), 8 * X)
    exec("def helper(x):\n    return x * 3.0\n", m.__dict__)  # noqa: S102
    with pytest.raises(SourceUnavailableError):  # exec'd: there is no source
        symdiff.grad(m.f)
    m.helper = np.negative
    np.testing.assert_allclose(symdiff.grad(m.f)(X), 2 * X)


def test_same_code_in_two_modules_is_two_functions(tmp_path):
    """Code objects compare equal across files: the cache must not mix them up."""
    text = """
        import numpy as np

        W = {}

        def f(x):
            return np.sum(W * x)
    """
    a = module(tmp_path, text.format("2.0"))
    b = module(tmp_path, text.format("np.array([1.0, 2.0, 3.0])"))
    np.testing.assert_allclose(symdiff.grad(a.f)(X), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(symdiff.grad(b.f)(X), [1.0, 2.0, 3.0])


# ---- closures, defaults, partials, methods --------------------------------------------------
def make_loss(W, k):
    def loss(x):
        return np.sum(np.tanh(W @ x) * k)
    return loss


def test_closures_over_read_only_values():
    W1, W2 = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))
    f1, f2 = make_loss(W1, 2.0), make_loss(W2, -1.0)
    assert_grad(f1, symdiff.grad(f1), (X,))
    assert_grad(f2, symdiff.grad(f2), (X,))
    assert symdiff.grad(f1) is symdiff.grad(f1)
    W1 *= 3.0  # read at run time, like the function does
    assert_grad(f1, symdiff.grad(f1), (X,))


def closure_rebound():
    k = float("2.5")

    def f(x):
        return np.sum(k * x)
    first = symdiff.grad(f)(X)
    k = float("-4.5")
    return first, symdiff.grad(f)(X)


def test_a_closure_variable_rebound_after_compiling():
    first, second = closure_rebound()
    np.testing.assert_allclose(first, 2.5)
    np.testing.assert_allclose(second, -4.5)


OFFSET = np.array([0.5, 0.0, -0.5])


def with_defaults(x, scale=2.0, shift=OFFSET, *, power=3, eps=np.float64(1e-3)):
    return np.sum(scale * x ** power + shift * x) + eps


def test_defaults_and_keyword_only_arguments():
    df = symdiff.grad(with_defaults)
    mine = inspect.signature(df).parameters.values()
    theirs = inspect.signature(with_defaults).parameters.values()
    assert [(p.name, p.kind) for p in mine] == [(p.name, p.kind) for p in theirs]
    assert all(p.default is q.default or p.default == q.default == 2.0
               for p, q in zip(mine, theirs))
    assert_grad(with_defaults, df, (X,))
    np.testing.assert_allclose(df(X, 1.0, power=2), 2 * X + OFFSET)
    with pytest.raises(TypeError):
        df(X, 1.0, OFFSET, 2)  # power is keyword-only, as in with_defaults
    d_scale = symdiff.grad(with_defaults, wrt="scale")
    np.testing.assert_allclose(d_scale(X), np.sum(X ** 3))
    value, grads = symdiff.value_and_grad(with_defaults, wrt=("x", "shift"))(X, power=2)
    assert value == pytest.approx(with_defaults(X, power=2))
    np.testing.assert_allclose(grads[1], X)
    assert "power=3" in symdiff.source(df)


def test_vjp_and_jvp_take_every_argument():
    """Their extra arguments come last, so no default can come before them."""
    value, pulled = symdiff.vjp(with_defaults)(X, 2.0, OFFSET, 3, 1e-3, 1.0)
    assert_grad(with_defaults, lambda *a: pulled, (X,))


def _partial_target(x, scale):
    return np.sum(scale * x ** 2)


def test_functools_partial_is_an_error_with_a_hint():
    with pytest.raises(SourceUnavailableError) as info:
        symdiff.grad(functools.partial(_partial_target, scale=2.0))
    assert "partial" in info.value.message and "def" in info.value.hint


_twice = functools.partial(np.multiply, 2.0)


def calls_a_partial(x):
    return np.sum(_twice(x))


def test_calling_a_partial_inside_is_an_error():
    with pytest.raises(NoDerivativeRuleError) as info:
        symdiff.grad(calls_a_partial)
    assert info.value.lineno == calls_a_partial.__code__.co_firstlineno + 1


class Model:
    scale = 2.0

    def loss(self, w):
        return np.sum(self.scale * w ** 2)

    @staticmethod
    def static_loss(w):
        return np.sum(w ** 3)


def test_bound_methods_read_their_object_where_they_are_called():
    """A method's object is an argument of the gradient, read where it is
    called (tests/test_containers.py): self.scale is its class's constant."""
    model = Model()
    assert_grad(model.loss, symdiff.grad(model.loss), (X,))
    np.testing.assert_allclose(symdiff.grad(Model.loss, wrt="w")(model, X), 4.0 * X)
    assert_grad(Model.static_loss, symdiff.grad(Model.static_loss), (X,))


# ---- notebooks ----------------------------------------------------------------------------
def run_cell(code, filename, namespace):
    """What IPython does with a cell: register its text in linecache under a
    made-up file name, compile it under that name, run it."""
    code = textwrap.dedent(code)
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    exec(compile(code, filename, "exec"), namespace)  # noqa: S102


@pytest.mark.parametrize("filename", ["<ipython-input-3-5c1ea6e0b1a9>",
                                      "/tmp/ipykernel_4242/3391486145.py"])
def test_functions_defined_in_a_notebook_cell(filename):
    ns = {"__name__": "__main__"}
    run_cell("import numpy as np\n", filename + "0", ns)
    run_cell("""
        def loss(w, x):
            h = np.tanh(x @ w)
            return np.sum(np.where(h > 0, h, 0.1 * h) ** 2)
    """, filename, ns)
    w = np.array([0.5, -1.0, 0.25])
    assert_grad(ns["loss"], symdiff.grad(ns["loss"]), (w, A23))
    assert inspect.getsource(symdiff.grad(ns["loss"]).__code__).startswith("def grad_loss")
    # the cell is run again, changed: a new function, a new gradient
    run_cell("""
        def loss(w, x):
            return np.sum((x @ w) ** 2)
    """, filename.replace("3", "4", 1), ns)
    assert_grad(ns["loss"], symdiff.grad(ns["loss"]), (w, A23))
    # errors point into the cell
    run_cell("""
        def bad(w):
            return np.sum(w ** 2) + undefined_name
    """, filename + "b", ns)
    with pytest.raises(UnknownNameError) as info:
        symdiff.grad(ns["bad"])
    assert info.value.filename == filename + "b" and info.value.lineno == 3
    assert "undefined_name" in str(info.value)
    # and so does a check that fails while the gradient runs
    with pytest.raises(SymdiffError) as info:
        symdiff.grad(ns["loss"])(np.array([1, 2, 3]), A23)
    assert info.value.filename == filename.replace("3", "4", 1) and info.value.lineno == 2


def test_a_function_typed_at_a_prompt_has_no_source():
    ns = {"np": np}
    exec(compile("def f(x):\n    return np.sum(x ** 2)\n", "<stdin>", "exec"), ns)  # noqa
    with pytest.raises(SourceUnavailableError) as info:
        symdiff.grad(ns["f"])
    assert info.value.hint


# ---- size and depth ------------------------------------------------------------------------
def test_a_very_long_function(tmp_path):
    lines = ["import numpy as np", "", "def f(x, w):", "    y = x"]
    for i in range(240):
        op = ["np.tanh(y * w + {c})", "y + 0.01 * np.sin(y * {c})",
              "np.where(y > {c}, y, 0.5 * y)", "y * (1.0 + 0.001 * np.sum(w))"][i % 4]
        lines.append(f"    y = {op.format(c=round(0.1 * (i % 7) - 0.3, 2))}")
        if i % 10 == 9:
            lines.append(f"    z{i} = np.sum(y ** 2)")
    lines.append("    return np.sum(y) + " + " + ".join(f"z{i}" for i in range(9, 240, 10)))
    m = module(tmp_path, "\n".join(lines) + "\n")
    start = time.perf_counter()
    df = symdiff.grad(m.f, wrt=(0, 1))
    assert time.perf_counter() - start < 30
    w = np.array([0.9, 1.1, 0.7])
    assert_grad(m.f, df, (X, w), (0, 1), rtol=1e-5, atol=1e-6)


def _nested_expression(depth):
    expr = "x"
    for i in range(depth):
        expr = f"np.sin({expr} * 0.9 + 0.1)"
    return f"import numpy as np\n\ndef f(x):\n    return np.sum({expr})\n"


def test_deeply_nested_expressions(tmp_path):
    m = module(tmp_path, _nested_expression(40))
    assert_grad(m.f, symdiff.grad(m.f), (X,))
    m = module(tmp_path, _nested_expression(190))  # Python's parser still takes it
    assert_grad(m.f, symdiff.grad(m.f), (X,))


def _nested_ifs(depth):
    lines = ["import numpy as np", "", "def f(x):", "    y = x"]
    pad = "    "
    for i in range(depth):
        lines.append(f"{pad}if np.sum(y) > {i - depth / 2}:")
        pad += "    "
        lines.append(f"{pad}y = np.sin(y) + {i}.0")
    lines.append("    return np.sum(y * x)")
    return "\n".join(lines) + "\n"


def test_deeply_nested_ifs(tmp_path):
    m = module(tmp_path, _nested_ifs(12))
    assert_grad(m.f, symdiff.grad(m.f), (X,))


def test_ifs_nested_twenty_deep(tmp_path):
    m = module(tmp_path, _nested_ifs(20))
    assert_grad(m.f, symdiff.grad(m.f), (X,))


# ---- Unicode ---------------------------------------------------------------------------------
def unicode_names(α, θ_1):
    β = α * θ_1
    γ̂ = np.where(β > 0, np.sqrt(β), -β)
    return np.sum(γ̂ ** 2 + np.cos(α))


def nfkc_names(ﬁrst, ℌ):  # noqa: Python reads these as `first` and `H`
    return np.sum(ﬁrst * ℌ ** 2)


def unicode_error(α):
    return np.sum(α ** 2) + ζ_unknown  # noqa: F821


def test_unicode_identifiers():
    df = symdiff.grad(unicode_names, wrt=("α", "θ_1"))
    assert_grad(unicode_names, df, (X, np.array([0.5, 2.0, -1.0])), (0, 1))
    assert "α_bar" in symdiff.source(df)
    df = symdiff.grad(nfkc_names, wrt=("ﬁrst", "ℌ"))  # as written, or as Python reads
    assert symdiff.grad(nfkc_names, wrt=("first", "H")) is df
    assert_grad(nfkc_names, df, (X, np.array([0.5, 2.0, -1.0])), (0, 1))
    with pytest.raises(UnknownNameError) as info:
        symdiff.grad(unicode_error)
    text = str(info.value).splitlines()
    assert text[1].strip() == "return np.sum(α ** 2) + ζ_unknown  # noqa: F821"
    assert text[2].index("^") - text[1].index("return") == \
        "return np.sum(α ** 2) + ".__len__()


# ---- print and logging inside the function ---------------------------------------------------
log = logging.getLogger("symdiff.tests.hostile")


def prints(x):
    print("x has shape", x.shape)
    y = np.sin(x)
    total = 0.0
    for i in range(3):
        total = total + np.sum(y * i)
        print(f"step {i}: {total:.3f}", end=";")
        if total > 0.5:
            print("over", sep="")
    print()
    return total + np.sum(x ** 2)


def test_print_runs_in_the_forward_pass(capsys):
    expected_value = prints(X)
    expected = capsys.readouterr().out
    df = symdiff.value_and_grad(prints)
    assert "print(" in symdiff.source(df)
    value, grad = df(X)
    assert capsys.readouterr().out == expected  # once, in order, nothing from backward
    assert value == expected_value
    assert_grad(prints, symdiff.grad(prints), (X,))
    capsys.readouterr()
    symdiff.jvp(prints)(X, np.ones(3))
    assert capsys.readouterr().out == expected


def helper_that_prints(v):
    print("helper sees", np.round(np.sum(v), 3))
    return v * 2.0


def prints_in_helper(x):
    return np.sum(helper_that_prints(helper_that_prints(x)) ** 2)


def test_print_inside_a_helper_runs_at_each_call(capsys):
    prints_in_helper(X)
    expected = capsys.readouterr().out
    assert expected.count("helper sees") == 2
    g = symdiff.grad(prints_in_helper)(X)
    assert capsys.readouterr().out == expected
    np.testing.assert_allclose(g, 32 * X)


def logs(x):
    log.info("input mean %.4f", np.mean(x))
    logging.getLogger("symdiff.tests.hostile").debug("not reached")  # noqa
    return np.sum(x ** 3)


def logs_module_level(x):
    log.warning("norm=%s", np.linalg.norm(x))
    logging.info("sum=%s", np.sum(x))
    warnings.warn("slow path", UserWarning)
    return np.sum(np.exp(x))


def test_logging_runs_in_the_forward_pass(caplog):
    with caplog.at_level(logging.INFO):
        with pytest.warns(UserWarning, match="slow path"):
            g = symdiff.grad(logs_module_level)(X)
    np.testing.assert_allclose(g, np.exp(X))
    messages = [r.getMessage() for r in caplog.records if r.name != "symdiff"]
    assert messages == [f"norm={np.linalg.norm(X)}", f"sum={np.sum(X)}"]


def test_a_logger_made_inside_the_function_is_an_error():
    with pytest.raises(SourceUnavailableError) as info:
        symdiff.grad(logs)
    assert "standard library" in info.value.message and "module-level" in info.value.hint
    assert info.value.lineno == logs.__code__.co_firstlineno + 2


def prints_to_a_file(x):
    print(x, file=sys.stderr)
    return np.sum(x)


def fstring_elsewhere(x):
    return np.sum(x) * len(f"{x}")


def test_an_f_string_outside_print_is_an_error():
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(fstring_elsewhere)
    assert "f-string" in info.value.message and info.value.col_offset == 27


def test_print_with_a_non_constant_keyword_is_an_error():
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(prints_to_a_file)
    assert "file" in info.value.message and info.value.hint


def test_print_in_a_second_derivative(capsys):
    def cubic(x):
        print("evaluating")
        return np.sum(x ** 3)
    h = symdiff.hessian(cubic)(X)
    np.testing.assert_allclose(h, np.diag(6 * X))
    assert "evaluating" in capsys.readouterr().out


def test_print_in_a_written_module(tmp_path, capsys):
    from symdiff.cli import main
    src = tmp_path / "printing_model.py"
    src.write_text(textwrap.dedent("""
        import logging
        import numpy as np
        log = logging.getLogger("printing_model")

        def loss(w):
            print(f"w = {np.round(w, 2)}")
            log.info("loss of %s", w.shape)
            return np.sum(w ** 2)
    """))
    out = tmp_path / "printing_grads.py"
    sys.path.insert(0, str(tmp_path))
    try:
        assert main([f"{src}::loss", "-o", str(out)]) in (0, None)
        assert "from printing_model import log" in out.read_text()
        written = importlib.import_module("printing_grads")
    finally:
        sys.path.remove(str(tmp_path))
    capsys.readouterr()
    np.testing.assert_allclose(written.grad_loss(X), 2 * X)
    assert capsys.readouterr().out == f"w = {np.round(X, 2)}\n"


def sqrt_printed(x):
    y = np.sqrt(x)
    print(y)
    return np.sum(np.where(x > 0, y, 0.0))


def test_printing_a_where_branch_keeps_its_gradient_finite(capsys):
    x = np.array([1.0, -1.0, 4.0])
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore")
        g = symdiff.grad(sqrt_printed)(x)
    np.testing.assert_allclose(g, [0.5, 0.0, 0.25])
