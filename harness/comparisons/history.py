"""One benchmark on one backend on one machine over runs (harness.store.queries.series):
its points in the order the runs started, and the changes in them (harness.comparisons
.changes), each naming the first commit of its new level.

The measure is the time (seconds), or instruction counts where the series counted them
and timed nothing (the gate's tier 1); a run that did not measure it (skipped, wrong,
failed) is not a point.
"""

from harness.comparisons import changes as changes_mod

MEASURES = ("seconds", "instructions")


def measure_of(rows):
    """The measure a series is read by (MEASURES)."""
    timed = any(r["seconds"] is not None for r in rows)
    counted = any(r["instructions"] is not None for r in rows)
    return "instructions" if counted and not timed else "seconds"


def history(rows, measure=None):
    """``{"measure", "points": [...], "changes": [...]}`` of a series' rows; each change:
    its first commit and run, the ratio of the new level to the old and the bound it
    crossed."""
    measure = measure or measure_of(rows)
    points = [{"commit": r["commit"], "run": r["run"], "started": r["started"],
               "dirty": r["dirty"], "seconds": r["seconds"], "interval": r["interval"],
               "instructions": r["instructions"], "value": r[measure]}
              for r in rows if r["status"] == "ok" and r[measure] is not None]
    found = changes_mod.find([p["value"] for p in points], measure)
    return {"measure": measure, "points": points, "changes": [
        {"commit": points[c.index]["commit"], "run": points[c.index]["run"],
         "index": c.index, "ratio": c.ratio, "threshold": c.threshold} for c in found]}
