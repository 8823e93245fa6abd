"""The markdown report (RESULTS.md) and the JSON record (RESULTS.json) of a run."""
from __future__ import annotations

import math

import cases
from appendix import details_table, fmt_time, import_time, scaling_table, sources

TARGET_MEAN, TARGET_MAX, TARGET_COLD, TARGET_LINES, TARGET_ERR = 1.10, 1.4, 0.100, 1.5, 1e-12

CASES = cases.CASES   # the cases of the run being written (write_markdown sets it)
PEER_NAMES = ("jax", "autograd", "torch")   # peers.NAMES, without importing peers


def fmt_err(err):
    if err is None:
        return "—"
    if err != err:
        return "**NaN/inf where hand has numbers**"
    text = f"{err:.0e}"
    if err > 1e-6:
        return f"**{text} WRONG**"
    return f"{text} (> 1e-12)" if err > TARGET_ERR else text


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def fmt_mean(xs):
    g = geomean(xs)
    return "—" if g is None else f"{g:.2f} ({len(xs)})"


def small_large(case):
    labels = list(case.sizes)
    return labels[0], labels[-1]


def by_key(rows):
    return {(r["case"], r["spelling"], r["size"]): r for r in rows}


class Footnotes:
    """Long reasons (why a peer cannot run a spelling) once, numbered."""

    def __init__(self):
        self.items = []

    def ref(self, text):
        if text not in self.items:
            self.items.append(text)
        return f"[{self.items.index(text) + 1}]"


def ratio_cell(row):
    if row is None:
        return "—"
    if "skipped" in row:
        return "skipped: " + row["skipped"]
    if "refused" in row:   # the whole message is in the summary's list
        return row["refused"].split(":")[0] + ": " + row["refused"].split(":")[1].strip()
    lo, hi = row["spread"]
    bad = "" if row["err"] == row["err"] and row["err"] <= 1e-6 else " (WRONG)"
    return f"**{row['ratio']:.2f}** ({lo:.2f}-{hi:.2f}){bad}"


def peer_cell(row, name, notes):
    if row is None or "skipped" in row:
        return "—"
    cell = row["peers"].get(name)
    if cell is None:
        return "not installed"
    if "na" in cell:
        return "n/a " + notes.ref(cell["na"])
    err = cell["err"]
    flag = ""
    if err != err:
        flag = " NaN " + notes.ref("gradient has NaN where the hand-written one has numbers "
                                   "(the `where` branch not taken; see the README)")
    elif err > 1e-6:
        flag = f" (err {err:.0e})"
    return f"{cell['ratio']:.2f}{flag}"


def summary_rows(rows, frameworks):
    """Per case, the geometric means at the small and the large size."""
    out = []
    keyed = by_key(rows)
    for case in CASES:
        small, large = small_large(case)
        cells = [case.name, str(len(case.spellings))]
        for who in ["symdiff"] + list(PEER_NAMES):
            if who != "symdiff" and who not in frameworks:
                cells += ["not installed"] * 2
                continue
            for size in (small, large) if small != large else (small,):
                xs = [_ratio(keyed.get((case.name, s.label, size)), who) for s in case.spellings]
                cells.append(fmt_mean([x for x in xs if x]))
            if small == large:
                cells.append("(one size)")
        out.append(cells)
    return out


def _ratio(row, who):
    if row is None:
        return None
    if who == "symdiff":
        return row.get("ratio")
    return row["peers"].get(who, {}).get("ratio")


def ran(rows):
    """The cases with rows, in table order (all of them, unless --only)."""
    names = {r["case"] for r in rows}
    return [c for c in cases.CASES if c.name in names]


def write_markdown(info, imports, rows, colds, scale, frameworks, opts, elapsed, end_load):
    global CASES
    CASES = ran(rows)
    out = []
    w = out.append
    notes = Footnotes()
    keyed = by_key(rows)
    timed = [r for r in rows if "ratio" in r]
    w("# symdiff benchmark results")
    w("")
    w(f"- date: {info['date']}{'  (--quick smoke run)' if opts.quick else ''}; "
      f"symdiff at commit {info['symdiff_commit']}")
    w(f"- CPU: {info['cpu']}, cores: {info['cores']}; {info['platform']}")
    w(f"- Python {info['python']}, NumPy {info['numpy']} (BLAS: {info['blas']}, 1 thread), "
      f"SciPy {info['scipy']}, symdiff {info['symdiff']}")
    peers_text = ", ".join(f"{k} {v}" for k, v in info["peers"].items()) or \
        "none installed (see README: requirements-peers.txt)"
    w(f"- peers: {peers_text}; each on one thread")
    load = info["load"]
    w(f"- total time {elapsed:.0f} s; load average at start / end: "
      f"{load if load is None else f'{load:.2f}'} / {end_load:.2f} (2 shared cores: "
      "other sessions' tests add noise; ratios are paired per round, see below)")
    w("")
    w("## Summary")
    w("")
    w("**ratio** = time of a gradient / time of the hand-written NumPy gradient of "
      "the same function, measured in the same process: each contender gets batches "
      f"calibrated to ~{opts.batch * 1e3:.0f} ms, {opts.rounds} rounds alternate them "
      "(order reversed every other round), the ratio is the median over rounds of "
      "the ratio of the two batches of a round (batches timed in the process's CPU time, "
      "which a busy machine does not stretch); the spread in brackets is the "
      "25th-75th percentile of those per-round ratios. < 1 means faster than by hand.")
    w("")
    again = [r for r in timed if r.get("attempts", 1) > 1]
    w(f"A row whose per-round ratios spread wider than 10 % between quartiles is "
      f"timed again (up to {opts.attempts} times; the narrowest is kept): "
      f"{len(again)} of {len(timed)} rows were.")
    w("")
    w(_targets(timed, rows, colds))
    w("")
    head = ["case", "spellings"]
    for who in ["symdiff"] + list(PEER_NAMES):
        head += [f"{who} small", f"{who} large"]
    w("Geometric mean of the ratios per case (number of spellings in brackets; a peer "
      "only over the spellings it can run):")
    w("")
    w("| " + " | ".join(head) + " |")
    w("|" + "|".join(["---"] * len(head)) + "|")
    for cells in summary_rows(rows, frameworks):
        w("| " + " | ".join(cells) + " |")
    overall = ["**all**", str(sum(len(c.spellings) for c in CASES))]
    for who in ["symdiff"] + list(PEER_NAMES):
        if who != "symdiff" and who not in frameworks:
            overall += ["not installed"] * 2
            continue
        for pick in (0, -1):  # a case with one size counts as small only
            xs = [_ratio(keyed.get((c.name, s.label, list(c.sizes)[pick])), who)
                  for c in CASES for s in c.spellings if pick == 0 or len(c.sizes) > 1]
            overall.append(f"**{fmt_mean([x for x in xs if x])}**")
    w("| " + " | ".join(overall) + " |")
    w("")
    first = [r for r in timed if r["spelling"] == _first_label(r["case"])]
    rest = [r for r in timed if r["spelling"] != _first_label(r["case"])]
    w(f"symdiff, geometric mean over every timed spelling and size: "
      f"**{fmt_mean([r['ratio'] for r in timed])}**; over the spellings of earlier runs "
      f"(the first of each original case) {fmt_mean([r['ratio'] for r in first if r['case'] in ORIGINAL])}; "
      f"over the other spellings {fmt_mean([r['ratio'] for r in rest])}.")
    w("")
    worst = sorted(timed, key=lambda r: -r["ratio"])[:15]
    if worst:
        w("Slowest (symdiff / hand):")
        w("")
        why = {(c.name, label): text for c in CASES for label, text in c.why.items()}
        explained = set()
        for r in worst:
            key = (r["case"], r["spelling"])
            reason = "" if key in explained else why.get(key, "")
            explained.add(key)
            w(f"- {r['case']} / {r['spelling']} at {r['size']}: **{r['ratio']:.2f}**"
              + (f". {reason}" if reason else ""))
        w("")
    refused = [r for r in rows if "refused" in r and r["size"] == list(
        next(c for c in CASES if c.name == r["case"]).sizes)[0]]
    if refused:
        w(f"Refused by symdiff ({len(refused)} spellings; picked up automatically once accepted):")
        w("")
        for r in refused:
            w(f"- {r['case']} / {r['spelling']}: {r['refused']}")
        w("")
    wrong = [r for r in rows if "err" in r and not (r["err"] <= TARGET_ERR)]
    if wrong:
        w("Error above 1e-12 against the hand-written gradient: " + ", ".join(
            f"{r['case']} / {r['spelling']} {r['size']} ({fmt_err(r['err'])})" for r in wrong) + ".")
        w("")
    warned = [r for r in rows if r.get("warnings")]
    if warned:
        w("Gradients that emitted warnings: " + ", ".join(
            f"{r['case']} / {r['spelling']} {r['size']} ({r['warnings']})" for r in warned) + ".")
        w("")
    w(_spelling_table(rows, colds))
    w("")
    w(_peer_table(rows, frameworks, notes))
    if len(frameworks) < len(PEER_NAMES):
        w("")
        w("A peer that is not installed is not timed: see benchmarks/README.md for the "
          "benchmark's environment (`requirements-peers.txt`).")
    w("")
    w(details_table(rows))
    w("")
    w(import_time(imports))
    w("")
    w(scaling_table(scale))
    w("")
    w(sources(rows))
    return "\n".join(out)


ORIGINAL = ("rosenbrock", "logistic L2", "MLP tanh+softmax", "huber", "sqrt where",
            "scalar 45 ops", "rnn for-loop", "straight-through floor")


def _first_label(case_name):
    return next(c for c in CASES if c.name == case_name).spellings[0].label


def _targets(timed, rows, colds):
    ratios = [r["ratio"] for r in timed]
    over = [r for r in timed if r["ratio"] > TARGET_MAX]
    cold = [c for c in colds.values() if "first" in c]
    slow_cold = [k for k, c in colds.items() if "first" in c and c["first"] > TARGET_COLD]
    lines = [r for r in rows if "lines" in r and r["size"] == _size0(r)]
    long_ = [r for r in lines if r["lines"] > TARGET_LINES * r["hand_lines"]]
    supported = {(r["case"], r["spelling"]) for r in rows if "ratio" in r}
    every = {(r["case"], r["spelling"]) for r in rows if "skipped" not in r}
    small = [r["ratio"] for r in timed if r["size"] == _size0(r)]
    large = [r["ratio"] for r in timed if r["size"] != _size0(r)]
    g = geomean(ratios)
    t = ["| target (issue 16) | now |", "|---|---|"]
    if g:
        t.append(f"| geometric mean of symdiff / hand ≤ {TARGET_MEAN:.2f} on every spelling, "
                 f"small and large | **{g:.2f}** over {len(ratios)} rows (small "
                 f"{fmt_mean(small)}, large {fmt_mean(large)}) |")
        t.append(f"| no spelling above {TARGET_MAX} | **{len(over)}** rows above "
                 f"(worst {max(ratios):.2f}) |")
    else:
        t.append("| geometric mean, none above 1.4 | nothing timed |")
    t.append(f"| cold compile ≤ {TARGET_COLD * 1e3:.0f} ms (median, SymPy included) | "
             f"**{len(slow_cold)}** of {len(cold)} above; slowest "
             f"{fmt_time(max((c['first'] for c in cold), default=None))} |")
    t.append(f"| generated lines ≤ {TARGET_LINES}× hand-written | **{len(long_)}** of "
             f"{len(lines)} above (median {_median_ratio(lines)}× hand) |")
    code = [r for r in lines if r.get("code_lines") and r.get("hand_code_lines")]
    if code:
        long_code = [r for r in code
                     if r["code_lines"] > TARGET_LINES * r["hand_code_lines"]]
        t.append(f"| the same, lines of code only (no comment lines, no docstring) | "
                 f"**{len(long_code)}** of {len(code)} above (median "
                 f"{_median_ratio(code, 'code_lines', 'hand_code_lines')}× hand) |")
    t.append(f"| spellings symdiff differentiates | **{len(supported)}** of {len(every)} |")
    return "\n".join(t)


def _median_ratio(rows, lines="lines", hand="hand_lines"):
    import statistics
    xs = [r[lines] / r[hand] for r in rows]
    return f"{statistics.median(xs):.1f}" if xs else "—"


def _size0(row):
    return list(next(c for c in CASES if c.name == row["case"]).sizes)[0]


def _spelling_table(rows, colds):
    keyed = by_key(rows)
    out = ["## symdiff per spelling", "",
           "**cold** = CPU time of `symdiff.grad(f)` and its first call in a fresh process with "
           "symdiff imported and an empty derivative cache (SymPy, if a rule needs it, is "
           "imported inside this time; *SymPy* marks those), median [min-max] of the runs. "
           "**lines** = generated source / hand-written gradient, `def` to the end, "
           "comments and docstrings included. **err** = max over outputs of "
           "max|symdiff − hand| / max|hand| (target 1e-12), at the large size.", "",
           "**f alone** = the spelling's own function (its forward pass) / the hand-written "
           "gradient, in the same rounds: a gradient that evaluates f cannot do better "
           "unless it computes f differently.", "",
           "| case | spelling | small size | ratio small | f alone | large size | ratio large | "
           "f alone | cold | lines | err |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for ci, case in enumerate(CASES):
        small, large = small_large(case)
        for si, s in enumerate(case.spellings):
            a, b = keyed.get((case.name, s.label, small)), keyed.get((case.name, s.label, large))
            cold = colds.get((cases.CASES.index(case), si))
            if cold is None:
                cold_s = "—"
            elif "error" in cold:
                cold_s = cold["error"]
            else:
                cold_s = (f"{fmt_time(cold['first'])} [{fmt_time(cold['min'])}-"
                          f"{fmt_time(cold['max'])}]" + (" SymPy" if cold["sympy"] else ""))
            lines = f"{a['lines']} / {a['hand_lines']}" if a and "lines" in a else "—"
            err = fmt_err((b or a or {}).get("err"))
            large_cell = "same" if b and "refused" in b and a and b["refused"] == a.get(
                "refused") else ratio_cell(b)
            label = s.label + (f" ({s.note})" if s.note else "")
            one = large == small
            out.append(f"| {case.name} | {label} | {small} | {ratio_cell(a)} | {_f_cell(a)} | "
                       f"{'—' if one else large} | {'—' if one else large_cell} | "
                       f"{'—' if one else _f_cell(b)} | {cold_s} | {lines} | {err} |")
    return "\n".join(out)


def _f_cell(row):
    return f"{row['f_ratio']:.2f}" if row and "f_ratio" in row else "—"


def _peer_table(rows, frameworks, notes):
    keyed = by_key(rows)
    head = ["case", "spelling", "symdiff small", "symdiff large"]
    for name in PEER_NAMES:
        head += [f"{name} small", f"{name} large"]
    out = ["## Peers per spelling", "",
           "Ratios to the hand-written gradient in the same interleaved rounds as "
           "symdiff's. `jax` is `jax.jit(jax.grad(f))` (64-bit), `autograd` is "
           "`autograd.grad(f)`, `torch` is `torch.autograd.grad` on CPU float64 tensors; "
           "each runs the spelling's own code with its own NumPy (peers.py), on inputs "
           "already converted to its array type. Each port's value was checked against "
           "NumPy's, and its gradient against the hand-written one.", "",
           "| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(head)) + "|"]
    for case in CASES:
        small, large = small_large(case)
        for s in case.spellings:
            a, b = keyed.get((case.name, s.label, small)), keyed.get((case.name, s.label, large))
            cells = [case.name, s.label,
                     f"{a['ratio']:.2f}" if a and "ratio" in a else ("refused" if a else "—"),
                     f"{b['ratio']:.2f}" if b and "ratio" in b and b is not a else "—"]
            for name in PEER_NAMES:
                cells += [peer_cell(a, name, notes), peer_cell(b, name, notes) if b is not a else "—"]
            out.append("| " + " | ".join(cells) + " |")
    out.append("")
    for i, text in enumerate(notes.items, 1):
        out.append(f"[{i}] {text}  ")
    return "\n".join(out)
