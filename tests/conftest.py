"""Test-wide set-up: the tests' own modules importable, and one temporary
directory for the whole run.

Everything a run writes outside the checkout (pytest's ``tmp_path``
directories, symdiff's cache of derivatives and generated sources, the
files of subprocesses, which inherit ``TMPDIR``) goes under one directory,
removed when the run passes and kept, with its path printed, when it fails.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))

_RUN_DIR = tempfile.mkdtemp(prefix="symdiff-tests-")
tempfile.tempdir = _RUN_DIR
os.environ["TMPDIR"] = _RUN_DIR
# Derivatives symdiff derives are cached per user; keep test runs hermetic.
os.environ.setdefault("SYMDIFF_CACHE_DIR", os.path.join(_RUN_DIR, "cache"))


def pytest_sessionfinish(session, exitstatus):
    if exitstatus == 0:
        shutil.rmtree(_RUN_DIR, ignore_errors=True)


def pytest_terminal_summary(terminalreporter, exitstatus):
    if exitstatus != 0 and os.path.isdir(_RUN_DIR):
        terminalreporter.write_line(f"files written by this run are kept in {_RUN_DIR}")
