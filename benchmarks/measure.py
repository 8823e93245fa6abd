"""Measurements: per spelling and size (speed against the hand-written gradient,
errors, peers), cold compiles and scaling in fresh processes, import time.

Everything that can fail because of symdiff (a refusal, an internal error, an
error at run time) is caught and recorded on the row; only a wrong reference
(hand-written gradient against finite differences, a spelling that computes a
different value) stops the run, because then no number would mean anything.
"""
from __future__ import annotations

import ast
import datetime
import inspect
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings

import numpy as np

import fdcheck
import timing
from cases import CASES, as_tuple, positional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RUN = os.path.join(HERE, "run.py")
SEED = 20240607
FD_LIMIT = 1e-4       # hand-written gradient against central differences
VALUE_LIMIT = 1e-9    # spellings (and peers' ports) against the first spelling
SPREAD_LIMIT = 0.10   # interquartile width of per-round ratios before timing again


class BenchmarkError(Exception):
    """The benchmark itself is wrong (a reference or a spelling), not symdiff."""


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def one_line(exc, limit=160):
    """`Type: first line of the message`, with file paths cut to their base name."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    words = [os.path.basename(w) if os.sep in w else w for w in text.split(" ")]
    text = f"{type(exc).__name__}: {' '.join(words)}"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def lines_of(fn_or_source):
    text = fn_or_source if isinstance(fn_or_source, str) else inspect.getsource(fn_or_source)
    return len(text.rstrip().splitlines())


def code_lines_of(fn_or_source):
    """Lines of code: not blank, not only a comment, not the docstring."""
    text = fn_or_source if isinstance(fn_or_source, str) else inspect.getsource(fn_or_source)
    text = textwrap.dedent(text)
    docstring = set()
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and body \
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            docstring.update(range(body[0].lineno, body[0].end_lineno + 1))
    return sum(1 for i, line in enumerate(text.splitlines(), 1)
               if line.strip() and not line.strip().startswith("#") and i not in docstring)


# --------------------------------------------------------------- fresh processes
def child_env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT, HERE] + (
        [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.update(extra)
    return env


def run_child(argv, timeout, **env):
    """Run run.py (or `-c` code) in a fresh interpreter; its last stdout line is JSON."""
    try:
        out = subprocess.run([sys.executable] + argv, capture_output=True, text=True,
                             timeout=timeout, env=child_env(**env), cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:.0f} s"}
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"child failed: {tail[:140]}"}
    return json.loads(lines[-1])


def child_cold(case_index, spelling_index):
    """In a fresh process (symdiff imported, its derivative cache empty): time
    symdiff.grad(f) and its first call at the smallest size."""
    import symdiff
    case = CASES[case_index]
    spelling = case.spellings[spelling_index]
    args = positional(spelling.fn, next(iter(case.sizes.values()))(np.random.default_rng(SEED)))
    # CPU time, as for the ratios (a loaded machine stretches wall time); the wall
    # time is kept in the record too
    w0, t0 = time.perf_counter(), time.process_time()
    df = symdiff.grad(spelling.fn, wrt=case.symdiff_wrt, overrides=spelling.overrides)
    t1 = time.process_time()
    with np.errstate(all="ignore"):
        df(*args)
    t2, w2 = time.process_time(), time.perf_counter()
    print(json.dumps({"compile": t1 - t0, "first": t2 - t0, "wall": w2 - w0,
                      "sympy_loaded": "sympy" in sys.modules}))


def measure_cold(case_index, spelling_index, reps):
    runs = []
    for _ in range(reps):
        # an empty derivative cache: a derivative not shipped with symdiff is
        # derived by SymPy inside the timed compile, as on a user's first run
        with tempfile.TemporaryDirectory(prefix="symdiff-cold-") as cache:
            runs.append(run_child([RUN, "--child-cold", str(case_index), str(spelling_index)],
                                  timeout=300, SYMDIFF_CACHE_DIR=cache))
    bad = [r for r in runs if "error" in r]
    if bad:
        return {"error": bad[0]["error"]}
    firsts = [r["first"] for r in runs]
    return {"first": statistics.median(firsts), "min": min(firsts), "max": max(firsts),
            "compile": statistics.median(r["compile"] for r in runs), "reps": len(runs),
            "wall": statistics.median(r["wall"] for r in runs),
            "sympy": any(r["sympy_loaded"] for r in runs)}


def child_scale(kind, n, path):
    """Fresh process, compiler warmed up on another function: time one compile."""
    import scaling
    import symdiff
    from cases import huber
    symdiff.grad(huber.huber)(np.linspace(-2.0, 2.0, 5))  # loads SymPy, rule caches
    f = scaling.load(kind, path)
    t0 = time.perf_counter()
    try:
        df = symdiff.grad(f)
    except BaseException as exc:  # noqa: BLE001  (RecursionError included)
        print(json.dumps({"error": one_line(exc)}))
        return
    t1 = time.perf_counter()
    with np.errstate(all="ignore"):
        err = scaling.fd_check(f, df, np.random.default_rng(SEED))
    print(json.dumps({"compile": t1 - t0, "lines": len(symdiff.source(df).splitlines()),
                      "fd_err": err}))


def measure_scaling(sizes, timeout):
    import scaling
    out = []
    with tempfile.TemporaryDirectory(prefix="symdiff-bench-") as tmp:
        for kind in ("chain", "statements"):
            for n in sizes:
                path = scaling.write(kind, n, tmp)
                log(f"  scaling {kind} n={n}")
                r = run_child([RUN, "--child-scale", kind, str(n), path], timeout)
                out.append({"kind": kind, "n": n, **r})
    return out


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


def measure_imports(reps):
    runs = [run_child(["-c", IMPORT_CODE], timeout=120) for _ in range(reps)]
    runs = [r for r in runs if "error" not in r]
    if not runs:
        return None
    return {k: statistics.median(r[k] for r in runs) for k in ("numpy", "symdiff", "sympy")} | {
        "symdiff_imports_sympy": runs[0]["symdiff_imports_sympy"], "reps": len(runs)}


def machine_info(frameworks):
    import peers
    import symdiff
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh
                       if line.startswith("model name"))
    except (OSError, StopIteration):
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
    try:
        import scipy
        scipy_version = scipy.__version__
    except ImportError:
        scipy_version = "not installed"
    return {
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "cpu": cpu, "cores": f"{os.cpu_count()} ({usable} usable)",
        "python": platform.python_version(), "numpy": np.__version__, "blas": blas,
        "scipy": scipy_version, "symdiff": getattr(symdiff, "__version__", "?"),
        "symdiff_commit": _git_commit(), "peers": peers.versions(frameworks),
        "platform": platform.platform(),
        "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


def _git_commit():
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%h %cI", "--", "symdiff"],
                             capture_output=True,
                             text=True, cwd=ROOT, timeout=10)
        return out.stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


# ------------------------------------------------------------ in-process rows
def check_references(case, label, args):
    """The hand-written gradient against central differences of the first
    spelling that can run, and every spelling's value against that one's.
    Returns (fd error, reference value)."""
    runnable = [s for s in case.spellings if not case.missing_modules(s)]
    base = runnable[0]
    with np.errstate(all="ignore"):
        value = float(base.fn(*positional(base.fn, args)))
        fd = fdcheck.fd_error(case, base.fn, args, np.random.default_rng(SEED + 1),
                              max_coords=6)
        if not fd <= FD_LIMIT:
            raise BenchmarkError(f"hand-written gradient of {case.name} {label} fails the "
                                 f"finite-difference check: {fd:.1e}")
        for s in runnable[1:]:
            gap = fdcheck.value_gap(s.fn(*positional(s.fn, args)), value)
            if not gap <= VALUE_LIMIT:
                raise BenchmarkError(f"{case.name} {label}: spelling {s.label!r} computes "
                                     f"{gap:.1e} away from {base.label!r}")
    return fd, value


def measure_row(case, spelling, label, args, value, opts, frameworks):
    """One spelling at one size: symdiff, the hand-written gradient and the peers,
    timed together."""
    import peers
    import symdiff
    row = {"case": case.name, "spelling": spelling.label, "size": label,
           "note": spelling.note, "hand_lines": lines_of(case.hand),
           "hand_code_lines": code_lines_of(case.hand), "peers": {}}
    missing = case.missing_modules(spelling)
    if missing:
        row["skipped"] = "needs " + ", ".join(missing)
        return row
    hand_args = positional(case.hand, args)
    ref = as_tuple(case.hand(*hand_args), case)
    call_args = positional(spelling.fn, args)
    contenders = []
    try:
        df = symdiff.grad(spelling.fn, wrt=case.symdiff_wrt, overrides=spelling.overrides)
        # what runs: the gradient specialised for these arguments (specialise.py)
        row["source"] = symdiff.source(df, *call_args)
        row["lines"] = lines_of(row["source"])
        row["code_lines"] = code_lines_of(row["source"])
        row["generic_lines"] = lines_of(symdiff.source(df))
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
            warnings.simplefilter("always")
            got = as_tuple(df(*call_args), case)
        row["warnings"] = len(caught)
        row["err"] = fdcheck.rel_error(got, ref)
    except Exception as exc:  # noqa: BLE001  (a SymdiffError, or any other failure)
        where = "refused" if "source" not in row else "failed at run time"
        row["refused"] = f"{where}: {one_line(exc)}"
    else:
        def warm():
            symdiff.grad(spelling.fn, wrt=case.symdiff_wrt, overrides=spelling.overrides)
        (row["warm"],), _ = timing.interleaved([warm], (), rounds=5, target=0.01)
        contenders.append(("symdiff", df, call_args))
    contenders.append(("hand", case.hand, hand_args))
    # the spelling's own forward pass: a gradient that computes it cannot be faster
    contenders.append(("f", spelling.fn, call_args))
    for name in frameworks:
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                port = peers.make(name, case, spelling, args)
                got = port.to_numpy(port.grad_fn(*port.args))
        except Exception as exc:  # noqa: BLE001
            row["peers"][name] = {"na": one_line(exc, 90)}
            continue
        gap = fdcheck.value_gap(port.value, value)
        if not gap <= VALUE_LIMIT:
            raise BenchmarkError(f"{name}'s port of {case.name} / {spelling.label} computes "
                                 f"{gap:.1e} away from the NumPy value")
        row["peers"][name] = {"err": fdcheck.rel_error(got, ref)}
        contenders.append((name, port.grad_fn, port.args))
    names = [n for n, _, _ in contenders]
    hand = names.index("hand")
    times, rounds, row["attempts"] = _time_until_steady(contenders, hand, opts)
    row["hand_t"] = times[hand]
    for i, name in enumerate(names):
        if i == hand:
            continue
        cell = {"t": times[i], "ratio": timing.paired_ratio(rounds[i], rounds[hand]),
                "spread": timing.paired_spread(rounds[i], rounds[hand])}
        if name == "symdiff":
            row.update(cell)
            row["faults"] = (minor_faults(df, call_args), minor_faults(case.hand, hand_args))
        elif name == "f":
            row["f_ratio"] = cell["ratio"]
        else:
            row["peers"][name].update(cell)
    return row


def _time_until_steady(contenders, hand, opts):
    """Interleaved timing, measured again (up to opts.attempts times) while the
    per-round ratios of the first contender to the hand-written one spread wider
    than SPREAD_LIMIT: a burst of load from other processes on the 2 shared cores
    that the pairing did not cancel. Keeps the attempt with the narrowest spread."""
    best = None
    for attempt in range(1, opts.attempts + 1):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            times, rounds = timing.interleaved_calls([(f, a) for _, f, a in contenders],
                                                     rounds=opts.rounds, target=opts.batch)
        first = 0 if hand else 1
        lo, hi = timing.paired_spread(rounds[first], rounds[hand])
        width = hi / lo - 1.0
        if best is None or width < best[0]:
            best = (width, times, rounds)
        if width <= SPREAD_LIMIT:
            break
    return best[1], best[2], attempt


def minor_faults(fn, args, calls=5):
    """Minor page faults per call: fresh memory the OS has to map (malloc gave the
    previous call's large temporaries back). Costly on virtual machines."""
    try:
        import resource
    except ImportError:  # not on this platform
        return None
    with np.errstate(all="ignore"):
        fn(*args)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(calls):
            fn(*args)
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls
