#!/usr/bin/env python3
"""symdiff benchmarks: generated gradients against careful hand-written NumPy ones,
on several spellings of each function, side by side with JAX, autograd and torch.

    python benchmarks/run.py              # full run (~15 min on 2 busy cores); RESULTS.md, .json
    python benchmarks/run.py --quick      # smoke run (~45 s): small sizes, few rounds, prints only
    python benchmarks/run.py --only huber # the cases whose name contains "huber"
    python benchmarks/run.py --baseline benchmarks/RESULTS.json   # also compare with a saved run
    python benchmarks/run.py --render benchmarks/RESULTS.json     # the report again, no measuring

Per spelling and size: the speed of symdiff's gradient and of each installed
peer relative to the hand-written gradient (same process, interleaved batches,
medians and quartiles of paired per-round ratios), cold compile time (fresh
processes), generated line count, and the error against the hand-written
gradient, which is itself checked against central finite differences first.
Then `import symdiff` time and how compile time grows with the function's size.
See benchmarks/README.md.
"""
from __future__ import annotations

import os
import sys

# One thread for NumPy's BLAS, and for XLA, set before either is imported
# (children inherit it): the peers are compared with single-threaded NumPy.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                   "intra_op_parallelism_threads=1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (HERE, ROOT):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true",
                   help="smoke run: small sizes, few rounds, one cold compile, prints only")
    p.add_argument("--only", default="", help="run only cases whose name contains this")
    p.add_argument("--no-peers", action="store_true", help="do not time JAX/autograd/torch")
    p.add_argument("--no-scaling", action="store_true", help="skip the compile-scaling table")
    p.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 21)")
    p.add_argument("--baseline", default=None,
                   help="a RESULTS.json of an earlier run to compare symdiff's ratios with")
    p.add_argument("--render", default=None, metavar="RESULTS.json",
                   help="write the report again from a run's JSON record (no measuring)")
    p.add_argument("--out", default=None,
                   help="markdown report ('' for nowhere; default benchmarks/RESULTS.md, "
                        "or nowhere with --quick or --only); the JSON record goes beside it")
    p.add_argument("--child-cold", nargs=2, metavar=("CASE", "SPELLING"), help=argparse.SUPPRESS)
    p.add_argument("--child-scale", nargs=3, metavar=("KIND", "N", "PATH"),
                   help=argparse.SUPPRESS)
    return p.parse_args(argv)


def write(run, opts):
    """RESULTS.md (and RESULTS.json beside it) from a run's measurements."""
    import measure
    import record
    import report
    settings = argparse.Namespace(**run["settings"])
    text = report.write_markdown(run["info"], run["imports"], run["rows"], run["colds"],
                                 run["scale"], run["frameworks"], settings, run["elapsed"],
                                 run["end_load"])
    if opts.baseline:
        with open(opts.baseline) as fh:
            text = text.replace("\n## symdiff per spelling", "\n" + record.baseline_comparison(
                run["rows"], json.load(fh)) + "\n\n## symdiff per spelling", 1)
    print(text.split("\n## Per call")[0])
    if opts.out:
        with open(opts.out, "w") as fh:
            fh.write(text + "\n")
        json_path = os.path.splitext(opts.out)[0] + ".json"
        if not opts.render or os.path.abspath(json_path) != os.path.abspath(opts.render):
            with open(json_path, "w") as fh:
                json.dump(record.json_record(run), fh, indent=1)
        measure.log(f"written to {os.path.relpath(opts.out)} and {os.path.relpath(json_path)}")


def main(argv=None):
    opts = parse(argv)
    import measure
    if opts.render:  # the report again, from a run's record, without measuring
        import record
        if opts.out is None:
            opts.out = os.path.splitext(opts.render)[0] + ".md"
        return write(record.load_run(opts.render), opts) or 0
    if opts.child_cold:
        return measure.child_cold(int(opts.child_cold[0]), int(opts.child_cold[1]))
    if opts.child_scale:
        kind, n, path = opts.child_scale
        return measure.child_scale(kind, int(n), path)

    if opts.out is None:
        opts.out = "" if (opts.quick or opts.only) else os.path.join(HERE, "RESULTS.md")
    opts.rounds = opts.rounds or (5 if opts.quick else 21)
    opts.batch = 0.005 if opts.quick else 0.03
    opts.attempts = 1 if opts.quick else 3
    cold_reps = 1 if opts.quick else 5
    import_reps = 1 if opts.quick else 7
    scale_sizes = (50, 100) if opts.quick else (50, 100, 200, 500)

    start = time.perf_counter()
    # glibc raises its mmap threshold to the size of a freed mmapped block (up to
    # 32 MiB; a bigger block leaves it alone); free a 16 MiB one now so every case
    # runs in the steady state of a process that has handled large arrays, whatever
    # ran before it, instead of mapping fresh pages for each temporary > 128 KiB
    del_me = np.ones(2 ** 21)
    del del_me
    import peers
    from cases import CASES
    frameworks = [] if opts.no_peers else peers.available()
    info = measure.machine_info(frameworks)
    measure.log(f"symdiff benchmarks on {info['cpu']}; peers: {frameworks or 'none'}")
    rows, todo = [], []
    for ci, case in enumerate(CASES):
        if opts.only and opts.only not in case.name:
            continue
        if case.missing_modules():
            measure.log(f"  {case.name}: skipped, needs {case.missing_modules()}")
            continue
        labels = list(case.sizes)[:1] if opts.quick else list(case.sizes)
        for label in labels:
            args = case.sizes[label](np.random.default_rng(measure.SEED))
            fd, value = measure.check_references(case, label, args)
            for si, spelling in enumerate(case.spellings):
                measure.log(f"  {case.name} / {spelling.label} {label}")
                row = measure.measure_row(case, spelling, label, args, value, opts, frameworks)
                row["fd_err"] = fd
                rows.append(row)
                if "ratio" in row and label == labels[0]:
                    todo.append((ci, si))
    measure.log("  cold compiles (fresh processes)")
    colds = {key: measure.measure_cold(*key, reps=cold_reps) for key in todo}
    imports = measure.measure_imports(import_reps)
    scale = [] if opts.no_scaling else measure.measure_scaling(
        scale_sizes, timeout=40 if opts.quick else 120)
    run = {"info": info, "imports": imports, "rows": rows, "colds": colds, "scale": scale,
           "frameworks": frameworks, "elapsed": time.perf_counter() - start,
           "end_load": os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan"),
           "settings": {k: getattr(opts, k) for k in ("quick", "rounds", "batch", "attempts")}}
    write(run, opts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
