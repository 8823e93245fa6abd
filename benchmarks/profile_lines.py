#!/usr/bin/env python3
"""Where a generated gradient spends its time: time per top-level statement.

    python benchmarks/profile_lines.py huber "param delta, where" n=1e6
    python benchmarks/profile_lines.py "GMM log-likelihood" max-shift 20000x8x4 --calls 20

Takes a case, a spelling and a size from cases/, inserts a clock read after
each top-level statement of symdiff's generated gradient (a loop counts as one
statement), runs it, and prints the costliest statements beside the
hand-written gradient's time. It reads the wall clock (a CPU-time read is a
system call, ~0.5 µs, too slow to put between statements), so run it on a quiet
machine; the reads add ~0.1 µs a statement, so at the smallest sizes the
shares matter more than the sum. Used for the
diagnoses in cases/*.py (`why=`) and RESULTS.md.
"""
import argparse
import ast
import ctypes
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

import numpy as np  # noqa: E402

import symdiff  # noqa: E402
from cases import CASES, positional  # noqa: E402


def steady_malloc():
    """No fresh pages per call (glibc): large temporaries stay in the heap, as in
    a process that has handled large arrays (run.py reaches the same state)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
    libc.mallopt(M_MMAP_THRESHOLD, 1 << 30)
    libc.mallopt(M_TRIM_THRESHOLD, 1 << 31)


def instrumented(df, args):
    """The generated function ``df(*args)`` runs (specialised for arguments
    like these) with `_spent[i] += <time of statement i>`."""
    plain = symdiff.specialised(df, *args)
    tree = ast.parse(symdiff.source(df, *args))
    fn = tree.body[0]
    body, texts = [ast.parse("_t0 = _clock()").body[0]], []
    for stmt in fn.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # the docstring
        body.append(stmt)
        if isinstance(stmt, ast.Return):
            continue
        texts.append(ast.unparse(stmt).splitlines()[0])
        body += ast.parse(f"_t1 = _clock(); _spent[{len(texts) - 1}] += _t1 - _t0; "
                          "_t0 = _t1").body
    fn.body = body
    ast.fix_missing_locations(tree)
    scope = dict(plain.__globals__, _clock=time.perf_counter, _spent=[0.0] * len(texts))
    exec(compile(tree, "<profiled>", "exec"), scope)
    return scope[fn.name], scope["_spent"], texts


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("case")
    p.add_argument("spelling")
    p.add_argument("size")
    p.add_argument("--calls", type=int, default=50)
    p.add_argument("--top", type=int, default=12)
    opts = p.parse_args(argv)
    steady_malloc()
    case = next(c for c in CASES if c.name == opts.case)
    spelling = next(s for s in case.spellings if s.label == opts.spelling)
    args = case.sizes[opts.size](np.random.default_rng(20240607))
    df = symdiff.grad(spelling.fn, wrt=case.symdiff_wrt, overrides=spelling.overrides)
    call_args, hand_args = positional(spelling.fn, args), positional(case.hand, args)
    fn, spent, texts = instrumented(df, call_args)
    with np.errstate(all="ignore"):
        for _ in range(3):  # warm up: first-call effects, the heap's size
            fn(*call_args)
            case.hand(*hand_args)
        spent[:] = [0.0] * len(spent)
        for _ in range(opts.calls):
            fn(*call_args)
        t0 = time.perf_counter()
        for _ in range(opts.calls):
            case.hand(*hand_args)
        hand = (time.perf_counter() - t0) / opts.calls
    total = sum(spent) / opts.calls
    print(f"{case.name} / {spelling.label} at {opts.size}: {total * 1e6:.1f} µs "
          f"(statements), hand-written {hand * 1e6:.1f} µs")
    for t, text in sorted(zip(spent, texts), reverse=True)[:opts.top]:
        t /= opts.calls
        print(f"  {t * 1e6:9.1f} µs {t / hand:6.2f}× hand  {text[:100]}")


if __name__ == "__main__":
    main()
