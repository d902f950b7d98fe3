"""The packed-SIMD pair updates (kernels/statevector/codegen/simd.py): each intrinsic against a
scalar loop written here, on every path, both precisions, real and complex entries, every
stride around the vector width and stretches shorter than a vector; the parallel stride
loops split into tasks smaller than a block; and the generated machine code holding
packed instructions."""

import re

import numba
import numpy as np
import pytest
from numba import njit

from kernels.statevector import KERNELS, gates, stride, threaded
from kernels.statevector._validate import check_gate
from kernels.statevector.codegen import simd

_c = 0.3 - 0.2j
_u = np.array([[0.6 + 0.1j, -0.3 + 0.7j], [0.5 - 0.4j, -0.6 + 0.2j]])
#: one matrix per path, with the structure stride.structure gives it
MATRICES = {
    "dense": _u,
    "hadamard": np.array([[_c, _c], [_c, -_c]]),
    "diag": np.diag([_u[0, 0], _u[1, 1]]),
    "phase": np.diag([1, _u[1, 1]]),
    "antidiag": np.array([[0, _u[0, 1]], [_u[1, 0], 0]]),
    "swap": np.array([[0, 1], [1, 0]], dtype=complex),
}
TOLERANCE = {np.complex128: 1e-13, np.complex64: 1e-5}


def scalar_pairs(state, u, pairs, s):
    """The reference: each pair (i, i + s) for i in ``pairs``, in complex128."""
    out = state.astype(np.complex128)
    for i in pairs:
        x, y = out[i], out[i + s]
        out[i], out[i + s] = u[0, 0] * x + u[0, 1] * y, u[1, 0] * x + u[1, 1] * y
    return out


def entries(u, real):
    """The four entries as the stride kernel passes them: floats where real, if ``real``."""
    return [z.real if real and z.imag == 0 else z for z in u.ravel().tolist()]


_CALLERS = {}


def caller(table, path):
    """A jitted function that calls intrinsic ``table[path]`` (intrinsics run inside numba
    code only)."""
    key = (table, path)
    if key not in _CALLERS:
        fn = getattr(simd, table)[path]

        @njit
        def call(st, j0, count, s, a, b, c, d):
            fn(st, j0, count, s, a, b, c, d)
        _CALLERS[key] = call
    return _CALLERS[key]


def test_every_path_has_a_matrix_of_its_structure():
    assert {stride.structure(*m.ravel().tolist()) for m in MATRICES.values()} == set(simd.PATHS)


@pytest.mark.parametrize("path", simd.PATHS)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("real", [False, True])
def test_runs_of_pairs(path, dtype, real, rng):
    u = MATRICES[path]
    for s in (1, 2, 4, 8, 64):
        for j0, count in ((0, s), (6 * s, s), (1, min(s, 7))):  # whole runs, and ragged
            state = (rng.normal(size=512) + 1j * rng.normal(size=512)).astype(dtype)
            want = scalar_pairs(state, u, range(j0, j0 + count), s)
            caller("RUNS", path)(state, j0, count, s, *entries(u, real))
            np.testing.assert_allclose(state, want, atol=TOLERANCE[dtype], rtol=0,
                                       err_msg=f"s={s} j0={j0} count={count}")


@pytest.mark.parametrize("path", simd.PATHS)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("real", [False, True])
def test_stretches_of_blocks(path, dtype, real, rng):
    """Strides below, at and above a vector's amplitudes (4 complex128, 8 complex64), and
    stretches of one block up to many vectors, at the start and inside the state."""
    u = MATRICES[path]
    for s in (1, 2, 4, 8, 32):
        for namps in (2 * s, 4 * s, 16 * s):
            for j0 in (0, namps):
                state = (rng.normal(size=1024) + 1j * rng.normal(size=1024)).astype(dtype)
                pairs = [i for b in range(j0, j0 + namps, 2 * s) for i in range(b, b + s)]
                want = scalar_pairs(state, u, pairs, s)
                caller("BLOCKS", path)(state, j0, namps, s, *entries(u, real))
                np.testing.assert_allclose(state, want, atol=TOLERANCE[dtype], rtol=0,
                                           err_msg=f"s={s} namps={namps} j0={j0}")


@pytest.mark.parametrize("log_task", [1, 2, 3])
def test_parallel_loops_split_into_small_tasks(log_task, rng, monkeypatch, request):
    """Tasks of 2, 4 and 8 amplitudes: long stretches and runs split, high targets go to
    the pairs shape, on every target with controls above, below and on both sides."""
    monkeypatch.setattr(threaded, "PARALLEL_THRESHOLD", 0)
    monkeypatch.setattr(stride, "LOG_AMPS_PER_TASK", log_task)
    stride.layout.cache_clear()  # layouts are cached with the task size they were made for
    request.addfinalizer(stride.layout.cache_clear)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    n = 7
    for name in ("dense", "phase", "swap"):
        u = MATRICES[name]
        for t in range(n):
            others = [q for q in range(n) if q != t]
            for ctrl_locs in ((), (max(others),), (min(others),), (min(others), max(others))):
                state = (rng.normal(size=1 << n) + 1j * rng.normal(size=1 << n))
                vals = tuple(int(v) for v in rng.integers(0, 2, len(ctrl_locs)))
                want = KERNELS["subspace"](state.copy(), u, (t,), ctrl_locs, vals)
                KERNELS["threaded"](state, u, (t,), ctrl_locs, vals)
                key, args = stride.layout(n, t, ctrl_locs, vals, True)
                assert args[3] <= max(log_task, t + 1), "tasks of the patched size"
                np.testing.assert_allclose(state, want, atol=1e-13,
                                           err_msg=f"{name} t={t} ctrl={ctrl_locs}")


#: packed multiplies, adds and fused multiply-adds on 256- or 512-bit registers (numba's
#: scalar code for the same loop has none: it moves and zeroes xmm registers at most)
PACKED = r"\bv(?:fn?m(?:add|sub)\w*|mul|add|sub)p{}\s[^\n]*%[yz]mm"


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("gate", ["H", "Rx", "T", "Y"])
@pytest.mark.parametrize("ctrl", [(), (3,), (0,)])
def test_the_stride_loops_are_packed_simd(dtype, gate, ctrl):
    """The compiled loop a gate runs holds packed arithmetic on 256- or 512-bit registers
    (numba's own code for the same loop holds none)."""
    matrix = {"H": gates.H, "Rx": gates.Rx(0.3), "T": gates.T, "Y": gates.Y}[gate]
    state = np.zeros(1 << 6, dtype=dtype)
    fn, args = stride.plan(check_gate(state, matrix, (1,), ctrl), state.dtype)
    # numba does not disassemble code it loaded from its cache: compile the loop afresh
    options = {k: v for k, v in fn.targetoptions.items() if k not in ("cache", "nopython")}
    fresh = njit(**options)(fn.py_func)
    fresh(state, *args)
    asm = "\n".join(fresh.inspect_asm().values())
    packed = re.findall(PACKED.format("d" if dtype == np.complex128 else "s"), asm)
    assert len(packed) >= 4, f"{gate} {dtype.__name__}: no packed instructions in the loop"
