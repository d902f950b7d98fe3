"""``python -m harness circuit``: in this one process (harness.circuit.command), or, with
``--ranks``, as the ranks of an MPI job (harness.distributed.command)."""

from harness.circuit import command
from harness.distributed import command as distributed_command


def main(opts):
    if opts.ranks is None:
        return command.main(opts)
    return distributed_command.main(opts)
