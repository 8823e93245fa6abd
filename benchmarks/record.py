"""The JSON record of a run (RESULTS.json) and the comparison of a run with one."""
from __future__ import annotations

import json

import cases
from report import geomean


def json_record(run):
    """Everything the report is written from (`run.py --render` writes it again,
    `run.py --baseline` compares a later run with it). `run` is a dict: info,
    imports, rows, colds ({(case index, spelling index): cold}), scale,
    frameworks, elapsed, end_load, settings (quick, rounds, batch, attempts)."""
    out = dict(run)
    out["cold"] = [{"case_index": ci, "spelling_index": si,
                    "case": cases.CASES[ci].name,
                    "spelling": cases.CASES[ci].spellings[si].label, **c}
                   for (ci, si), c in run["colds"].items()]
    del out["colds"]
    return out


def load_run(path):
    """The dict `json_record` was given, from its file."""
    with open(path) as fh:
        run = json.load(fh)
    run["colds"] = {(c["case_index"], c["spelling_index"]): c for c in run.pop("cold")}
    return run


def baseline_comparison(rows, baseline):
    """symdiff's ratios now against a saved run's, spelling by spelling."""
    old = {(r["case"], r["spelling"], r["size"]): r for r in baseline["rows"]}
    out = [f"## Against the baseline of {baseline['info']['date']}", "",
           "| case | spelling | size | then | now | now / then |", "|---|---|---|---|---|---|"]
    pairs = []
    for r in rows:
        b = old.get((r["case"], r["spelling"], r["size"]))
        then = b.get("ratio") if b else None
        now = r.get("ratio")
        if then and now:
            pairs.append((then, now))
        out.append(f"| {r['case']} | {r['spelling']} | {r['size']} | "
                   f"{f'{then:.2f}' if then else (b or {}).get('refused', '—')[:40]} | "
                   f"{f'{now:.2f}' if now else r.get('refused', '—')[:40]} | "
                   f"{f'{now / then:.2f}' if then and now else '—'} |")
    if pairs:
        out += ["", f"Over the {len(pairs)} rows timed both times: geometric mean then "
                f"{geomean([p[0] for p in pairs]):.2f}, now {geomean([p[1] for p in pairs]):.2f}."]
    return "\n".join(out)


