"""The distributed backend ``mpi``: a state vector split over MPI ranks (mpi4py), each rank
running the fused backend on its slice. :mod:`.plan` chooses, over the whole circuit,
which qubits are global when and the exchanges that move them (no MPI in it);
:mod:`.exchange` sends the half slices; :mod:`.program` is the backend
(docs/distributed.md)."""

from .program import (  # noqa: F401 - the backend's API
    BACKEND,
    MAX_RANKS,
    MpiRunner,
    Placement,
    Program,
    compile,
    gather,
    global_qubits,
    implementation,
    local_slice,
    world,
    zero_slice,
)
