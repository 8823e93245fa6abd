"""What a new user and a contributor get: the licence, the typing marker,
``python -m symdiff``, a test extra that skips nothing, and a test run that
leaves no files behind."""
import configparser
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = configparser.ConfigParser()
CONFIG.read(ROOT / "setup.cfg")


def test_licence_file_matches_the_metadata():
    assert CONFIG["metadata"]["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_the_package_is_marked_typed():
    assert (ROOT / "symdiff" / "py.typed").is_file()
    assert "py.typed" in CONFIG["options.package_data"]["symdiff"]


def test_changelog_names_this_version():
    import symdiff
    assert f"## {symdiff.__version__}" in (ROOT / "CHANGELOG.md").read_text()


def test_python_dash_m_symdiff_is_the_command():
    done = subprocess.run([sys.executable, "-m", "symdiff", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("symdiff ")


def test_the_test_extra_has_what_the_tests_import():
    extra = CONFIG["options.extras_require"]["test"]
    for needed in ("pytest", "hypothesis", "scipy", "pycodestyle", "mypy", "numba",
                   "array-api-strict", "array-api-compat", "dask[array]", "jax", "torch"):
        assert needed in extra
    # and nothing is skipped for want of it
    for path in (ROOT / "tests").glob("*.py"):
        if path.name != "test_packaging.py":
            assert "pytest.importorskip(" not in path.read_text(), path.name


def test_a_test_run_leaves_no_files_behind(tmp_path):
    """A passing run removes what it wrote outside the checkout (pytest's
    tmp_path, symdiff's caches, the files of the subprocesses it starts)."""
    fresh = tmp_path / "tmp"
    fresh.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "SYMDIFF_CACHE_DIR"}
    env.update(TMPDIR=str(fresh))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/test_formulas.py", "tests/test_examples.py::"
                           "test_example_runs[quickstart.py]"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(os.listdir(fresh)) == []
