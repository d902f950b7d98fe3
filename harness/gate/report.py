"""The gate's report: ``gate.json`` (everything, for machines) and ``gate.md`` (for
people): the verdict, then per tier a row per case, regressions first, the functions
whose counts grew most under each regression, then what was listed but not judged."""

import json
from pathlib import Path

#: Row order: what fails the gate first, then what a reader should look at.
ORDER = {"regression": 0, "accepted": 1, "slower (report only)": 2, "faster": 3, "same": 4,
         "inconclusive": 5}


def _sorted(rows):
    return sorted(rows, key=lambda r: (ORDER.get(r["verdict"], 5), -(r.get("ratio") or 0)))


def _count(x):
    return f"{x:,.0f}"


def _pct(x):
    return f"{x - 1:+.2%}"


def _tier1(rows):
    out = ["| case | base (instructions/call) | head | ratio | tolerance | verdict |",
           "|---|---|---|---|---|---|"]
    for r in _sorted(rows):
        verdict = r["verdict"].upper() if r["verdict"] == "regression" else r["verdict"]
        out.append(f"| `{r['id']}` | {_count(r['base'])} | {_count(r['head'])} | "
                   f"{r['ratio']:.4f} ({_pct(r['ratio'])}) | ±{r['tolerance']:.1%} | {verdict} |")
    return out


def _tier2(rows):
    out = ["| case | base (min s) | head (min s) | median ratio | 95% interval | tolerance "
           "| blocking | verdict |", "|---|---|---|---|---|---|---|---|"]
    for r in _sorted(rows):
        low, med, high, cov = r["interval"]
        out.append(f"| `{r['id']}` | {min(r['base_seconds']):.3g} | {min(r['head_seconds']):.3g} "
                   f"| {med:.3f} | [{low:.3f}, {high:.3f}] ({cov:.0%}) | +{r['tolerance']:.0%} "
                   f"| {'yes' if r['blocking'] else 'no'} | {r['verdict']} |")
    return out


def _drilldown(r):
    out = [f"### `{r['id']}`: {_pct(r['ratio'])}", ""]
    if r.get("accepted"):
        a = r["accepted"]
        out += [f"Accepted by {a['commit'][:10]} ({a['subject']}): {a['reason']}", ""]
    for key, title in (("functions", "Functions whose instructions per call grew most "
                                      "(callgrind, self cost):"),
                       ("python", "Python functions whose bytecodes per call grew most:")):
        if r.get(key):
            out += [title, "", "| function | base | head | change |", "|---|---|---|---|"]
            out += [f"| `{name}` | {_count(b)} | {_count(h)} | +{_count(d)} |"
                    for name, b, h, d in r[key]]
            out.append("")
    return out


def markdown(result):
    base, head = result["base"], result["head"]
    lines = ["# Performance gate", "",
             f"- base: `{base.get('sha', '?')[:10]}` ({base.get('rev')}) {base.get('subject', '')}",
             f"- head: `{head.get('sha', '?')[:10]}` ({head.get('rev')}) {head.get('subject', '')}",
             f"- verdict: **{result['summary']}** (exit {result['exit']})",
             f"- run time: {result.get('seconds', 0):.0f} s", ""]
    if result.get("error"):
        lines += ["The gate could not run:", "", f"    {result['error']}", ""]
    if result.get("identical"):
        same = result["identical"]
        lines += ["Nothing was measured: no file the cases load code from differs between the "
                  f"revisions (`{same['command']}` is empty), so both would count and time "
                  f"the same code. {len(same['cases'])} cases; `--even-if-identical` measures "
                  "them anyway.", ""]
    tier1, tier2 = result.get("tier1", []), result.get("tier2", [])
    if tier1:
        lines += ["## Tier 1: instructions per call (callgrind)", "",
                  "Deterministic: a case regresses when head / base exceeds 1 + its tolerance, "
                  "which comes from its A/A spread (`harness/gate/tolerances.json`).", ""]
        lines += _tier1(tier1) + [""]
        for r in _sorted(tier1):
            if r["verdict"] in ("regression", "accepted"):
                lines += _drilldown(r)
    if tier2:
        lines += ["## Tier 2: wall time (paired, alternating fresh processes)", "",
                  "A case regresses only when the whole interval of the median head / base "
                  "ratio lies above 1 + tolerance; it fails the gate only where its A/A runs "
                  "showed no false alarm (blocking).", ""]
        lines += _tier2(tier2) + [""]
    if result.get("not_judged"):
        lines += ["## Listed, not judged", "", "| case | status | why |", "|---|---|---|"]
        lines += [f"| `{r['id']}` | {r['status']} | {r['reason']} |" for r in result["not_judged"]]
        lines.append("")
    if result.get("acceptances") or result.get("malformed_trailers"):
        lines += ["## Perf-accepted trailers in the range", ""]
        lines += [f"- `{a['pattern']}`: {a['reason']} ({a['commit'][:10]} {a['subject']})"
                  for a in result.get("acceptances", [])]
        lines += [f"- ignored (no case or no reason): `{m}`"
                  for m in result.get("malformed_trailers", [])]
        lines.append("")
    settings = result.get("settings", {})
    if settings:
        lines += ["## Settings", ""] + [f"- {k}: {v}" for k, v in settings.items()]
    return "\n".join(lines) + "\n"


def write(result, out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gate.json").write_text(json.dumps(result, indent=1, default=str))
    (out / "gate.md").write_text(markdown(result))
    return out / "gate.md"
