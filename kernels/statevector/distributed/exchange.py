"""The one message the distributed backend sends: a local bit and a global bit trade places.

Rank r holds the amplitudes whose global bit is y = bit j of r. Swapping local bit p with
that global bit moves the amplitudes whose bit p differs from y to the partner rank
r ^ 2**j, which sends back the same count, index for index: each rank swaps the half of
its slice where bit p is 1 - y with its partner's half where bit p is the partner's 1 - y.
The half goes in chunks of at most :func:`chunk_amplitudes` (two such buffers, a send and
a receive, stay within a quarter of the slice; QuEST caps a message at 2**28 amplitudes
for the same reason), so a rank's memory stays within 1.25 times its slice.
"""

import time

import numpy as np

#: The most amplitudes in one message (QuEST's cap: larger counts overflow MPI's int).
MAX_MESSAGE = 1 << 28


def chunk_amplitudes(slice_size):
    """Amplitudes per message for slices of ``slice_size``: an eighth of the slice (the
    send and the receive buffer together a quarter), at most :data:`MAX_MESSAGE`."""
    return max(1, min(MAX_MESSAGE, slice_size // 8))


class Exchanger:
    """Swaps of a local and a global bit on one rank's slice, over ``comm``, with two
    buffers of ``chunk`` amplitudes allocated once; ``stats`` counts what it sent."""

    def __init__(self, comm, slice_size, dtype):
        self.comm = comm
        self.chunk = chunk_amplitudes(slice_size)
        self.send = np.empty(self.chunk, dtype)
        self.recv = np.empty(self.chunk, dtype)
        self.reset()

    def reset(self):
        self.stats = {"exchanges": 0, "bytes_per_rank": 0, "seconds": 0.0, "messages": 0}

    @property
    def buffer_bytes(self):
        return self.send.nbytes + self.recv.nbytes

    def swap(self, state, local, glob_index):
        """Swap local bit ``local`` of ``state`` (this rank's slice) with global bit
        ``glob_index`` (bit of the rank's number)."""
        started = time.perf_counter()
        rank = self.comm.Get_rank()
        partner = rank ^ (1 << glob_index)
        y = (rank >> glob_index) & 1
        half = state.reshape(-1, 2, 1 << local)[:, 1 - y, :]  # (A, B): B consecutive each
        rows, width = half.shape
        messages = 0
        if width >= self.chunk:  # consecutive pieces: sent from the state itself
            for a in range(rows):
                for s in range(0, width, self.chunk):
                    piece = half[a, s:s + self.chunk]
                    got = self.recv[:piece.size]
                    self.comm.Sendrecv(piece, partner, recvbuf=got, source=partner)
                    piece[...] = got
                    messages += 1
        else:  # short runs: packed, a chunk's worth of rows at a time
            per = self.chunk // width
            for a in range(0, rows, per):
                block = half[a:a + per]
                k = block.size
                packed = self.send[:k].reshape(block.shape)
                packed[...] = block
                got = self.recv[:k]
                self.comm.Sendrecv(self.send[:k], partner, recvbuf=got, source=partner)
                block[...] = got.reshape(block.shape)
                messages += 1
        s = self.stats
        s["exchanges"] += 1
        s["messages"] += messages
        s["bytes_per_rank"] += half.nbytes
        s["seconds"] += time.perf_counter() - started
