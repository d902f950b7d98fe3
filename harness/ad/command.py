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
import sys
import time

import numpy as np

from harness.ad import backends
from harness.ad import validate as ad_validate
from harness.ad.eval_tables import MANUAL, middle_size
from harness.gradbench.peer import ToolBackend, ToolRunner
from harness.gradbench.requests import PAIRINGS, REQUESTS
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


def time_case(calls, rounds, budget):
    """{name: minimum seconds} of ``calls`` {name: a callable or a ToolRunner}, sampled in
    alternation: ``rounds`` rounds, none started past ``budget`` seconds (at least one)."""
    best = dict.fromkeys(calls, float("inf"))
    start = time.perf_counter()
    for _ in range(max(1, rounds)):
        for name, call in calls.items():
            best[name] = min(best[name], _sample(call))
        if time.perf_counter() - start > budget:
            break
    return best


def run_case(problem, args, backends_, rounds, budget, max_seconds, what):
    """{name: (mark, reason or None, seconds or None, failed)} of every backend on one
    bound case, the plain objective's time under backends.PLAIN_OBJECTIVE."""
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
        if not isinstance(mark, str):  # validated: the runner
            calls[name] = mark if isinstance(mark, ToolRunner) else mark.gradient
            mark = "ok"
        rows[name] = (mark, why, None, failed)
    for name, seconds in time_case(calls, rounds, budget).items():
        old = rows.get(name, ("ok", None, None, False))
        note = old[1]
        if isinstance(calls[name], ToolRunner) and not calls[name].reported:
            note = "timed by the round trip: the tool reported no evaluate timing"
        rows[name] = (old[0], note, seconds, old[3])
    return rows


def table(rows):
    """One case's rows as Markdown: time, x manual, x objective, and the mark."""
    manual = rows.get(MANUAL, (0, 0, None))[2]
    f = rows.get(backends.PLAIN_OBJECTIVE, (0, 0, None))[2]
    lines = ["| backend | result | time | x manual | x objective |", "|---|---|---|---|---|"]
    for name, (mark, _, seconds, _) in rows.items():
        if name == backends.PLAIN_OBJECTIVE:
            name = "the objective (f)"
        if seconds is None:
            lines.append(f"| {name} | {mark} | - | - | - |")
            continue
        ratios = [f"{seconds / base:.3g}" if base else "-" for base in (manual, f)]
        lines.append(f"| {name} | {mark} | {format_seconds(seconds)} | {' | '.join(ratios)} |")
    return "\n".join(lines)


def run(evals, size, names, tools, rounds=7, budget=3.0, max_seconds=10.0, out=print):
    """Every eval of ``evals`` at ``size`` through ``names`` and ``tools``; prints each
    case's table and reasons; returns the number of wrong results and errors."""
    failed = 0
    for name in evals:
        for n in sizes_of(name, size):
            problem, args = PROBLEMS[name].bind(n, np.random.default_rng(size_seed(n)))
            what = f"{name} {n}"
            rows = run_case(problem, args, _with_tools(problem, names, tools), rounds,
                            budget, max_seconds, what)
            out(f"\n## {what}\n\n{table(rows)}\n")
            for backend, (mark, why, _, bad) in rows.items():
                failed += bad
                if why:
                    out(f"- {backend} ({mark}): {why}")
    return failed


def main(opts):
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
    try:
        failed = run(evals, opts.size, names, tools, opts.rounds, opts.budget,
                     opts.max_seconds)
    finally:
        for tool in tools:
            tool.close()
    print(f"\n{failed} wrong result(s) or error(s)")
    return 1 if failed else 0
