"""The ``symdiff`` logger: what each compile did and how long it took.

Standard `logging`: records go to the logger named ``"symdiff"``. At DEBUG
each compile reports its cache lookup (hit, miss, or a stale entry compiled
again), the time of each stage (read, lower, differentiate, optimize, emit,
load) and the file the source was written to; at INFO, one line per compile.
Nothing is printed unless asked: ``SYMDIFF_LOG=debug`` (or ``info``) in the
environment prints to standard error from ``import symdiff`` on, and
``symdiff.grad(f, verbose=True)`` prints one compile's records.
"""
from __future__ import annotations

import contextlib
import logging
import os
import sys
import time

logger = logging.getLogger("symdiff")
FORMAT = "%(levelname)s:%(name)s: %(message)s"
STAGES = ("read", "lower", "differentiate", "optimize", "emit", "load")


def configure_from_environment(environ=os.environ):
    """``SYMDIFF_LOG=debug|info|warning|error`` (or a number): that level,
    printed to standard error. Unset or empty: logging's defaults."""
    value = environ.get("SYMDIFF_LOG", "").strip()
    if not value:
        return
    level = int(value) if value.isdigit() else logging.getLevelName(value.upper())
    if not isinstance(level, int):
        logger.warning("SYMDIFF_LOG=%s is not a logging level (debug, info, warning, "
                       "error); ignored", value)
        return
    logger.setLevel(level)
    if not any(getattr(h, "_symdiff", False) for h in logger.handlers):
        logger.addHandler(_stderr_handler())


@contextlib.contextmanager
def verbose(on=True):
    """Within the block, symdiff's DEBUG records are printed on standard error
    (as ``SYMDIFF_LOG=debug`` prints them), and only there."""
    if not on:
        yield
        return
    old_level, old_propagate = logger.level, logger.propagate
    handler = None
    if not any(getattr(h, "_symdiff", False) for h in logger.handlers):
        handler = _stderr_handler()
        logger.addHandler(handler)
        logger.propagate = False  # not twice, where the program logs to stderr too
    logger.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        logger.setLevel(old_level)
        logger.propagate = old_propagate
        if handler is not None:
            logger.removeHandler(handler)


def _stderr_handler():
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(FORMAT))
    handler._symdiff = True
    return handler


class StageTimer:
    """Times of a compile's stages: ``with timer("lower"): ...``."""

    def __init__(self):
        self.times = {}

    @contextlib.contextmanager
    def __call__(self, stage):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.times[stage] = self.times.get(stage, 0.0) + time.perf_counter() - start

    def report(self):
        """``read 0.3 ms, lower 1.2 ms, ...; 6.0 ms in all``."""
        parts = [f"{stage} {self.times[stage] * 1e3:.1f} ms" for stage in STAGES
                 if stage in self.times]
        parts += [f"{stage} {t * 1e3:.1f} ms" for stage, t in self.times.items()
                  if stage not in STAGES]
        return f"{', '.join(parts)}; {sum(self.times.values()) * 1e3:.1f} ms in all"
