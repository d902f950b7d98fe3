"""Runs the probes of :mod:`tests.contract.probes` on backends, in a child process per
group of backends, so that a probe that crashes the process (a segfault in a tool) is a
result naming that probe, not the end of the test run.

In the child (``python -m tests.contract.runner GROUP OUT``) every result is a JSON line
appended to OUT as soon as it is known, preceded by a ``start`` line; the parent
(:func:`collect`) reads them, and after a crash records the started probe as crashed and
runs a new child, which skips every probe OUT already has a result for.
``python -m tests.contract.runner --table`` prints the probe x backend table of every
group.

Backends: ``kernel:<name>`` for each kernel of KERNELS, ``prepare:<name>`` for
``prepare`` on each, ``program:<name>`` for each of our backends without the one-gate
signature (the fused backend: its runner's program, built for n and run on a state), and
every simulator adapter or plugin of ``adapters.registry()`` by its registry name: every
backend the registry (harness.registry) holds. Groups: ``kernels`` (our backends, one
process) and one per adapter.
"""

import copy
import json
import os
import re
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np

from tests.contract import probes as P

ROOT = Path(__file__).resolve().parents[2]
KERNEL_GROUP = "kernels"
#: seconds a group may take before it counts as hung
TIMEOUT = 600


# --- what the child runs -------------------------------------------------------------------

def kernel_backends():
    from harness import registry
    from kernels.statevector import KERNELS
    circuits_only = [b.name for b in registry.simulators().values()
                     if b.own and not b.one_gate]
    return ([f"{kind}:{name}" for kind in ("kernel", "prepare") for name in KERNELS]
            + [f"program:{name}" for name in circuits_only])


def simulator_adapters():
    import adapters
    return [name for name, kind in adapters.registry().items() if kind == "simulator"]


def groups():
    return [KERNEL_GROUP, *simulator_adapters()]


def backends_of(group):
    return kernel_backends() if group == KERNEL_GROUP else [group]


def plan(kind):
    """``(probe name, path, probe)`` of every probe a backend of ``kind`` ("kernel",
    "prepare" or "adapter") must pass: what the child runs and the parent expects."""
    paths = {"kernel": ("apply",), "prepare": ("prepare",), "program": ("program",),
             "adapter": ("apply", "gate", "circuit")}[kind]
    out = [(probe.name, path, probe) for probe in P.PROBES for path in paths
           if probe.paths.get(path, probe.expect) is not None]
    builds = {"prepare": ("prepare",), "adapter": ("gate", "circuit"),
              "program": ("circuit",)}.get(kind, ())
    out += [(size.name, size.build, size) for size in P.SIZE_PROBES if size.build in builds]
    if kind == "adapter":
        out += [(misuse.name, misuse.call, misuse) for misuse in P.MISUSE_PROBES]
    return out


def kind_of(backend):
    return backend.split(":")[0] if ":" in backend else "adapter"


class Outcome:
    """Decides one probe: what the backend did, against what it should have done."""

    def __init__(self, expect, before, expected=None):
        self.expect, self.before, self.expected = expect, before, expected

    def judge(self, action, observe, inputs=()):
        """``action()`` makes the calls; ``observe()`` returns the state's amplitudes now
        (numpy), ``inputs`` are (argument, its copy beforehand) that must be left alone."""
        try:
            action()
        except Exception as exc:
            return self._refused(exc, observe, inputs)
        changed = self._changed(observe, inputs)
        if not self.expect.ok:
            return "no error" + ("; the state changed" if changed else "; state unchanged")
        for arg, kept in inputs:
            if not _same(arg, kept):
                return "an input array other than the state was changed"
        return _compare(observe(), self.expected)

    def _refused(self, exc, observe, inputs):
        kind = f"{type(exc).__module__}.{type(exc).__qualname__}".removeprefix("builtins.")
        message = str(exc)
        what = f"{kind}: {message[:300]}"
        changed = self._changed(observe, inputs)
        if type(exc) not in self.expect.refusals:
            return what + ("; the state changed" if changed else "")
        if not message or (self.expect.word and not re.search(self.expect.word, message)):
            return f"{what} (the message should name {self.expect.word!r})"
        if changed:
            return f"{what}; the state changed"
        return None

    def _changed(self, observe, inputs):
        try:
            now = observe()
        except Exception as exc:
            return f"(reading the state failed: {type(exc).__name__}: {exc})"
        if not _same(now, self.before):
            return True
        return any(not _same(arg, kept) for arg, kept in inputs)


def _same(a, b):
    if a is None or b is None:
        return a is b
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype.kind == b.dtype.kind \
        and bool(np.all((a == b) | ((a != a) & (b != b))))


def _compare(got, expected):
    got = np.asarray(got)
    if got.shape != expected.shape:
        return f"wrong result: shape {got.shape}, expected {expected.shape}"
    # complex64 arithmetic on unit-norm states; matrices of entries up to ~4
    atol = (2e-6 if got.dtype == np.complex64 else 1e-12) * max(1.0, np.abs(expected).max())
    err = float(np.max(np.abs(got.astype(np.complex128) - expected)))
    return None if err <= atol else f"wrong result: max amplitude error {err:.3g}"


def reference(vec, matrix, locs, ctrl_locs, ctrl_vals):
    """The right answer, by the dense oracle on a complex128 copy."""
    from kernels.statevector import naive
    locs = (locs,) if np.isscalar(locs) else tuple(int(q) for q in locs)
    ctrl_locs = (ctrl_locs,) if np.isscalar(ctrl_locs) else tuple(int(q) for q in ctrl_locs)
    out = np.array(vec, dtype=np.complex128)
    return naive.apply(out, np.array(matrix, dtype=np.complex128), locs, ctrl_locs,
                       ctrl_vals)


def _args(probe):
    """Fresh copies of the probe's gate arguments, and those copies' own copies (to see
    whether a backend wrote into its arguments)."""
    args = copy.deepcopy((probe.matrix, probe.locs, probe.ctrl_locs, probe.ctrl_vals))
    return args, copy.deepcopy(args)


def _matrix_kept(args, kept):
    return [(args[0], kept[0])] if isinstance(args[0], np.ndarray) else []


class KernelTarget:
    """A kernel of KERNELS (``kernel:<name>``), ``prepare`` on it (``prepare:<name>``), or
    one of our whole-circuit backends (``program:<name>``): its declared runner's program
    of the one instruction, built for the probe's n and run on the state in place."""

    def __init__(self, backend):
        self.backend = backend
        self.kind, self.name = backend.split(":")
        self.dtype = P.DTYPES["complex128"]

    def unavailable(self):
        from harness import registry
        ok, why = registry.simulator(self.name).available()
        return None if ok else f"{self.name}: {why}"

    def device(self, vec):
        """The state as this kernel takes it (a cupy array for cuda); None: no such state
        on this device (cupy has no read-only arrays)."""
        if self.name != "cuda" or not isinstance(vec, np.ndarray):
            return vec
        import cupy
        if not vec.flags.writeable:
            return None
        if vec.flags.c_contiguous:
            return cupy.asarray(vec)
        base = cupy.zeros(2 * vec.shape[0], dtype=vec.dtype)
        base[::2] = cupy.asarray(vec)
        return base[::2]

    def host(self, state):
        return state.get() if hasattr(state, "get") and not isinstance(state, np.ndarray) \
            else np.array(state, copy=True)

    def probes(self):
        """``(probe name, path, run(rng) -> None or what went wrong)`` for each probe."""
        for name, path, item in plan(self.kind):
            if isinstance(item, P.Probe):
                expect = item.paths.get(path, item.expect)
                yield name, path, lambda rng, p=item, e=expect: self._probe(p, e, rng)
            else:
                yield name, path, lambda rng, s=item: self._size(s, rng)

    def _probe(self, probe, expect, rng):
        from kernels.statevector import KERNELS
        from kernels.statevector.prepared import prepare
        vec = probe.state(self.dtype, rng)
        state = self.device(vec)
        if state is None:
            return "skip: no such state on this device"
        args, kept = _args(probe)
        expected = reference(vec, *args) if expect.ok else None
        before = self.host(state)
        if self.kind == "kernel":
            action = lambda: KERNELS[self.name](state, *args)  # noqa: E731
        elif self.kind == "program":
            action = lambda: self._program(P.N, args, state)  # noqa: E731
        else:
            dtype = getattr(state, "dtype", self.dtype)
            action = lambda: prepare(self.name, P.N, *args, dtype=dtype)(state)  # noqa: E731
        return Outcome(expect, before, expected).judge(action, lambda: self.host(state),
                                                       _matrix_kept(args, kept))

    def _program(self, n, args, state):
        from harness import registry
        from kernels.statevector.circuits import Instruction
        matrix, locs, ctrl_locs, ctrl_vals = args
        backend = registry.simulator(self.name)
        dtype = getattr(state, "dtype", None)  # a state it does not run: refused by run
        runner = backend.make(dtype if any(p.dtype == dtype for p in backend.precisions)
                              else backend.default_precision)
        inst = Instruction(name=P.instruction_name(matrix), matrix=matrix, locs=locs,
                           ctrl_locs=ctrl_locs, ctrl_vals=ctrl_vals or (), params=())
        runner.run(state, runner.program([inst], n))

    def _size(self, size, rng):
        from kernels.statevector.prepared import prepare
        vec = P.good(self.dtype, rng, size.state_qubits)
        state = self.device(vec)
        expected = reference(vec, *size.instruction) if size.expect.ok else None
        if self.kind == "program":
            action = lambda: self._program(size.built_for, size.instruction, state)  # noqa
        else:
            action = lambda: prepare(self.name, size.built_for, *size.instruction)(state)  # noqa
        return Outcome(size.expect, self.host(state), expected).judge(
            action, lambda: self.host(state))


class AdapterTarget:
    """A simulator adapter or plugin, through apply and its gate / circuit programs."""

    def __init__(self, backend):
        import adapters
        self.backend = backend
        self.module = adapters.load(backend)
        precisions = getattr(self.module, "PRECISIONS", ("complex128",))
        self.dtype = P.DTYPES[precisions[0]]

    def unavailable(self):
        m = self.module
        return None if m.AVAILABLE else f"{getattr(m, 'NAME', self.backend)}: {m.REASON}"

    def probes(self):
        for name, path, item in plan("adapter"):
            if isinstance(item, P.Probe):
                yield name, path, lambda rng, p=item, path=path: self._probe(
                    p, p.paths.get(path, p.expect), path, rng)
            elif isinstance(item, P.SizeProbe):
                yield name, path, lambda rng, s=item: self._size(s, rng)
            else:
                yield name, path, lambda rng, m=item: self._misuse(m, rng)

    def _instruction(self, matrix, locs, ctrl_locs, ctrl_vals):
        from kernels.statevector.circuits import Instruction
        return Instruction(name=P.instruction_name(matrix), matrix=matrix, locs=locs,
                           ctrl_locs=ctrl_locs, ctrl_vals=ctrl_vals or (), params=())

    def _probe(self, probe, expect, path, rng):
        m = self.module
        vec = probe.state(self.dtype, rng)
        args, kept = _args(probe)
        if path == "gate" or path == "circuit":
            # the named instruction (X, Y, H) as the suites build it, not a copy
            args = (probe.matrix, *args[1:])
            kept = (probe.matrix.copy() if isinstance(probe.matrix, np.ndarray)
                    else probe.matrix, *kept[1:])
        expected = reference(vec, *args) if expect.ok else None
        vec_kept = vec.copy()
        inputs = [(vec, vec_kept), *_matrix_kept(args, kept)]
        if path == "apply":
            return Outcome(expect, vec_kept, expected).judge(
                lambda: m.apply(vec, *args), lambda: np.array(vec, copy=True),
                _matrix_kept(args, kept))
        ctx = {}

        def action():
            ctx["state"] = m.from_numpy(vec)
            ctx["start"] = m.to_numpy(ctx["state"])
            inst = self._instruction(*args)
            program = m.gate(inst) if path == "gate" else m.circuit([inst], P.N)
            m.run(ctx["state"], program)
            m.sync()
        return self._judge_program(expect, expected, action, ctx, inputs, vec_kept)

    def _judge_program(self, expect, expected, action, ctx, inputs, vec_kept):
        m = self.module
        outcome = Outcome(expect, None, expected)

        def observe():
            if "state" not in ctx:  # from_numpy refused: the input is what must be kept
                outcome.before = vec_kept
                return vec_kept
            outcome.before = ctx.get("start")
            return m.to_numpy(ctx["state"])
        return outcome.judge(action, observe, inputs)

    def _size(self, size, rng):
        m = self.module
        vec = P.good(self.dtype, rng, size.state_qubits)
        expected = reference(vec, *size.instruction) if size.expect.ok else None
        ctx = {}

        def action():
            ctx["state"] = m.from_numpy(vec)
            ctx["start"] = m.to_numpy(ctx["state"])
            inst = self._instruction(*size.instruction)
            program = m.gate(inst) if size.build == "gate" else m.circuit([inst],
                                                                           size.built_for)
            m.run(ctx["state"], program)
            m.sync()
        return self._judge_program(size.expect, expected, action, ctx,
                                   [(vec, vec.copy())], vec.copy())

    def _misuse(self, misuse, rng):
        m = self.module
        vec = P.good(self.dtype, rng)
        kept = vec.copy()
        inst = self._instruction(P.X, (0,), (), None)
        if misuse.call == "gate":
            return Outcome(misuse.expect, kept).judge(lambda: m.gate("X on 0"),
                                                      lambda: vec)
        if misuse.call == "circuit":
            return Outcome(misuse.expect, kept).judge(lambda: m.circuit(None, P.N),
                                                      lambda: vec)
        if misuse.call == "run-state":
            program = m.gate(inst)
            expected = reference(vec, inst.matrix, inst.locs, inst.ctrl_locs, None)
            return Outcome(misuse.expect, kept, expected).judge(
                lambda: m.run(vec, program), lambda: np.array(vec, copy=True))
        state = m.from_numpy(vec)
        start = m.to_numpy(state)
        return Outcome(misuse.expect, start).judge(lambda: m.run(state, inst),
                                                   lambda: m.to_numpy(state))


def target(backend):
    return KernelTarget(backend) if ":" in backend else AdapterTarget(backend)


def run_group(group, out):
    """Every probe of ``group``'s backends, each result a JSON line appended to ``out``;
    the probes that already have a result there (a crashed run's) are not run again."""
    done = {_key(r) for r in _read(out) if "status" in r}
    with open(out, "a", encoding="utf-8") as f:
        def emit(**record):
            f.write(json.dumps(record) + "\n")
            f.flush()
            os.fsync(f.fileno())
        for backend in backends_of(group):
            try:
                t = target(backend)
                why = t.unavailable()
            except Exception as exc:  # the adapter module itself fails: a finding
                emit(backend=backend, probe="(load)", path="-",
                     status="violation", detail=f"{type(exc).__name__}: {exc}")
                continue
            if why:
                emit(backend=backend, probe="*", path="*", status="skip", detail=why)
                continue
            for name, path, run in t.probes():
                key = f"{backend}|{path}|{name}"
                if key in done:
                    continue
                emit(start=key)
                try:
                    detail = run(np.random.default_rng(zlib.crc32(key.encode())))
                except Exception as exc:  # in the runner's own set-up: report, go on
                    detail = f"probe set-up failed: {type(exc).__name__}: {exc}"
                status = ("pass" if detail is None else
                          "skip" if detail.startswith("skip:") else "violation")
                emit(backend=backend, probe=name, path=path, status=status, detail=detail)


def _key(record):
    return f"{record['backend']}|{record['path']}|{record['probe']}"


# --- the parent ------------------------------------------------------------------------------

def collect(group, workdir, env=None, timeout=TIMEOUT):
    """Run ``group`` in child processes until every probe has a result; a probe during
    which the child died is recorded as a crash, and the next child goes on after it."""
    out = Path(workdir) / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', group)}.jsonl"
    out.unlink(missing_ok=True)
    while True:
        cmd = [sys.executable, "-m", "tests.contract.runner", group, str(out)]
        try:
            proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                                  timeout=timeout)
            code, err = proc.returncode, proc.stderr
        except subprocess.TimeoutExpired as exc:
            code, err = "timeout", exc.stderr or ""
            err = err.decode(errors="replace") if isinstance(err, bytes) else err
        records = _read(out)
        done = {_key(r) for r in records if "status" in r}
        pending = [r["start"] for r in records if "start" in r and r["start"] not in done]
        results = [r for r in records if "status" in r]
        tail = " | ".join(err.strip().splitlines()[-3:])
        if not pending:
            if code == 0:
                return results
            return results + [dict(backend=group, probe="(process)", path="-",
                                   status="violation",
                                   detail=f"the child process failed ({code}): {tail}")]
        backend, path, probe = pending[-1].split("|", 2)
        how = "hung" if code == "timeout" else f"exit status {code}"
        with open(out, "a", encoding="utf-8") as f:
            f.write(json.dumps(dict(backend=backend, probe=probe, path=path,
                                    status="violation",
                                    detail=f"crashed the process ({how}): {tail}")) + "\n")


def _read(path):
    if not Path(path).exists():
        return []
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def table(results):
    """A row per probe, a column per backend: ``ok`` and the number of paths it passed
    on, the paths it failed on, ``skip`` (with the reason below) or ``-`` (no such path)."""
    backends = list(dict.fromkeys(r["backend"] for r in results))
    probes = list(dict.fromkeys(r["probe"] for r in results if r["path"] != "*"))
    skipped = {r["backend"]: r["detail"] for r in results if r["path"] == "*"}
    cells = {}
    for r in results:
        cells.setdefault((r["backend"], r["probe"]), []).append(r)

    def mark(backend, probe):
        if backend in skipped:
            return "skip"
        found = cells.get((backend, probe), [])
        failed = [r["path"] for r in found if r["status"] == "violation"]
        if failed:
            return "FAIL " + ",".join(failed)
        return f"ok {len(found)}" if found else "-"
    lines = ["| probe | " + " | ".join(backends) + " |", "|---|" + "---|" * len(backends)]
    lines += [f"| {probe} | " + " | ".join(mark(b, probe) for b in backends) + " |"
              for probe in probes]
    lines += [f"\n{b}: skipped ({why})" for b, why in skipped.items()]
    lines += [f"\n{r['backend']} {r['path']} {r['probe']}: {r['detail']}"
              for r in results if r["status"] == "violation"]
    return "\n".join(lines)


def main(argv):
    if argv[:1] == ["--table"]:
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            results = [r for g in groups() for r in collect(g, tmp)]
        print(table(results))
        return 1 if any(r["status"] == "violation" for r in results) else 0
    group, out = argv
    run_group(group, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
