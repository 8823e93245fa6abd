"""The quick examples run, as a new user would run them."""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
QUICK = ["quickstart.py", "where_and_cond.py", "noisy_forward.py",
         "quantization_training.py", "rnn_sequence.py"]


@pytest.mark.parametrize("name", QUICK)
def test_example_runs(name):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(ROOT / "examples" / name)], cwd=ROOT,
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "def grad_" in done.stdout
