"""Slices that every rank of a node can reach: an MPI-3 shared-memory window, one slice a
rank (``MPI_Win_allocate_shared``).

Between two ranks of one node an exchange through messages copies every byte twice: MPI
copies the partner's piece into a receive buffer, and the buffer goes into place (a piece
cannot land in place while the partner may still be reading it). When both slices sit in
one window, the pair swaps the blocks in place instead, each rank half of them, between
two meetings: every byte is read and written once, as in a copy (:mod:`.exchange`).
Ranks on other nodes still get messages.

A window is made by every rank of the communicator together and freed at exit (before MPI
finalizes), so a job makes one for each state it keeps, not one for each call.
"""

import atexit

import numpy as np

from .. import states

#: What the ranks' environment needs for windows (the backend declares it; the launcher
#: sets it unless the user has): Open MPI's UCX one-sided component prints an error on
#: every rank for each window made where UCX has no transport (this machine), and a node
#: window needs only shared memory, which its sm component serves.
ENVIRONMENT = {"OMPI_MCA_osc": "^ucx"}

#: The windows made so far, by the address of this rank's slice in them: the exchanger
#: looks a state up here to learn whether its partners' slices are within reach.
_BY_ADDRESS = {}


class NodeSlices:
    """One slice of ``size`` amplitudes for each rank of ``comm``, in a window shared by
    the ranks of each node. ``mine`` is this rank's (64-byte aligned, zeroed),
    ``slices`` maps a rank of ``comm`` on this node to its slice."""

    def __init__(self, comm, size, dtype):
        from mpi4py import MPI
        dtype = np.dtype(dtype)
        self.node = comm.Split_type(MPI.COMM_TYPE_SHARED)
        info = MPI.Info.Create()
        info.Set("alloc_shared_noncontig", "true")  # each rank's slice on its own pages
        self.win = MPI.Win.Allocate_shared(size * dtype.itemsize, dtype.itemsize, info,
                                           comm=self.node)
        info.Free()
        # a passive epoch for the whole life of the window: the pair's meetings order
        # the loads and stores, Sync makes them visible
        self.win.Lock_all(MPI.MODE_NOCHECK)
        self.slices = {}
        for i, rank in enumerate(self.node.allgather(comm.Get_rank())):
            buf, _ = self.win.Shared_query(i)
            self.slices[rank] = np.frombuffer(buf, dtype, count=size)
        self.mine = self.slices[comm.Get_rank()]
        self.mine[...] = 0
        self.freed = False
        _BY_ADDRESS[self.mine.ctypes.data] = self
        atexit.register(self.free)

    def sync(self):
        """This rank's stores to the window made visible to the node, and theirs to it."""
        self.win.Sync()

    def free(self):
        if not self.freed:
            self.freed = True
            _BY_ADDRESS.pop(self.mine.ctypes.data, None)
            self.win.Unlock_all()
            self.win.Free()
            self.node.Free()


def of(state):
    """The window ``state`` is this rank's slice of, or None (a private array)."""
    window = _BY_ADDRESS.get(state.ctypes.data)
    if window is not None and window.mine.size == state.size and not window.freed:
        return window
    return None


def shared_slice(comm, size, dtype):
    """This rank's zeroed slice of ``size`` amplitudes in a new node window, where the job
    has more than one rank and every rank's slice in it is 64-byte aligned; else None
    (the caller makes a private array)."""
    if comm.Get_size() == 1:
        return None
    window = NodeSlices(comm, size, dtype)
    # every rank decides alike: one misaligned slice sends all to private arrays
    if comm.allreduce(window.mine.ctypes.data % states.ALIGNMENT) == 0:
        return window.mine
    window.free()
    return None
