"""``python -m harness circuit SOURCE``: one circuit through every backend, each
validated against the reference and then timed, interleaved, in this one process.

Exit 0: every backend that ran agrees with the reference; 1: one returned a wrong
state; 2: bad input (an unreadable file, a parse error with its line, an operation that
is not unitary with its line, too many qubits for memory, an unknown backend), the reason
on stderr. The circuit starts from |0...0>, as the field's benchmarks run it.
"""

import json
import sys
import time
from pathlib import Path

import numpy as np

from harness import settings as settings_mod
from harness import threads as threads_mod
from harness.circuit import sources
from harness.errors import Unavailable
from harness.timing import format_seconds, interleaved_samples

#: Time each backend gets for its samples, judged from its validation run; it gets at
#: least one sample and at most ``--rounds``.
SECONDS_PER_BACKEND = 2.0
STATUSES = ("ok", "wrong", "skipped", "refused")


class BadInput(Exception):
    """Exit 2, with this message on stderr."""


def _backend_names(spec):
    from harness.statevector import backends
    known = backends.names()
    if not spec:
        return known
    names = [s.strip() for s in spec.split(",") if s.strip()]
    unknown = [n for n in names if backends.canonical(n) is None]
    if unknown or not names:
        raise BadInput(f"unknown backend(s) {', '.join(unknown) or '(none given)'}; "
                       f"known: {', '.join(known)}")
    return list(dict.fromkeys(backends.canonical(n) for n in names))


def _check_memory(n, names):
    """MemoryError before anything is allocated when the circuit cannot run here; True
    when every backend's state fits at once (else each sample reloads its state)."""
    from kernels.statevector import states
    try:
        states.check_fits(n, np.complex128, copies=4)  # start, reference, its work, one
    except MemoryError as exc:
        raise BadInput(f"too many qubits for memory: {exc}") from None
    try:
        states.check_fits(n, np.complex128, copies=len(names) + 4)
        return True
    except MemoryError:
        return False


def _variants(names, fusion):
    """[(row name, backend name, fusion setting)] for ``--fusion``: "default" (each
    backend's own), "off" (one pass per gate wherever a backend allows it), an integer k
    (k wherever declared, the default elsewhere) or "all" (every backend unfused, and
    each fusing backend at each of its settings, as rows ``name@k``)."""
    from harness.statevector import backends
    if fusion == "default":
        return [(n, n, None) for n in names]
    if fusion in ("off", "all"):
        out = [(n, n, backends.unfused(n)) for n in names]
        if fusion == "all":
            out += [(f"{n}@{k}", n, k) for n in names for k in _declared(n) if k]
        return out
    try:
        k = int(fusion)
    except ValueError:
        raise BadInput(f"--fusion must be default, off, all or a number of qubits, got "
                       f"{fusion!r}") from None
    if not any(k in _declared(n) for n in names):
        raise BadInput(f"--fusion {k}: no backend here declares it")
    return [(n, n, k if k in _declared(n) else None) for n in names]


def _declared(name):
    from harness.statevector import backends
    try:
        return backends.fusion_settings(name)
    except ValueError:
        return ()


def _prepare(name, precision, n_threads, vec, instructions, expected, fusion=None):
    """(result row, backend, program) for one backend at one fusion setting; backend and
    program None unless its result agreed with the reference."""
    from harness.statevector import backends, validate
    row = {"status": "ok", "reason": "", "seconds": None, "max_error": None,
           "settings": settings_mod.of(name, precision, n_threads, fusion=fusion)}
    try:
        backend = backends.get(name, precision, fusion)
        backend.require()
        backends.set_threads(backend, n_threads)
    except (Unavailable, NotImplementedError) as exc:
        return {**row, "status": "skipped", "reason": str(exc)}, None, None
    n = vec.shape[0].bit_length() - 1
    if name == "naive" and n > validate.DENSE_REFERENCE_QUBITS:
        # it rebuilds a 2**n x 2**n operator for every gate: minutes per circuit
        return ({**row, "status": "refused", "reason": f"naive (the dense oracle) runs "
                 f"circuits up to {validate.DENSE_REFERENCE_QUBITS} qubits here"}, None, None)
    try:
        program = backend.program(instructions, n)
        state = backend.load(vec)
        backend.run(state, program)  # also compiles and warms up JIT code
        backend.sync()
        got = np.asarray(backend.result(state))
    except NotImplementedError as exc:
        return {**row, "status": "refused", "reason": str(exc)}, None, None
    except Exception as exc:  # a backend's failure must not stop the others
        return ({**row, "status": "refused", "reason": f"raised {type(exc).__name__}: {exc}"},
                None, None)
    if got.shape != expected.shape:
        return ({**row, "status": "wrong",
                 "reason": f"result shape {got.shape}, expected {expected.shape}"},
                None, None)
    err = float(np.max(np.abs(got - expected)))
    if not err <= validate.ATOL[precision]:  # NaN too
        return ({**row, "status": "wrong", "max_error": err if np.isfinite(err) else None,
                 "reason": f"max amplitude error {err:.3g} > {validate.ATOL[precision]:g}"},
                None, None)
    row["max_error"] = err
    return row, backend, program


def _time(prepared, vec, rounds, hold):
    """{name: [seconds]} of the validated backends, interleaved."""
    calls = {}
    for name, (backend, program) in prepared.items():
        if hold:  # each backend's state made once, outside the timed calls
            state = backend.load(vec)

            def call(backend=backend, program=program, state=state):
                backend.run(state, program)
                backend.sync()
        else:  # not every state fits at once: each sample loads its own (untimed)
            def call(backend=backend, program=program):
                return backend, program
        calls[name] = call
    if hold:
        # a first round of one call each (warm: the validation run compiled) sets how many
        # samples each backend gets
        first = interleaved_samples(calls, dict.fromkeys(calls, 1))
        counts = {name: _count(first[name][0], rounds) for name in calls}
        more = interleaved_samples(calls, {name: counts[name] - 1 for name in calls})
        return {name: first[name] + more[name] for name in calls}
    out = {}
    for name, call in calls.items():  # one state at a time, the backends in turn
        backend, program = call()
        out[name] = []
        while len(out[name]) < (_count(out[name][0], rounds) if out[name] else 1):
            state = backend.load(vec)
            t0 = time.perf_counter()
            backend.run(state, program)
            backend.sync()
            out[name].append(time.perf_counter() - t0)
            del state
    return out


def _count(first, rounds):
    """Samples for a backend whose first warm call took ``first`` seconds."""
    return int(max(1, min(rounds, SECONDS_PER_BACKEND // max(first, 1e-9))))


def run(source, qubits=None, backends=None, precision="complex128", n_threads=1,
        rounds=5, say=print, fusion="default"):
    """The report of one circuit on the backends (a dict, the JSON's shape) and the
    reference's final state."""
    from harness.statevector import validate
    from kernels.statevector import states

    names = _backend_names(backends)
    variants = _variants(names, fusion)
    if qubits is not None and qubits > 0:
        _check_memory(qubits, ())  # before a generator builds a circuit that cannot run
    circuit = sources.load(source, qubits)
    if precision not in states.PRECISIONS:
        raise BadInput(f"unknown precision {precision!r}; known: {', '.join(states.PRECISIONS)}")
    hold = _check_memory(circuit.n, variants)
    try:
        threads_mod.set_threads(n_threads)
    except ValueError as exc:
        raise BadInput(f"--threads: {exc}") from None
    say(f"circuit {circuit.label}: {circuit.n} qubits, {len(circuit.instructions)} gates "
        f"({_gate_counts(circuit.instructions)}); {precision}, {n_threads} thread"
        f"{'s' if n_threads > 1 else ''}")
    for note in circuit.notes:
        say(f"  {note}")
    start = states.zero_state(circuit.n)
    # the reference from the start rounded to the precision run (|0...0> is exact)
    vec = start.astype(states.PRECISIONS[precision])
    expected = validate.reference(vec.astype(np.complex128), circuit.instructions)
    rows, prepared = {}, {}
    for row_name, name, setting in variants:
        row, backend, program = _prepare(name, precision, n_threads, vec,
                                         circuit.instructions, expected, setting)
        if getattr(backend, "info", None):  # the fused backend: how it ran the circuit
            row["fused"] = dict(backend.info)
        rows[row_name] = row
        if backend is not None:
            prepared[row_name] = (backend, program)
    for name, samples in _time(prepared, vec, rounds, hold).items():
        rows[name]["seconds"] = min(samples)
        rows[name]["samples"] = len(samples)
    _fused_bandwidth(rows, circuit.n, precision)
    report = {
        "circuit": circuit.label, "qubits": circuit.n, "gates": len(circuit.instructions),
        "precision": precision, "threads": n_threads, "fusion": fusion,
        "settings_hash": settings_mod.short_hash(
            {"circuit": sources.digest(circuit.instructions), "precision": precision,
             "threads": n_threads, "fusion": fusion}),
        "notes": circuit.notes, "backends": rows,
    }
    return report, expected


def _fused_bandwidth(rows, n, precision):
    """Add to each timed fused row its effective bandwidth (the passes it made, each
    reading and writing the state) and the in-place yardstick of the memory level the
    state sits in, measured now, in this process."""
    from harness.statevector import levels
    from kernels.statevector import states
    nbytes = np.dtype(states.PRECISIONS[precision]).itemsize << n
    level = levels.level_of(nbytes)
    yardstick = None
    for row in rows.values():
        info = row.get("fused")
        if info is None or row["seconds"] is None:
            continue
        if yardstick is None:
            yardstick = levels.inplace_gbs(level)
        gbs = levels.effective_gbs(info["passes"], nbytes, row["seconds"])
        info.update(effective_gbs=gbs, level=level, level_gbs=yardstick)


def _gate_counts(instructions):
    counts = {}
    for inst in instructions:
        key = inst.name + (f"+{len(inst.ctrl_locs)}c" if inst.ctrl_locs else "")
        counts[key] = counts.get(key, 0) + 1
    top = sorted(counts.items(), key=lambda kv: -kv[1])
    shown = ", ".join(f"{k} {v}" for k, v in top[:8])
    return shown + (f", {len(top) - 8} more kinds" if len(top) > 8 else "")


def table(report):
    """The ranking as text: time, time / fastest, error, samples, settings."""
    rows = report["backends"]
    ran = sorted((r["seconds"], name) for name, r in rows.items()
                 if r["status"] == "ok" and r["seconds"] is not None)
    fastest = ran[0][0] if ran else None

    def like(name):  # with every setting asked for, fusion differs on purpose: shown
        s = rows[name]["settings"]
        return (s["precision"], s["threads"]) if report.get("fusion") == "all" else s["like"]
    likes = {like(name) for _, name in ran}
    common = _most_common([like(name) for _, name in ran])
    lines = [f"{'rank':>4}  {'backend':<14} {'time':>10} {'/ fastest':>9} {'max error':>9} "
             f"{'samples':>7}  settings  fusion"]
    for rank, (seconds, name) in enumerate(ran, 1):
        r = rows[name]
        mark = "*" if len(likes) > 1 and like(name) != common else " "
        lines.append(f"{rank:>4}  {name:<14} {format_seconds(seconds):>10} "
                     f"{seconds / fastest:>9.2f} {r['max_error']:>9.1e} {r['samples']:>7}  "
                     f"{r['settings']['hash']}{mark} {r['settings']['fusion']}")
    for name, r in rows.items():
        if r["status"] == "wrong":
            lines.append(f"WRONG  {name}: {r['reason']}")
    for name, r in rows.items():
        f = r.get("fused") or {}
        if "effective_gbs" in f:
            lines.append(
                f"{name}: {f['gates']} gates fused into {f['fused_gates']}, {f['passes']} "
                f"passes over the state ({f['stages']} stages of 2**{f['block_qubits']} "
                f"amplitudes, {f['isa']}): {f['effective_gbs']:.1f} GB/s, "
                f"{100 * f['effective_gbs'] / f['level_gbs']:.0f}% of the {f['level']} "
                f"in-place yardstick ({f['level_gbs']:.1f} GB/s)")
    if len(likes) > 1:
        lines.append("* measured with other settings than most (the column is not like "
                     "for like):")
        for _, name in ran:
            s = rows[name]["settings"]
            if like(name) != common:
                lines.append(f"    {name}: " + ", ".join(
                    f"{k} {s[k]}" for k in settings_mod.LIKE_KEYS))
    for status in ("refused", "skipped"):
        for name, r in rows.items():
            if r["status"] == status:
                lines.append(f"{status}: {name}: {r['reason']}")
    return "\n".join(lines)


def _most_common(values):
    return max(set(values), key=values.count) if values else None


def main(opts):
    try:
        report, expected = run(opts.source, opts.qubits, opts.backends, opts.precision,
                               opts.threads, opts.rounds, fusion=opts.fusion)
    except (sources.SourceError, BadInput) as exc:
        print(f"circuit: {exc}", file=sys.stderr)
        return 2
    print(table(report))
    try:
        if opts.json:
            Path(opts.json).write_text(json.dumps(report, indent=1) + "\n")
        if opts.state:
            np.save(opts.state, expected)
    except OSError as exc:
        print(f"circuit: cannot write: {exc}", file=sys.stderr)
        return 2
    return 1 if any(r["status"] == "wrong" for r in report["backends"].values()) else 0


def add_parser(sub):
    p = sub.add_parser("circuit", help="one circuit (OpenQASM file, mqt:NAME, lib:NAME) "
                       "through every backend, validated and timed")
    p.add_argument("source", help="path to an .qasm file (OpenQASM 2 or 3), mqt:NAME or "
                   "lib:NAME")
    p.add_argument("--qubits", type=int, help="circuit size for mqt: and lib:")
    p.add_argument("--backends", help="comma-separated backend names (default: all)")
    p.add_argument("--precision", default="complex128")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=5,
                   help="timed calls per backend at most (fewer for slow backends)")
    p.add_argument("--json", help="write the results as JSON here")
    p.add_argument("--state", help="write the reference's final state here (.npy)")
    p.add_argument("--fusion", default="default",
                   help="default (each backend's own), off (one pass per gate wherever a "
                        "backend allows it), K (at most K qubits per fused gate where "
                        "declared) or all (unfused, and every declared setting as rows "
                        "NAME@K)")
    p.set_defaults(func=main)
    return p
