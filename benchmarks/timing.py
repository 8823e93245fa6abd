"""Interleaved timing: alternate the contenders in batches, report medians.

Times are the process's CPU time (see `_clock`).

Each contender gets its own batch size, calibrated so one batch takes about
`target` seconds (20-50 ms in a full run). Rounds alternate the order
(A B, B A, ...) so drift in the machine's speed hits every contender alike.
"""
from __future__ import annotations

import gc
import statistics
import time

_clock = time.process_time


def _batch(fn, args, n):
    t = _clock()
    for _ in range(n):
        fn(*args)
    return _clock() - t


def calibrate(fn, args, target):
    """Calls per batch so that a batch takes about `target` seconds."""
    fn(*args)  # warm up: first-call effects (allocation, lazy imports)
    n = 1
    while True:
        t = _batch(fn, args, n)
        if t >= target / 4 or n >= 1 << 22:
            break
        n *= 4
    return max(1, int(round(n * target / max(t, 1e-9))))


def interleaved(fns, args, rounds=15, target=0.03):
    """Median seconds per call of each function in `fns` (all called on `args`),
    and every round's per-call times (for paired ratios)."""
    return interleaved_calls([(f, args) for f in fns], rounds, target)


def interleaved_calls(calls, rounds=15, target=0.03):
    """Like `interleaved`, for (function, arguments) pairs: each contender is
    called on its own arguments (a peer framework's arrays, a spelling's own
    parameter list)."""
    sizes = [calibrate(f, a, target) for f, a in calls]
    per_call = [[] for _ in calls]
    order = list(range(len(calls)))
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for r in range(rounds):
            for i in (order if r % 2 == 0 else order[::-1]):
                fn, args = calls[i]
                per_call[i].append(_batch(fn, args, sizes[i]) / sizes[i])
    finally:
        if enabled:
            gc.enable()
    return [statistics.median(p) for p in per_call], per_call


def median_time(fn, repeat=7, number=1):
    """Median over `repeat` runs of the seconds per call of fn() run `number` times."""
    out = []
    for _ in range(repeat):
        t = _clock()
        for _ in range(number):
            fn()
        out.append((_clock() - t) / number)
    return statistics.median(out)


def paired_ratio(a, b):
    """Median over rounds of a[i] / b[i]: batches of the same round ran back to
    back, so a burst of load that slows both cancels out of their ratio."""
    return statistics.median(x / y for x, y in zip(a, b))


def paired_spread(a, b):
    """The quartiles (25 %, 75 %) of the per-round ratios a[i] / b[i]."""
    ratios = sorted(x / y for x, y in zip(a, b))
    if len(ratios) < 4:
        return ratios[0], ratios[-1]
    q = statistics.quantiles(ratios, n=4, method="inclusive")
    return q[0], q[2]
