"""L2-regularised logistic and Poisson regression on a Dask cluster, with
symdiff's gradients instead of dask-glm's hand-written ones (issue 17).

    /tmp/bench-venv/bin/python benchmarks/dask_regression.py            # DASK.md
    /tmp/bench-venv/bin/python benchmarks/dask_regression.py --rows 200000 --quick
    /tmp/bench-venv/bin/python benchmarks/dask_regression.py --rows 20000000 --cols 50 \
        --chunk 250000 --memory 1GB --passes-only --out /tmp/scale.md   # one pass at scale

X (rows x cols float64) is made chunk by chunk on the workers by
``dask.array.random`` and never persisted: every pass regenerates it, so it
is never whole in memory, and it is larger than a worker's memory limit.
The labels come from a known coefficient vector.

For each family, ``scipy.optimize.minimize(method="L-BFGS-B", jac=True)`` is
driven by ``symdiff.value_and_grad`` of the loss written in NumPy (called
with Dask arrays: the gradient is lazy, computed by the cluster), and by
dask-glm's hand-written family (``pointwise_loss``/``pointwise_gradient``
plus its L2 regulariser), with the same optimizer and tolerances; dask-glm's
own ``lbfgs`` solver is run too (``normalize=False``: the same problem).
Reported: the largest difference between the coefficients, the time of
one value-and-gradient pass for each (median of a few, on the same
cluster), peak memory (RSS) per worker, and the pass's time on 1 and on 2
workers. Newton's method is run with ``symdiff.hessian`` of the same loss
(lazy on Dask) and with dask-glm's hand-written Hessians.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy as np  # noqa: E402

import symdiff  # noqa: E402


def logistic_loss(w, X, y, lam):
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * lam * np.sum(w ** 2)


def poisson_loss(w, X, y, lam):
    eta = X @ w
    return np.sum(np.exp(eta) - y * eta) + 0.5 * lam * np.sum(w ** 2)


def data(family, rows, cols, chunk, seed=0):
    import dask.array as da
    state = da.random.RandomState(seed)
    X = state.normal(size=(rows, cols), chunks=(chunk, cols)) / np.sqrt(cols)
    w_true = np.random.default_rng(seed).normal(size=cols)
    eta = X @ w_true
    if family == "logistic":
        y = (state.uniform(size=rows, chunks=chunk) < 1 / (1 + da.exp(-eta))) * 1.0
    else:
        y = state.poisson(da.exp(0.5 * eta)) * 1.0
        w_true = 0.5 * w_true
    return X, y, w_true


def symdiff_pass(loss):
    import dask
    vg = symdiff.value_and_grad(loss)

    def value_and_grad(w, X, y, lam):
        value, grad = dask.compute(*vg(w, X, y, lam))
        return float(value), np.asarray(grad, dtype=float)
    return value_and_grad


def dask_glm_pass(family_name):
    import dask
    from dask_glm.families import Logistic, Poisson
    family = {"logistic": Logistic, "poisson": Poisson}[family_name]

    def value_and_grad(w, X, y, lam):
        loss = family.pointwise_loss(w, X, y) + lam * (w ** 2).sum() / 2
        grad = family.pointwise_gradient(w, X, y) + lam * w
        value, grad = dask.compute(loss, grad)
        return float(value), np.asarray(grad, dtype=float)
    return value_and_grad


def symdiff_newton_step(loss):
    """The Hessian and gradient of ``loss`` by symdiff, both lazy Dask arrays
    computed in one pass of the cluster."""
    import dask
    hessian, grad = symdiff.hessian(loss, wrt="w"), symdiff.grad(loss)

    def step(w, X, y, lam):
        H, g = dask.compute(hessian(w, X, y, lam), grad(w, X, y, lam))
        return np.asarray(H, dtype=float), np.asarray(g, dtype=float)
    return step


def dask_glm_newton_step(family_name):
    """dask-glm's hand-written Hessian and gradient, plus the L2 term's."""
    import dask
    from dask_glm.families import Logistic, Poisson
    family = {"logistic": Logistic, "poisson": Poisson}[family_name]

    def step(w, X, y, lam):
        Xw = X @ w
        H, g = dask.compute(family.hessian(Xw, X), family.gradient(Xw, X, y))
        return H + lam * np.eye(len(w)), g + lam * w
    return step


def newton(step, X, y, lam, cols, tol=1e-10, max_iter=25):
    """Newton's method from zeros: (coefficients, steps, seconds per step)."""
    w, times = np.zeros(cols), []
    for _ in range(max_iter):
        start = time.perf_counter()
        H, g = step(w, X, y, lam)
        times.append(time.perf_counter() - start)
        change = np.linalg.solve(H, g)
        w = w - change
        if np.max(np.abs(change)) < tol:
            break
    return w, len(times), statistics.median(times)


def fit(value_and_grad, X, y, lam, cols):
    from scipy.optimize import minimize
    calls = [0]

    def fun(w):
        calls[0] += 1
        return value_and_grad(w, X, y, lam)
    result = minimize(fun, np.zeros(cols), jac=True, method="L-BFGS-B",
                      options={"gtol": 1e-9, "ftol": 1e-16, "maxiter": 500})
    return result.x, calls[0]


def timed(fn, *args, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_rss_mb(client):
    """Peak resident memory of each worker process, in MB (ru_maxrss is kB)."""
    def peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return sorted(client.run(peak).values())


def run(args):
    import dask_glm.algorithms
    from dask.distributed import Client, LocalCluster
    out = []
    size_mb = args.rows * args.cols * 8 / 2 ** 20
    for family, loss in (("logistic", logistic_loss), ("poisson", poisson_loss)):
        row = {"family": family}
        for workers in (1, 2):
            with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                              memory_limit=args.memory, dashboard_address=None) as cluster, \
                    Client(cluster) as client:
                X, y, w_true = data(family, args.rows, args.cols, args.chunk)
                ours, theirs = symdiff_pass(loss), dask_glm_pass(family)
                w0 = 0.1 * np.ones(args.cols)
                if args.passes_only:  # compiled and warmed on the first chunk's rows
                    ours(w0, X[:1000], y[:1000], args.lam)
                    theirs(w0, X[:1000], y[:1000], args.lam)
                start = time.perf_counter()
                v1, g1 = ours(w0, X, y, args.lam)
                first = [time.perf_counter() - start]
                v2, g2 = theirs(w0, X, y, args.lam)
                first.append(time.perf_counter() - start - first[0])
                row["gradient difference"] = float(np.max(np.abs(g1 - g2)) /
                                                   np.max(np.abs(g2)))
                if args.passes_only:  # (at scale: one pass each, those)
                    t_ours, t_theirs = first
                else:
                    t_ours = timed(ours, w0, X, y, args.lam)
                    t_theirs = timed(theirs, w0, X, y, args.lam)
                row[f"pass symdiff {workers}w"], row[f"pass dask-glm {workers}w"] = \
                    t_ours, t_theirs
                if (workers == 1 or args.quick) and not args.passes_only:
                    start = time.perf_counter()
                    w_ours, n_ours = fit(ours, X, y, args.lam, args.cols)
                    row["fit symdiff"] = (time.perf_counter() - start, n_ours)
                    start = time.perf_counter()
                    w_theirs, n_theirs = fit(theirs, X, y, args.lam, args.cols)
                    row["fit dask-glm family"] = (time.perf_counter() - start, n_theirs)
                    start = time.perf_counter()
                    w_solver = np.asarray(dask_glm.algorithms.lbfgs(
                        X, y, regularizer="l2", lamduh=args.lam, max_iter=500, tol=1e-9,
                        normalize=False,  # (its default standardises X's columns first)
                        family={"logistic": dask_glm.families.Logistic,
                                "poisson": dask_glm.families.Poisson}[family]))
                    row["fit dask-glm lbfgs"] = (time.perf_counter() - start, None)
                    row["coefficients vs family"] = float(np.max(np.abs(w_ours - w_theirs)))
                    row["coefficients vs lbfgs"] = float(np.max(np.abs(w_ours - w_solver)))
                    row["vs truth"] = float(np.max(np.abs(w_ours - w_true)))
                row[f"peak MB {workers}w"] = peak_rss_mb(client)
        if not args.passes_only:
            # (its own cluster: symdiff's Hessian needs more memory per worker, below)
            with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                              memory_limit=args.newton_memory,
                              dashboard_address=None) as cluster, Client(cluster):
                X, y, _ = data(family, args.rows, args.cols, args.chunk)
                w0 = 0.1 * np.ones(args.cols)
                H1, _ = symdiff_newton_step(loss)(w0, X, y, args.lam)
                H2, _ = dask_glm_newton_step(family)(w0, X, y, args.lam)
                row["hessian difference"] = float(np.max(np.abs(H1 - H2)) /
                                                  np.max(np.abs(H2)))
                w_n1, n1, t1 = newton(symdiff_newton_step(loss), X, y, args.lam, args.cols)
                w_n2, n2, t2 = newton(dask_glm_newton_step(family), X, y, args.lam, args.cols)
                row["newton"] = (n1, t1, n2, t2)
                row["newton vs family"] = float(np.max(np.abs(w_n1 - w_n2)))
                row["newton vs lbfgs"] = float(np.max(np.abs(w_n1 - w_ours)))
        out.append(row)
    return out, size_mb


def passes_report(rows, size_mb, args):
    lines = [f"## One pass at {args.rows:,} x {args.cols} (`--passes-only`)", "",
             f"X: {size_mb / 1024:.1f} GB float64 per pass, chunks of {args.chunk:,} rows, "
             f"made on the workers and never whole in memory; memory limit {args.memory} per "
             "worker. One value-and-gradient pass each (no repeats, no fits: at this size "
             "they would not fit this machine's time budget).", "",
             "| family | gradient vs dask-glm (rel.) | pass: symdiff / dask-glm (1 worker) | "
             "pass: symdiff / dask-glm (2 workers) | 1 -> 2 workers: symdiff / dask-glm | "
             "peak RSS per worker, 1 / 2 workers |", "|---|---|---|---|---|---|"]
    for r in rows:
        s1, d1, s2, d2 = (r[f"pass {who} {n}w"] for n in (1, 2)
                          for who in ("symdiff", "dask-glm"))
        lines.append(f"| {r['family']} | {r['gradient difference']:.1e} | "
                     f"{s1:.1f} s / {d1:.1f} s ({s1 / d1:.2f}) | "
                     f"{s2:.1f} s / {d2:.1f} s ({s2 / d2:.2f}) | "
                     f"{s1 / s2:.2f}x / {d1 / d2:.2f}x | "
                     f"{max(r['peak MB 1w']):.0f} / {max(r['peak MB 2w']):.0f} MB |")
    return "\n".join(lines) + "\n"


def report(rows, size_mb, args):
    if args.passes_only:
        return passes_report(rows, size_mb, args)
    lines = ["# Logistic and Poisson regression on a Dask cluster (benchmarks/dask_regression.py)",
             "",
             f"X: {args.rows:,} x {args.cols} float64 ({size_mb:.0f} MB), chunks of "
             f"{args.chunk:,} rows, made by `dask.array.random` on the workers and never "
             f"persisted (each pass makes it again); `LocalCluster` with 1 thread per worker "
             f"and a memory limit of {args.memory} per worker (X is larger); lam = {args.lam}. "
             f"Machine: {os.cpu_count()} cores, shared with other work (times are noisy). "
             "The fits are run at this size; issue 17's 20M x 50 (7.5 GB per pass) is timed "
             "for one pass by `--passes-only` (below); the code is the same at any size.", "",
             "| family | gradient vs dask-glm (rel.) | coefficients vs dask-glm family "
             "(same L-BFGS-B) | vs dask-glm's lbfgs | pass: symdiff / dask-glm (1 worker) | "
             "pass: symdiff / dask-glm (2 workers) | symdiff 1 -> 2 workers | "
             "peak RSS per worker, 1 / 2 workers |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['family']} | {r['gradient difference']:.1e} | "
            f"{r['coefficients vs family']:.1e} | {r['coefficients vs lbfgs']:.1e} | "
            f"{r['pass symdiff 1w']:.2f} s / {r['pass dask-glm 1w']:.2f} s "
            f"({r['pass symdiff 1w'] / r['pass dask-glm 1w']:.2f}) | "
            f"{r['pass symdiff 2w']:.2f} s / {r['pass dask-glm 2w']:.2f} s "
            f"({r['pass symdiff 2w'] / r['pass dask-glm 2w']:.2f}) | "
            f"{r['pass symdiff 1w'] / r['pass symdiff 2w']:.2f}x | "
            f"{max(r['peak MB 1w']):.0f} / {max(r['peak MB 2w']):.0f} MB |")
    lines += ["", "Fits (1 worker): time and number of value-and-gradient passes.", "",
              "| family | symdiff + L-BFGS-B | dask-glm family + L-BFGS-B | dask-glm lbfgs | "
              "max abs(coefficients - truth) |", "|---|---|---|---|---|"]
    for r in rows:
        (ts, ns), (tt, nt), (tl, _) = r["fit symdiff"], r["fit dask-glm family"], \
            r["fit dask-glm lbfgs"]
        lines.append(f"| {r['family']} | {ts:.1f} s ({ns}) | {tt:.1f} s ({nt}) | {tl:.1f} s | "
                     f"{r['vs truth']:.3f} |")
    lines += ["", f"Newton's method from zeros (1 worker, memory limit {args.newton_memory}): "
              "the Hessian by `symdiff.hessian` "
              "(lazy on Dask: one vector-Jacobian product of the generated gradient per "
              "coefficient, all computed with the gradient in one pass) against dask-glm's "
              "hand-written `family.hessian` plus the L2 term's `lam * I`.", "",
              "| family | Hessian vs dask-glm (rel.) | steps: symdiff / dask-glm | "
              "time per step: symdiff / dask-glm | coefficients vs dask-glm Newton | "
              "vs L-BFGS-B |", "|---|---|---|---|---|---|"]
    for r in rows:
        n1, t1, n2, t2 = r["newton"]
        lines.append(f"| {r['family']} | {r['hessian difference']:.1e} | {n1} / {n2} | "
                     f"{t1:.2f} s / {t2:.2f} s ({t1 / t2:.2f}) | "
                     f"{r['newton vs family']:.1e} | {r['newton vs lbfgs']:.1e} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_500_000)
    parser.add_argument("--cols", type=int, default=20)
    parser.add_argument("--chunk", type=int, default=125_000)
    parser.add_argument("--memory", default="350MB")
    parser.add_argument("--newton-memory", default="2GB",
                        help="per worker, for Newton's method (symdiff's Hessian needs more)")
    parser.add_argument("--lam", type=float, default=1.0)
    parser.add_argument("--quick", action="store_true", help="prints only")
    parser.add_argument("--passes-only", action="store_true",
                        help="one pass each on 1 and 2 workers, no fits (for large sizes)")
    parser.add_argument("--out", default=os.path.join(HERE, "DASK.md"))
    args = parser.parse_args(argv)
    rows, size_mb = run(args)
    text = report(rows, size_mb, args)
    print(text)
    if not args.quick:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
