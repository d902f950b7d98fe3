"""What the qibojit adapter promises beyond the shared contract (test_simulators.py
checks the amplitudes; test_peer_specifics the named gates and numba's thread count after
a backend is made): gates and circuits run in place on the state's own array, one backend
per precision, and qibo leaving numba's configuration alone."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from adapters.simulators import qibojit_sim as qj
from kernels.statevector import circuits
from kernels.statevector.states import random_state

pytestmark = pytest.mark.skipif(not qj.AVAILABLE, reason=qj.REASON)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_programs_run_in_place(dtype):
    """No copy of the state in run: the array it holds is the array it updated."""
    n = 6
    state = qj.from_numpy(random_state(n, np.random.default_rng(0)).astype(dtype))
    vec = state.vec
    gate = qj.gate(circuits.gate("X", 1, ctrl=(2,), ctrl_vals=(0,)))
    circ = qj.circuit(circuits.qcbm(n, np.random.default_rng(1), depth=2), n)
    before = vec.copy()
    qj.run(state, gate)
    assert state.vec is vec and not np.array_equal(vec, before)
    qj.run(state, circ)
    assert state.vec is vec and vec.dtype == dtype


def test_a_circuit_is_a_qibo_circuit_and_the_backends_keep_their_precision():
    from qibo import Circuit
    program = qj.circuit(circuits.qft(3), 3)
    assert isinstance(program.get(3), Circuit)
    assert qj._backend("complex64").dtype == "complex64"
    assert qj._backend("complex128").dtype == "complex128"
    assert qj._backend("complex64") is not qj._backend("complex128")


def test_threads_are_numbas():
    import numba
    before = numba.get_num_threads()
    try:
        qj.set_threads(1)
        assert qj.threads() == numba.get_num_threads() == 1
    finally:
        numba.set_num_threads(before)
    with pytest.raises(ValueError):
        qj.set_threads(0)


PROBE = """
import json, numba
from numba.core import config
def snap():
    return [config.NUMBA_NUM_THREADS, str(config.THREADING_LAYER), numba.get_num_threads()]
before = snap()
import numpy as np
from adapters.simulators import qibojit_sim as qj
from kernels.statevector import circuits
imported = snap()
for dtype in (np.complex128, np.complex64):
    s = qj.from_numpy(np.ones(4, dtype=dtype) / 2)
    qj.run(s, qj.circuit([circuits.gate("H", 0), circuits.cnot(1, 0)], 2))
print(json.dumps([before, imported, snap(), float(np.linalg.norm(qj.to_numpy(s)))]))
"""


def test_qibo_leaves_numbas_configuration_alone_with_fewer_numba_threads_than_cores():
    """Fresh process with NUMBA_NUM_THREADS=1: qibojit's own constructor would ask numba
    for every core and fail."""
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    before, imported, after, norm = json.loads(out.stdout.strip().splitlines()[-1])
    assert before == imported == after and before[0] == 1
    assert abs(norm - 1) < 1e-6
