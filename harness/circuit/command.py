"""``python -m harness circuit SOURCE``: one circuit through every backend, each validated
against the reference and then timed, interleaved, in this one process.

Exit 0: every backend that ran agrees with the reference; 1: one returned a wrong state
(or the reference and its cross-check disagree); 2: bad input (an unreadable file, a parse
error with its line, an operation that is not unitary with its line, too many qubits for
memory, an unknown backend or setting), the reason on stderr. The circuit starts from
|0...0>, as the field's benchmarks run it.

Every row carries its spread (``interval``: the samples' minimum to their median, from
this run); a row whose interval overlaps the fastest's is a tie, and the table says so.
Rounds go on until the fastest two are told apart, or the time budget or ``--rounds``
ends them; the output says which. A backend is named once per setting it runs: its
default under its name, any other declared setting as ``NAME@K``.
"""

import functools
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from harness import provenance, ranking, registry
from harness import settings as settings_mod
from harness import threads as threads_mod
from harness.circuit import sources
from harness.circuit.arguments import CACHE_REGIMES
from harness.errors import Unavailable
from harness.recording.record import record
from harness.statevector import backends, levels, stalls
from harness.statevector import validate as sv_validate
from harness.store.files import circuit_report
from harness.timing import format_seconds
from harness.tune import limits as tune_limits
from kernels.statevector import roofline, states
from kernels.statevector.settings import Fusion
from kernels.statevector.settings import fusion as as_fusion
from kernels.statevector.settings import precision as as_precision

#: Most seconds of timed calls each backend gets, judged from its first call; it gets at
#: least MIN_SAMPLES.
SECONDS_PER_BACKEND = 2.0
#: Samples every backend gets whatever the budget (unless --rounds is smaller, or one call
#: takes longer than the whole budget): one sample has no spread, so its interval would
#: say nothing and it could never be told apart.
MIN_SAMPLES = 2
#: Rounds before the fastest two may be called settled.
MIN_ROUNDS = 3
#: A backend this many times slower on a subnormal state than on a normal one stalls
#: on them (the issue's target for our own: at most 1.2x)
STALL = 1.2
STATUSES = ("ok", "wrong", "skipped", "refused")


class BadInput(Exception):
    """Exit 2, with this message on stderr."""


def _declarations(spec):
    """The backends asked for (``--backends``; default every one that is not a reference,
    which validates the others), in registry order and each once."""
    if not spec:
        return [b for b in registry.single_process() if b.role != "reference"]
    names = [s.strip() for s in spec.split(",") if s.strip()]
    found, unknown = [], []
    for name in names:
        try:
            found.append(registry.simulator(name))
        except ValueError:
            unknown.append(name)
    if unknown or not names:
        raise BadInput(f"unknown backend(s) {', '.join(unknown) or '(none given)'}; "
                       f"known: {', '.join(registry.simulators())}")
    return list({b.name: b for b in found}.values())


def variants(declared, fusion, precision=None):
    """[(row name, backend, Fusion)] for ``--fusion``: "default" (each backend's own),
    "off" (one pass per gate wherever a backend allows it), an integer k (k wherever
    declared, the default elsewhere) or "all" (each backend at every setting it runs).
    A backend is named once per distinct setting: at its default under its name, at
    another setting as ``name@k``. A backend that cannot run here, or not in
    ``precision``, is one row, which says why."""
    def runs(b):
        return b.available()[0] and (precision is None or b.runs(precision))
    if fusion == "all":
        asked = [(b, s) for b in declared
                 for s in (Fusion(None), *(Fusion(k) for k in b.fusion.settings
                                            if runs(b)))]
    elif fusion == "off":
        asked = [(b, b.unfused()) for b in declared]
    else:
        try:
            setting = as_fusion(fusion)
        except ValueError as exc:
            raise BadInput(f"--fusion must be default, off, all or a number of qubits: "
                           f"{exc}") from None
        if not setting.is_default and not any(setting.k in b.fusion.settings
                                              for b in declared):
            raise BadInput(f"--fusion {setting}: no backend here declares it")
        asked = [(b, setting if setting.k in b.fusion.settings else Fusion(None))
                 for b in declared]
    out, seen = [], set()
    for b, setting in asked:
        k = b.resolve(setting)
        if (b.name, k) in seen:  # its default and the setting it stands for: one row
            continue
        seen.add((b.name, k))
        name = b.name if k == b.resolve(Fusion(None)) else f"{b.name}@{k}"
        out.append((name, b, setting))
    return out


def same_programs(rows, prepared):
    """``rows`` and ``prepared`` with the settings of one backend that compiled to the
    same program (its ``program`` info's ``digest``) as one row, named after all of them
    (``fused=@2``: the default and fused@2; ``fused@3=@4=@5``) and timed once: two rows
    of one program would only show the noise between them."""
    first, merged = {}, {}
    for name, row in rows.items():
        key = (row["settings"]["backend"], (row.get("program") or {}).get("digest"))
        if key[1] is None or name not in prepared:
            merged[name] = row
        elif key in first:
            first[key].append(name)
        else:
            first[key] = [name]
            merged[name] = row
    out_rows, out_prepared = {}, {}
    for name, row in merged.items():
        group = next((g for g in first.values() if g[0] == name), [name])
        label = "=".join([name] + ["@" + other.partition("@")[2] for other in group[1:]])
        if len(group) > 1:  # each setting's own settings (and hash) kept
            row["same_program_as"] = {other: rows[other]["settings"] for other in group[1:]}
        out_rows[label] = row
        if name in prepared:
            out_prepared[label] = prepared[name]
    return out_rows, out_prepared


def _check_memory(n):
    """BadInput before anything is allocated when the circuit cannot run here."""
    try:
        states.check_fits(n, np.complex128, copies=4)  # start, reference, its work, one
    except MemoryError as exc:
        raise BadInput(f"too many qubits for memory: {exc}") from None


def _row(backend, precision, n_threads, setting, cache):
    default = backend.resolve(setting) == backend.resolve(Fusion(None))
    return {"status": "ok", "reason": "", "seconds": None, "interval": None, "samples": 0,
            "max_error": None, "role": backend.role,
            # the backend others are drawn relative to, at its own default
            "baseline": backend.baseline == "peer" and default,
            "settings": settings_mod.of(backend, precision, n_threads, fusion=setting,
                                        cache=cache)}


def _prepare(backend, precision, n_threads, vec, instructions, expected, setting, cache):
    """(result row, runner, program) for one backend at one fusion setting; runner and
    program None unless its result agreed with the reference."""
    row = _row(backend, precision, n_threads, setting, cache)
    n = vec.shape[0].bit_length() - 1
    if n > backend.circuit_max_qubits:
        reason = backend.max_qubits_reason or "its declared limit"
        return ({**row, "status": "refused", "reason": f"{backend.name} runs circuits up to "
                 f"{backend.circuit_max_qubits} qubits ({reason})"}, None, None)
    try:
        runner = backends.get(backend.name, precision, setting)
        runner.require()
        runner.set_threads(n_threads)
    except (Unavailable, NotImplementedError) as exc:
        return {**row, "status": "skipped", "reason": str(exc)}, None, None
    try:
        program = runner.program(instructions, n)
        state = runner.load(vec)
        runner.run(state, program)  # also compiles and warms up JIT code
        runner.sync()
        got = np.asarray(runner.result(state))
    except NotImplementedError as exc:
        return {**row, "status": "refused", "reason": str(exc)}, None, None
    except Exception as exc:  # a backend's failure must not stop the others
        return ({**row, "status": "refused", "reason": f"raised {type(exc).__name__}: {exc}"},
                None, None)
    if got.shape != expected.shape:
        return ({**row, "status": "wrong",
                 "reason": f"result shape {got.shape}, expected {expected.shape}"}, None, None)
    err = float(np.max(np.abs(got - expected)))
    if not err <= precision.atol:  # NaN too
        return ({**row, "status": "wrong", "max_error": err if np.isfinite(err) else None,
                 "reason": f"max amplitude error {err:.3g} > {precision.atol:g}"}, None, None)
    row["max_error"] = err
    if runner.info:  # what the program did, where its runner says (gates, stages, passes)
        row["program"] = dict(runner.info)
    elif backend.resolve(setting) == 0:
        # declared to run one pass over the state per gate: what it must do is known
        work = roofline.gates_alone(instructions)
        row["program"] = {"gates": len(instructions), "one_pass_per_gate": True,
                          "passes": work.passes["state"], "work": work._asdict()}
    return row, runner, program


class _Flush:
    """Evicts the caches before a cold call: writes a buffer a quarter larger than the
    last-level cache the OS reports (and than L2), so that no line of the state is left."""

    def __init__(self):
        caps = levels.capacities()
        self.buffer = np.empty(max(caps["L3"], caps["L2"]) * 5 // 4, dtype=np.uint8)

    def __call__(self):
        self.buffer.fill(1)


class Clock:
    """How a timed call is measured and how the rounds' end is agreed: here, in this one
    process. Under MPI every rank times the call between barriers and all take the
    slowest rank's time, so that every rank makes the same decisions
    (harness.distributed.job.RankClock)."""

    def measure(self, call):
        t0 = time.perf_counter()
        call()
        return time.perf_counter() - t0

    def agree(self, flag):
        """``flag`` as the process that decides sees it."""
        return flag


def _time(prepared, vec, cache, max_rounds, budget, clock=None, held=None):
    """({name: [seconds]}, rounds run, settled): the validated backends timed one call at
    a time in rounds, the order rotated each round, until the fastest two are told apart
    (after :data:`MIN_ROUNDS`), every backend has its share of samples, ``max_rounds``
    rounds or ``budget`` seconds; never before each has :data:`MIN_SAMPLES`.

    Each sample runs the circuit on a state loaded from ``vec``, outside the clock, so
    every sample times the same arithmetic: a state run on again and again drifts (QFT at
    20 qubits in complex64 took 36 ms on |0...0> and 75 ms on what three runs of it
    leave, floats down to 1e-30 whose products are subnormal). ``held``: the states to
    run on where the caller made them ({name: state}, the distributed job's slices)."""
    if not prepared:  # every backend skipped, refused or wrong: nothing to time
        return {}, 0, False
    clock = clock or Clock()
    flush = _Flush() if cache == "cold" else None
    held = held or {}
    samples = {name: [] for name in prepared}
    wanted = dict.fromkeys(prepared, max_rounds)  # until the first call says otherwise
    names, start, rounds, done = list(prepared), time.perf_counter(), 0, False
    while not done and rounds < max_rounds:
        k = rounds % len(names)
        for name in names[k:] + names[:k]:
            if len(samples[name]) >= wanted[name]:
                continue
            runner, program = prepared[name]
            state = held[name] if name in held else runner.load(vec)
            if cache == "warm":
                runner.run(state, program)
                runner.sync()
            else:
                flush()
            samples[name].append(clock.measure(functools.partial(_call, runner, state,
                                                                 program)))
            if len(samples[name]) == 1:  # slow backends get fewer samples
                first = samples[name][0]
                share = SECONDS_PER_BACKEND // max(first, 1e-9)
                # one call longer than the whole budget: that one sample is all it gets
                least = MIN_SAMPLES if first <= budget else 1
                wanted[name] = int(min(max_rounds, max(least, share)))
        rounds += 1
        settled = rounds >= MIN_ROUNDS and _told_apart(samples)
        exhausted = all(len(samples[n]) >= wanted[n] for n in names)
        over = clock.agree(time.perf_counter() - start > budget) and rounds >= MIN_SAMPLES
        done = settled or exhausted or over
    return samples, rounds, _told_apart(samples)


def _call(runner, state, program):
    """The timed call: the run and the wait for a device that runs asynchronously."""
    runner.run(state, program)
    runner.sync()


def _told_apart(samples):
    """Whether the fastest two are told apart: their spreads do not overlap, each measured
    (two samples at least: one sample has no spread to judge by)."""
    spans = {name: (min(s), ranking.interval(s)) for name, s in samples.items() if s}
    if len(spans) < 2:
        return bool(spans)
    top = sorted(spans, key=lambda name: spans[name][0])[:2]
    return all(len(samples[name]) > 1 for name in top) and ranking.settled(spans)


def _reference(vec, instructions, rows, wrong, tested):
    """The reference's name and how it was checked: by the independent backends that
    agree with it, and, where none does or any disagrees, by a second independent
    backend; BadInput-like failure (exit 1) when that one disagrees with it."""
    n = vec.shape[0].bit_length() - 1
    ref = sv_validate.reference_backend(n)
    agreeing = sorted({name.partition("@")[0] for name, r in rows.items()
                       if r["status"] == "ok"} - {ref.name})
    out = {"backend": ref.name, "agreed_by": agreeing, "cross_check": None}
    if agreeing and not wrong:
        return out
    second = sv_validate.cross_check_backend(n, {ref.name, *wrong, *tested})
    if second is None:
        second = sv_validate.cross_check_backend(n, {ref.name, *wrong})
    if second is None:
        return out
    expected = sv_validate.reference(vec, instructions, ref)
    err = float(np.max(np.abs(sv_validate.run_on(second, vec, instructions) - expected)))
    out["cross_check"] = {"backend": second.name, "max_error": err,
                          "agrees": bool(err <= 1e-9)}
    return out


def options(precision, cache, rounds, budget):
    """The precision as a Precision; BadInput naming a bad precision, cache regime, round
    count or budget."""
    try:
        precision = as_precision(precision)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    if cache not in CACHE_REGIMES:
        raise BadInput(f"--cache must be one of {', '.join(CACHE_REGIMES)}, got {cache!r}")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise BadInput(f"--rounds must be a whole number of rounds >= 1, got {rounds!r}")
    if not budget >= 0:
        raise BadInput(f"--budget must be a number of seconds >= 0, got {budget!r}")
    return precision


def run(source, qubits=None, backend_spec=None, precision="complex128", n_threads=1,
        rounds=20, say=print, fusion="default", cache="cold", budget=30.0):
    """The report of one circuit on the backends (a dict, the JSON's shape) and the
    reference's final state."""
    precision = options(precision, cache, rounds, budget)
    try:
        threads_mod.set_threads(n_threads)
    except ValueError as exc:
        raise BadInput(f"--threads: {exc}") from None
    declared = _declarations(backend_spec)
    rows_asked = variants(declared, fusion, precision)
    if qubits is not None and qubits > 0:
        _check_memory(qubits)  # before a generator builds a circuit that cannot run
    circuit = sources.load(source, qubits)
    _check_memory(circuit.n)
    say(f"circuit {circuit.label}: {circuit.n} qubits, {len(circuit.instructions)} gates "
        f"({_gate_counts(circuit.instructions)}); {precision}, {n_threads} thread"
        f"{'s' if n_threads > 1 else ''}, {cache} caches")
    for note in circuit.notes:
        say(f"  {note}")
    start = states.zero_state(circuit.n)
    # the reference from the start rounded to the precision run (|0...0> is exact)
    vec = start.astype(precision.dtype)
    started = time.perf_counter()
    expected = sv_validate.reference(vec.astype(np.complex128), circuit.instructions)
    reference_seconds = time.perf_counter() - started
    rows, prepared = {}, {}
    for row_name, backend, setting in rows_asked:
        row, runner, program = _prepare(backend, precision, n_threads, vec,
                                        circuit.instructions, expected, setting, cache)
        rows[row_name] = row
        if runner is not None:
            prepared[row_name] = (runner, program)
    rows, prepared = same_programs(rows, prepared)
    wrong = [name.partition("@")[0] for name, r in rows.items() if r["status"] == "wrong"]
    checked = _reference(vec.astype(np.complex128), circuit.instructions, rows, wrong,
                         [b.name for _, b, _ in rows_asked])
    checked["seconds"] = reference_seconds
    samples, rounds_run, settled = _time(prepared, vec, cache, rounds, budget)
    for name, times in samples.items():
        rows[name].update(seconds=min(times), interval=list(ranking.interval(times)),
                          samples=len(times))
    limits = _roofline(rows, circuit.n, precision, n_threads)
    checked["subnormals"] = stalls.reference_count(expected, precision.dtype)
    _stalls(rows, prepared, circuit.n, precision)
    report = {
        "circuit": circuit.label, "qubits": circuit.n, "gates": len(circuit.instructions),
        "precision": precision.name, "threads": n_threads, "fusion": fusion, "cache": cache,
        "ranks": 1, "digest": sources.digest(circuit.instructions),
        "settings_hash": settings_mod.short_hash(
            {"circuit": sources.digest(circuit.instructions), "precision": precision.name,
             "threads": n_threads, "fusion": fusion, "cache": cache}),
        "reference": checked,
        "rounds": {"run": rounds_run, "settled": settled, "budget_seconds": budget},
        "notes": circuit.notes, "backends": rows,
    }
    if limits:
        report["limits"] = dict(limits, threads=n_threads)
    return report, expected


def _roofline(rows, n, precision, n_threads):
    """Add to each timed row whose program states its work (where its runner reports it,
    and for every row declared to run one pass per gate, :func:`_prepare`) its
    roofline (kernels.statevector.roofline): the least time this machine's ``n_threads``
    cores could run that work in, over the time measured; and its effective bandwidth
    beside the in-place yardstick of the memory level the state sits in. The limits come
    from this machine's tuning, or are measured now, in this process
    (harness.tune.limits)."""
    timed = [r for r in rows.values()
             if "work" in (r.get("program") or {}) and r["seconds"] is not None]
    if not timed:
        return None
    nbytes = precision.itemsize << n
    found, origin, level = tune_limits.for_state(precision.name, nbytes, n_threads)
    for row in timed:
        info = row["program"]
        work = roofline.Work(**info["work"])
        best, bound = roofline.seconds(work, n, precision.dtype, found, level)
        row["roofline"] = best / row["seconds"]
        info.update(roofline_seconds=best, bound=bound, level=level,
                    level_gbs=found.gbs[level],
                    effective_gbs=levels.effective_gbs(info["passes"], nbytes, row["seconds"]))
    return {"origin": origin, "fmas_per_second": found.fmas[precision.name],
            "gbs": found.gbs}


def _stalls(rows, prepared, n, precision):
    """Add to each timed row what subnormal amplitudes cost its backend here
    (harness.statevector.stalls), measured once per backend and shared by its settings'
    rows."""
    measured = {}
    for name, (runner, _) in prepared.items():
        backend = rows[name]["settings"]["backend"]
        if backend not in measured:
            measured[backend] = stalls.slowdown(runner, n, precision.dtype,
                                                np.random.default_rng(n))
        rows[name]["subnormal_slowdown"] = measured[backend]


def _gate_counts(instructions):
    counts = {}
    for inst in instructions:
        key = inst.name + (f"+{len(inst.ctrl_locs)}c" if inst.ctrl_locs else "")
        counts[key] = counts.get(key, 0) + 1
    top = sorted(counts.items(), key=lambda kv: -kv[1])
    shown = ", ".join(f"{k} {v}" for k, v in top[:8])
    return shown + (f", {len(top) - 8} more kinds" if len(top) > 8 else "")


def table(report):
    """The ranking as text: rank (shared within the noise), time, its interval, time /
    fastest (``~`` a tie), error, samples, settings; then the reference, the rounds, and
    every row that did not run."""
    rows = report["backends"]
    ran = {name: (r["seconds"], tuple(r["interval"])) for name, r in rows.items()
           if r["status"] == "ok" and r["seconds"] is not None}
    order = sorted(ran, key=lambda name: ran[name][0])
    labels = ranking.ranks(ran)
    fastest = ran[order[0]] if order else None

    def like(name):  # with every setting asked for, fusion differs on purpose: shown
        s = rows[name]["settings"]
        return (s["precision"], s["threads"]) if report.get("fusion") == "all" else s["like"]
    likes = [like(name) for name in order]
    # the most common settings; between equally common ones, the fastest row's
    common = max(likes, key=lambda s: (likes.count(s), -likes.index(s))) if likes else None
    lines = [f"{'rank':>5}  {'backend':<16} {'time':>10} {'interval':>21} {'/ fastest':>9} "
             f"{'max error':>9} {'samples':>7}  settings  fusion"]
    for name in order:
        r, (seconds, span) = rows[name], ran[name]
        mark = "*" if len(set(likes)) > 1 and like(name) != common else " "
        spread = f"{format_seconds(span[0])} - {format_seconds(span[1])}"
        ratio = "1.00" if name == order[0] else ranking.ratio_cell(seconds, span, *fastest)
        lines.append(f"{labels[name]:>5}  {name:<16} {format_seconds(seconds):>10} "
                     f"{spread:>21} {ratio:>9} "
                     f"{r['max_error']:>9.1e} {r['samples']:>7}  "
                     f"{r['settings']['hash']}{mark} {r['settings']['fusion']}")
    lines += _notes(report, order)
    for name, r in rows.items():
        if r["status"] == "wrong":
            lines.append(f"WRONG  {name}: {r['reason']}")
    for name, r in rows.items():
        c = r.get("comm")
        if c and r["seconds"]:  # a run over MPI ranks: what its last call sent
            lines.append(
                f"{name}: {c['exchanges']} exchanges, {c['bytes_per_rank'] / 2**20:.1f} MiB "
                f"sent per rank, {format_seconds(c['seconds'])} in communication "
                f"({100 * c['seconds'] / r['seconds']:.0f}% of {format_seconds(r['seconds'])}"
                f"; {format_seconds(c['wait_seconds'])} of it waiting for a partner)"
                f", peak {r['peak_bytes_per_rank'] / 2**20:.1f} MiB per rank")
    lines += _roofline_lines(report)
    lines += _stall_lines(report, order)
    if len(set(likes)) > 1:
        lines.append("* measured with other settings than most (the column is not like "
                     "for like):")
        for name in order:
            s = rows[name]["settings"]
            if like(name) != common:
                lines.append(f"    {name}: " + ", ".join(
                    f"{k} {s[k]}" for k in settings_mod.LIKE_KEYS))
    for status in ("refused", "skipped"):
        for name, r in rows.items():
            if r["status"] == status:
                lines.append(f"{status}: {name}: {r['reason']}")
    return "\n".join(lines)


def _rewrites(info):
    """The clause on a program's rewrites of the state (the split layout), or none."""
    n = info.get("rewrites", 0)
    return f", {n} rewrites of the layout" if n else ""


def _roofline_lines(report):
    """A line per run whose roofline is known (what its program did, how near its
    roofline it ran), then where the limits came from."""
    lines = []
    for name, r in report["backends"].items():
        f = r.get("program") or {}
        if "roofline_seconds" not in f:
            continue
        if f.get("one_pass_per_gate"):
            did = (f"{f['gates']} gates, one pass over the state each as declared (fusion "
                   f"off), {f['passes']:.3g} passes")
        else:
            did = (f"{f['gates']} gates fused into {f['fused_gates']} (at most "
                   f"{f['max_qubits']} qubits{', chosen' if f.get('chosen') else ''}), "
                   f"{f['passes']} passes over the state ({f['stages']} stages of "
                   f"2**{f['block_qubits']} amplitudes{_rewrites(f)}, "
                   f"{f.get('layout', '?')} layout, {f['isa']})")
        lines.append(
            f"{name}: {did}, {f['work']['multiply_adds']:.3g} complex "
            f"multiply-adds per amplitude: {100 * r['roofline']:.0f}% of its roofline "
            f"({format_seconds(f['roofline_seconds'])}, bound by {f['bound']}); "
            f"{f['effective_gbs']:.1f} GB/s, {100 * f['effective_gbs'] / f['level_gbs']:.0f}% "
            f"of the {f['level']} in-place yardstick ({f['level_gbs']:.1f} GB/s)")
    if "limits" in report:
        lim = report["limits"]
        cores = (f"{lim['threads']} cores" if lim.get("threads", 1) > 1 else "one core")
        lines.append(f"roofline limits ({lim['origin']}): {lim['fmas_per_second'] / 1e9:.1f} "
                     f"G FMA/s on {cores}, in-place " + ", ".join(
                         f"{lv} {gbs:.1f}" for lv, gbs in lim["gbs"].items()) + " GB/s")
    return lines


def _stall_lines(report, order):
    """What subnormals did here: how many the reference's final state holds in the
    precision run, and per backend how much slower a gate runs on them."""
    ref = report["reference"].get("subnormals")
    rows = report["backends"]
    cost = {name: rows[name]["subnormal_slowdown"] for name in order
            if rows[name].get("subnormal_slowdown")}
    if ref is None or not cost:
        return []
    worst = max(c["ratio"] for c in cost.values())
    lines = [f"subnormals: the reference's final state holds {ref} subnormal parts in "
             f"{report['precision']}; one gate on a subnormal state over one on a normal "
             "state (flushes subnormals: yes, no, unknown):"]
    lines.append("    " + ", ".join(
        f"{name} {c['ratio']:.2f}x ({rows[name]['settings']['flushes_subnormals']})"
        for name, c in cost.items()))
    if ref and worst > STALL:
        lines.append(f"    the final state is subnormal in part and a backend stalls on "
                     f"subnormals ({worst:.1f}x): this ranking may be decided by it")
    return lines


def _notes(report, order):
    """The lines under the ranking: the noise, the rounds, the reference, the ranks."""
    rounds, ref = report["rounds"], report["reference"]
    out = ["interval: the samples' minimum to their median in this run; a rank shared "
           "(=) or a ratio with ~ is a tie within it"]
    if report.get("ranks", 1) > 1 or settings_mod.MPI_FIELD in report:
        mpi = report[settings_mod.MPI_FIELD]
        out.append(f"ranks: {report['ranks']} ({mpi['implementation']} {mpi['version']}); "
                   "each time is the slowest rank's, between barriers" + (
                       "; OVERSUBSCRIBED (more ranks than cores): correctness only, the "
                       "times say nothing" if report.get("oversubscribed") else ""))
        link = report.get("exchange")
        if link:
            out.append(f"exchange: {link['exchange_gbs']:.2f} GB/s sent per rank, "
                       f"{link['ratio']:.2f}x one process's copy of as many bytes "
                       f"({link['copy_gbs']:.2f} GB/s; {link['bytes'] >> 20} MiB halves, "
                       "measured in this job)")
    if len(order) > 1:
        out.append(f"rounds: {rounds['run']}, " + (
            "the fastest two told apart" if rounds["settled"] else
            "the fastest two not told apart (within the noise, or too few samples to "
            f"measure it) when the rounds or the {rounds['budget_seconds']:g} s budget "
            "ended"))
    checked = f"agreed by {', '.join(ref['agreed_by'])}" if ref["agreed_by"] else \
        "no independent backend agreed"
    cross = ref.get("cross_check")
    if cross:
        checked += (f"; cross-checked by {cross['backend']}: max error "
                    f"{cross['max_error']:.1e}" + ("" if cross["agrees"] else ", DISAGREES"))
    out.append(f"reference: {ref['backend']} ({format_seconds(ref['seconds'])}), {checked}")
    return out


def finish(report, opts, started):
    """The report as its JSON says it, with where and when it was measured
    (harness.provenance); written to ``--json`` whole or not at all, and recorded
    (harness.recording). Returns the report's JSON text."""
    report["run"] = provenance.context("circuit", opts.argv, started=started)
    text = json.dumps(report, indent=1) + "\n"
    if opts.json:
        path = Path(opts.json)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(text)
        tmp.replace(path)
    # from the JSON, as a later `harness record` of the file reads it: the same run
    record(lambda: circuit_report.read(json.loads(text)), opts)
    return text


def main(opts):
    started = provenance.now()
    try:
        report, expected = run(opts.circuit, opts.qubits, opts.backends, opts.precision,
                               opts.threads, opts.rounds, fusion=opts.fusion,
                               cache=opts.cache, budget=opts.budget)
    except (sources.SourceError, BadInput) as exc:
        print(f"circuit: {exc}", file=sys.stderr)
        return 2
    print(table(report))
    try:
        finish(report, opts, started)
        if opts.state:
            np.save(opts.state, expected)
    except OSError as exc:
        print(f"circuit: cannot write: {exc}", file=sys.stderr)
        return 2
    cross = report["reference"]["cross_check"]
    if cross and not cross["agrees"]:
        print(f"circuit: the reference {report['reference']['backend']} and "
              f"{cross['backend']} disagree (max error {cross['max_error']:.3g}): no verdict "
              "can be trusted", file=sys.stderr)
        return 1
    return 1 if any(r["status"] == "wrong" for r in report["backends"].values()) else 0
