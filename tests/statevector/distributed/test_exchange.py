"""The exchange without MPI: R ranks as threads, each message through a queue. Swapping
local bits with global bits must move every amplitude where the swap of those bits of the
whole vector puts it, over one to three bits at once, with messages of whole runs,
packed runs and pieces of a run, and send what the plan says it sends."""

import queue
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.statevector.distributed import exchange
from kernels.statevector.distributed.plan import Exchange


class ThreadComm:
    """The two calls the exchanger makes, between threads: a message is a copy put in the
    (sender, receiver) queue."""

    def __init__(self, rank, size, boxes):
        self.rank, self.size, self.boxes = rank, size, boxes

    def Get_rank(self):  # noqa: N802 - mpi4py's names
        return self.rank

    def Get_size(self):  # noqa: N802
        return self.size

    def Sendrecv(self, buf, dest, recvbuf, source):  # noqa: N802
        self.boxes[self.rank, dest].put(np.array(buf, copy=True))
        recvbuf[...] = self.boxes[source, self.rank].get(timeout=30)


def swapped(vec, n, pairs):
    t = vec.reshape((2,) * n)  # axis a is bit n-1-a
    for p, G in pairs:
        t = np.swapaxes(t, n - 1 - p, n - 1 - G)
    return np.ascontiguousarray(t).reshape(-1)


def run_ranks(vec, g, local_bits, rank_bits):
    """Every rank's slice of ``vec`` after the swap, and rank 0's stats."""
    ranks, size = 1 << g, vec.size >> g
    slices = [vec[r * size:(r + 1) * size].copy() for r in range(ranks)]
    boxes = {(a, b): queue.Queue() for a in range(ranks) for b in range(ranks)}
    stats, errors = {}, []

    def work(r):
        try:
            ex = exchange.Exchanger(ThreadComm(r, ranks, boxes), size, vec.dtype)
            ex.swap(slices[r], local_bits, rank_bits)
            stats[r] = ex.stats
        except Exception as exc:  # reported below, with the rank
            errors.append((r, exc))
    threads = [threading.Thread(target=work, args=(r,)) for r in range(ranks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return np.concatenate(slices), stats[0]


@settings(max_examples=40, deadline=None)
@given(data=st.data(), g=st.integers(1, 3), local=st.integers(3, 7),
       message=st.sampled_from([16, 64, 1 << 19]))
def test_a_swap_of_k_bits_moves_what_the_swap_of_those_bits_moves(data, g, local, message):
    k = data.draw(st.integers(1, g))
    local_bits = tuple(data.draw(st.permutations(range(local)))[:k])
    rank_bits = tuple(data.draw(st.permutations(range(g)))[:k])
    n = local + g
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    vec = rng.normal(size=1 << n) + 1j * rng.normal(size=1 << n)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(exchange, "MESSAGE_BYTES", message)  # runs whole, packed, cut
        got, stats = run_ranks(vec, g, local_bits, rank_bits)
    pairs = [(p, local + j) for p, j in zip(local_bits, rank_bits)]
    np.testing.assert_array_equal(got, swapped(vec, n, pairs))
    step = Exchange(local_bits, tuple(local + j for j in rank_bits))
    assert stats["bytes_per_rank"] == step.sent(vec.itemsize << local)
    assert stats["exchanges"] == 1


@pytest.mark.parametrize("rank, bits, expected", [
    (0, (0,), [1]),
    (5, (1, 2), [7, 1, 3]),  # d = 1 flips bit 1, d = 2 bit 2, d = 3 both
])
def test_partners_in_the_order_of_the_rounds(rank, bits, expected):
    assert exchange.partners(rank, bits) == expected
    # a rank's partner in round d has it as its partner in round d too
    for d, other in enumerate(expected):
        assert exchange.partners(other, bits)[d] == rank
