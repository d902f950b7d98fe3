"""``python -m harness circuit SOURCE --ranks R``: outside the job, check what can be
checked and start it (harness.distributed.launch); inside, run it
(harness.distributed.job).

Before any rank starts: R a power of two from 1 to 64, the circuit readable, every gate
small enough for a rank's slice, and (ranks on this machine) the slices within its
memory; otherwise exit 2 with the reason. The job's exit status is rank 0's: 0 every
backend agreed with the reference, 1 one did not, 2 bad input; a rank that fails or is
killed ends the job (exit 1, the launcher naming the rank).
"""

import sys
from pathlib import Path

from harness.circuit import command, sources
from harness.distributed import job, launch
from kernels.statevector.settings import precision as as_precision


def main(opts):
    if launch.in_job():
        return job.main(opts)
    try:
        precision = as_precision(opts.precision)
        job.declarations(opts.backends)
        circuit = sources.load(opts.circuit, opts.qubits)
        if opts.hostfile is not None and not Path(opts.hostfile).is_file():
            raise command.BadInput(f"--hostfile {opts.hostfile}: no such file")
        job.check(circuit, opts.ranks, precision, opts.hostfile, opts.launcher)
        code = launch.launch(opts.ranks, opts.argv, opts.launcher, opts.hostfile)
    except (ValueError, sources.SourceError, command.BadInput, launch.LaunchError) as exc:
        print(f"circuit: {exc}", file=sys.stderr)
        return 2
    if code not in (0, 1, 2):  # an abort or a killed rank: the launcher said which
        print(f"circuit: the MPI job ended with status {code} (a rank failed or was "
              "killed; the launcher's message above names it)", file=sys.stderr)
        return 1
    return code
