"""The public API is typed: ``mypy --strict`` on a user's file sees the
gradient's parameters, the decorator forms and the controls, and reports a
misuse."""
import os
import subprocess
import sys
import sysconfig
import textwrap

import symdiff

USER = textwrap.dedent('''\
    from typing import Any, Callable

    import numpy as np
    import numpy.typing as npt

    import symdiff

    Array = npt.NDArray[np.float64]


    def loss(w: Array, x: Array, scale: float = 1.0) -> Any:
        z = symdiff.stop_gradient(x @ w)
        h = symdiff.straight_through(np.floor(z), z)
        return scale * np.sum(symdiff.backward_as(h, z) ** 2)


    @symdiff.grad
    def decorated(w: Array) -> Any:
        return np.sum(w ** 2)


    @symdiff.value_and_grad(wrt=("w", "b"), verbose=False)
    def two(w: Array, b: float) -> Any:
        return np.sum(w) * b


    @symdiff.register_gradient("Clipped")
    def clipped(g: Array, x: Array) -> Array:
        return np.clip(g, -1.0, 1.0)


    @symdiff.custom_gradient
    def scaled(x: Array) -> tuple[Array, Callable[[Array], Array]]:
        def backward(g: Array) -> Array:
            return 2.0 * g
        return 2.0 * x, backward


    w, x = np.ones(3), np.ones((2, 3))
    df = symdiff.grad(loss, wrt="w", overrides={"floor": "identity"})
    g = df(w, x, scale=2.0)
    value, (gw, gb) = two(w, 0.5)
    v2, vjp_result = symdiff.vjp(loss)(w, x, np.float64(1.0))
    h = symdiff.hessian(loss)(w, x)
    j = symdiff.jacobian(decorated)(w)
    text: str = symdiff.source(df)
    y: Array = scaled(w)
    picked: float = symdiff.cond(True, lambda a: a + 1.0, lambda a: a - 1.0, 2.0)
    with symdiff.gradient_override({"floor": "Clipped"}):
        pass
    try:
        decorated(w)
    except symdiff.SymdiffError as err:
        where: str | None = err.filename
    reveal_type(df)
    reveal_type(two)
    df(w, x, scale="big")
''')


def test_mypy_strict_sees_the_public_api(tmp_path):
    (tmp_path / "user.py").write_text(USER)
    env = dict(os.environ, COLUMNS="1000")  # revealed types in full
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(symdiff.__file__)))
    site = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    if package_parent not in site:  # a checkout (editable or on PYTHONPATH)
        env["MYPYPATH"] = package_parent
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                           "--follow-imports=silent", "--cache-dir", str(tmp_path / "cache"),
                           "user.py"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    lines = done.stdout.splitlines()
    assert done.returncode == 1, done.stdout + done.stderr
    # the gradient takes loss's own parameters, and a tuple-returning one is typed so
    assert any('Revealed type is "def (w: numpy.ndarray' in line and "scale: float ="
               in line for line in lines), lines
    assert any('Revealed type is "def (w: numpy.ndarray' in line
               and "tuple[Any, Any]" in line for line in lines), lines
    errors = [line for line in lines if ": error:" in line]
    assert len(errors) == 1, lines  # the misuse, and only it
    assert 'Argument "scale" has incompatible type "str"; expected "float"' in errors[0]
