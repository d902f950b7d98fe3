"""The gated cases: what the regression gate measures, in one table (:data:`CASES`).

Tier 1 cases are counted in instructions under callgrind; tier 2 cases are timed on the
wall clock, for what counts cannot see (threads, memory bandwidth, a GPU).

This module is loaded by the gate's probe inside a benchmark process whose ``kernels``
package is the revision under test (see ``probe.py``), so it imports nothing of the
project at module level, only numpy; each builder reaches the revision's API (prepared
gates, circuits, AD engines and problems) when called. The workloads are defined here,
not in the revision, so that both sides run the same thing; where a workload does take
something from the revision (a gate matrix, a circuit builder, an AD problem), that goes
into its fingerprint, and a case whose fingerprint differs between the sides is listed
as changed instead of being judged.
"""

import hashlib
import inspect
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

SEED = 20260101

#: What tier 1 sweeps: every CPU kernel family on the seed's gates and more, at a size
#: where the kernel's loop dominates and one call takes well under a millisecond.
COUNT_GATES = ("X", "H", "T", "CNOT", "Rx", "dense2")
COUNT_KERNELS = ("stride", "unrolled", "loop", "subspace")
COUNT_QUBITS = 14
ENGINES = ("forward", "reverse", "source", "finite")
#: Every engine on each of these; tr(A @ B) at 10x10 (200 inputs) because forward mode
#: and finite differences on the seeds' 30x30 cost ~80-230 M instructions per gradient,
#: a minute of the gate's budget under callgrind; reverse and source also run at 30x30,
#: the size their targets are stated at.
AD_CASES = (("trmul", 10), ("rational", 1), ("ackley_loop", 16))
REVERSE_AT_SEED_SIZE = (("trmul", 30), ("reverse", "source"))
FORWARD_CHUNKS = (8, 200)  # tr(A @ B) 10x10 has 200 inputs: 25 passes, or one
#: Circuit gradients (kernels.variational) on the QCBM energy: the adjoint sweep where its
#: kernels dominate, the reverse tape over plain numpy at a size it handles in a second.
VARIATIONAL_CASES = (("adjoint", 10), ("reverse", 6))
#: The fusion planner (Python) and the fused backend's compiled program, on circuits the
#: fusion targets name: (circuit, fusion k, n) with k the widest fused gate.
FUSED_CASES = (("QCBM", 2, 12), ("QCBM", 4, 14), ("QV", 4, 12), ("QFT", 3, 12),
               ("random", 4, 10))
FUSE_CASES = (("QCBM", 4, 12), ("QFT", 4, 12))


class Case(NamedTuple):
    id: str
    tier: int  #: 1: instruction counts; 2: wall time
    family: str  #: "gate", "circuit", "ad", "variational" or "fused": its builder
    args: tuple  #: the builder's arguments
    calls: int = 3  #: calls per measurement (tier 1: counted, then divided)
    threads: int = 1


class Workload(NamedTuple):
    run: Callable  #: the measured call
    check: Callable  #: runs once on fresh data; raises AssertionError on a wrong result
    fingerprint: str  #: digest of the workload's definition as this revision makes it


def _cases():
    n = COUNT_QUBITS
    for kernel in COUNT_KERNELS:
        for gate in COUNT_GATES:
            yield Case(f"gate/{gate}/{kernel}/n{n}", 1, "gate", (gate, kernel, n))
    # a prepared gate on a small state: the per-call cost around the kernel
    yield Case("gate/H/stride/n4", 1, "gate", ("H", "stride", 4))
    # the circuit the seeds benchmark: prepared gates applied one after another
    yield Case("circuit/QCBM/stride/n10", 1, "circuit", ("QCBM", "stride", 10), calls=1)
    for problem, size in AD_CASES:
        for engine in ENGINES:
            yield Case(f"ad/{problem}/{engine}/n{size}", 1, "ad", (problem, size, engine, None))
    (problem, size), engines = REVERSE_AT_SEED_SIZE
    for engine in engines:
        yield Case(f"ad/{problem}/{engine}/n{size}", 1, "ad", (problem, size, engine, None))
    for chunk in FORWARD_CHUNKS:
        yield Case(f"ad/trmul/forward-chunk{chunk}/n10", 1, "ad", ("trmul", 10, "forward", chunk))
    for method, n in VARIATIONAL_CASES:
        yield Case(f"variational/QCBM/{method}/n{n}", 1, "variational", (method, n), calls=1)
    for circuit, k, n in FUSE_CASES:
        yield Case(f"fuse/{circuit}/k{k}/n{n}", 1, "fused", ("fuse", circuit, k, n), calls=1)
    for circuit, k, n in FUSED_CASES:
        yield Case(f"fused/{circuit}/k{k}/n{n}", 1, "fused", ("run", circuit, k, n), calls=1)
    # tier 2: threads on states in the last-level cache, bandwidth past it, the GPU
    yield Case("wall/QCBM/fused/n22", 2, "fused", ("run", "QCBM3", 4, 22))
    yield Case("wall/QCBM/fused/n22/t2", 2, "fused", ("run", "QCBM3", 4, 22), threads=2)
    yield Case("wall/H/threaded/n18/t2", 2, "gate", ("H", "threaded", 18), threads=2)
    yield Case("wall/Rx/threaded/n20/t2", 2, "gate", ("Rx", "threaded", 20), threads=2)
    yield Case("wall/H/stride/n22", 2, "gate", ("H", "stride", 22))
    yield Case("wall/CNOT/stride/n22", 2, "gate", ("CNOT", "stride", 22))
    yield Case("wall/H/cuda/n26", 2, "gate", ("H", "cuda", 26))


CASES = {case.id: case for case in _cases()}


class Missing(Exception):
    """The revision lacks what a case needs (a kernel, an engine, a problem, an API):
    the case is new or removed, listed and not judged."""


# -- an independent reference --------------------------------------------------------------

def reference_apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=()):
    """``state`` after the gate, by tensor contraction: written apart from every kernel
    so that a broken kernel in a revision cannot agree with it. Qubit q is bit q of the
    index; bit j of the matrix index is qubit ``locs[j]``."""
    n = state.size.bit_length() - 1
    k = len(locs)
    psi = state.reshape((2,) * n)  # axis a holds qubit n-1-a
    u = np.asarray(matrix).reshape((2,) * (2 * k))  # axis a (and k+a) holds bit k-1-a
    axes = [n - 1 - locs[k - 1 - a] for a in range(k)]
    out = np.moveaxis(np.tensordot(u, psi, axes=(list(range(k, 2 * k)), axes)),
                      list(range(k)), axes).reshape(-1)
    if ctrl_locs:
        index = np.arange(state.size)
        keep = np.ones(state.size, dtype=bool)
        for q, v in zip(ctrl_locs, ctrl_vals or (1,) * len(ctrl_locs)):
            keep &= ((index >> q) & 1) == v
        out = np.where(keep, out, state)
    return out


def random_state(n, rng):
    v = rng.standard_normal(1 << n) + 1j * rng.standard_normal(1 << n)
    return v / np.linalg.norm(v)


def random_unitary(k, rng):
    shape = (1 << k, 1 << k)
    q, r = np.linalg.qr(rng.standard_normal(shape) + 1j * rng.standard_normal(shape))
    return q * (np.diagonal(r) / np.abs(np.diagonal(r)))


def _digest(*parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(part.tobytes() if isinstance(part, np.ndarray) else repr(part).encode())
    return h.hexdigest()[:16]


def _close(got, expected, what, atol=1e-9):
    err = float(np.max(np.abs(np.asarray(got) - expected))) if np.size(expected) else 0.0
    if not err <= atol:  # also NaN
        raise AssertionError(f"{what}: max amplitude error {err:.3g} > {atol:g}")


# -- builders: each returns a Workload, raises Missing or NotImplementedError --------------

def _gate_instruction(gate):
    """(matrix, locs, ctrl_locs, ctrl_vals) of a named gate on the seed's qubits (X/H/T on
    qubit 2, CNOT 2 -> 1), its matrix from the revision's ``gates``."""
    from kernels.statevector import gates
    if gate == "CNOT":
        return gates.X, (1,), (2,), (1,)
    if gate == "Rx":
        return gates.Rx(0.7), (2,), (), ()
    if gate == "dense2":
        return random_unitary(2, np.random.default_rng(SEED)), (3, 1), (), ()
    return getattr(gates, gate), (2,), (), ()


def _prepared(kernel, n, instructions):
    """The revision's prepared gates for ``instructions`` [(matrix, locs, ctrls, vals)]."""
    try:
        from kernels.statevector import KERNELS
        from kernels.statevector.prepared import prepare
    except ImportError as exc:
        raise Missing(f"no prepared gates in this revision ({exc})") from None
    if kernel not in KERNELS:
        raise Missing(f"no kernel {kernel!r} in this revision")
    return [prepare(kernel, n, m, locs, ctrls, vals or None)
            for m, locs, ctrls, vals in instructions]


def _device(kernel):
    """(to_device, to_host, sync) for the kernel's arrays."""
    from kernels.statevector import cuda
    if kernel != cuda.BACKEND.name:
        return (lambda v: v.copy()), (lambda s: s), (lambda: None)
    ok, reason = cuda.available()
    if not ok:
        raise NotImplementedError(f"cuda: {reason}")
    import cupy
    return cupy.asarray, (lambda s: s.get()), cuda.sync


def _state_workload(kernel, n, instructions, definition):
    prepared = _prepared(kernel, n, instructions)
    to_device, to_host, sync = _device(kernel)
    start = random_state(n, np.random.default_rng(SEED + n))
    state = to_device(start)

    def run():
        for apply in prepared:
            apply(state)
        sync()

    def check():
        fresh = to_device(start)
        for apply in prepared:
            apply(fresh)
        sync()
        expected = start
        for inst in instructions:
            expected = reference_apply(expected, *inst)
        _close(to_host(fresh), expected, definition)

    parts = [p for inst in instructions for p in (inst[0], inst[1:])]
    return Workload(run, check, _digest(definition, n, *parts))


def gate_workload(gate, kernel, n):
    return _state_workload(kernel, n, [_gate_instruction(gate)], f"{gate} on {kernel}")


def circuit_workload(circuit, kernel, n):
    from kernels.statevector import circuits
    if circuit != "QCBM":
        raise ValueError(f"unknown circuit {circuit!r}")
    program = [(i.matrix, i.locs, i.ctrl_locs, i.ctrl_vals)
               for i in circuits.qcbm(n, np.random.default_rng(SEED))]
    return _state_workload(kernel, n, program, f"{circuit} on {kernel}")


def ad_workload(problem, n, engine, chunk):
    try:
        from kernels.ad import ENGINES as engines
        from kernels.ad.problems import PROBLEMS
    except ImportError as exc:
        raise Missing(f"no AD engines in this revision ({exc})") from None
    if engine not in engines:
        raise Missing(f"no AD engine {engine!r} in this revision")
    if problem not in PROBLEMS:
        raise Missing(f"no AD problem {problem!r} in this revision")
    p = PROBLEMS[problem]
    args = p.make_args(n, np.random.default_rng(SEED + n))
    gradient = engines[engine].gradient
    # an engine's accuracy is its own fact (finite differences are not exact)
    exact = getattr(getattr(engines[engine], "BACKEND", None), "exact", True)
    options = {"chunk": chunk} if chunk else {}

    def run():
        return gradient(p.f, *args, **options)

    def check():
        got, expected = run(), p.manual(*args)[1]
        diff = np.sqrt(sum(np.sum(np.square(np.subtract(g, e))) for g, e in zip(got, expected)))
        norm = np.sqrt(sum(np.sum(np.square(e)) for e in expected))
        rtol = 1e-8 if exact else 1e-5
        if len(got) != len(expected) or not diff <= rtol * max(norm, 1e-300):
            raise AssertionError(f"{engine} on {problem} n={n}: gradient error {diff:.3g} "
                                 f"against a norm of {norm:.3g}")

    source = inspect.getsource(p.f)
    arrays = [np.asarray(a) for a in args]
    return Workload(run, check, _digest(problem, n, options, source, *arrays))


def _reference_energy(circuit, observable, n):
    """<psi|H|psi> by tensor contraction (``reference_apply``) and dense Pauli strings:
    nothing of the revision but its circuit's instructions."""
    psi = np.zeros(1 << n, dtype=complex)
    psi[0] = 1
    for inst in circuit:
        psi = reference_apply(psi, inst.matrix, inst.locs, inst.ctrl_locs, inst.ctrl_vals)
    paulis = {"X": np.array([[0, 1], [1, 0]]), "Y": np.array([[0, -1j], [1j, 0]]),
              "Z": np.array([[1, 0], [0, -1]])}
    total = 0.0
    for coeff, term in observable:
        out = psi
        for q, letter in term.items():
            out = reference_apply(out, paulis[letter], (q,))
        total += coeff * np.vdot(psi, out).real
    return total


def variational_workload(method, n):
    try:
        from kernels.variational import GRADIENTS, qcbm_energy
    except ImportError as exc:
        raise Missing(f"no circuit gradients in this revision ({exc})") from None
    if method not in GRADIENTS:
        raise Missing(f"no circuit-gradient method {method!r} in this revision")
    problem = qcbm_energy(n, 9, np.random.default_rng(SEED + n))
    theta, gradient = problem.theta0, GRADIENTS[method]

    def run():
        return gradient(problem, theta)

    def check():
        # three random directional derivatives by central differences of an energy
        # computed apart from the revision: a wrong gradient is off by O(1) in each
        got, rng, h = run(), np.random.default_rng(SEED), 1e-4
        for _ in range(3):
            v = rng.standard_normal(theta.size)
            v /= np.linalg.norm(v)
            plus, minus = (_reference_energy(problem.circuit(theta + s * h * v),
                                             problem.observable, n) for s in (1, -1))
            _close(np.dot(got, v), (plus - minus) / (2 * h),
                   f"{method} on QCBM n={n} (directional derivative)", atol=1e-6)

    return Workload(run, check, _digest(method, n, theta, repr(problem.slots),
                                        repr(problem.observable)))


def _library_circuit(circuit, n):
    """The revision's instructions of a named circuit; QCBM3 is QCBM of depth 3 (the
    wall-clock size, whose independent reference takes seconds, not minutes)."""
    from kernels.statevector import circuits
    rng = np.random.default_rng(SEED)
    if circuit in ("QCBM", "QCBM3"):
        return circuits.qcbm(n, rng, **({"depth": 3} if circuit == "QCBM3" else {}))
    if circuit == "QV":
        return circuits.quantum_volume(n, rng)
    if circuit == "QFT":
        return circuits.qft(n)
    if circuit == "random":
        return circuits.random_circuit(n, rng)
    raise ValueError(f"unknown circuit {circuit!r}")


def fused_workload(what, circuit, k, n):
    """``fuse``: the planner on the circuit; ``run``: the fused backend's program on a
    state (compiled once, outside the measured call)."""
    try:
        from kernels.statevector import fused, fusion
    except ImportError as exc:
        raise Missing(f"no fused backend in this revision ({exc})") from None
    instructions = _library_circuit(circuit, n)
    parts = [p for i in instructions for p in (i.matrix, (i.locs, i.ctrl_locs, i.ctrl_vals))]
    start = random_state(n, np.random.default_rng(SEED + n))
    state = start.copy()
    if what == "fuse":
        def run():
            return fusion.fuse(instructions, max_qubits=k)
    else:
        program = fused.compile(instructions, n, max_qubits=k)

        def run():
            program(state)

    def check():
        out = start.copy()
        if what == "fuse":
            for inst in run():
                out = reference_apply(out, inst.matrix, inst.locs, inst.ctrl_locs, inst.ctrl_vals)
        else:
            fused.compile(instructions, n, max_qubits=k)(out)
        expected = start
        for inst in instructions:
            expected = reference_apply(expected, inst.matrix, inst.locs, inst.ctrl_locs,
                                       inst.ctrl_vals)
        _close(out, expected, f"{what} {circuit} k={k} n={n}")

    return Workload(run, check, _digest(what, circuit, k, n, *parts))


BUILDERS = {"gate": gate_workload, "circuit": circuit_workload, "ad": ad_workload,
            "variational": variational_workload, "fused": fused_workload}


def build(case):
    """The case's workload in the revision on ``sys.path``."""
    return BUILDERS[case.family](*case.args)


def select(patterns=None, tiers=(1, 2)):
    """The case ids of ``tiers`` matching any of the fnmatch ``patterns`` (all if None)."""
    from fnmatch import fnmatchcase
    return [cid for cid, case in CASES.items() if case.tier in tiers
            and (not patterns or any(fnmatchcase(cid, p) for p in patterns))]
