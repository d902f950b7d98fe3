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


def _span(row):
    return row["interval"] or (row["seconds"], row["seconds"])


def verdict_of_times(base, head):
    """(ratio, its interval, verdict) of two timed results."""
    (bl, bh), (hl, hh) = _span(base), _span(head)
    ratio = head["seconds"] / base["seconds"] if base["seconds"] else None
    interval = [hl / bh if bh else None, hh / bl if bl else None]
    if ranking.overlaps((bl, bh), (hl, hh)):
        return ratio, interval, "tie"
    return ratio, interval, "faster" if hh < bl else "slower"


def verdict_of_counts(base, head):
    b, h = base["instructions"], head["instructions"]
    ratio = h / b if b else None
    verdict = "tie" if h == b else "faster" if h < b else "slower"
    return ratio, [ratio, ratio], verdict


def _unmatched(row, side, why):
    return {"benchmark": row["key"], "backend": row["backend"], "side": side,
            "status": row["status"], "reason": why or row["reason"]}


def _pair(b, h, same_machine):
    """One row of the comparison of two results both runs measured with a number, or
    None where they measured nothing alike."""
    if b["instructions"] is not None and h["instructions"] is not None:
        measure, judge = "instructions", verdict_of_counts
    elif b["seconds"] is not None and h["seconds"] is not None:
        measure, judge = "seconds", verdict_of_times
    else:
        return None
    bs, hs = b["settings_hash"], h["settings_hash"]
    differ = (bs or b["settings_id"]) != (hs or h["settings_id"])
    if differ or not same_machine:
        ratio, interval, verdict = None, None, "mismatch"
        why = "settings differ" if differ else "machines differ"
    else:
        (ratio, interval, verdict), why = judge(b, h), None
    return {"benchmark": b["key"], "backend": b["backend"], "measure": measure,
            "base": b[measure], "head": h[measure], "ratio": ratio, "interval": interval,
            "verdict": verdict, "why": why}


def compare(base_rows, head_rows, same_machine=True):
    """``{"rows", "unmatched", "counts"}`` for two runs' results (dicts of
    harness.store.queries.COMPARED); ``same_machine``: whether the runs' machines share a
    fingerprint (otherwise every pair is a mismatch)."""
    head = {(r["key"], r["backend"]): r for r in head_rows}
    seen, rows, unmatched = set(), [], []
    for b in base_rows:
        key = (b["key"], b["backend"])
        seen.add(key)
        h = head.get(key)
        if h is None:
            unmatched.append(_unmatched(b, "base", "only the base run measured it"))
            continue
        both = b["status"] == "ok" and h["status"] == "ok"
        row = _pair(b, h, same_machine) if both else None
        if row is not None:
            rows.append(row)
            continue
        for side, r in (("base", b), ("head", h)):
            if r["status"] != "ok":
                unmatched.append(_unmatched(r, side, None))
        if both:
            unmatched.append(_unmatched(h, "both", "nothing both runs measured alike"))
    unmatched += [_unmatched(r, "head", "only the head run measured it")
                  for key, r in head.items() if key not in seen]
    counts = dict.fromkeys(VERDICTS, 0)
    for row in rows:
        counts[row["verdict"]] += 1
    return {"rows": rows, "unmatched": unmatched, "counts": counts}
