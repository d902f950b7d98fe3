"""The one message the distributed backend sends: local bits and global bits trade places.

Rank r's global bits j_1..j_k have values y. Swapping local bits p_1..p_k with them sends
each amplitude whose bits p (values z) differ from y to the rank whose bits j are z, and
it lands where bits p are y; that rank sends back as many, index for index. So each rank
splits its slice into 2**k blocks by the values of bits p, keeps block y, and swaps block
z with the one partner whose bits j are z, in 2**k - 1 rounds (the round with
z = y ^ d pairs every rank with its partner's round d too). k = 1 is QuEST's pairwise
exchange of half a slice; larger k a batched remap (qiskit-aer's chunk swap, mpiQulacs'
FusedSWAP), 1 - 2**-k of the slice sent where k single swaps would send k halves.

Where the partner's slice is within reach, in a node window (:mod:`.window`), the pair
swaps the two blocks in place between two meetings, each rank half the pieces through
its own L2-sized buffer: a byte is read and written once. Otherwise messages go (MPI
``Sendrecv``, the partner on another node, or slices in private arrays).
A block goes in chunks of at most :func:`chunk_amplitudes` (two such buffers, a send and
a receive, stay within a quarter of the slice), so a rank's memory stays within 1.25
times its slice. A received chunk cannot land in place while the partner may still be
reading the piece it replaces, so each chunk is copied twice, by MPI into the receive
buffer and from there into the slice; a chunk small enough to stay in the core's cache
makes the second copy nearly free (see :data:`MESSAGE_BYTES`).
"""

import time

import numpy as np

from . import window as windows

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
        """Swap local bits ``local`` of ``state`` (this rank's slice) with global bits
        ``glob_index`` (bits of the rank's number), the i-th of each together."""
        started = time.perf_counter()
        rank = self.comm.Get_rank()
        mine = sum(((rank >> j) & 1) << i for i, j in enumerate(glob_index))
        view = _split(state, local)
        waited = sent = messages = 0
        window = windows.of(state)
        for d, partner in enumerate(partners(rank, glob_index), 1):
            block = view[_select(local, mine ^ d)]
            theirs = window.slices.get(partner) if window else None
            shared = window if theirs is not None else None
            # The pair meets first, so that the time a rank waits for a partner still
            # busy with its own gates (controls on global qubits leave ranks unequal
            # work) is told apart from the time the bytes take.
            meeting = time.perf_counter()
            self._meet(partner, shared)
            waited += time.perf_counter() - meeting
            if shared:  # the partner's slice is within reach
                self._swap_in_place(block, _split(theirs, local)[_select(local, mine)],
                                    rank < partner)
                self._meet(partner, shared)  # both halves done before either goes on
            else:
                messages += self._send(block, partner)
            sent += block.nbytes
        s = self.stats
        s["exchanges"] += 1
        s["messages"] += messages
        s["bytes_per_rank"] += sent
        s["seconds"] += time.perf_counter() - started
        s["wait_seconds"] += waited

    def _swap_in_place(self, block, other, first_half):
        """Half the pieces of ``block`` and ``other`` (the partner's) trade contents, the
        first half or the second, through the send buffer: the partner does the rest."""
        pieces = list(zip(_pieces(block, self.chunk), _pieces(other, self.chunk)))
        half = (len(pieces) + 1) // 2
        for a, b in pieces[:half] if first_half else pieces[half:]:
            held = self.send[:a.size].reshape(a.shape)
            held[...] = a
            a[...] = b
            b[...] = held

    def _send(self, block, partner):
        """``block`` swapped with the partner's by messages; how many were sent."""
        messages = 0
        for piece in _pieces(block, self.chunk):
            got = self.recv[:piece.size]
            if piece.ndim == 1:  # one run: sent from the state itself
                self.comm.Sendrecv(piece, partner, recvbuf=got, source=partner)
                piece[...] = got
            else:  # short runs, packed
                packed = self.send[:piece.size].reshape(piece.shape)
                packed[...] = piece
                self.comm.Sendrecv(self.send[:piece.size], partner, recvbuf=got,
                                   source=partner)
                piece[...] = got.reshape(piece.shape)
            messages += 1
        return messages

    def _meet(self, partner, window):
        """Wait for ``partner`` to get here too; with the window the pair shares, each
        side's stores to it are visible to the other afterwards."""
        if window:
            window.sync()
        self.comm.Sendrecv(self.token[:1], partner, recvbuf=self.token[1:], source=partner)
        if window:
            window.sync()


def partners(rank, bits):
    """The ranks ``rank`` swaps a block with when its bits ``bits`` (of its number) trade
    places with as many local bits, in the order of the rounds: round d (1 .. 2**k - 1)
    flips bit ``bits[i]`` where bit i of d is 1, so every rank meets its partner in the
    same round."""
    return [rank ^ sum(((d >> i) & 1) << j for i, j in enumerate(bits))
            for d in range(1, 1 << len(bits))]


def _split(state, bits):
    """``state`` (2**L amplitudes) viewed with an axis of length 2 for each bit of
    ``bits``, from the highest, and the runs of bits between them as axes of their own:
    bits 5 and 2 of 8 give the shape (4, 2, 4, 2, 4)."""
    shape, top = [], state.size.bit_length() - 1
    for b in sorted(bits, reverse=True):
        shape += [1 << (top - b - 1), 2]
        top = b
    shape.append(1 << top)
    return state.reshape(shape)


def _select(bits, value):
    """The index into :func:`_split`'s view of the block where bit ``bits[i]`` is bit i
    of ``value``."""
    order = sorted(range(len(bits)), key=lambda i: -bits[i])
    index = []
    for i in order:
        index += [slice(None), (value >> i) & 1]
    return tuple(index) + (slice(None),)


def _pieces(block, chunk):
    """``block`` (runs along its last axis, the other axes powers of two) cut into views
    of at most ``chunk`` amplitudes: pieces of one run (1-d) where a run is as long as a
    chunk, else as many whole runs as a chunk holds (2-d or more)."""
    width = block.shape[-1]
    if width >= chunk:
        for row in np.ndindex(block.shape[:-1]):
            for s in range(0, width, chunk):
                yield block[row][s:s + chunk]
        return
    per = chunk // width  # runs a piece holds: a power of two, as every axis length
    rows = block.size // width
    if rows <= per:
        yield block
        return
    inner = block.size // width // block.shape[0]  # runs under one index of axis 0
    if inner <= per:
        step = per // inner
        for a in range(0, block.shape[0], step):
            yield block[a:a + step]
    else:
        for a in range(block.shape[0]):
            yield from _pieces(block[a], chunk)


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
    # in a node window, as the states the job times are (windows.zero_slice)
    shared = windows.NodeSlices(comm, MEASURE_BYTES // dtype.itemsize, dtype)
    scratch = shared.mine
    local = scratch.size.bit_length() - 2  # the top bit of the slice's index
    source, target = scratch[: scratch.size // 2], np.empty(scratch.size // 2, dtype)
    exchanger = Exchanger(comm, scratch.size, dtype)

    def copy():
        if comm.Get_rank() == 0:
            np.copyto(target, source)
    swap_s, copy_s = [], []
    for _ in range(repeat):
        swap_s.append(slowest(comm, lambda: exchanger.swap(scratch, (local,), (0,))))
        copy_s.append(slowest(comm, copy))
    shared.free()  # every rank here together: the window is collective
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
