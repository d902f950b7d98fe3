"""Fusion as a benchmark dimension: whole circuits on every backend that fuses (the
fused backend and each peer that declares ``FUSION``) at each setting it declares, and on
our stride kernel and the peers that do not fuse (setting 0, their one mode), one thread,
complex128 and complex64. 0 is off (one pass per gate), k is at most k qubits per fused
gate.

The profile says which circuits (``fusion_circuits``), sizes (``fusion_qubits``) and
settings (``fusion_settings``, default every declared one): the default profile one large
size and settings 0, 2, 4; the ``fusion`` profile 20, 22 and 24; ``full`` 26 too.
"""

# first: _statevector_setup pins the thread counts before numpy and the tools load
from ._statevector_setup import PROFILE, Suite
from ._once import setup_once

from harness.statevector import backends

from .statevector_circuits import check_case

CIRCUITS = PROFILE.get("fusion_circuits", [])
QUBITS = PROFILE.get("fusion_qubits", [])
FUSING = backends.fusing()
#: The fusing backends, our best one-thread kernel (stride) and every other peer, which
#: run their one mode (one pass per gate) as setting 0: the ratio tables' baselines.
BACKENDS = ["stride", *FUSING, *(n for n in backends.peer_names() if n not in FUSING)]
#: Every setting any fusing backend declares (or the profile's ``fusion_settings``); a
#: backend is skipped at the settings it does not declare.
SETTINGS = PROFILE.get("fusion_settings") or sorted(
    {k for name in FUSING for k in backends.fusion_settings(name)})


class _FusionCase(Suite):
    params = (CIRCUITS, QUBITS, BACKENDS, SETTINGS)
    param_names = ["circuit", "n", "backend", "fusion"]
    timeout = 900
    repeat = (1, 10, 0.5)
    min_run_count = 1
    precision = "complex128"

    @setup_once
    def setup(self, circuit, n, backend, fusion):
        declared = backends.fusion_settings(backend)
        if fusion not in (declared or (0,)):
            raise NotImplementedError(f"{backend} declares fusion {list(declared) or 'none'}")
        if self.precision not in backends.precisions(backend):
            raise NotImplementedError(f"{backend} runs {backends.precisions(backend)}")
        instructions = check_case(circuit, n, backend)
        self.load(backend, n, instructions, what=f"{circuit} n={n} fusion={fusion}",
                     precision=self.precision, fusion=fusion if declared else None)


class FusedCircuit(_FusionCase):
    def time_circuit(self, circuit, n, backend, fusion):
        self.run()


class FusedCircuitComplex64(_FusionCase):
    precision = "complex64"

    def time_circuit(self, circuit, n, backend, fusion):
        self.run()


class FusedPasses:
    """The passes over the state the fused backend makes for each circuit and setting
    (its stages and its gates too wide for a stage), so that the report can count the
    bytes a fused circuit really moves: its effective bandwidth."""

    params = (CIRCUITS, QUBITS, [k for k in SETTINGS if k in backends.fusion_settings("fused")],
              list(backends.precisions("fused")))
    param_names = ["circuit", "n", "fusion", "precision"]
    unit = "passes"
    timeout = 300

    @setup_once
    def setup(self, circuit, n, fusion, precision):
        from kernels.statevector import fused
        instructions = check_case(circuit, n, "fused")
        self.info = fused.compile(instructions, n, backends.PRECISIONS[precision],
                                  max_qubits=fusion).info

    def track_passes(self, circuit, n, fusion, precision):
        return self.info["passes"]
