"""``python -m harness validate``: every backend on every benchmarked gate and circuit,
checked against the reference, as a table (ok / skipped with the reason / WRONG)."""

import numpy as np

from harness import backends, validate
from kernels.statevector import circuits
from kernels.statevector.states import random_state


def cases(n):
    from harness.benchmarks.statevector_gates import GATES
    for name, inst in GATES.items():
        if max(inst.locs + inst.ctrl_locs) < n:
            yield name, [inst]
    yield "QCBM", circuits.qcbm(n, np.random.default_rng(n))
    yield "QFT", circuits.qft(n)


def validate_all(qubits):
    names = backends.names()
    print(f"{'case':<12} {'n':>3}  " + " ".join(f"{b:>9}" for b in names))
    wrong = 0
    reasons = {}
    for n in qubits:
        vec = random_state(n, np.random.default_rng(n))
        for case, instructions in cases(n):
            expected = validate.reference(vec, instructions)
            row = []
            for b in names:
                try:
                    validate.validated_program(backends.get(b), vec, instructions, expected)
                    row.append("ok")
                except validate.ValidationError as exc:
                    row.append("WRONG")
                    reasons[b, case, n] = str(exc)
                    wrong += 1
                except NotImplementedError as exc:
                    row.append("skip")
                    reasons.setdefault((b, "skip"), str(exc))
            print(f"{case:<12} {n:>3}  " + " ".join(f"{r:>9}" for r in row))
    for key, why in reasons.items():
        print(f"  {key[0]} {' '.join(map(str, key[1:]))}: {why}")
    print(f"{wrong} wrong result(s)")
    return 1 if wrong else 0
