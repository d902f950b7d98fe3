"""Every simulator adapter, built-in or plugin, against the dense reference kernel
(naive), amplitude by amplitude, in every precision it declares; plus what the timing
loop relies on: ``run`` does all the work (nothing deferred past ``sync``), states are
copies, and bad input leaves the state alone.

An adapter whose tool is missing is skipped with its REASON; an adapter module that fails
to import fails here (that is a bug in it, not a missing tool)."""

import time

import numpy as np
import pytest

import adapters
from adapters.simulators._base import declaration
from harness import threads
from kernels.statevector import circuits, gates, naive, settings
from kernels.statevector.circuits import Instruction
from kernels.statevector.states import random_state

SIMULATORS = [name for name, kind in adapters.registry().items() if kind == "simulator"]
PRECISIONS = {name: p.dtype for name, p in settings.PRECISIONS.items()}
#: amplitude tolerance per precision: one gate, and a circuit of a few hundred gates
GATE_ATOL = {"complex128": 1e-12, "complex64": 2e-6}
CIRCUIT_ATOL = {"complex128": 1e-10, "complex64": 5e-5}


def _module(name):
    module = adapters.load(name)  # an import error fails the test
    if not module.AVAILABLE:
        pytest.skip(f"{name}: {module.REASON}")
    return module


@pytest.fixture(params=SIMULATORS)
def sim(request):
    return _module(request.param)


@pytest.fixture(params=[(s, p) for s in SIMULATORS for p in PRECISIONS],
                ids=lambda sp: f"{sp[0]}-{sp[1]}")
def sim_precision(request):
    name, precision = request.param
    module = _module(name)
    if precision not in precisions(module):
        pytest.skip(f"{module.NAME} runs {precisions(module)}, not {precision}")
    return module, precision


def precisions(module):
    return tuple(getattr(module, "PRECISIONS", (getattr(module, "PRECISION", "complex128"),)))


def state_of(n, rng, precision):
    return random_state(n, rng).astype(PRECISIONS[precision])


def run_through(module, state, program, times=1):
    s = module.from_numpy(state)
    for _ in range(times):
        module.run(s, program)
    module.sync()
    return module.to_numpy(s)


def expect(state, instructions, times=1):
    out = state.astype(np.complex128)
    for _ in range(times):
        circuits.run(naive.apply, out, instructions)
    return out


def close(got, expected, atol):
    got = np.asarray(got)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=0, atol=atol)


# --- the contract's metadata ------------------------------------------------------------

def test_metadata(sim):
    assert isinstance(sim.NAME, str) and sim.NAME
    assert isinstance(sim.REASON, str) and sim.REASON
    assert precisions(sim) and set(precisions(sim)) <= set(PRECISIONS)
    assert getattr(sim, "PRECISION", precisions(sim)[0]) == precisions(sim)[0]
    settings = getattr(sim, "SETTINGS", {})
    assert isinstance(settings, dict) and all(isinstance(v, str) for v in settings.values())
    for f in ("gate", "circuit", "from_numpy", "to_numpy", "run", "apply", "sync"):
        assert callable(getattr(sim, f)), f


BUILT_IN = [name for name, kind in adapters.ADAPTERS.items() if kind == "simulator"]


@pytest.mark.parametrize("name", BUILT_IN)
def test_fusion_is_declared(name):
    """Every built-in simulator declares, installed or not, how the tool as driven fuses
    gates: its default as a value (0 off, k, or None for a rule of the tool's own) and
    the rule in words (SETTINGS["fusion"])."""
    backend = declaration(adapters.load(name))
    assert backend.fusion.declared and len(backend.fusion.rule.split()) >= 3
    assert backend.fusion.default is None or backend.fusion.default in (
        0, *backend.fusion.settings)


def test_fusion_states():
    """The tools that fuse at their default: Aer, in one process and over MPI (circuits,
    from 15 qubits, its own rule) and qsim (at most 2 qubits); the rest run one pass per
    gate."""
    declared = {name: declaration(adapters.load(name)).fusion for name in BUILT_IN}
    on = {name: fusion.default for name, fusion in declared.items() if fusion.fuses}
    assert on == {"qiskit_aer_sim": None, "qiskit_aer_mpi_sim": None, "qsim_sim": 2}


# --- correctness ------------------------------------------------------------------------

def random_case(seed):
    """k = 1..3 targets and 0..2 controls (values 0 and 1) on random unsorted qubits of
    n <= 9; odd seeds always use the highest qubit."""
    rng = np.random.default_rng(seed)
    k, n_ctrl = 1 + seed % 3, (seed // 3) % 3
    n = int(rng.integers(k + n_ctrl, 10))
    qubits = rng.permutation(n)[:k + n_ctrl]
    if seed % 2 and n - 1 not in qubits:
        qubits[rng.integers(len(qubits))] = n - 1
    ctrl_vals = tuple(int(v) for v in rng.integers(0, 2, n_ctrl))
    inst = Instruction("dense", gates.random_unitary(k, rng), tuple(int(q) for q in qubits[:k]),
                       tuple(int(q) for q in qubits[k:]), ctrl_vals)
    return n, rng, inst


@pytest.mark.parametrize("seed", range(27))
def test_random_gates(sim_precision, seed):
    sim, precision = sim_precision
    n, rng, inst = random_case(seed)
    state = state_of(n, rng, precision)
    expected = expect(state, [inst])
    close(run_through(sim, state, sim.gate(inst)), expected, GATE_ATOL[precision])
    got = sim.apply(state.copy(), inst.matrix, inst.locs, inst.ctrl_locs, inst.ctrl_vals)
    close(got, expected, GATE_ATOL[precision])


EDGES = [  # (n, locs, ctrl_locs, ctrl_vals): what random cases may miss
    (1, (0,), (), ()),
    (3, (2, 0, 1), (), ()),
    (10, (9,), (), ()),
    (10, (3, 9, 0), (), ()),
    (10, (7, 2), (9, 0), (0, 1)),
    (10, (0,), (9, 4), (0, 0)),
]


@pytest.mark.parametrize("n, locs, ctrls, vals", EDGES)
def test_edge_cases(sim_precision, n, locs, ctrls, vals):
    sim, precision = sim_precision
    rng = np.random.default_rng(n + len(locs))
    inst = Instruction("dense", gates.random_unitary(len(locs), rng), locs, ctrls, vals)
    state = state_of(n, rng, precision)
    close(run_through(sim, state, sim.gate(inst)), expect(state, [inst]), GATE_ATOL[precision])


NAMED = [  # every named instruction the suites and circuits use, and their variants
    *[circuits.gate(g, 3) for g in "XYZHST"],
    *[circuits.gate(g, 4, theta=t) for g in ("Rx", "Ry", "Rz", "phase") for t in (0.7, -2.1)],
    circuits.cnot(4, 1), circuits.cnot(0, 3), circuits.cz(2, 0),
    circuits.toffoli(4, 0, 2), circuits.toffoli(0, 3, 2), circuits.swap(3, 1),
    circuits.gate("phase", 1, ctrl=(3,), theta=np.pi / 4),
    circuits.gate("X", 2, ctrl=(0,), ctrl_vals=(0,)),
    circuits.gate("Z", 2, ctrl=(0, 4), ctrl_vals=(1, 0)),
    circuits.gate("Rx", 2, ctrl=(1,), theta=0.3),
    circuits.gate("H", 0, ctrl=(4, 1)),
    Instruction("SWAP", gates.SWAP, (0, 4), (2,), (1,)),
    Instruction("Rz", gates.Rz(0.5), (3,)),  # no params: the matrix is what counts
]


@pytest.mark.parametrize("inst", NAMED, ids=lambda i: f"{i.name}{i.locs}c{i.ctrl_locs}")
def test_named_gates(sim_precision, inst):
    sim, precision = sim_precision
    state = state_of(5, np.random.default_rng(1), precision)
    close(run_through(sim, state, sim.gate(inst)), expect(state, [inst]), GATE_ATOL[precision])
    close(run_through(sim, state, sim.circuit([inst], 5)), expect(state, [inst]),
          GATE_ATOL[precision])


@pytest.mark.parametrize("n", [1, 2, 5, 9])
@pytest.mark.parametrize("make", ["qcbm", "qft"])
def test_circuits(sim_precision, make, n):
    sim, precision = sim_precision
    rng = np.random.default_rng(n)
    circ = circuits.qcbm(n, rng) if make == "qcbm" else circuits.qft(n)
    state = state_of(n, rng, precision)
    close(run_through(sim, state, sim.circuit(circ, n)), expect(state, circ),
          CIRCUIT_ATOL[precision])


def test_programs_run_again(sim_precision):
    """A program run three times on one state applies its gates three times: nothing is
    cached from the first run, and nothing is left pending between runs."""
    sim, precision = sim_precision
    rng = np.random.default_rng(7)
    inst = Instruction("dense", gates.random_unitary(2, rng), (3, 1), (0,), (1,))
    circ = circuits.qcbm(6, rng, depth=3)
    state = state_of(6, rng, precision)
    close(run_through(sim, state, sim.gate(inst), 3), expect(state, [inst], 3),
          GATE_ATOL[precision] * 3)
    close(run_through(sim, state, sim.circuit(circ, 6), 3), expect(state, circ, 3),
          CIRCUIT_ATOL[precision])


def test_states_are_copies(sim_precision):
    sim, precision = sim_precision
    state = state_of(4, np.random.default_rng(2), precision)
    original = state.copy()
    s = sim.from_numpy(state)
    state[:] = 0
    out = sim.to_numpy(s)
    close(out, original.astype(np.complex128), GATE_ATOL[precision])
    out[:] = 0  # the amplitudes handed back are the caller's
    close(sim.to_numpy(s), original.astype(np.complex128), GATE_ATOL[precision])


def test_to_numpy_keeps_the_precision(sim_precision):
    sim, precision = sim_precision
    state = state_of(3, np.random.default_rng(3), precision)
    assert sim.to_numpy(sim.from_numpy(state)).dtype == PRECISIONS[precision]


# --- what the timing loop relies on -----------------------------------------------------

#: The fastest a correct run can touch memory: one core streaming from caches does not
#: reach this, so a gate on a 16 MiB state that returns sooner has deferred its work.
MAX_BYTES_PER_SECOND = 1e12
FLOOR_QUBITS = 20


def test_run_does_the_work(sim_precision):
    sim, precision = sim_precision
    if hasattr(sim, "set_threads"):
        sim.set_threads(1)
    threads.set_threads(1)
    n = FLOOR_QUBITS
    state = np.zeros(1 << n, dtype=PRECISIONS[precision])
    state[0] = 1
    program = sim.gate(circuits.gate("H", n - 1))
    s = sim.from_numpy(state)
    sim.run(s, program)  # warm-up (and JIT)
    sim.sync()
    best = np.inf
    for _ in range(4):
        t0 = time.perf_counter()
        sim.run(s, program)
        sim.sync()
        best = min(best, time.perf_counter() - t0)
    floor = 2 * state.nbytes / MAX_BYTES_PER_SECOND
    assert best >= floor, (f"{sim.NAME}: H on {n} qubits took {best * 1e6:.1f} us, under the "
                           f"{floor * 1e6:.1f} us it takes to read and write the state: "
                           "the work is deferred past run() and sync()")
    # five H on the top qubit so far (warm-up + 4): an odd number, so H|0>
    expected = np.zeros(1 << n)
    expected[[0, 1 << (n - 1)]] = 2 ** -0.5
    close(sim.to_numpy(s), expected, GATE_ATOL[precision])


@pytest.mark.parametrize("bad", [
    dict(matrix=np.eye(4), locs=(1,)),
    dict(matrix=np.eye(2), locs=(5,)),
    dict(matrix=np.eye(2), locs=(1,), ctrl_locs=(1,)),
    dict(matrix=np.eye(2), locs=(1,), ctrl_locs=(2,), ctrl_vals=(2,)),
])
def test_apply_rejects_bad_input_untouched(sim, bad):
    state = random_state(3, np.random.default_rng(2))
    before = state.copy()
    with pytest.raises(ValueError):
        sim.apply(state, **bad)
    np.testing.assert_array_equal(state, before)


def test_unsupported_precisions_are_refused(sim):
    for precision, dtype in PRECISIONS.items():
        if precision not in precisions(sim):
            with pytest.raises(NotImplementedError):
                sim.from_numpy(np.ones(2, dtype=dtype) / 2 ** 0.5)
    with pytest.raises((NotImplementedError, ValueError)):
        sim.from_numpy(np.ones(2, dtype=np.float64) / 2 ** 0.5)


def test_threads_keep_results(sim):
    if not hasattr(sim, "set_threads"):
        pytest.skip(f"{sim.NAME} has no thread control")
    n, rng = 14, np.random.default_rng(3)
    circ = circuits.qcbm(n, rng, depth=3)
    state = random_state(n, rng).astype(PRECISIONS[precisions(sim)[0]])
    out = {}
    try:
        for k in (1, 2, 1):
            sim.set_threads(k)
            out[k] = run_through(sim, state, sim.circuit(circ, n))
    finally:
        sim.set_threads(1)
    close(out[2], out[1].astype(np.complex128), CIRCUIT_ATOL[precisions(sim)[0]])


def test_instructions_are_checked_before_the_tool_sees_them(sim):
    """What the conformance suite (tests/contract) does not probe: angles that are not
    numbers; and an instruction that gate() accepts fails in run on a state too small
    for it, untouched, however far out of range its qubit is."""
    bad = circuits.gate("Rx", 0, theta=0.3)._replace(params=("a",))
    with pytest.raises(ValueError, match="params"):
        sim.gate(bad)
    with pytest.raises(ValueError, match="params"):
        sim.circuit([bad], 2)
    dtype = PRECISIONS[precisions(sim)[0]]
    state = state_of(3, np.random.default_rng(5), precisions(sim)[0])
    s = sim.from_numpy(state)
    before = sim.to_numpy(s)  # (mindquantum renormalises what it is given)
    for q in (3, 4, 40, 1000):
        program = sim.gate(circuits.gate("H", q))
        with pytest.raises(ValueError, match=f"state has 3 qubits.*qubit {q}"):
            sim.run(s, program)
    after = sim.to_numpy(s)
    assert after.dtype == dtype
    np.testing.assert_array_equal(after, before)
