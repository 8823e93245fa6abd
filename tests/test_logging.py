"""The ``symdiff`` logger: each compile's cache lookup, stages and times."""
import logging
import os
import re
import subprocess
import sys

import numpy as np

import symdiff
from symdiff import gradient_cache as api
from symdiff.log import configure_from_environment, logger

SCALE = 2.0


def scaled(x):
    return np.sum(np.sin(x) * SCALE)


def test_verbose_prints_one_compile_to_stderr(capsys):
    def loss(x):
        return np.sum(x ** 3)

    symdiff.grad(loss, verbose=True)
    err = capsys.readouterr().err.splitlines()
    assert re.fullmatch(r"DEBUG:symdiff: grad of test_logging\.py:\d+ \(test_verbose_.*"
                        r"loss\): cache miss \(hits \d+, misses \d+\); compiling", err[0])
    assert re.fullmatch(r"INFO:symdiff: compiled grad_loss from test_logging\.py:\d+ "
                        r"\(loss\) in \d+\.\d ms", err[1])
    assert re.fullmatch(r"DEBUG:symdiff: grad_loss: read [\d.]+ ms, lower [\d.]+ ms, "
                        r"differentiate [\d.]+ ms, optimize [\d.]+ ms, emit [\d.]+ ms, "
                        r"load [\d.]+ ms; [\d.]+ ms in all", err[2])
    assert err[3].startswith("DEBUG:symdiff: grad_loss: source in ")
    assert err[3].endswith(".py") and os.path.isfile(err[3].split(" source in ")[1])
    symdiff.grad(loss, verbose=True)
    assert re.fullmatch(r"DEBUG:symdiff: grad of .*: cache hit \(hits \d+, misses \d+\)",
                        capsys.readouterr().err.strip())
    symdiff.grad(loss)  # not verbose: nothing
    assert capsys.readouterr().err == ""
    assert logger.level == logging.NOTSET and not logger.handlers


def test_records_go_to_the_programs_own_handlers(caplog):
    def loss(x):
        return np.sum(np.cos(x))

    with caplog.at_level(logging.DEBUG, logger="symdiff"):
        symdiff.grad(loss)
        symdiff.grad(loss)
    messages = [r.getMessage() for r in caplog.records if r.name == "symdiff"]
    assert any("cache miss" in m for m in messages)
    assert any(m.startswith("compiled grad_loss from") for m in messages)
    assert any("cache hit" in m for m in messages)


def test_a_stale_entry_says_what_changed(caplog):
    global SCALE
    symdiff.grad(scaled)
    SCALE = 3.0
    try:
        with caplog.at_level(logging.DEBUG, logger="symdiff"):
            symdiff.grad(scaled)
    finally:
        SCALE = 2.0
    assert any("cache changed: `SCALE` is not the object it was" in r.getMessage()
               for r in caplog.records)


def test_cache_statistics_count_hits_and_misses():
    def loss(x):
        return np.sum(np.tanh(x))

    before = api.cache_info()
    symdiff.grad(loss)
    symdiff.grad(loss)
    after = api.cache_info()
    assert after["misses"] == before["misses"] + 1
    assert after["hits"] == before["hits"] + 1


def test_symdiff_log_environment_variable(tmp_path):
    (tmp_path / "m.py").write_text("import numpy as np\n\n\n"
                                   "def f(x):\n    return np.sum(x * x)\n")
    code = "import symdiff, m\nsymdiff.grad(m.f)\n"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), SYMDIFF_LOG="debug")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "DEBUG:symdiff: grad of m.py:4 (f): cache miss" in done.stderr
    assert "INFO:symdiff: compiled grad_f from m.py:4 (f)" in done.stderr
    env["SYMDIFF_LOG"] = "info"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.stderr.startswith("INFO:symdiff: compiled grad_f") and "DEBUG" not in done.stderr


def test_a_bad_symdiff_log_value_is_reported_not_fatal(caplog):
    with caplog.at_level(logging.WARNING, logger="symdiff"):
        configure_from_environment({"SYMDIFF_LOG": "loud"})
    assert "SYMDIFF_LOG=loud is not a logging level" in caplog.text
    assert logger.level == logging.NOTSET


def test_the_command_line_logs_its_compiles(tmp_path):
    (tmp_path / "m.py").write_text("import numpy as np\n\n\n"
                                   "def f(x):\n    return np.sum(x * x)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), SYMDIFF_LOG="info")
    done = subprocess.run([sys.executable, "-m", "symdiff", "m.py::f"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "INFO:symdiff: compiled grad_f from m.py:4 (f)" in done.stderr
    assert "INFO:symdiff: compiled value_and_grad_f from m.py:4 (f)" in done.stderr
