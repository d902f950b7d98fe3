"""The gate's ``gate.json`` as two runs, one per revision it measured (base and head, each
built from its own tree): each gated case a benchmark, its instructions per call (tier 1)
or its wall-time samples (tier 2) the result. A gate that could not run measured
nothing, and holds no run."""

from harness import ranking
from harness.settings import short_hash
from harness.store.files.common import FileError, run_fields, seconds_fields, validated


def recognises(data):
    return "tier1" in data and "base" in data and "head" in data


def _side(data, side, where):
    fields = run_fields(data.get("run"), "gate")
    fields.update(commit=data[side]["sha"], dirty=False)
    settings = data.get("settings") or {}
    common = {"settings": settings, "settings_hash": short_hash(settings)}
    results = []
    for row in data["tier1"]:
        results.append({"benchmark": {"suite": "gate", "case": row["id"],
                                      "params": {"tier": 1}},
                        "instructions": float(row[side]), **common,
                        "extra": {"tolerance": row.get("tolerance")}})
    for row in data["tier2"]:
        times = [float(t) for t in row[f"{side}_seconds"]]
        results.append({"benchmark": {"suite": "gate", "case": row["id"],
                                      "params": {"tier": 2}},
                        **seconds_fields(min(times), ranking.interval(times), len(times),
                                         times), **common})
    if not results:
        raise FileError(f"{where}: the gate judged no case, so it measured nothing")
    return validated({**fields, "results": results}, f"{where} ({side})")


def read(data, where="a gate report"):
    if data.get("error"):
        raise FileError(f"{where}: the gate could not run, so it measured nothing: "
                        f"{str(data['error']).splitlines()[-1]}")
    try:
        return [_side(data, side, where) for side in ("base", "head")]
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        if isinstance(exc, FileError):
            raise
        raise FileError(f"{where}: not the gate's gate.json ({type(exc).__name__}: "
                        f"{exc})") from None
