"""Sweep sizes: what each asv suite runs, per profile. ``make bench`` runs ``default``
(``PROFILE=`` or ``QSIM_BENCH_PROFILE=`` another); ``quick`` is CI's smoke run; ``full``
the seeds' 4..25 qubits, every AD size and eval; ``peers`` every kernel and peer at the
peer comparison's two sizes; ``fusion`` the fusion suite where a state leaves L3.

Each key is described once, in :data:`KEYS`; ``python -m harness.profiles --write``
renders every profile's contents into docs/benchmarks.md, and a test fails when the page
and this module drift apart."""

import argparse
import os
from pathlib import Path

from harness.markdown import between

#: cuQuantum's qv, random, qaoa and ghz, and two of MQT Bench's: a VQE ansatz (rotations and
#: CNOTs) and a quantum walk (X gates with up to n - 1 controls)
DEFAULT_CIRCUITS = ["lib:qv", "lib:random", "lib:qaoa", "lib:ghz", "mqt:vqe_su2",
                    "mqt:qwalk"]

#: The circuits whose fused and unfused times the issue's targets name, and a Heisenberg
#: chain, whose amplitudes turn subnormal (kernels.statevector.subnormals).
FUSION_CIRCUITS = ["lib:qcbm", "lib:qft", "lib:qv", "lib:random", "lib:heisenberg"]

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
        # the stage kernels' suite on a state in L1 only (every case in one setup)
        "stage_kernel_levels": ["L1"],
        "distributed_circuits": ["lib:qft"],
        "distributed_qubits": [10],
        # one job of each scaling over two ranks: the suite's machinery, which the tests
        # run at 2, 4 and 8 ranks besides (over 1 and 2, 2.1 of quick's 9 minutes)
        "distributed_ranks": [2],
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
        # the gate's instruction counts: one small case, the suite's machinery; CI's gate
        # counts every case after it (a case of each family cost 30 s here)
        "gate_cases": ["gate/H/stride/n4"],
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
        # the stage kernels against their roofline: every kind, width 1-4, layout and
        # precision on a state in L1 and in L2, measured together in one setup
        "stage_kernel_levels": ["L1", "L2"],
        # one MPI job per case, 5-10 s each: two circuits at 20 over 1 and 2 ranks, strong
        # and weak (full: five circuits at 22 and 26 on up to 4 ranks)
        "distributed_circuits": ["lib:qft", "lib:qcbm"],
        "distributed_qubits": [20],
        "distributed_ranks": [1, 2],
        "thread_qubits": [20],
        "peer_thread_qubits": [20],
        # thread scaling of a one-qubit gate and a controlled one (full: X and Rx too)
        "thread_gates": ["H", "CNOT"],
        "complex64_qubits": [20],
        # 4, 8, 12, 14 measured 8.7 min here, a third of `make bench`, and 4, 8, 14 5.1
        # min; 10 and up are in `full`, 14 and 20 in `peers`
        "variational_qubits": [4, 8],
        "variational_max_qubits": {"forward": 8, "param_shift": 8, "finite": 8},
        # the gradient / energy ratio of the method its target is stated for
        "variational_ratio_backends": ["adjoint"],
        "ad_sizes": {"ackley_loop": [16, 1600], "ackley": [16, 1600], "polynomial": [16]},
        "ad_chunk_sizes": {"ackley_loop": [1600], "ackley": [1600], "trmul": [30]},
        "ad_max_seconds": 3.0,
        # the ratios the targets are stated in (each a process per case): our exact
        # engines and torch (reverse / torch is the quotient of their ratios to manual)
        "ad_ratio_backends": ["reverse", "source", "torch"],
        "ad_eval_sizes": 2,
        # the eval suite at 3 s per first call measured 10.3 minutes here: its slowest
        # Jacobians and the nested evals, whose
        # hand-written procedure alone takes 0.5 s (saddle) and 3 s (particle) a call,
        # are left to full
        "ad_eval_max_seconds": 0.5,
        # gradbench's lstm (f: 77 ms at its smallest size) and det at 6 (f: 5 ms, an
        # element loop) are the field's standard evals, run by every tool whose first
        # gradient is predicted within these: on lstm reverse, source (1.5 s), torch
        # (2.3 s) and autograd (7.7 s); forward's chunk passes (21 s), finite differences
        # (41 s) and eager jax (77 s) are skipped with their predictions, jax-jit as an
        # unrolled loop. On det 6 all but jax and jax-jit (over 200 s)
        "ad_eval_max_seconds_of": {"lstm": 8.0, "det": 3.0},
        "ad_eval_skip": ["particle", "saddle"],
        "ad_eval_ratio_backends": ["reverse", "source"],
        "ad_eval_objectives": ["numpy"],
        # the gate's instruction counts as history: H on every kernel, the circuits, the
        # adjoint method, tr(A @ B) in reverse and source mode (every stride gate and the
        # other AD problems took half of its 1.5 minutes; forward mode and finite
        # differences at 10x10 take most of a full count's 2.4 minutes)
        "gate_cases": ["gate/H/stride/*", "circuit/*", "variational/QCBM/adjoint/*",
                       "ad/trmul/reverse/*"],
    },
    "full": {
        "rounds": 2,
        "distributed_circuits": ["lib:qft", "lib:qcbm", "lib:qv", "lib:random",
                                 "mqt:qftentangled"],
        "distributed_qubits": [22, 26],
        "distributed_ranks": [1, 2, 4],
        "gate_qubits": list(range(4, 26)),
        "call_qubits": [4, 8, 12, 16],
        "circuits": ["lib:*", "mqt:*"],
        "circuit_memory": ["lib:*"],
        "circuit_qubits": list(range(4, 26)),
        "circuit_max_qubits": {"naive": 10, "subspace": 20, "loop": 22},
        "circuit_max_work": 1e10,
        "fusion_circuits": FUSION_CIRCUITS,
        "fusion_qubits": [20, 22, 24, 26],
        "stage_kernel_levels": ["L1", "L2"],
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

#: What each key means (the rendered page's first column). ``peer_<key>`` (where a profile
#: has it) is the fewer sizes the simulator peers run at, so that a dozen peers fit.
KEYS = {
    "rounds": "asv rounds: separate processes per benchmark, samples pooled",
    "sample_seconds": "the most seconds any suite samples one combination for (absent: "
                      "each suite's own, 0.25 to 0.6 s)",
    "gate_qubits": "sizes of the gate suite (every backend, every benchmarked gate)",
    "peer_gate_qubits": "the peers' sizes in the gate suite (the baseline peer runs "
                        "the kernels' sizes)",
    "call_qubits": "sizes of the plain kernel call (checks and plans on every call)",
    "circuits": "the circuit suite's circuits, as `harness circuit` names them (`lib:*`, "
                "`mqt:*`: the whole library, every MQT Bench benchmark)",
    "circuit_memory": "the circuits whose peak memory is measured, at the largest size",
    "circuit_qubits": "sizes of the circuit suite",
    "complex64_circuit_qubits": "sizes of the complex64 circuits (absent: the same)",
    "circuit_max_qubits": "the largest n of whole circuits per slow backend (beyond a "
                          "backend's own declared limit)",
    "circuit_max_work": "the most gates x amplitudes of one circuit case",
    "fusion_circuits": "the fusion suite's circuits",
    "fusion_qubits": "sizes of the fusion suite",
    "fusion_settings": "the fusion settings it runs (absent: every declared one)",
    "stage_kernel_levels": "the memory levels (L1, L2) the stage kernels' roofline "
                           "shares are measured at (absent: none)",
    "distributed_circuits": "the distributed suite's circuits (one MPI job per case)",
    "distributed_qubits": "its n: strong scaling's, and weak scaling's at the most ranks",
    "distributed_ranks": "its ranks (jobs with more ranks than cores are skipped)",
    "thread_qubits": "sizes of the thread-scaling suite",
    "peer_thread_qubits": "the peers' sizes in the thread-scaling suite",
    "thread_gates": "the gates of the thread-scaling suite (absent: X, H, Rx, CNOT)",
    "complex64_qubits": "sizes of the complex64 gate suite",
    "variational_qubits": "sizes of the circuit-gradient suite",
    "variational_max_qubits": "the largest n per method or tool whose cost grows with "
                              "the number of angles or whose tape holds every state",
    "variational_ratio_backends": "the methods and tools whose gradient / energy ratio "
                                  "is sampled in one process (absent or None: all)",
    "ad_sizes": "the sizes n of the AD problems named (a problem not named: all of its "
                "sizes)",
    "ad_chunk_sizes": "the problems and sizes of forward mode's chunk sweep",
    "ad_ratio_backends": "the backends whose gradient / objective and / manual ratios are "
                         "sampled in one process (absent or None: all)",
    "ad_max_seconds": "the longest a combination's first gradient may be predicted to "
                      "take (each backend's declared cost model) before it is skipped",
    "ad_eval_sizes": "how many of each eval's sizes run, smallest first (None: every one)",
    "ad_eval_max_seconds": "the eval suite's own limit in place of ad_max_seconds",
    "ad_eval_max_seconds_of": "evals with a limit of their own in place of "
                              "ad_eval_max_seconds (eval -> seconds)",
    "ad_eval_skip": "the evals the profile leaves out",
    "ad_eval_ratio_backends": "the backends whose gradient / objective and / manual "
                              "ratios are sampled in one process (None: all)",
    "ad_eval_objectives": "the objectives timed besides the plain f (None: every peer's "
                          "translation too)",
    "gate_cases": "globs of the regression gate's tier-1 cases whose instruction counts "
                  "it records (absent: all)",
}


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


#: The lines of docs/benchmarks.md between which :func:`markdown` is rendered.
BEGIN, END = "<!-- profiles:begin -->", "<!-- profiles:end -->"
PAGE = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def _cell(value):
    if value is None:
        return "None"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_cell(v)}" for k, v in value.items()) or "{}"
    if isinstance(value, (list, tuple)):
        run = all(isinstance(v, int) for v in value) and len(value) > 3 and \
            list(value) == list(range(value[0], value[-1] + 1))
        return f"{value[0]}..{value[-1]}" if run else (", ".join(map(str, value)) or "-")
    return str(value)


def markdown():
    """Every profile's contents as one Markdown table: a row per key (what it means,
    then its value in each profile; a blank cell: the profile does not set it)."""
    names = list(PROFILES)
    lines = ["| key | what it is | " + " | ".join(names) + " |",
             "|---|---|" + "---|" * len(names)]
    for key, meaning in KEYS.items():
        cells = [_cell(PROFILES[p][key]).replace("|", "\\|") if key in PROFILES[p] else ""
                 for p in names]
        lines.append(f"| `{key}` | {meaning} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def rendered(text):
    """``text`` (the page) with its profiles table replaced by :func:`markdown`'s."""
    return between(text, BEGIN, END, markdown(), PAGE)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m harness.profiles",
                                     description="every profile's contents as Markdown")
    parser.add_argument("--write", action="store_true",
                        help=f"render them into {PAGE.relative_to(PAGE.parents[1])}")
    opts = parser.parse_args(argv)
    if opts.write:
        PAGE.write_text(rendered(PAGE.read_text()))
    else:
        print(markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
