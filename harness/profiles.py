"""Sweep sizes. ``default`` keeps ``make bench`` well inside 15 minutes on a 2-core
machine; ``full`` is the seeds' 4..25 qubits; ``quick`` is the smoke run's."""

import os

PROFILES = {
    "quick": {
        "rounds": 1,
        "gate_qubits": [4, 10],
        "call_qubits": [4],
        "circuit_qubits": [4, 8],
        "thread_qubits": [12],
    },
    "default": {
        "rounds": 1,
        "gate_qubits": [4, 8, 12, 16, 20, 22],
        "call_qubits": [4, 12],
        "circuit_qubits": [4, 8, 12, 16],
        "thread_qubits": [16, 20, 22],
    },
    "full": {
        "rounds": 2,
        "gate_qubits": list(range(4, 26)),
        "call_qubits": [4, 8, 12, 16],
        "circuit_qubits": list(range(4, 21, 2)),
        "thread_qubits": [12, 14, 16, 18, 20, 22, 24, 25],
    },
}

ENV_VAR = "QSIM_BENCH_PROFILE"


def current():
    """The profile named by $QSIM_BENCH_PROFILE (default: ``default``)."""
    name = os.environ.get(ENV_VAR, "default")
    if name not in PROFILES:
        raise ValueError(f"{ENV_VAR}={name!r} is not a profile; choose from {sorted(PROFILES)}")
    return PROFILES[name]
