"""Who is fastest, on one machine and across machines, each from what one run measured
side by side (the newest run of each benchmark on each machine,
harness.store.queries.newest).

- :func:`rank`: one benchmark's backends in one run, fastest first, a rank shared within
  the noise (harness.ranking.ranks), each time over the fastest (``~`` a tie).
- :func:`fastest`: per benchmark on one machine, the winner (and who ties with it), and
  how far behind the next one is.
- :func:`machine_grid`: every machine's backends as ratios to the same machine's baseline
  on the same benchmark in the same run, never one machine's raw time against another's;
  a backend's cell is the geometric mean of its ratios over the benchmarks it shares with
  the baseline, with their range.
- :func:`ad_grid`: gradbench's grid, eval x engine on one machine, each cell the engine's
  time over the plain objective's, shaded by its ratio to the best engine of the row.
"""

import math
import statistics
from collections import defaultdict

from harness import ranking


def _ok(row):
    return row["status"] == "ok" and row["seconds"] is not None and row["seconds"] > 0


def _span(row):
    return tuple(row["interval"]) if row["interval"] else (row["seconds"], row["seconds"])


def rank(rows):
    """One benchmark's results in one run, as ranked rows (fastest first: backend, seconds,
    interval, rank, ratio to the fastest, tie), then the rows that did not run."""
    timed = {r["backend"]: (r["seconds"], _span(r)) for r in rows if _ok(r)}
    labels = ranking.ranks(timed)
    order = sorted(timed, key=lambda name: timed[name][0])
    out = []
    if order:
        fastest = timed[order[0]]
        likes = [r["settings_like"] for r in rows if _ok(r) and r.get("settings_like")]
        common = statistics.mode(likes) if likes else None
        for name in order:
            r = next(x for x in rows if x["backend"] == name)
            seconds, span = timed[name]
            out.append({"backend": name, "seconds": seconds, "interval": list(span),
                        "rank": labels[name], "ratio": seconds / fastest[0],
                        "tie": name != order[0] and ranking.overlaps(span, fastest[1]),
                        "role": r["role"], "baseline": r["baseline"],
                        "unlike": bool(common and r.get("settings_like") not in (None,
                                                                                 common))})
    rest = [{"backend": r["backend"], "status": r["status"], "reason": r["reason"]}
            for r in rows if not _ok(r)]
    return {"ranked": out, "not_ranked": rest}


def _by_benchmark(rows):
    grouped = defaultdict(list)
    for r in rows:
        grouped[(r["machine"], r["key"])].append(r)
    return grouped


def fastest(rows):
    """Per benchmark of one machine's newest runs: the winner (joined by every backend
    tied with it), the next one told apart and its ratio, and the run."""
    out = []
    for (_, key), group in sorted(_by_benchmark(rows).items()):
        timed = {r["backend"]: (r["seconds"], _span(r)) for r in group if _ok(r)}
        winner, runner = ranking.headline(timed)
        if winner is None:
            continue
        out.append({"benchmark": key, "winner": winner, "runner_up": runner,
                    "backends": len(timed), "run": group[0]["run"],
                    "commit": group[0]["commit"]})
    return out


def _ratio_span(row, base):
    (low, high), (blow, bhigh) = _span(row), _span(base)
    return low / bhigh, high / blow


def machine_grid(rows):
    """``{"machines": [...], "backends": [...], "cells": {machine: {backend: cell}}}``
    from the newest results of every machine; a cell: the geometric mean of the
    backend's ratios to its machine's baseline, over how many benchmarks, their lowest
    and highest, and the baselines it was taken against."""
    ratios = defaultdict(list)
    machines = {}
    for (machine, _), group in _by_benchmark(rows).items():
        first = group[0]
        machines[machine] = {"id": machine, "name": first["machine_name"],
                             "fingerprint": first["fingerprint"]}
        bases = [r for r in group if r["baseline"] and _ok(r)]
        if len(bases) != 1:
            continue
        base = bases[0]
        for r in group:
            if _ok(r):
                low, high = _ratio_span(r, base)
                ratios[(machine, r["backend"])].append((r["seconds"] / base["seconds"], low,
                                                        high, base["backend"]))
    cells = defaultdict(dict)
    for (machine, backend), found in ratios.items():
        logs = [math.log(x[0]) for x in found]
        cells[machine][backend] = {
            "ratio": math.exp(sum(logs) / len(logs)), "benchmarks": len(found),
            "lowest": min(x[0] for x in found), "highest": max(x[0] for x in found),
            "interval": [math.exp(sum(math.log(x[1]) for x in found) / len(found)),
                         math.exp(sum(math.log(x[2]) for x in found) / len(found))],
            "baselines": sorted({x[3] for x in found})}
    backends = sorted({b for cell in cells.values() for b in cell},
                      key=lambda b: (min(c[b]["ratio"] for c in cells.values() if b in c), b))
    # a backend's group: the baseline it was most often taken against (a simulator's the
    # peer baseline, an AD engine's the hand-written derivative)
    groups = defaultdict(list)
    for b in backends:
        against = [x for c in cells.values() if b in c for x in c[b]["baselines"]]
        groups[statistics.mode(against)].append(b)
    return {"machines": sorted(machines.values(), key=lambda m: (m["name"], m["id"])),
            "backends": backends, "cells": dict(cells),
            "groups": [{"baseline": base, "backends": names}
                       for base, names in sorted(groups.items())]}


def _compiling(result):
    """What an engine's result adds where it runs its own objective or compiles
    (``harness evals`` keeps both in the extras): its time over that objective's, and the
    seconds it spent compiling."""
    extra = result.get("extra") or {}
    own = extra.get("objective_seconds")
    found = {}
    if own:
        found["x_own_objective"] = result["seconds"] / own
    if extra.get("compile_seconds") is not None:
        found["compile_seconds"] = extra["compile_seconds"]
    return found


def ad_grid(rows):
    """``{"evals": [...], "engines": [...], "cells": {eval: {engine: cell}}}`` from one
    machine's newest evals results; a cell: the engine's time, over the plain objective's
    in the same run (gradbench's ratio) and over the best engine's of the row; a compiling
    engine's, over its own objective's too, and its compile seconds."""
    cells, engines = {}, set()
    for (_, key), group in sorted(_by_benchmark(rows).items()):
        objective = next((r for r in group if r["role"] == "objective" and _ok(r)), None)
        timed = [r for r in group if _ok(r) and r["role"] != "objective"]
        if not timed:
            continue
        best = min(r["seconds"] for r in timed)
        row = {}
        for r in timed:
            engines.add(r["backend"])
            row[r["backend"]] = {"seconds": r["seconds"], "x_best": r["seconds"] / best,
                                 "x_objective": (r["seconds"] / objective["seconds"]
                                                 if objective else None),
                                 **_compiling(r)}
        for r in group:
            if not _ok(r) and r["role"] != "objective":
                engines.add(r["backend"])
                row[r["backend"]] = {"status": r["status"], "reason": r["reason"]}
        cells[key] = {"eval": group[0]["case"], "params": group[0]["params"],
                      "objective": objective["seconds"] if objective else None,
                      "run": group[0]["run"], "cells": row}
    return {"evals": list(cells), "engines": sorted(engines), "rows": cells}
