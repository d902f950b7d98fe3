"""``python -m harness gate --base REV [--head REV]``: compare the gated cases of two
revisions, each built from its own tree, in one run on this machine.

Exit 0: no regression; 1: a regression (not accepted); 2: the gate could not run
(unknown revision, a failed build, a failed or wrong benchmark). Each ends with a
one-line reason on stderr; the report goes to ``reports/out/gate.md`` and ``gate.json``.

The cases and the measuring code come from the tree the gate is started from, as asv's
benchmarks do; the code measured comes from each revision.
"""

import contextlib
import fcntl
import json
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from harness import provenance
from harness.gate import accept, counts, decide, report, trees, walltime
from harness.gate import cases as case_table
from harness.gate.runner import MEASURED, GateError, build, count_cpu, environment, run_probe
from harness.recording.record import record
from harness.store.files import gate_report

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "out"


def _both(fn, sides):
    """{"base": fn(base side), "head": fn(head side)}, the two in parallel (2 cores: the
    counts do not mind sharing the machine; builds finish sooner)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(fn, side) for name, side in sides.items()}
        return {name: f.result() for name, f in futures.items()}


def classify(ids, builds):
    """(judged ids, not-judged rows) from both sides' build statuses; GateError naming
    the first case that failed on either side."""
    for name in ("base", "head"):
        for cid in ids:
            status = builds[name][cid]
            if status["status"] == "failed":
                raise GateError(f"{cid} failed on {name}: {status['reason']}")
    judged, rows = [], []
    for cid in ids:
        b, h = builds["base"][cid], builds["head"][cid]
        row = {"id": cid, "tier": case_table.CASES[cid].tier}
        if b["status"] == "ok" and h["status"] == "ok":
            if b["fingerprint"] == h["fingerprint"]:
                judged.append(cid)
                continue
            rows.append({**row, "status": "changed",
                         "reason": "its definition differs between the revisions "
                                   f"({b['fingerprint']} -> {h['fingerprint']})"})
        elif b["status"] == "ok":
            rows.append({**row, "status": "removed", "reason": h["reason"]})
        elif h["status"] == "ok":
            rows.append({**row, "status": "new", "reason": b["reason"]})
        else:
            rows.append({**row, "status": "unavailable", "reason": h["reason"]})
    return judged, rows


def _subject(repo, sha):
    return trees.git(repo, "log", "-1", "--format=%s", sha)


def _python_diff(sides, ids, workdir):
    """{case: [(function, base, head, change)]}: bytecodes per call, from a traced run of
    each side, for the regressed cases."""
    runs = _both(lambda side: run_probe(
        "opcodes", side, ids, workdir / f"opcodes-{side.name}.json",
        environment(side), extra=("--warmup", counts.WARMUP))["cases"], sides)
    return {cid: counts.diff(runs["base"][cid], runs["head"][cid]) for cid in ids}


def _judge_slower(row, acceptances, blocking):
    """A slower case's verdict: accepted by a trailer, a regression, or (a case that may
    not block) reported only."""
    hit = accept.match(row["id"], acceptances)
    row["accepted"] = hit._asdict() if hit else None
    if not blocking:
        row["verdict"] = "slower (report only)"
    else:
        row["verdict"] = "accepted" if hit else "regression"


def _tier1_rows(judged, measured, numba, stored, acceptances, sides, workdir):
    rows = []
    for cid in judged:
        base, head = measured["base"][cid], measured["head"][cid]
        tol, source = decide.tolerance(cid, 1, stored)
        verdict, ratio = decide.count_verdict(base["per_call"], head["per_call"], tol)
        row = {"id": cid, "base": base["per_call"], "head": head["per_call"], "ratio": ratio,
               "tolerance": tol, "tolerance_source": source, "verdict": verdict,
               "dumps": {"base": base["dump"], "head": head["dump"]}}
        if verdict == "slower":
            _judge_slower(row, acceptances, blocking=True)
            per_call = {side: {k: v / measured[side][cid]["calls"] for k, v in
                               counts.functions(measured[side][cid]["dump"],
                                                numba[side].get(cid)).items()}
                        for side in ("base", "head")}
            row["functions"] = counts.diff(per_call["base"], per_call["head"])
        rows.append(row)
    slow = [r["id"] for r in rows if r["verdict"] in ("regression", "accepted")]
    if slow:
        for cid, diff in _python_diff(sides, slow, workdir).items():
            next(r for r in rows if r["id"] == cid)["python"] = diff
    return rows


def _tier2_rows(judged, times, stored, acceptances):
    rows = []
    for cid in judged:
        t = times[cid]
        verdict, interval = decide.wall_verdict(t["ratios"], decide.WALL_TOLERANCE)
        blocking = decide.may_block(cid, stored)
        row = {"id": cid, "base_seconds": t["base"], "head_seconds": t["head"],
               "ratios": t["ratios"], "ratio": interval[1], "interval": list(interval),
               "tolerance": decide.WALL_TOLERANCE, "blocking": blocking,
               "tolerance_source": decide.tolerance(cid, 2, stored)[1], "verdict": verdict}
        if verdict == "slower":
            _judge_slower(row, acceptances, blocking)
        rows.append(row)
    return rows


@contextlib.contextmanager
def _exclusive(gate_dir):
    """Hold ``gate_dir`` for this run: two gate runs on one repository would prune each
    other's trees and share a work folder."""
    gate_dir.mkdir(parents=True, exist_ok=True)
    with open(gate_dir / "lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise GateError(f"another gate run is using {gate_dir}; wait for it to end") from None
        yield


def run(base, head="HEAD", repo=ROOT, patterns=None, tiers=(1, 2), rounds=walltime.ROUNDS,
        out=OUT, gate_dir=None, stored=None, argv=(), even_if_identical=False):
    """Run the gate; write the report; return (exit code, one-line reason, result).
    ``argv``: the command line, kept with where and when it ran (the report's ``run``,
    harness.provenance). Two revisions whose trees agree wherever the cases load code
    from (runner.MEASURED) are not measured: both would run the same code, and the
    verdict is theirs without a measurement; ``even_if_identical`` measures them
    anyway (an A/A run of one commit always measures)."""
    start = time.time()
    repo = Path(repo).resolve()
    gate_dir = Path(gate_dir or repo / ".gate")
    stored = decide.load() if stored is None else stored
    result = {"base": {"rev": base}, "head": {"rev": head}, "tier1": [], "tier2": [],
              "not_judged": [], "run": provenance.context("gate", argv)}
    try:
        with _exclusive(gate_dir):
            code, reason = _compare(result, repo, gate_dir, patterns, tiers, rounds, stored,
                                    even_if_identical)
    except GateError as exc:
        code, reason = 2, f"could not run: {exc}"
        result["error"] = str(exc)
    except Exception as exc:  # a bug of the gate's own: still exit 2, never 0
        code, reason = 2, f"could not run: the gate failed: {type(exc).__name__}: {exc}"
        result["error"] = traceback.format_exc()
    result.update(exit=code, summary=reason, seconds=time.time() - start)
    report.write(result, out)
    return code, reason, result


def _identical(result, repo, ids):
    """The verdict of two revisions that measure the same code, or None where they do
    not (some file the cases load differs) or are one commit (an A/A run, measured on
    purpose)."""
    base, head = result["base"]["sha"], result["head"]["sha"]
    if base == head or trees.differ(repo, base, head, MEASURED):
        return None
    where = ", ".join(f"{p}/" for p in MEASURED)
    result["identical"] = {"paths": list(MEASURED), "cases": ids,
                           "command": f"git diff {base[:10]} {head[:10]} -- {where}"}
    return 0, (f"no regression: the code the cases measure ({where}) is the same at both "
               f"revisions, so nothing was measured ({len(ids)} cases)")


def _compare(result, repo, gate_dir, patterns, tiers, rounds, stored, even_if_identical):
    """The comparison itself, filling ``result``; (exit code, reason) or GateError."""
    base, head = result["base"]["rev"], result["head"]["rev"]
    for name, rev in (("base", base), ("head", head)):
        sha = trees.resolve(repo, rev)
        result[name].update(sha=sha, subject=_subject(repo, sha))
    ids = case_table.select(patterns, tiers)
    if not ids:
        raise GateError(f"no gated case matches {patterns} in tiers {tiers}")
    same = None if even_if_identical else _identical(result, repo, ids)
    if same is not None:
        return same
    ids1 = [c for c in ids if case_table.CASES[c].tier == 1]
    ids2 = [c for c in ids if case_table.CASES[c].tier == 2]
    settings = {"python": sys.version.split()[0], "counted CPU (numba)": count_cpu(),
                "warm-up calls before counting": counts.WARMUP,
                "tier-2 rounds": rounds if ids2 else 0}
    lib = None
    if ids1:
        settings["valgrind"] = counts.valgrind()[1]
        lib = counts.shim(gate_dir)
    result["settings"] = settings
    sides = {name: trees.checkout(repo, gate_dir, name, result[name]["sha"])
             for name in ("base", "head")}
    trees.prune(repo, gate_dir, keep=sides.values())
    workdir = gate_dir / "run"
    workdir.mkdir(parents=True, exist_ok=True)
    builds = _both(lambda side: {**build(side, ids1, workdir, counted=True),
                                 **build(side, ids2, workdir, counted=False)}, sides)
    judged, result["not_judged"] = classify(ids, builds)
    acceptances, result["malformed_trailers"] = accept.trailers(
        repo, result["base"]["sha"], result["head"]["sha"])
    result["acceptances"] = [a._asdict() for a in acceptances]
    judged1 = [c for c in judged if c in ids1]
    judged2 = [c for c in judged if c in ids2]
    if judged1:
        both = _both(lambda side: counts.count(side, judged1, workdir / f"cg-{side.name}",
                                               lib), sides)
        measured = {k: v[0] for k, v in both.items()}
        numba = {k: v[1] for k, v in both.items()}
        result["tier1"] = _tier1_rows(judged1, measured, numba, stored, acceptances, sides,
                                      workdir)
    if judged2:
        times = walltime.measure(sides, judged2, workdir / "wall", rounds)
        result["tier2"] = _tier2_rows(judged2, times, stored, acceptances)
    return verdict(result)


def verdict(result):
    """(exit code, one-line reason) of a finished comparison."""
    rows = result["tier1"] + result["tier2"]
    bad = [r for r in rows if r["verdict"] == "regression"]
    accepted = [r for r in rows if r["verdict"] == "accepted"]
    listed = len(result["not_judged"])
    tail = (f"{len(rows)} cases judged, {len(accepted)} accepted, {listed} listed not judged")
    if bad:
        worst = ", ".join(f"{r['id']} {r['ratio'] - 1:+.1%}" for r in bad[:3])
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        return 1, f"{len(bad)} regression{'s' if len(bad) > 1 else ''}: {worst}{more} ({tail})"
    return 0, f"no regression ({tail})"


def main(opts):
    tiers = (1, 2) if opts.tier == "all" else (int(opts.tier),)
    out = Path(opts.out or OUT)
    code, reason, result = run(opts.base, opts.head, repo=opts.repo or ROOT, patterns=opts.case,
                               tiers=tiers, rounds=opts.rounds or walltime.ROUNDS, out=out,
                               argv=getattr(opts, "argv", ()),
                               even_if_identical=getattr(opts, "even_if_identical", False))
    print(f"report: {out / 'gate.md'}")
    if code != 2 and "identical" not in result:  # what each revision measured: gate.json
        record(lambda: gate_report.read(json.loads((out / "gate.json").read_text())), opts)
    print(f"gate: {reason}", file=sys.stderr)
    return code


def command(opts):
    """``python -m harness gate``: ``--list`` the cases with their tolerances, else the
    comparison of ``--base`` (required) with ``--head``."""
    if opts.list:
        stored = decide.load()
        for case in case_table.CASES.values():
            tol, source = decide.tolerance(case.id, case.tier, stored)
            blocking = "" if case.tier == 1 else (
                ", blocking" if decide.may_block(case.id, stored) else ", report only")
            print(f"tier {case.tier}  {case.id:<32} tolerance {tol:.1%} ({source}{blocking})")
        return 0
    if not opts.base:
        print("gate: could not run: --base REV is required", file=sys.stderr)
        return 2
    return main(opts)
