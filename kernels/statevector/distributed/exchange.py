"""The one message the distributed backend sends: a local bit and a global bit trade places.

Rank r holds the amplitudes whose global bit is y = bit j of r. Swapping local bit p with
that global bit moves the amplitudes whose bit p differs from y to the partner rank
r ^ 2**j, which sends back the same count, index for index: each rank swaps the half of
its slice where bit p is 1 - y with its partner's half where bit p is the partner's 1 - y.
The half goes in chunks of at most :func:`chunk_amplitudes` (two such buffers, a send and
a receive, stay within a quarter of the slice), so a rank's memory stays within 1.25
times its slice. A received chunk cannot land in place while the partner may still be
reading the piece it replaces, so each chunk is copied twice, by MPI into the receive
buffer and from there into the slice; a chunk small enough to stay in the core's cache
makes the second copy nearly free (see :data:`MESSAGE_BYTES`).
"""

import time

import numpy as np

#: The most bytes in one message. The receive buffer is read back at once into the slice,
#: so it should still sit in the core's L2; larger messages spill it to memory and smaller
#: ones pay the per-message handshake. Measured here (2 ranks, Open MPI 5 shared memory,
#: 64 MiB halves, 2 MiB of L2 per core), an exchange moved 0.46x a one-process copy's
#: bandwidth with 32 MiB messages, 0.58x with 4 MiB, 0.69-0.71x with 512 KiB and 0.52-0.54x
#: with 64 KiB. QuEST caps a message at 2**28 amplitudes, where MPI's int count overflows;
#: this is far below that.
MESSAGE_BYTES = 1 << 19


def chunk_amplitudes(slice_size, itemsize):
    """Amplitudes per message for slices of ``slice_size`` amplitudes of ``itemsize``
    bytes: an eighth of the slice (the send and the receive buffer together a quarter),
    at most :data:`MESSAGE_BYTES`."""
    return max(1, min(MESSAGE_BYTES // itemsize, slice_size // 8))


class Exchanger:
    """Swaps of a local and a global bit on one rank's slice, over ``comm``, with two
    buffers of ``chunk`` amplitudes allocated once; ``stats`` counts what it sent and the
    seconds in swaps, of which ``wait_seconds`` waiting for the partner to arrive."""

    def __init__(self, comm, slice_size, dtype):
        self.comm = comm
        self.chunk = chunk_amplitudes(slice_size, np.dtype(dtype).itemsize)
        self.send = np.empty(self.chunk, dtype)
        self.recv = np.empty(self.chunk, dtype)
        self.token = np.zeros(2, np.int8)  # [sent, received]: the pair's meeting
        self.reset()

    def reset(self):
        self.stats = {"exchanges": 0, "bytes_per_rank": 0, "seconds": 0.0,
                      "wait_seconds": 0.0, "messages": 0}

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
        # The pair meets first, so that the time a rank waits for a partner still busy
        # with its own gates (controls on global qubits leave ranks unequal work) is told
        # apart from the time the bytes take.
        self.comm.Sendrecv(self.token[:1], partner, recvbuf=self.token[1:], source=partner)
        met = time.perf_counter()
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
        s["wait_seconds"] += met - started


#: The slice :func:`bandwidth` exchanges: one size for every job, so that the numbers of
#: two runs compare, large enough that the per-message cost does not dominate.
MEASURE_BYTES = 64 << 20


def bandwidth(comm, dtype, repeat=5):
    """This job's exchange against memory, measured now on a scratch slice of
    :data:`MEASURE_BYTES` per rank: {"bytes", "exchange_gbs", "copy_gbs", "ratio"}, where
    ``exchange_gbs`` is the bytes each rank sends in one swap of the slice's upper half
    (the top local bit, whole halves) over the slowest rank's seconds, and ``copy_gbs``
    one process's copy of as many bytes while the others wait; the fastest of ``repeat``
    interleaved tries of each. None on one rank."""
    if comm.Get_size() < 2:
        return None
    dtype = np.dtype(dtype)
    scratch = np.zeros(MEASURE_BYTES // dtype.itemsize, dtype)
    local = scratch.size.bit_length() - 2  # the top bit of the slice's index
    source, target = scratch[: scratch.size // 2], np.empty(scratch.size // 2, dtype)
    exchanger = Exchanger(comm, scratch.size, dtype)

    def copy():
        if comm.Get_rank() == 0:
            np.copyto(target, source)
    swap_s, copy_s = [], []
    for _ in range(repeat):
        swap_s.append(slowest(comm, lambda: exchanger.swap(scratch, local, 0)))
        copy_s.append(slowest(comm, copy))
    sent = source.nbytes
    out = {"bytes": sent, "exchange_gbs": sent / min(swap_s) / 1e9,
           "copy_gbs": sent / min(copy_s) / 1e9}
    out["ratio"] = out["exchange_gbs"] / out["copy_gbs"]
    return out


def max_op():
    """MPI's MAX reduction (mpi4py is there wherever a communicator is)."""
    from mpi4py import MPI
    return MPI.MAX


def slowest(comm, call):
    """The seconds of ``call`` on every rank of ``comm``, between barriers: the slowest
    rank's, the same on every rank."""
    comm.Barrier()
    started = time.perf_counter()
    call()
    comm.Barrier()
    return comm.allreduce(time.perf_counter() - started, op=max_op())
