"""The fused backend's stage kernels against their roofline (harness.statevector.
stage_kernels): each kind of gate (dense, diagonal, permutation), width (1 to 4 qubits),
layout and precision, off a register's lanes and (split layout) on them, on a state in
each of the profile's memory levels (``stage_kernel_levels``), as the share of the
roofline its time reaches. One setup
measures every case, the FMA peak and the bandwidths side by side, round after round;
each benchmark reads its case. The target (issue 49): 3- and 4-qubit kernels at 70% or
more, in L1 and L2.
"""

import itertools

# first: _statevector_setup pins the thread counts before numpy and the tools load
from ._statevector_setup import PROFILE

from harness.statevector import stage_kernels
from kernels.statevector.fused import program
from kernels.statevector.settings import PRECISIONS

LEVELS = PROFILE.get("stage_kernel_levels", [])


class StageKernels:
    params = (list(stage_kernels.KINDS), list(stage_kernels.WIDTHS), list(program.LAYOUTS),
              list(PRECISIONS), LEVELS, [False, True])
    param_names = ["kind", "k", "layout", "precision", "level", "lanes"]
    timeout = 1200

    def setup_cache(self):
        # lane cases only in a layout with lanes
        keys = [c for c in itertools.product(*self.params)
                if stage_kernels.has_lanes(stage_kernels.Case(*c))]
        measured = stage_kernels.measure([stage_kernels.Case(*c) for c in keys])
        return {c: measured[stage_kernels.Case(*c)] for c in keys}

    def setup(self, rows, *case):
        if case not in rows:
            raise NotImplementedError(f"the {case[2]} layout has no lane gates")

    def track_roofline_share(self, rows, *case):
        seconds, roof, _ = rows[case]
        return roof / seconds

    track_roofline_share.unit = "fraction"

    def track_ns_per_amplitude(self, rows, *case):
        return rows[case][0] * 1e9

    track_ns_per_amplitude.unit = "ns"

