"""Debugging through generated code: tracebacks show its lines (and so the
user's place they name) with Python's own traceback printer, and pdb steps
through it."""
import inspect
import os
import subprocess
import sys
import textwrap

import numpy as np

import symdiff

USER = textwrap.dedent("""\
    # user_loss.py
    import numpy as np
    import symdiff


    def loss(x):
        y = np.log(x) + 1.0
        z = np.reshape(y, (5,))
        return np.sum(z ** 2)


    df = symdiff.grad(loss)
""")


def _run(tmp_path, code, stdin=None):
    (tmp_path / "user_loss.py").write_text(USER)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, input=stdin,
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    return done


def test_default_traceback_shows_the_generated_line_and_the_users_place(tmp_path):
    """The interpreter's own printer (C code before Python 3.13, which reads
    source files from disk and not linecache) shows the generated line, and
    that line names the user's file and line it was made for."""
    done = _run(tmp_path, "import numpy as np, user_loss\n"
                          "user_loss.df(np.array([1.0, 2.0]))\n")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    frame = next(i for i, line in enumerate(lines) if "grad_loss-" in line)
    assert lines[frame].strip().startswith('File "') and "in grad_loss" in lines[frame]
    assert lines[frame + 1].strip() == "z = np.reshape(y, (5,))  # user_loss.py:8"
    assert "ValueError: cannot reshape" in lines[-1]


def test_pdb_steps_through_the_gradient(tmp_path):
    # (df looks the gradient for arguments like these up, then calls it: step
    # into that call; the first call compiled it)
    done = _run(tmp_path, "import pdb, numpy as np, user_loss\n"
                          "x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])\n"
                          "user_loss.df(x)\n"
                          "pdb.runcall(user_loss.df, x)\n",
                stdin="next\nnext\nstep\nnext\nnext\np y\nll\ncontinue\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "grad_loss()" in out                      # stopped in the gradient
    assert "y = np.log(x) + 1.0  # user_loss.py:7" in out   # ll shows its lines
    assert "array([1.        , 1.69314718" in out     # p y: a forward value


def test_forward_lines_name_the_users_line_and_backward_blocks_quote_it():
    def loss(x, w):
        z = x * w
        return np.sum(np.sin(z))

    lines = symdiff.source(symdiff.grad(loss)).splitlines()
    here = os.path.basename(__file__)
    first = loss.__code__.co_firstlineno
    assert f"    z = x * w  # {here}:{first + 1}" in lines
    assert any(line.startswith(f"    # L{first + 2}: return np.sum") for line in lines)


def test_a_second_derivative_names_the_users_line_not_the_generated_file():
    def loss(x):
        y = np.sin(x)
        return np.sum(y * y)

    text = symdiff.source(symdiff.vjp(symdiff.grad(loss)))
    here = os.path.basename(__file__)
    assert f"# {here}:{loss.__code__.co_firstlineno + 1}" in text


def test_an_unwritable_cache_falls_back_to_a_pseudo_file(tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    monkeypatch.setenv("SYMDIFF_CACHE_DIR", str(blocked))

    def cached_nowhere(x):
        return np.sum(np.cos(x) * 3.0)

    df = symdiff.grad(cached_nowhere)
    code = df.__symdiff_generic__.__code__  # (df is a dispatcher: see specialise.py)
    assert code.co_filename.startswith("<symdiff>/grad_cached_nowhere-")
    assert inspect.getsource(code) == symdiff.source(df)
    np.testing.assert_allclose(df(np.array([0.5])), -3.0 * np.sin([0.5]))
