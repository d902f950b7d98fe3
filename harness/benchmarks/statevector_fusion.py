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

from harness import registry
from harness.timing import best_seconds
from harness.tune import limits as tune_limits
from kernels.statevector import fused, roofline
from kernels.statevector.settings import PRECISIONS

from .statevector_circuits import check_case

CIRCUITS = PROFILE.get("fusion_circuits", [])
QUBITS = PROFILE.get("fusion_qubits", [])
DECLARED = registry.simulators()
FUSING = registry.fusing()
#: The fusing backends, our unfused kernel and every other peer, which run their one mode
#: (one pass per gate) as setting 0: the ratio tables' baselines.
BACKENDS = [registry.baseline("unfused").name, *FUSING,
            *(b.name for b in DECLARED.values() if not b.own and b.name not in FUSING)]
#: Every setting any fusing backend declares (or the profile's ``fusion_settings``); a
#: backend is skipped at the settings it does not declare.
SETTINGS = PROFILE.get("fusion_settings") or sorted(
    {k for name in FUSING for k in DECLARED[name].fusion.settings})


#: The settings and precisions of our fused backend among them.
FUSED_SETTINGS = [k for k in SETTINGS if k in fused.BACKEND.fusion.settings]
FUSED_PRECISIONS = [p.name for p in fused.BACKEND.precisions]


class _FusionCase(Suite):
    params = (CIRCUITS, QUBITS, BACKENDS, SETTINGS)
    param_names = ["circuit", "n", "backend", "fusion"]
    timeout = 900
    repeat = (1, 10, 0.5)
    min_run_count = 1
    precision = "complex128"

    @setup_once
    def setup(self, circuit, n, backend, fusion):
        declared = registry.simulator(backend)
        if fusion not in (declared.fusion.settings or (0,)):  # 0: a backend that never fuses
            raise NotImplementedError(f"{backend} declares fusion "
                                      f"{list(declared.fusion.settings) or 'none'}")
        if not declared.runs(self.precision):
            raise NotImplementedError(f"{backend} runs "
                                      f"{', '.join(map(str, declared.precisions))}")
        instructions = check_case(circuit, n, backend)
        self.load(backend, n, instructions, what=f"{circuit} n={n} fusion={fusion}",
                  precision=self.precision,
                  fusion=fusion if declared.fusion.settings else None)


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
    bytes a fused circuit really moves: its effective bandwidth; and which settings
    compiled to one program."""

    params = (CIRCUITS, QUBITS, FUSED_SETTINGS, FUSED_PRECISIONS)
    param_names = ["circuit", "n", "fusion", "precision"]
    unit = "passes"
    timeout = 300

    @setup_once
    def setup(self, circuit, n, fusion, precision):
        instructions = check_case(circuit, n, fused.BACKEND.name)
        self.info = fused.compile(instructions, n, PRECISIONS[precision].dtype,
                                  max_qubits=fusion).info

    def track_passes(self, circuit, n, fusion, precision):
        return self.info["passes"]

    def track_program(self, circuit, n, fusion, precision):
        """The program's digest (its plan, gates and matrices), as the number its first
        12 hex digits make (exact in a float): two settings with one number compiled to
        the same program, which the report shows as one row naming both."""
        return int(self.info["digest"][:12], 16)

    track_program.unit = "digest"


class FusedRoofline(Suite):
    """How near its roofline (kernels.statevector.roofline) the fused backend runs each
    circuit, at its default (the planner's width) and at each setting: the roofline time
    over the best measured time, in (0, 1], the limits from this machine's tuning or
    measured in this process. And, at the default, the width the planner chose."""

    params = (CIRCUITS, QUBITS, ["default", *map(str, FUSED_SETTINGS)], FUSED_PRECISIONS)
    param_names = FusedPasses.param_names
    unit = "fraction of the roofline"
    timeout = 600

    @setup_once
    def setup(self, circuit, n, fusion, precision):
        instructions = check_case(circuit, n, fused.BACKEND.name)
        self.load(fused.BACKEND.name, n, instructions, precision=precision,
                  what=f"{circuit} n={n} fusion={fusion}",
                  fusion=None if fusion == "default" else int(fusion))
        self.dtype = PRECISIONS[precision].dtype
        self.limits, _, self.level = tune_limits.for_state(precision,
                                                           self.dtype.itemsize << n)

    def track_roofline(self, circuit, n, fusion, precision):
        seconds = best_seconds(self.run, repeat=5, max_seconds=5.0, min_sample=0.0)
        best, _ = roofline.seconds(self.program.work, n, self.dtype, self.limits,
                                   self.level)
        return best / seconds

    def track_chosen_width(self, circuit, n, fusion, precision):
        return self.backend.info["max_qubits"]

    track_chosen_width.unit = "qubits"
