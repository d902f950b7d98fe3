"""``python -m harness evals``: the field's AD evals (gradbench's and ADBench's,
kernels.ad.evals) through every AD backend, our engines, the hand-written derivative and
the installed peers, and through any gradbench tool given by the command that starts it
(``--gradbench-tool "CMD"``, :mod:`harness.gradbench.peer`): each derivative validated
against the hand-written one first (harness.ad.validate; a wrong one is never timed), then
every backend timed in alternation, round by round, in this one process (a tool's time
being what it reports for one run, as gradbench times it).

Exit 0: every result right (skips are told with their reasons); 1: a wrong result or a
backend that raised; 2: bad input (an unknown eval, backend or size).
"""

import functools
import json
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from harness import provenance, ranking, registry
from harness.ad import backends
from harness.ad import validate as ad_validate
from harness.ad.eval_tables import MANUAL, middle_size
from harness.gradbench.peer import ToolBackend, ToolRunner
from harness.gradbench.requests import PAIRINGS, REQUESTS
from harness.recording.record import record
from harness.store.files import evals_report
from harness.timing import best_seconds, format_seconds
from harness.validate import cell
from kernels.ad.problems import PROBLEMS, size_seed

#: the evals, in the registry's order (the seeds' problems have their own suites)
EVALS = [name for name, p in PROBLEMS.items() if p.origin != "seeds"]
#: what ``--size`` takes besides one of an eval's own sizes
SIZE_CHOICES = ("smallest", "middle", "largest", "all")


class BadInput(ValueError):
    pass


def sizes_of(name, size):
    """The sizes of eval ``name`` that ``size`` (SIZE_CHOICES, or a size as written)
    selects; BadInput naming the eval's sizes for one it does not have."""
    sizes = PROBLEMS[name].sizes
    chosen = {"smallest": sizes[:1], "middle": (middle_size(name),), "largest": sizes[-1:],
              "all": sizes}.get(size)
    if chosen is None:
        chosen = [s for s in sizes if str(s) == size]
        if not chosen:
            raise BadInput(f"{name} has no size {size!r}; it has {', '.join(map(str, sizes))}"
                           f" (or {', '.join(SIZE_CHOICES)})")
    return list(chosen)


def _with_tools(problem, names, tools):
    """The backends of one problem: ours by name (with the peers' other Jacobian methods
    on the Jacobian evals), then each tool (per pairing on the nested evals that gradbench
    evaluates so)."""
    ours = [backends.get(name) for name in names]
    if problem.output == "jacobian":  # the peers' other Jacobian methods (torch:jacfwd)
        ours += [backends.get(name) for name in backends.jacobian_names()
                 if name.partition(":")[0] in names]
    request = REQUESTS.get(problem.name)
    if request is not None and request.derivative is None:  # asked per pairing
        return ours + [t.with_pairing(p) for t in tools for p in PAIRINGS]
    return ours + list(tools)


def _sample(call):
    """One sample of ``call``'s time: what a tool reports for one run, else the minimum
    of a calibrated loop (harness.timing.best_seconds)."""
    if isinstance(call, ToolRunner):
        return call.clocked("gradient")
    return best_seconds(call, repeat=1, max_seconds=float("inf"))


class Row(NamedTuple):
    """One backend on one case: its mark ("ok", "WRONG", "skip", "ERROR"), the reason,
    its minimum time and whether it failed; the spread of its samples in this run
    (harness.ranking.interval) and their number; for a backend that compiles, the
    minimum time of its own objective, compiled the same way (sampled in the same
    rounds: what its ratio is honestly taken against), and its compile seconds."""
    mark: str
    reason: str | None
    seconds: float | None
    failed: bool
    interval: tuple | None = None
    samples: int = 0
    objective: float | None = None
    compile_seconds: float | None = None


#: a row's mark as the results store says it (harness.store.schema.STATUSES)
STATUS = {"ok": "ok", "WRONG": "wrong", "skip": "skipped", "ERROR": "failed"}


def time_case(calls, rounds, budget):
    """{name: [seconds of each sample]} of ``calls`` {name: a callable or a ToolRunner},
    sampled in alternation: ``rounds`` rounds, none started past ``budget`` seconds (at
    least one)."""
    samples = {name: [] for name in calls}
    start = time.perf_counter()
    for _ in range(max(1, rounds)):
        for name, call in calls.items():
            samples[name].append(_sample(call))
        if time.perf_counter() - start > budget:
            break
    return samples


def run_case(problem, args, backends_, rounds, budget, max_seconds, what):
    """{name: Row} of every backend on one bound case, the plain objective's time under
    backends.PLAIN_OBJECTIVE."""
    expected = ad_validate.reference(problem, args)
    nested = problem.output == "nested"
    unit = best_seconds(
        (lambda: problem.manual(*args)) if nested else functools.partial(problem.f, *args),
        repeat=1, max_seconds=0.1)
    rows, calls = {}, {} if nested else {backends.PLAIN_OBJECTIVE: functools.partial(
        problem.f, *args)}
    for backend in backends_:
        # a tool declares no cost: it is asked
        mark, why, failed = cell(ad_validate.validated_within, backend, problem, args,
                                 expected, what,
                                 None if isinstance(backend, ToolBackend) else unit,
                                 max_seconds, "--max-seconds", show=lambda runner: runner)
        name = backend.name
        while name in rows:  # two tools that call themselves alike
            name += "'"
        compiled = None
        if not isinstance(mark, str):  # validated: the runner
            calls[name] = mark if isinstance(mark, ToolRunner) else mark.gradient
            compiled = getattr(mark, "compile_seconds", None)
            if compiled is not None:
                calls[(name, "objective")] = mark.objective
            mark = "ok"
        rows[name] = Row(mark, why, None, failed, compile_seconds=compiled)
    for name, times in time_case(calls, rounds, budget).items():
        if isinstance(name, tuple):  # a compiling backend's own objective
            rows[name[0]] = rows[name[0]]._replace(objective=min(times))
            continue
        old = rows.get(name, Row("ok", None, None, False))
        note = old.reason
        if isinstance(calls[name], ToolRunner) and not calls[name].reported:
            note = "timed by the round trip: the tool reported no evaluate timing"
        rows[name] = old._replace(reason=note, seconds=min(times),
                                  interval=ranking.interval(times), samples=len(times))
    return rows


def table(rows):
    """One case's rows as Markdown: time, x manual, x objective (the plain f), x its own
    objective and the compile seconds (a backend that compiles), and the mark."""
    manual = rows[MANUAL].seconds if MANUAL in rows else None
    f = rows[backends.PLAIN_OBJECTIVE].seconds if backends.PLAIN_OBJECTIVE in rows else None
    lines = [f"| backend | result | time | x {MANUAL} | x objective | x own objective | "
             f"compile |", "|---|---|---|---|---|---|---|"]
    for name, row in rows.items():
        if name == backends.PLAIN_OBJECTIVE:
            name = "the objective (f)"
        compiled = (f"{row.compile_seconds:.2f} s" if row.compile_seconds is not None
                    else "-")
        if row.seconds is None:
            lines.append(f"| {name} | {row.mark} | - | - | - | - | {compiled} |")
            continue
        ratios = [f"{row.seconds / base:.3g}" if base else "-"
                  for base in (manual, f, row.objective)]
        lines.append(f"| {name} | {row.mark} | {format_seconds(row.seconds)} | "
                     f"{' | '.join(ratios)} | {compiled} |")
    return "\n".join(lines)


def _role(name):
    """(role, baseline) of a row: the registry's for our backends and the peers (a
    Jacobian method, ``torch:jacfwd``, its tool's), "objective" for the plain objective,
    "peer" for a gradbench tool."""
    if name == backends.PLAIN_OBJECTIVE:
        return "objective", False
    declared = registry.ad().get(name.partition(":")[0])
    if declared is None:
        return "peer", False
    return declared.role, declared.role == "baseline" and name == declared.name


def case_report(problem, n, rows):
    """One case's rows as the JSON of ``--json`` says them (harness.store.files reads
    it)."""
    out = {}
    for name, row in rows.items():
        role, baseline = _role(name)
        out[name] = {"status": STATUS.get(row.mark, "failed"), "reason": row.reason or "",
                     "seconds": row.seconds, "samples": row.samples,
                     "interval": list(row.interval) if row.interval else None,
                     "role": role, "baseline": baseline,
                     **{k: v for k, v in (("objective_seconds", row.objective),
                                          ("compile_seconds", row.compile_seconds))
                        if v is not None}}
    return {"eval": problem.name, "size": str(n), "output": problem.output, "backends": out}


def run(evals, size, names, tools, rounds=7, budget=3.0, max_seconds=10.0, out=print,
        cases=None):
    """Every eval of ``evals`` at ``size`` through ``names`` and ``tools``; prints each
    case's table and reasons; returns the number of wrong results and errors. Each case's
    report (:func:`case_report`) is appended to ``cases`` where given."""
    failed = 0
    for name in evals:
        for n in sizes_of(name, size):
            problem, args = PROBLEMS[name].bind(n, np.random.default_rng(size_seed(n)))
            what = f"{name} {n}"
            rows = run_case(problem, args, _with_tools(problem, names, tools), rounds,
                            budget, max_seconds, what)
            out(f"\n## {what}\n\n{table(rows)}\n")
            for backend, row in rows.items():
                failed += row.failed
                if row.reason:
                    out(f"- {backend} ({row.mark}): {row.reason}")
            if cases is not None:
                cases.append(case_report(problem, n, rows))
    return failed


def main(opts):
    started = provenance.now()
    evals = opts.eval or EVALS
    try:
        unknown = [e for e in evals if e not in EVALS]
        if unknown:
            raise BadInput(f"unknown eval(s) {unknown}; the evals are {', '.join(EVALS)}")
        for name in evals:
            sizes_of(name, opts.size)  # every size checked before anything runs
        names = opts.backend or backends.names()
        for name in names:
            backends.get(name)
    except (BadInput, ValueError) as exc:
        print(f"evals: {exc}", file=sys.stderr)
        return 2
    tools = [ToolBackend(command) for command in opts.gradbench_tool or ()]
    cases = []
    try:
        failed = run(evals, opts.size, names, tools, opts.rounds, opts.budget,
                     opts.max_seconds, cases=cases)
    finally:
        for tool in tools:
            tool.close()
    print(f"\n{failed} wrong result(s) or error(s)")
    report = {"run": provenance.context("evals", getattr(opts, "argv", ()), started=started),
              "evals": cases}
    text = json.dumps(report, indent=1) + "\n"
    if getattr(opts, "json", None):
        try:
            Path(opts.json).write_text(text)
        except OSError as exc:
            print(f"evals: cannot write {opts.json}: {exc}", file=sys.stderr)
            return 2
    record(lambda: evals_report.read(json.loads(text)), opts)
    return 1 if failed else 0
