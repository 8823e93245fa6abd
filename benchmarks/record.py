"""The JSON record of a run (RESULTS.json) and the comparison of a run with one."""
from __future__ import annotations

import cases
from report import geomean


def json_record(info, rows, colds, frameworks):
    """What a later run compares itself with (`run.py --baseline`)."""
    keep = ("case", "spelling", "size", "ratio", "spread", "f_ratio", "attempts", "t",
            "hand_t", "lines", "hand_lines", "err", "refused", "skipped")
    out_rows = []
    for r in rows:
        item = {k: r[k] for k in keep if k in r}
        item["peers"] = {n: {k: v for k, v in c.items() if k in ("ratio", "err", "na")}
                         for n, c in r.get("peers", {}).items()}
        out_rows.append(item)
    cold = [{"case": cases.CASES[ci].name, "spelling": cases.CASES[ci].spellings[si].label, **c}
            for (ci, si), c in colds.items()]
    return {"info": info, "frameworks": list(frameworks), "rows": out_rows, "cold": cold}


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


