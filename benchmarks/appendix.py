"""The reference sections at the end of RESULTS.md: per-call times, import time,
compile-time scaling and the generated code of every spelling."""
from __future__ import annotations


def fmt_time(seconds):
    if seconds is None:
        return "—"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def details_table(rows):
    out = ["## Per call", "",
           "Median per-call times of the batches (absolute times are noisier than "
           "the ratios); **warm** = `symdiff.grad(f)` again (a cache hit); **faults** = "
           "minor page faults per call, symdiff / hand (fresh pages mapped because malloc "
           "returned a large temporary; ~4 µs each on this VM); **hand vs FD** = the "
           "hand-written gradient against central differences.", "",
           "| case | spelling | size | symdiff | hand | warm | faults | hand vs FD |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "skipped" in r:
            continue
        faults = r.get("faults")
        f = "—" if not faults or None in faults else f"{faults[0]:.0f} / {faults[1]:.0f}"
        out.append(f"| {r['case']} | {r['spelling']} | {r['size']} | {fmt_time(r.get('t'))} | "
                   f"{fmt_time(r.get('hand_t'))} | {fmt_time(r.get('warm'))} | {f} | "
                   f"{r['fd_err']:.0e} |")
    return "\n".join(out)


def import_time(imports):
    if not imports:
        return "## import time\n\ncould not be measured"
    return (f"## import time\n\nFresh interpreter, median of {imports['reps']}: `import numpy` "
            f"{fmt_time(imports['numpy'])}; then `import symdiff` {fmt_time(imports['symdiff'])} "
            f"({'imports' if imports['symdiff_imports_sympy'] else 'does not import'} SymPy); "
            f"`import sympy` on top, which a compile pays only if it needs SymPy (see the "
            f"cold column), {fmt_time(imports['sympy'])}.")


def scaling_table(scale):
    out = ["## scaling", "",
           "Compile time of `symdiff.grad(f)` in a fresh process whose compiler was warmed "
           "up on another function (so SymPy's import is not included). *chain n*: one "
           "expression of n nested `*`/`/` operations with leaves x, 1.01, cos(x), exp(x). "
           "*statements n*: n assignments, each reading the previous result and one from "
           "three statements back. **per op** = compile time / n: flat means linear growth. "
           "**CS err** = max relative error of the generated gradient against the "
           "complex-step derivative Im f(x + ih) / h (exact to rounding).", "",
           "| function | n | compile | per op | generated lines | lines / n | CS err |",
           "|---|---|---|---|---|---|---|"]
    for s in scale:
        if "error" in s:
            out.append(f"| {s['kind']} | {s['n']} | unsupported: {s['error']} | — | — | — | — |")
        else:
            out.append(f"| {s['kind']} | {s['n']} | {fmt_time(s['compile'])} | "
                       f"{fmt_time(s['compile'] / s['n'])} | {s['lines']} | "
                       f"{s['lines'] / s['n']:.2f} | {s['fd_err']:.0e} |")
    return "\n".join(out)


def sources(rows):
    out = ["## generated code", "",
           "What the timings above ran (the source is the same at every size)."]
    seen = set()
    for r in rows:
        key = (r["case"], r["spelling"])
        if "source" in r and key not in seen:
            seen.add(key)
            out += ["", f"<details><summary>{r['case']} / {r['spelling']}</summary>", "",
                    "```python", r["source"].rstrip(), "```", "", "</details>"]
    return "\n".join(out)
