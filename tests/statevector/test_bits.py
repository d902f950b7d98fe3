import numpy as np
import pytest

from kernels.statevector.bits import (
    bcomspace,
    bmask,
    bsubspace,
    ctrl_offset,
    deposit,
    group_shift,
    insert_zeros,
    ismatch,
    lmove,
    log2i,
)


def test_log2i():
    assert [log2i(1 << p) for p in range(40)] == list(range(40))
    for bad in (0, 3, 6, -4):
        with pytest.raises(ValueError, match="power of two"):
            log2i(bad)


def test_bmask_and_lmove():
    assert bmask() == 0 and bmask(0, 2) == 0b101 and bmask(5) == 32
    assert lmove(0b111, 0b1, 2) == 0b11001


def test_group_shift_merges_contiguous_positions():
    assert group_shift((5, 1, 2)) == ([0b1, 0b11111], [2, 1])
    assert group_shift((0, 1, 2)) == ([0], [3])


@pytest.mark.parametrize("n,locs", [(1, (0,)), (4, (2, 0)), (6, (5, 1, 2)), (7, (6,)), (5, ())])
def test_bsubspace_is_every_index_with_locs_zero(n, locs):
    everything = np.arange(1 << n)
    mask = bmask(*locs)
    np.testing.assert_array_equal(bsubspace(n, locs), everything[(everything & mask) == 0])
    assert insert_zeros(0b1, locs) == bsubspace(n, locs)[1] if n > len(locs) else True


def test_bcomspace_follows_locs_order():
    assert bcomspace(4, (2, 0)).tolist() == [0, 4, 1, 5]
    assert bcomspace(3, (0, 1, 2)).tolist() == list(range(8))


@pytest.mark.parametrize("locs", [(2, 0), (0, 1, 2), (5, 1, 3), (7,), ()])
def test_deposit_is_one_entry_of_bcomspace(locs):
    assert [deposit(a, locs) for a in range(1 << len(locs))] == bcomspace(8, locs).tolist()


def test_ctrl_offset_and_ismatch():
    assert ctrl_offset((1, 3), (1, 0)) == 0b10
    assert ismatch(0b1010, 0b1010, 0b1010) and not ismatch(0b1000, 0b1010, 0b1010)
