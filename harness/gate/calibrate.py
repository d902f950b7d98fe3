"""``python -m harness calibrate [--rev REV] [--runs N] [--perturb] [--write]``: A/A gate
runs, the evidence behind the gate's tolerances.

Each run is a whole gate run of REV against itself (two trees, fresh processes). Tier 1
counts repeat exactly on identical code, so an A/A run alone would set every tolerance to
the floor without showing what an unrelated change does to a count; ``--perturb`` makes
each run's head a commit that only allocates some objects when ``kernels`` is imported
(a different number each run), moving the heap layout as any unrelated change would.
The spread of a case is the largest |head / base - 1| over all its runs; tier 2 records
its false alarms (an interval wholly above 1 + tolerance in an A/A run).

``--write`` merges the result into ``harness/gate/tolerances.json`` (runs add up with
those already stored for the same case).
"""

import json
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path

from harness.gate import decide
from harness.gate.command import ROOT, run
from harness.gate.trees import git, resolve

#: Objects allocated at import by the perturbed heads, one count per run.
PADDING = (1, 7, 64, 333, 1000, 2718, 5000, 12345, 31, 200)


def perturbed(repo, sha, objects):
    """A commit (on no branch) that is ``sha`` plus ``objects`` unused objects allocated
    when ``kernels`` is imported."""
    path = "kernels/__init__.py"
    source = git(repo, "show", f"{sha}:{path}")
    source += (f"\n\n# gate calibration: moves the heap layout, nothing else\n"
               f"_LAYOUT_PADDING = [object() for _ in range({objects})]\n")
    blob = subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "--stdin"],
                          input=source, capture_output=True, text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}

        def run_git(*args):  # on a scratch index: the checkout's own is never touched
            return subprocess.run(["git", "-C", str(repo), *args], capture_output=True,
                                  text=True, check=True, env=env).stdout.strip()

        run_git("read-tree", sha)
        run_git("update-index", "--cacheinfo", f"100644,{blob},{path}")
        tree = run_git("write-tree")
        return run_git("commit-tree", tree, "-p", sha, "-m",
                       f"gate calibration: {objects} objects of heap padding")


def collect(results):
    """Per-case A/A statistics from finished gate results."""
    tier1, tier2 = {}, {}
    for result in results:
        for row in result["tier1"]:
            entry = tier1.setdefault(row["id"], {"runs": 0, "spread": 0.0})
            entry["runs"] += 1
            entry["spread"] = max(entry["spread"], abs(row["ratio"] - 1))
        for row in result["tier2"]:
            entry = tier2.setdefault(row["id"], {"runs": 0, "false_alarms": 0,
                                                 "highest_low": 0.0, "widest": 0.0})
            low, _, high, _ = row["interval"]
            entry["runs"] += 1
            entry["false_alarms"] += int(low > 1 + decide.WALL_TOLERANCE)
            entry["highest_low"] = max(entry["highest_low"], low)
            entry["widest"] = max(entry["widest"], high - low)
    return tier1, tier2


def merge(stored, tier1, tier2, info):
    """``stored`` with the new A/A statistics added to it."""
    out = {"tier1": dict(stored.get("tier1", {})), "tier2": dict(stored.get("tier2", {})),
           "calibrations": list(stored.get("calibrations", [])) + [info]}
    for cid, new in tier1.items():
        old = out["tier1"].get(cid, {"runs": 0, "spread": 0.0})
        spread = max(old["spread"], new["spread"])
        out["tier1"][cid] = {"runs": old["runs"] + new["runs"], "spread": spread,
                             "tolerance": decide.tolerance_from_spread(spread)}
    for cid, new in tier2.items():
        old = out["tier2"].get(cid, {"runs": 0, "false_alarms": 0, "highest_low": 0.0,
                                      "widest": 0.0})
        out["tier2"][cid] = {"runs": old["runs"] + new["runs"],
                             "false_alarms": old["false_alarms"] + new["false_alarms"],
                             "highest_low": max(old["highest_low"], new["highest_low"]),
                             "widest": max(old["widest"], new["widest"])}
    return out


def table(tier1, tier2):
    lines = ["| tier 1 case | runs | largest deviation | tolerance |", "|---|---|---|---|"]
    lines += [f"| `{cid}` | {e['runs']} | {e['spread']:.4%} | "
              f"{decide.tolerance_from_spread(e['spread']):.1%} |"
              for cid, e in sorted(tier1.items(), key=lambda kv: -kv[1]["spread"])]
    if tier2:
        lines += ["", "| tier 2 case | runs | false alarms | highest interval low | widest "
                  "interval |", "|---|---|---|---|---|"]
        lines += [f"| `{cid}` | {e['runs']} | {e['false_alarms']} | {e['highest_low']:.3f} | "
                  f"{e['widest']:.3f} |" for cid, e in sorted(tier2.items())]
    return "\n".join(lines)


def alarms(result):
    """The cases an A/A run would have flagged as slower: a tier-1 count above 1 + FLOOR
    (the smallest tolerance), a tier-2 interval wholly above 1 + WALL_TOLERANCE."""
    return ([r["id"] for r in result["tier1"] if r["ratio"] > 1 + decide.FLOOR]
            + [r["id"] for r in result["tier2"] if r["interval"][0] > 1 + decide.WALL_TOLERANCE])


def main(opts):
    repo = ROOT
    sha = resolve(repo, opts.rev)
    tiers = (1, 2) if opts.tier == "all" else (int(opts.tier),)
    results, flagged, seconds = [], [], []
    with tempfile.TemporaryDirectory() as out:
        for i in range(opts.runs):
            head = perturbed(repo, sha, PADDING[i % len(PADDING)] + i) if opts.perturb else sha
            code, reason, result = run(sha, head, repo=repo, tiers=tiers, out=out,
                                       patterns=opts.case, stored={})
            if code == 2:
                print(f"run {i + 1}: {reason}")
                return 2
            results.append(result)
            flagged.append(alarms(result))
            seconds.append(result["seconds"])
            print(f"run {i + 1}/{opts.runs}: {result['seconds']:.0f} s, "
                  f"false alarms: {flagged[-1] or 'none'}", flush=True)
    tier1, tier2 = collect(results)
    print()
    print(table(tier1, tier2))
    print(f"\n{len(results)} runs, {sum(1 for f in flagged if f)} with a false alarm; "
          f"gate run time {min(seconds):.0f}-{max(seconds):.0f} s")
    if opts.write:
        info = {"rev": sha, "runs": opts.runs, "perturbed": bool(opts.perturb),
                "false_alarm_runs": sum(1 for f in flagged if f),
                "machine": platform.node(), "date": time.strftime("%Y-%m-%d"),
                "seconds": [round(s) for s in seconds]}
        merged = merge(decide.load(), tier1, tier2, info)
        decide.TOLERANCES.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n")
        print(f"written: {decide.TOLERANCES}")
    return 1 if any(flagged) else 0
