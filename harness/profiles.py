"""Sweep sizes. ``default`` is what ``make bench`` runs, the overview in 15 minutes on a
2-core machine (the README says where the time goes); ``full`` is the seeds' 4..25 qubits
and AD sizes and every eval; ``quick`` is the smoke run's; ``peers`` is every kernel and
peer at the two sizes of the peer comparison (n = 12, 20), gates and circuits.

State-vector keys: ``gate_qubits``, ``circuit_qubits``, ``thread_qubits``,
``complex64_qubits`` (the complex64 gate suite),
``call_qubits`` (the plain kernel
call); ``peer_<key>``, where present, is the fewer sizes the simulator peers run at
(``_setup.check_size``), so that a dozen peers fit in the default sweep.

AD keys: ``ad_sizes`` lists, for the problems it names, the sizes n a profile runs (a
problem not named runs at all the sizes of ``kernels.ad.problems``); ``ad_chunk_sizes``
the problems and sizes of forward mode's chunk sweep; ``ad_max_seconds`` the longest a
combination's first gradient may be predicted to take (``ad_backends.first_call_seconds``)
before it is skipped, which keeps finite differences, AlgoPy and eager JAX off the large
element loops, where one gradient takes minutes to hours. ``ad_eval_sizes``: how many of
each eval's sizes (gradbench's and ADBench's, smallest first) the eval suite runs (None:
every one, skipped past ``ad_max_seconds``); ``ad_eval_ratio_backends``: the backends
whose gradient / objective and / manual ratios it samples in alternation (None: all);
``ad_eval_objectives``: the objectives timed besides the plain f ("numpy"; None: every
peer's translation too); ``ad_eval_max_seconds`` the eval suite's own limit in place of
``ad_max_seconds`` (absent or None: that one); ``ad_eval_skip`` the evals a profile leaves
out. ``sample_seconds``: the most seconds any suite samples one combination for (absent:
each suite's own, 0.25 to 0.6 s).
``gate_cases``: globs of the regression gate's tier-1 cases whose instruction counts the
profile records (absent: all).

Circuit keys (``statevector_circuits``): ``circuits``, the circuits as ``python -m harness
circuit`` names them (``lib:NAME``, ``mqt:NAME``; ``lib:*`` and ``mqt:*`` stand for the
whole library and every MQT Bench benchmark, see
:func:`harness.circuit.sources.expand`),
``circuit_memory`` those whose peak memory is measured (at the largest size),
``complex64_circuit_qubits`` the sizes of the complex64 circuits (default: the same),
``circuit_qubits`` their sizes, ``circuit_max_qubits`` the largest n per slow kernel, and
``circuit_max_work`` the most gates x amplitudes of one case (the reference takes about
25 ns per gate and amplitude: 1e9 is half a minute).

Variational keys: ``variational_qubits`` the sizes of the circuit-gradient suite,
``variational_max_qubits`` the largest n per backend (or per tool: ``lightning`` covers
``lightning:qnode``) for the methods whose cost grows with the number of angles
(param_shift, finite, forward's dual numbers) or whose tape holds every state."""

import os

#: cuQuantum's qv, random, qaoa and ghz, and two of MQT Bench's: a VQE ansatz (rotations and
#: CNOTs) and a quantum walk (X gates with up to n - 1 controls)
DEFAULT_CIRCUITS = ["lib:qv", "lib:random", "lib:qaoa", "lib:ghz", "mqt:vqe_su2",
                    "mqt:qwalk"]

#: The circuits whose fused and unfused times the issue's targets name.
FUSION_CIRCUITS = ["lib:qcbm", "lib:qft", "lib:qv", "lib:random"]

PROFILES = {
    "quick": {
        "rounds": 1,
        "gate_qubits": [4, 10],
        "call_qubits": [4],
        "circuits": ["lib:qcbm", "mqt:ghz"],
        "circuit_memory": ["lib:qcbm"],
        "circuit_qubits": [4, 8],
        "circuit_max_qubits": {"naive": 8},
        "circuit_max_work": 1e9,
        "fusion_circuits": ["lib:qcbm"],
        "fusion_qubits": [8],
        "fusion_settings": [0, 2],
        "thread_qubits": [12],
        "complex64_qubits": [10],
        "variational_qubits": [4, 6],
        "variational_max_qubits": {"forward": 4},
        "ad_sizes": {"ackley_loop": [16], "ackley": [16], "polynomial": [16]},
        "ad_chunk_sizes": {"ackley_loop": [16], "ackley": [16]},
        "ad_max_seconds": 0.4,
        "ad_eval_sizes": 1,
        "ad_eval_ratio_backends": ["reverse"],
        "ad_eval_objectives": ["numpy"],
        # the gate's instruction counts: one case of each family (None: every case)
        "gate_cases": ["gate/H/stride/n14", "circuit/QCBM/*", "ad/rational/reverse/*"],
    },
    "default": {
        "rounds": 1,
        # every timed combination samples for at most 0.15 s (the suites' own caps, 0.25 to
        # 0.6 s, are full's): a combination at 20 qubits spent most of its time sampling
        "sample_seconds": 0.15,
        "gate_qubits": [12, 20],  # 4, 8, 16 and 22 left to full: 15 minutes in all
        "peer_gate_qubits": [20],  # [12, 20] measured 20+ min in all: see README
        "call_qubits": [4, 12],
        # every backend at 12 and 20 on two circuits (the peers profile: six; a circuit
        # at 20 costs each backend a validating run and a timed one, 1-10 s); peak memory
        # of one circuit at 20
        "circuits": ["lib:qv", "mqt:vqe_su2"],
        "circuit_memory": ["lib:qv"],
        "circuit_qubits": [12, 20],
        "complex64_circuit_qubits": [16],
        # the reference kernels take 3-50x the fastest's time per circuit; at 12 they
        # are placed, at 20 they would take minutes
        "circuit_max_qubits": {"naive": 8, "subspace": 12, "loop": 12, "unrolled": 12,
                               "cirq": 16},  # cirq: 10 s a run of qv at 20
        "circuit_max_work": 1e9,
        # one circuit unfused and at 4 at 18 qubits: qcbm and qv at 0, 2 and 4 at 20 took
        # 5.1 minutes here, a fifth of `make bench`, qcbm at 0 and 4 1.7 (the `fusion`
        # profile: four circuits at 20-24, every setting)
        "fusion_circuits": ["lib:qcbm"],
        "fusion_qubits": [18],
        "fusion_settings": [0, 4],
        "thread_qubits": [20],
        "peer_thread_qubits": [20],
        "complex64_qubits": [20],
        # 4, 8, 12, 14 measured 8.7 min here, a third of `make bench`, and 4, 8, 14 5.1
        # min; 10 and up are in `full`, 14 and 20 in `peers`
        "variational_qubits": [4, 8],
        "variational_max_qubits": {"forward": 8, "param_shift": 8, "finite": 8},
        "ad_sizes": {"ackley_loop": [16, 1600], "ackley": [16, 1600], "polynomial": [16]},
        "ad_chunk_sizes": {"ackley_loop": [1600], "ackley": [1600], "trmul": [30]},
        "ad_max_seconds": 3.0,
        "ad_eval_sizes": 2,
        # the eval suite at 3 s per first call measured 10.3 minutes here: its Jacobians
        # by reverse and source mode (one sweep per row) and the nested evals, whose
        # hand-written procedure alone takes 0.5 s (saddle) and 3 s (particle) a call,
        # are left to full
        "ad_eval_max_seconds": 0.5,
        "ad_eval_skip": ["particle", "saddle"],
        "ad_eval_ratio_backends": ["reverse", "source"],
        "ad_eval_objectives": ["numpy"],
        # the gate's instruction counts as history: H on every kernel, the circuits, the
        # adjoint method, tr(A @ B) in reverse and source mode (every stride gate and the
        # other AD problems took half of its 1.5 minutes; forward mode and finite
        # differences at 10x10 take most of a full count's 2.4 minutes)
        "gate_cases": ["gate/H/*", "circuit/*", "variational/QCBM/adjoint/*",
                       "ad/trmul/reverse/*", "ad/trmul/source/*"],
    },
    "full": {
        "rounds": 2,
        "gate_qubits": list(range(4, 26)),
        "call_qubits": [4, 8, 12, 16],
        "circuits": ["lib:*", "mqt:*"],
        "circuit_memory": ["lib:*"],
        "circuit_qubits": list(range(4, 26)),
        "circuit_max_qubits": {"naive": 10, "subspace": 20, "loop": 22},
        "circuit_max_work": 1e10,
        "fusion_circuits": FUSION_CIRCUITS,
        "fusion_qubits": [20, 22, 24, 26],
        "thread_qubits": [12, 14, 16, 18, 20, 22, 24, 25],
        "complex64_qubits": [12, 16, 20, 22, 24],
        "variational_qubits": list(range(4, 21, 2)),
        # torch and jax-jit keep every intermediate state: 17.6 and 11 GB at n = 20 on a
        # 24 GiB machine; qiskit-aer's reverse gradient takes 49 s per call there
        "variational_max_qubits": {"forward": 10, "param_shift": 14, "finite": 12,
                                   "reverse": 18, "source": 18, "torch": 18, "jax-jit": 18,
                                   "qiskit-aer": 16},
        "ad_sizes": {},
        "ad_chunk_sizes": {"ackley_loop": [16, 1600, 16000], "ackley": [16, 1600, 16000],
                           "trmul": [30], "mps": [30]},
        "ad_max_seconds": 60.0,
        "ad_eval_sizes": None,
        "ad_eval_ratio_backends": None,
        "ad_eval_objectives": None,
    },
    "peers": {
        "rounds": 1,
        "gate_qubits": [12, 20],
        "call_qubits": [12],
        "circuits": DEFAULT_CIRCUITS,
        "circuit_memory": DEFAULT_CIRCUITS,
        "circuit_qubits": [12, 20],
        "circuit_max_qubits": {"naive": 8},
        "circuit_max_work": 1e9,
        "thread_qubits": [20],
        "complex64_qubits": [12, 20],
        "variational_qubits": [14, 20],
        "variational_max_qubits": {"forward": 8, "param_shift": 8, "finite": 8,
                                   "reverse": 8, "source": 8, "torch": 14, "jax-jit": 14,
                                   "qiskit-aer": 14},
        "ad_sizes": {"ackley_loop": [16], "ackley": [16], "polynomial": [16]},
        "ad_chunk_sizes": {},
        "ad_max_seconds": 0.4,
        "ad_eval_sizes": 1,
        "ad_eval_ratio_backends": [],
        "ad_eval_objectives": ["numpy"],
        "gate_cases": ["gate/H/stride/n14"],
    },
}

#: For the fusion suite alone (`make bench-fusion`, which selects it): every declared
#: setting at the sizes where a state leaves L3.
PROFILES["fusion"] = {
    **{k: v for k, v in PROFILES["default"].items() if k != "fusion_settings"},
    "fusion_circuits": FUSION_CIRCUITS, "fusion_qubits": [20, 22, 24],
    "circuit_max_work": 1e11,
}

ENV_VAR = "QSIM_BENCH_PROFILE"


def sampling(profile, min_samples, max_samples, seconds):
    """asv's ``repeat`` for a suite that samples ``min_samples`` to ``max_samples`` calls for
    at most ``seconds``, that time capped at the profile's ``sample_seconds`` (absent: no
    cap). The minimum stays: a suite that needs 30 samples gets them."""
    cap = profile.get("sample_seconds")
    return (min_samples, max_samples, seconds if cap is None else min(seconds, cap))


def current():
    """The profile named by $QSIM_BENCH_PROFILE (default: ``default``)."""
    name = os.environ.get(ENV_VAR, "default")
    if name not in PROFILES:
        raise ValueError(f"{ENV_VAR}={name!r} is not a profile; choose from {sorted(PROFILES)}")
    return PROFILES[name]
