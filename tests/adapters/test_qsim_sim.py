"""What the qsim adapter promises beyond the shared contract (test_simulators.py checks
it against the reference): the circuit translated once, outside run; qsim's thread option
honoured; complex64 only; qsim's silent failure turned into an error."""

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from adapters.simulators import qsim_sim as qs
from kernels.statevector import circuits
from kernels.statevector.states import random_state

pytestmark = pytest.mark.skipif(not qs.AVAILABLE, reason=qs.REASON)


def test_run_does_not_translate_again(monkeypatch):
    n = 6
    program = qs.circuit(circuits.qcbm(n, np.random.default_rng(0), depth=3), n)
    state = qs.from_numpy(random_state(n, np.random.default_rng(1)).astype(np.complex64))
    qs.run(state, program)  # the first run translates (the validation run of a benchmark)
    expected = qs.to_numpy(qs.run(qs.from_numpy(qs.to_numpy(state)), program))

    def no(*args, **kwargs):
        raise AssertionError("translated inside run")
    monkeypatch.setattr(qs.qsimcirq.QSimCircuit, "translate_cirq_to_qsim", no)
    monkeypatch.setattr(qs.qsimcirq.QSimSimulator, "simulate_into_1d_array", no)
    np.testing.assert_array_equal(qs.to_numpy(qs.run(state, program)), expected)


def test_complex128_is_refused():
    with pytest.raises(NotImplementedError, match="complex128"):
        qs.from_numpy(np.ones(2, dtype=np.complex128) / 2 ** 0.5)


def test_a_failed_qsim_call_raises(monkeypatch):
    state = qs.from_numpy(np.ones(4, dtype=np.complex64) / 2)
    monkeypatch.setattr(qs.qsimcirq.qsim, "qsim_simulate_fullstate",
                        lambda options, vec: np.zeros(0, dtype=np.float32))
    with pytest.raises(RuntimeError, match="qsim failed"):
        qs.run(state, qs.gate(circuits.gate("H", 0)))


def test_the_thread_option_reaches_qsim():
    """qsim's OpenMP pool (its own libgomp) grows by one thread only once a call asks for
    two: one thread by default, whatever OMP_NUM_THREADS says (qsim passes its count to
    every parallel region). In a fresh process, whose qsim has never run threads."""
    code = textwrap.dedent("""
        import os, numpy as np
        from adapters.simulators import qsim_sim as qs
        from kernels.statevector import circuits
        tasks = lambda: len(os.listdir("/proc/self/task"))
        s = qs.from_numpy(np.ones(1 << 14, dtype=np.complex64) / 2 ** 7)
        p = qs.circuit(circuits.qcbm(14, np.random.default_rng(0), depth=2), 14)
        qs.run(s, p); one = tasks()
        qs.set_threads(2); qs.run(s, p); two = tasks()
        print(one, two, qs.threads())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).parents[2],
                         env={"OMP_NUM_THREADS": "8", "PATH": ""}).stdout
    one, two, count = map(int, out.split())
    assert (two - one, count) == (1, 2)
