
"""The suites' import-time warm-up (``harness/benchmarks/_warm.py``): what asv's forkserver
does once, every parameter set's process finds done."""

import os
import subprocess
import sys

import pytest

_CHECK = """
from numba.core.registry import cpu_target
assert not cpu_target.typing_context._registries, "numba loaded before the suites"
from harness.benchmarks import _statevector_setup, variational_gradients
assert cpu_target.typing_context._registries, "numba's registries not loaded at import"

import numpy as np
from kernels import variational
from kernels.variational import _sweep
compiled = list(_sweep._step.signatures)
assert compiled, "the adjoint step was not compiled at import"
# what a parameter set does: the reference gradient at 9+ qubits, through the adjoint method
p = variational.qcbm_energy(9, 2, np.random.default_rng(1))
variational.GRADIENTS["adjoint"](p, p.theta0)
assert list(_sweep._step.signatures) == compiled, _sweep._step.signatures
print("ok")
"""


@pytest.mark.slow  # a whole process (or a gate run) for what faster tests check
def test_suites_load_numba_and_compile_the_adjoint_step_at_import():
    env = dict(os.environ, QSIM_BENCH_PROFILE="quick")
    out = subprocess.run([sys.executable, "-c", _CHECK], capture_output=True, text=True,
                         env=env, timeout=280)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("ok")
