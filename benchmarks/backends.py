"""Gradients on other engines: numba for scalar loops, jax.jit for fusion.

    /tmp/bench-venv/bin/python benchmarks/backends.py            # both; BACKENDS.md
    /tmp/bench-venv/bin/python benchmarks/backends.py --quick    # small, prints only

**numba** (issue 17): ``symdiff.grad(f, checks=False)``, specialised for the
arguments (``symdiff.specialised``), compiled by ``numba.njit``, against the
same code run by Python, for the scalar, loop-heavy functions of
tests/loop_functions.py (a fixed-point iteration, an Euler-stepped ODE,
Heron's iteration).

**jax.jit**: the generated gradient, called on JAX arrays under ``jax.jit``
(XLA fuses it), against ``jax.jit(jax.grad(f))``, symdiff's NumPy gradient
and the hand-written NumPy gradient of the benchmark cases (cases/), at
their large sizes. Double precision throughout (``jax_enable_x64``).

Times are wall-clock medians of interleaved batches (the contenders
alternate, so drift in the machine's speed hits each alike); ratios are
of times measured in the same run.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), os.path.join(os.path.dirname(HERE), "tests"), HERE]

import numpy as np  # noqa: E402

import symdiff  # noqa: E402


def interleaved(calls, rounds, target=0.05):
    """Median wall-clock seconds per call of each zero-argument callable."""
    sizes = []
    for fn in calls:
        fn()
        n, t = 1, 0.0
        while t < target / 4 and n < 1 << 20:
            start = time.perf_counter()
            for _ in range(n):
                fn()
            t = time.perf_counter() - start
            n *= 4 if t < target / 4 else 1
        sizes.append(max(1, int(n * target / max(t, 1e-9))))
    times = [[] for _ in calls]
    for r in range(rounds):
        order = range(len(calls)) if r % 2 == 0 else reversed(range(len(calls)))
        for i in order:
            start = time.perf_counter()
            for _ in range(sizes[i]):
                calls[i]()
            times[i].append((time.perf_counter() - start) / sizes[i])
    return [statistics.median(t) for t in times]


def fmt(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e3:.2f} ms"


def numba_rows(rounds):
    import numba
    from loop_functions import CASES
    rows = []
    for name, (f, args) in CASES.items():
        checked = symdiff.grad(f)
        plain = symdiff.specialised(symdiff.grad(f, checks=False), *args)
        jitted = numba.njit(plain)
        start = time.perf_counter()
        jitted(*args)
        compile_time = time.perf_counter() - start
        assert abs(jitted(*args) - checked(*args)) <= 1e-12 * abs(checked(*args)) + 1e-15
        t_checked, t_plain, t_jit = interleaved(
            [lambda: checked(*args), lambda: plain(*args), lambda: jitted(*args)], rounds)
        rows.append((name, t_checked, t_plain, t_jit, compile_time))
    return rows


def numba_table(rows):
    out = ["## numba: `checks=False` gradients under `numba.njit`", "",
           "Scalar, loop-heavy functions (tests/loop_functions.py). **grad** = "
           "`symdiff.grad(f)` as it runs in Python (dispatcher, checks); **plain** = the "
           "specialised `checks=False` gradient run by Python; **njit** = the same "
           "function compiled by `numba.njit`; **speed-up** = grad / njit. The njit "
           "column does not include the compile time (last column, once per signature).",
           "", "| function | grad | plain | njit | speed-up | njit compile |",
           "|---|---|---|---|---|---|"]
    for name, t_checked, t_plain, t_jit, compile_time in rows:
        out.append(f"| {name} | {fmt(t_checked)} | {fmt(t_plain)} | {fmt(t_jit)} | "
                   f"{t_checked / t_jit:.0f}x | {compile_time:.2f} s |")
    return out


JAX_CASES = ("rosenbrock", "logistic L2", "MLP tanh+softmax", "huber", "sqrt where")


def jax_rows(rounds, quick):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import peers
    from cases import CASES, as_tuple, positional
    rows = []
    for case in CASES:
        if case.name not in JAX_CASES:
            continue
        spelling = case.spellings[0]
        label = list(case.sizes)[0 if quick else -1]
        values = case.sizes[label](np.random.default_rng(0))
        f = spelling.fn
        args = positional(f, values)
        hand_args = positional(case.hand, values)
        df = symdiff.grad(f, case.symdiff_wrt)
        want = as_tuple(case.hand(*hand_args), case)
        static = tuple(i for i, a in enumerate(args) if not isinstance(a, np.ndarray))
        jargs = tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        ours = jax.jit(df, static_argnums=static)
        port = peers.make("jax", case, spelling, values)  # f with np as jax.numpy
        for g, w in zip(as_tuple(ours(*jargs), case), want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-7, atol=1e-9)
        # (jax.grad's may be NaN where symdiff's is not: sqrt where, DESIGN.md)
        port.to_numpy(port.grad_fn(*port.args))
        t_hand, t_numpy, t_ours, t_theirs = interleaved(
            [lambda: case.hand(*hand_args), lambda: df(*args),
             lambda: jax.block_until_ready(ours(*jargs)),
             lambda: port.grad_fn(*port.args)], rounds)
        rows.append((case.name, label, t_hand, t_numpy, t_ours, t_theirs))
    return rows


def jax_table(rows):
    out = ["## jax.jit: the generated gradient fused by XLA", "",
           "First spelling of each case, large size, float64 (`jax_enable_x64`). **hand** = "
           "the hand-written NumPy gradient; **symdiff NumPy** = `symdiff.grad(f)` on NumPy "
           "arrays; **jit(symdiff)** = `jax.jit(symdiff.grad(f))` on JAX arrays; "
           "**jit(jax.grad)** = `jax.jit(jax.grad(f))`. Ratios are times divided (lower is "
           "faster for the first named): jit(symdiff) / jit(jax.grad) (issue 17's goal: "
           "at most 1.1) and jit(symdiff) / hand.", "",
           "| case | size | hand | symdiff NumPy | jit(symdiff) | jit(jax.grad) | "
           "jit(symdiff) / jit(jax.grad) | jit(symdiff) / hand |",
           "|---|---|---|---|---|---|---|---|"]
    for name, label, t_hand, t_numpy, t_ours, t_theirs in rows:
        out.append(f"| {name} | {label} | {fmt(t_hand)} | {fmt(t_numpy)} | {fmt(t_ours)} | "
                   f"{fmt(t_theirs)} | {t_ours / t_theirs:.2f} | {t_ours / t_hand:.2f} |")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 3 rounds, prints")
    parser.add_argument("--only", choices=("numba", "jax"))
    parser.add_argument("--out", default=os.path.join(HERE, "BACKENDS.md"))
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else 11
    lines = ["# Gradients on other engines (benchmarks/backends.py)", "",
             f"Machine: {os.cpu_count()} cores (shared); NumPy {np.__version__}."]
    if args.only in (None, "numba"):
        lines += [""] + numba_table(numba_rows(rounds))
    if args.only in (None, "jax"):
        import jax
        lines += ["", f"JAX {jax.__version__}."] + [""] + jax_table(jax_rows(rounds, args.quick))
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.quick and args.only is None:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
