#!/usr/bin/env python3
"""symdiff benchmarks: generated gradients against careful hand-written NumPy ones.

    python benchmarks/run.py            # full run (~75 s here), writes benchmarks/RESULTS.md
    python benchmarks/run.py --quick    # smoke run (~30 s): small sizes, prints only
    python benchmarks/run.py --only rnn # the cases whose name contains "rnn"

Per case and size: the speed of symdiff's gradient relative to the hand-written
one (same process, interleaved batches, medians), cold compile time (fresh
subprocess), warm (cached) compile time, generated line count, and the largest
relative error against the hand-written gradient, which is itself checked
against central finite differences first. autograd, JAX and PyTorch are timed
too when they are importable. Then `import symdiff` time and how compile time
and output grow with the size of the function. See benchmarks/README.md.
"""
from __future__ import annotations

import math
import os
import sys

# One thread for NumPy's BLAS, set before NumPy is imported (children inherit it).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (HERE, ROOT):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import argparse  # noqa: E402
import datetime  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

SEED = 20240607
TARGET_ERR = 1e-12


# --------------------------------------------------------------------- helpers
def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def one_line(exc, limit=140):
    """`Type: first line of the message`, with file paths cut to their base name."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    words = [os.path.basename(w) if os.sep in w else w for w in text.split(" ")]
    text = f"{type(exc).__name__}: {' '.join(words)}"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def child_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT, HERE] + (
        [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def run_child(argv, timeout):
    """Run this script (or `-c` code) in a fresh interpreter; its last stdout line is JSON."""
    cmd = [sys.executable] + argv
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                             env=child_env(), cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:.0f} s"}
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"child failed: {tail[:140]}"}
    return json.loads(lines[-1])


def grad_of(case):
    import symdiff
    return symdiff.grad(case.fn, wrt=case.wrt, overrides=case.overrides)


def as_tuple(g, case):
    return tuple(g) if isinstance(case.wrt, tuple) else (g,)


# ------------------------------------------------------------- child processes
def child_cold(index, label):
    """Fresh process: time symdiff.grad(f) and the first call (imports excluded)."""
    import symdiff  # noqa: F401  (imported before the clock starts)
    import cases
    case = cases.CASES[index]
    args = case.sizes[label](np.random.default_rng(SEED))
    t0 = time.perf_counter()
    df = grad_of(case)
    t1 = time.perf_counter()
    df(*args)
    t2 = time.perf_counter()
    print(json.dumps({"compile": t1 - t0, "first": t2 - t0,
                      "sympy_loaded": "sympy" in sys.modules}))


def child_scale(kind, n, path):
    """Fresh process, compiler warmed up on another function: time one compile."""
    import symdiff
    import cases
    import scaling
    symdiff.grad(cases.huber)(np.linspace(-2.0, 2.0, 5))  # loads SymPy, rule caches
    f = scaling.load(kind, path)
    t0 = time.perf_counter()
    try:
        df = symdiff.grad(f)
    except BaseException as exc:  # noqa: BLE001  (RecursionError included)
        print(json.dumps({"error": one_line(exc)}))
        return
    t1 = time.perf_counter()
    rng = np.random.default_rng(SEED)
    with np.errstate(all="ignore"):
        err = scaling.fd_check(f, df, rng)
    print(json.dumps({"compile": t1 - t0, "lines": len(symdiff.source(df).splitlines()),
                      "fd_err": err}))


IMPORT_CODE = """
import json, sys, time
t0 = time.perf_counter()
import numpy
t1 = time.perf_counter()
import symdiff
t2 = time.perf_counter()
had_sympy = "sympy" in sys.modules
import sympy
t3 = time.perf_counter()
print(json.dumps({"numpy": t1 - t0, "symdiff": t2 - t1, "sympy": t3 - t2,
                  "symdiff_imports_sympy": had_sympy}))
"""


# ------------------------------------------------------------------ measurements
def machine_info():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    blas = "?"
    try:
        cfg = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas = f"{cfg.get('name')} {cfg.get('version', '')}".strip()
    except Exception:  # noqa: BLE001  (older NumPy)
        pass
    import symdiff
    return {
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "cpu": cpu, "cores": f"{os.cpu_count()} ({usable} usable)",
        "python": platform.python_version(), "numpy": np.__version__, "blas": blas,
        "symdiff": getattr(symdiff, "__version__", "?"),
        "platform": platform.platform(),
        "load": f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "?",
    }


def measure_imports(reps):
    runs = [run_child(["-c", IMPORT_CODE], timeout=120) for _ in range(reps)]
    runs = [r for r in runs if "error" not in r]
    if not runs:
        return None
    return {k: statistics.median(r[k] for r in runs) for k in ("numpy", "symdiff", "sympy")} | {
        "symdiff_imports_sympy": runs[0]["symdiff_imports_sympy"], "reps": len(runs)}


def measure_row(case, label, opts, frameworks):
    import fdcheck
    import others
    import symdiff
    import timing
    rng = np.random.default_rng(SEED)
    args = case.sizes[label](rng)
    row = {"case": case.name, "size": label, "note": case.note,
           "hand_lines": len(inspect.getsource(case.hand).splitlines())}
    row["fd_err"] = fdcheck.fd_error(case, args, np.random.default_rng(SEED + 1),
                                     max_coords=6)
    ref = as_tuple(case.hand(*args), case)
    try:
        df = grad_of(case)
    except Exception as exc:  # noqa: BLE001  (SymdiffError or an internal error)
        row["unsupported"] = one_line(exc)
        return row
    row["source"] = symdiff.source(df)
    row["lines"] = len(row["source"].splitlines())
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = as_tuple(df(*args), case)
        row["warnings"] = len(caught)
    except Exception as exc:  # noqa: BLE001
        row["unsupported"] = "error at run time: " + one_line(exc)
        return row
    row["err"] = fdcheck.rel_error(got, ref)

    def warm():
        symdiff.grad(case.fn, wrt=case.wrt, overrides=case.overrides)
    (row["warm"],), _ = timing.interleaved([warm], (), rounds=5, target=0.01)

    contenders = [df, case.hand]
    names = ["symdiff", "hand"]
    for name in frameworks:
        if not case.others:
            row[name] = "n/a (override)"
            continue
        try:
            g = others.make(name, case, args)
            row[name + "_err"] = fdcheck.rel_error(as_tuple(g(*args), case), ref)
            contenders.append(g)
            names.append(name)
        except Exception as exc:  # noqa: BLE001
            row[name] = "n/a: " + one_line(exc, 60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        times, rounds = timing.interleaved(contenders, args, rounds=opts.rounds,
                                           target=opts.batch)
    for name, t in zip(names, times):
        row[name + "_t"] = t
    row["faults"] = (minor_faults(df, args), minor_faults(case.hand, args))
    row["ratio"] = timing.paired_ratio(rounds[0], rounds[1])
    for name, per_round in zip(names[2:], rounds[2:]):
        row[name] = timing.paired_ratio(per_round, rounds[1])
    return row


def minor_faults(fn, args, calls=5):
    """Minor page faults per call: fresh memory the OS has to map (malloc gave the
    previous call's large temporaries back). Costly on virtual machines."""
    try:
        import resource
    except ImportError:  # not on this platform
        return None
    fn(*args)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        fn(*args)
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls


def measure_cold(index, label, reps):
    runs = [run_child([os.path.abspath(__file__), "--child-cold", str(index), label], timeout=300)
            for _ in range(reps)]
    bad = [r for r in runs if "error" in r]
    if bad:
        return {"error": bad[0]["error"]}
    return {"compile": statistics.median(r["compile"] for r in runs),
            "first": statistics.median(r["first"] for r in runs), "reps": len(runs),
            "sympy": runs[0]["sympy_loaded"]}


def measure_scaling(sizes, timeout):
    import scaling
    out = []
    with tempfile.TemporaryDirectory(prefix="symdiff-bench-") as tmp:
        for kind in ("chain", "statements"):
            for n in sizes:
                path = scaling.write(kind, n, tmp)
                log(f"  scaling {kind} n={n}")
                r = run_child([os.path.abspath(__file__), "--child-scale", kind, str(n), path],
                              timeout)
                out.append({"kind": kind, "n": n, **r})
    return out


# ----------------------------------------------------------------------- report
def fmt_time(seconds):
    if seconds is None:
        return "—"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def fmt_faults(faults):
    if not faults or None in faults:
        return "—"
    return f"{faults[0]:.0f} / {faults[1]:.0f}"


def fmt_err(err):
    if err is None:
        return "—"
    text = f"{err:.1e}"
    if err > 1e-6:
        return f"**{text} WRONG**"
    if err > TARGET_ERR:
        return f"{text} (> 1e-12)"
    return text


def report(info, imports, rows, colds, scale, frameworks, opts, elapsed):
    out = []
    w = out.append
    w("# symdiff benchmark results")
    w("")
    w(f"- date: {info['date']}{'  (--quick smoke run)' if opts.quick else ''}")
    w(f"- CPU: {info['cpu']}, cores: {info['cores']}; {info['platform']}")
    w(f"- Python {info['python']}, NumPy {info['numpy']} (BLAS: {info['blas']}), "
      f"symdiff {info['symdiff']}; NumPy limited to 1 thread")
    others_note = ", ".join(frameworks) if frameworks else "none installed"
    w(f"- other autodiff frameworks timed: {others_note} "
      "(autograd, jax, torch are used when importable)")
    w(f"- total benchmark time: {elapsed:.0f} s; load average at start / end: "
      f"{info['load']} / {os.getloadavg()[0]:.2f} (other processes on the machine "
      "add noise; the interleaving makes the ratios robust to it, absolute times less so)")
    w("")
    w("**ratio** = time per call of symdiff's gradient / the hand-written one, "
      f"measured in the same process in interleaved batches of ~{opts.batch * 1e3:.0f} ms: "
      f"the median over {opts.rounds} rounds of the ratio of the two batches of a round "
      "(< 1 means symdiff is faster); the per-call times are medians of batches. "
      "**cold** = `symdiff.grad(f)` to the first gradient value in a fresh process "
      "(after `import symdiff`; SymPy, when a rule needs it, is imported lazily inside "
      f"this time), median of {opts.cold_reps}; `symdiff.grad` alone in brackets. "
      "**warm** = `symdiff.grad(f)` again (cache hit). **lines** = generated source / "
      "hand-written gradient (`def` to `return`, comments included). "
      "**max rel err** = max over outputs of max|symdiff − hand| / max|hand| "
      "(target 1e-12). The hand-written gradients were checked against central "
      "differences first (column *hand vs FD*; ~1e-5 for the 10^6 sums is "
      "cancellation noise in f). **page faults** = minor page faults per call, "
      "symdiff / hand: fresh pages the kernel maps because malloc returned the "
      "previous call's large temporaries to the OS (~4 µs each on this VM, so they "
      "show which large cases pay for their peak memory).")
    w("")
    head = ["case", "size", "ratio", "hand / call", "symdiff / call", "cold [compile]",
            "warm", "lines", "max rel err", "hand vs FD", "page faults"] + list(frameworks)
    w("| " + " | ".join(head) + " |")
    w("|" + "|".join(["---"] * len(head)) + "|")
    for r in rows:
        cold = colds.get((r["case"], r["size"]))
        if "unsupported" in r:
            cells = [r["case"], r["size"], "unsupported: " + r["unsupported"].replace("|", "\\|"),
                     fmt_time(r.get("hand_t")), "—", "—", "—", "—", "—",
                     f"{r['fd_err']:.0e}", "—"] + ["—"] * len(frameworks)
        else:
            if cold is None:
                cold_s = "—"
            elif "error" in cold:
                cold_s = cold["error"]
            else:
                cold_s = f"{fmt_time(cold['first'])} [{fmt_time(cold['compile'])}" + (
                    "]" if cold["sympy"] else ", no SymPy]")
            cells = [r["case"], r["size"], f"**{r['ratio']:.2f}**", fmt_time(r["hand_t"]),
                     fmt_time(r["symdiff_t"]), cold_s, fmt_time(r["warm"]),
                     f"{r['lines']} / {r['hand_lines']}", fmt_err(r["err"]),
                     f"{r['fd_err']:.0e}", fmt_faults(r.get("faults"))]
            for name in frameworks:
                v = r.get(name)
                if isinstance(v, float):
                    bad = r.get(name + "_err", 0.0) > 1e-8
                    cells.append(f"{v:.2f}" + (f" (err {r[name + '_err']:.0e})" if bad else ""))
                else:
                    cells.append(str(v or "—"))
        w("| " + " | ".join(cells) + " |")
    w("")
    ratios = [r["ratio"] for r in rows if r.get("ratio")]
    if ratios:  # the target: geometric mean <= 1.10, no case above 1.4
        over = sum(x > 1.4 for x in ratios)
        w(f"Geometric mean of the ratios: **{math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}**"
          f" over {len(ratios)} cases (target 1.10); {over} above 1.4.")
        w("")
    slow = [r for r in rows if r.get("ratio", 0) > 1.1]
    if slow:
        w("Slower than hand-written (ratio > 1.1): " + ", ".join(
            f"{r['case']} {r['size']} ({r['ratio']:.2f})" for r in slow) + ".")
        import cases
        why = {c.name: c.why for c in cases.CASES if c.why}
        for name in dict.fromkeys(r["case"] for r in slow if r["case"] in why):
            w(f"- {name}: {why[name]}.")
    wrong = [r for r in rows if r.get("err", 0) > TARGET_ERR]
    if wrong:
        w("Error above 1e-12: " + ", ".join(
            f"{r['case']} {r['size']} ({r['err']:.1e})" for r in wrong) + ".")
    unsupported = sorted({r["case"] for r in rows if "unsupported" in r})
    if unsupported:
        w("Not compiled: " + ", ".join(unsupported) + ".")
    warned = [r for r in rows if r.get("warnings")]
    if warned:
        w("Gradients that emitted warnings: " + ", ".join(
            f"{r['case']} {r['size']} ({r['warnings']})" for r in warned) + ".")
    w("")
    w("## import time")
    w("")
    if imports:
        w(f"Fresh interpreter, median of {imports['reps']}: `import numpy` "
          f"{fmt_time(imports['numpy'])}; then `import symdiff` "
          f"{fmt_time(imports['symdiff'])} "
          f"({'imports' if imports['symdiff_imports_sympy'] else 'does not import'} SymPy); "
          f"`import sympy` on top, which a compile pays only if it needs SymPy (see the "
          f"cold column), {fmt_time(imports['sympy'])}.")
    else:
        w("could not be measured")
    w("")
    w("## scaling")
    w("")
    w("Compile time of `symdiff.grad(f)` in a fresh process whose compiler was warmed "
      "up on another function (so SymPy's import is not included). *chain n*: one "
      "expression of n nested `*`/`/` operations with leaves x, 1.01, cos(x), exp(x). "
      "*statements n*: n assignments, each reading the previous result and one from "
      "three statements back. **per op** = compile time / n: flat means linear growth. "
      "**CS err** = max relative error of the generated gradient against the "
      "complex-step derivative Im f(x + ih) / h (exact to rounding).")
    w("")
    w("| function | n | compile | per op | generated lines | lines / n | CS err |")
    w("|---|---|---|---|---|---|---|")
    for s in scale:
        if "error" in s:
            w(f"| {s['kind']} | {s['n']} | unsupported: {s['error']} | — | — | — | — |")
        else:
            w(f"| {s['kind']} | {s['n']} | {fmt_time(s['compile'])} | "
              f"{fmt_time(s['compile'] / s['n'])} | {s['lines']} | "
              f"{s['lines'] / s['n']:.2f} | {s['fd_err']:.0e} |")
    w("")
    w("## generated code")
    w("")
    w("What the timings above ran (each case's source is the same for every size).")
    w("")
    seen = set()
    for r in rows:
        if "source" in r and r["case"] not in seen:
            seen.add(r["case"])
            w(f"<details><summary>{r['case']}</summary>")
            w("")
            w("```python")
            w(r["source"].rstrip())
            w("```")
            w("")
            w("</details>")
            w("")
    return "\n".join(out)


# ------------------------------------------------------------------------- main
def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smoke run: small sizes, few reps")
    p.add_argument("--only", default="", help="run only cases whose name contains this")
    p.add_argument("--out", default=None,
                   help="where to write the markdown report ('' for nowhere; default "
                        "benchmarks/RESULTS.md, or nowhere with --quick)")
    p.add_argument("--child-cold", nargs=2, metavar=("CASE", "SIZE"), help=argparse.SUPPRESS)
    p.add_argument("--child-scale", nargs=3, metavar=("KIND", "N", "PATH"),
                   help=argparse.SUPPRESS)
    opts = p.parse_args(argv)
    if opts.child_cold:
        return child_cold(int(opts.child_cold[0]), opts.child_cold[1])
    if opts.child_scale:
        kind, n, path = opts.child_scale
        return child_scale(kind, int(n), path)

    if opts.out is None:
        opts.out = "" if opts.quick else os.path.join(HERE, "RESULTS.md")
    opts.rounds = 5 if opts.quick else 15
    opts.batch = 0.005 if opts.quick else 0.03
    opts.cold_reps = 1 if opts.quick else 3
    import_reps = 1 if opts.quick else 7
    scale_sizes = (50, 100) if opts.quick else (50, 100, 200, 500)

    start = time.perf_counter()
    # glibc raises its mmap threshold to the size of a freed mmapped block (up to
    # 32 MiB; a bigger block leaves it alone); free a 16 MiB one now so every case
    # runs in the steady state of a process that has handled large arrays, whatever
    # ran before it, instead of mapping fresh pages for each temporary > 128 KiB
    del_me = np.ones(2 ** 21)
    del del_me
    import cases
    import others
    frameworks = others.available()
    info = machine_info()
    log(f"symdiff benchmarks on {info['cpu']}; frameworks: {frameworks or 'none'}")
    rows, todo = [], []
    for index, case in enumerate(cases.CASES):
        if opts.only and opts.only not in case.name:
            continue
        labels = list(case.sizes)[:1] if opts.quick else list(case.sizes)
        for label in labels:
            log(f"  {case.name} {label}")
            row = measure_row(case, label, opts, frameworks)
            if row["fd_err"] > 1e-4:
                raise SystemExit(f"hand-written gradient of {case.name} {label} fails "
                                 f"the finite-difference check: {row['fd_err']:.1e}")
            if "unsupported" in row:  # still time the hand-written one, for reference
                import timing
                args = case.sizes[label](np.random.default_rng(SEED))
                (row["hand_t"],), _ = timing.interleaved([case.hand], args, rounds=3,
                                                         target=opts.batch)
            else:
                todo.append((index, case.name, label))
            rows.append(row)
    log("  cold compiles (fresh processes)")
    colds = {(name, label): measure_cold(index, label, opts.cold_reps)
             for index, name, label in todo}
    log("  import time")
    imports = measure_imports(import_reps)
    scale = measure_scaling(scale_sizes, timeout=40 if opts.quick else 120)
    text = report(info, imports, rows, colds, scale, frameworks, opts,
                  time.perf_counter() - start)
    print(text.split("\n## generated code")[0])
    if opts.out:
        with open(opts.out, "w") as fh:
            fh.write(text + "\n")
        log(f"written to {os.path.relpath(opts.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
