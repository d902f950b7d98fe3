"""Two runs, result by result: each benchmark and backend both runs measured, as the
ratio head / base with its interval and a verdict.

- Times (seconds): the ratio of the headline times (minima), its interval from the two
  intervals ([head low / base high, head high / base low]); ``tie`` where the intervals
  overlap (harness.ranking.overlaps), else ``faster`` or ``slower``.
- Instruction counts: compared exactly (they are deterministic): equal is a tie, any
  difference a verdict.
- Settings that differ (their hashes), or runs made on machines whose fingerprints
  differ, are a ``mismatch``: shown, never ranked, and given no ratio.

What only one run measured, or measured without a number (skipped, refused, wrong,
failed), is listed apart with its status and reason.
"""

from harness import ranking

VERDICTS = ("faster", "slower", "tie", "mismatch")


def _key(row):
    return row["key"], row["backend"]


def _measure(base, head):
    """What the two results are compared by: instructions where both counted them, else
    seconds where both timed, else None."""
    if base["instructions"] is not None and head["instructions"] is not None:
        return "instructions"
    if base["seconds"] is not None and head["seconds"] is not None:
        return "seconds"
    return None


def _span(row):
    return row["interval"] or (row["seconds"], row["seconds"])


def verdict_of_times(base, head):
    """(ratio, its interval, verdict) of two timed results."""
    (bl, bh), (hl, hh) = _span(base), _span(head)
    ratio = head["seconds"] / base["seconds"] if base["seconds"] else None
    interval = (hl / bh if bh else None, hh / bl if bl else None)
    if ranking.overlaps((bl, bh), (hl, hh)):
        return ratio, interval, "tie"
    return ratio, interval, "faster" if hh < bl else "slower"


def verdict_of_counts(base, head):
    b, h = base["instructions"], head["instructions"]
    ratio = h / b if b else None
    verdict = "tie" if h == b else "faster" if h < b else "slower"
    return ratio, (ratio, ratio), verdict


def _unmatched(row, side, why):
    return {"benchmark": row["key"], "backend": row["backend"], "side": side,
            "status": row["status"], "reason": why or row["reason"]}


def compare(base_rows, head_rows, same_machine=True):
    """``{"rows", "unmatched", "counts"}`` for two runs' results (dicts of
    harness.store.queries.LIGHT); ``same_machine``: whether the runs' machines share a
    fingerprint (otherwise every pair is a mismatch)."""
    base = {_key(r): r for r in base_rows}
    head = {_key(r): r for r in head_rows}
    rows, unmatched = [], []
    for key in [k for k in base if k in head]:
        b, h = base[key], head[key]
        measure = _measure(b, h) if b["status"] == h["status"] == "ok" else None
        if measure is None:
            for side, row in (("base", b), ("head", h)):
                if row["status"] != "ok":
                    unmatched.append(_unmatched(row, side, None))
            if b["status"] == h["status"] == "ok":
                unmatched.append(_unmatched(h, "both", "nothing both runs measured alike"))
            continue
        out = {"benchmark": key[0], "backend": key[1], "measure": measure,
               "base": b[measure], "head": h[measure], "base_interval": b["interval"],
               "head_interval": h["interval"], "settings_hash": [b["settings_hash"],
                                                                 h["settings_hash"]]}
        differ = (b["settings_hash"] or b["settings_id"]) != (h["settings_hash"] or
                                                              h["settings_id"])
        if differ or not same_machine:
            out.update(ratio=None, interval=None, verdict="mismatch",
                       why="settings differ" if differ else "machines differ")
        else:
            ratio, interval, verdict = (verdict_of_counts(b, h) if measure == "instructions"
                                        else verdict_of_times(b, h))
            out.update(ratio=ratio, interval=list(interval), verdict=verdict, why=None)
        rows.append(out)
    unmatched += [_unmatched(r, "base", "only the base run measured it")
                  for k, r in base.items() if k not in head]
    unmatched += [_unmatched(r, "head", "only the head run measured it")
                  for k, r in head.items() if k not in base]
    counts = {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS}
    return {"rows": rows, "unmatched": unmatched, "counts": counts}
