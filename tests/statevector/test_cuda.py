"""The cuda kernel, checked in three layers so that most of it runs without a GPU:

* nvcc compiles every .cu file, and the PTX defines every kernel cuda.py may launch;
* the same CUDA C, compiled for the host by the C++ compiler with a small shim (one
  thread per CUDA block, blocks in turn), runs behind ``cuda.run`` on numpy arrays and
  must match the naive oracle on the very cases the GPU tests use;
* on a GPU (skipped, with the reason, without cupy or a device): cupy states against
  the oracle, plus what only a device shows (grid capping, 64-bit indices, refusals).
"""

import contextlib
import ctypes
import re
import shutil
import subprocess
import types

import numpy as np
import pytest

from kernels.statevector import cuda, gates, naive, stride, subspace
from kernels.statevector._validate import check_gate
from kernels.statevector.states import random_state

CU_FILES = sorted(cuda.SOURCE.parent.glob("*.cu"))
GPU_OK, GPU_WHY = cuda.available()
needs_gpu = pytest.mark.skipif(not GPU_OK, reason=f"needs cupy and a CUDA GPU: {GPU_WHY}")

#: Named single-qubit gates that between them take every path of stride.structure.
SINGLE = {"X": gates.X, "Y": gates.Y, "Z": gates.Z, "T": gates.T, "H": gates.H,
          "Rz": gates.Rz(0.7), "Rx": gates.Rx(0.3)}
#: Control values per case; None is two controls left at the default (all 1).
CTRL_PATTERNS = [(), (0,), (1,), (0, 1), (1, 0), None]
SIZES = [(k, n) for k in range(1, cuda.MAX_K + 1) for n in range(k, 11)]


def gate_cases(k, n, seed=0):
    """(matrix, locs, ctrl_locs, ctrl_vals) on n qubits: every matrix with every control
    pattern that fits, at one of three placements: random (unsorted, mostly
    non-adjacent), the highest qubit as the first target, or as the first control."""
    rng = np.random.default_rng(seed * 1000 + 10 * k + n)
    mats = [gates.random_unitary(k, rng),  # kernels apply any matrix, unitary or not
            rng.standard_normal((1 << k, 1 << k)) + 1j * rng.standard_normal((1 << k, 1 << k))]
    mats += {1: list(SINGLE.values()), 2: [gates.SWAP, gates.CNOT], 3: [gates.TOFFOLI]}.get(k, [])
    for vals in CTRL_PATTERNS:
        c = 2 if vals is None else len(vals)
        if n < k + c:
            continue
        perm = [int(q) for q in rng.permutation(n)]
        top = perm.index(n - 1)
        placements = [perm]
        for slot in (0, k) if c else (0,):
            p = perm[:]
            p[slot], p[top] = p[top], p[slot]
            placements.append(p)
        for j in range(max(len(mats), len(placements))):  # pair them off, cycling
            m, p = mats[j % len(mats)], placements[j % len(placements)]
            yield m, tuple(p[:k]), tuple(p[k:k + c]), vals


def check_against_naive(launch, k, n, dtype, oracle=naive.apply):
    """``launch(state, matrix, locs, ctrl_locs, ctrl_vals)`` returns the kernel's result
    as a numpy array; compare with the oracle on every case of ``gate_cases``. Above
    naive's size limit the oracle is ``subspace``, itself tested against naive."""
    rng = np.random.default_rng(n)
    atol = 1e-12 if dtype == np.complex128 else 2e-6
    for matrix, locs, ctrl_locs, ctrl_vals in gate_cases(k, n):
        state = random_state(n, rng, dtype)
        expect = oracle(state.astype(np.complex128), matrix, locs, ctrl_locs, ctrl_vals)
        got = launch(state, matrix, locs, ctrl_locs, ctrl_vals)
        np.testing.assert_allclose(got, expect, rtol=0, atol=atol, err_msg=(
            f"n={n} locs={locs} ctrl_locs={ctrl_locs} ctrl_vals={ctrl_vals}\n{matrix}"))


def test_single_qubit_matrices_cover_every_path():
    assert {stride.structure(*m.ravel()) for m in SINGLE.values()} == set(stride.PATHS)


def test_grid_size():
    assert cuda.grid_size(1) == 1
    assert cuda.grid_size(cuda.BLOCK) == 1
    assert cuda.grid_size(cuda.BLOCK + 1) == 2
    assert cuda.grid_size(1 << 40) == cuda.MAX_GRID  # the grid-stride loops do the rest


# --- the CUDA C compiles, and defines what cuda.py launches ---------------------------

@pytest.fixture(scope="module")
def ptx(tmp_path_factory):
    """{file name: (nvcc's CompletedProcess, PTX text)} for every .cu file."""
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH")
    out = {}
    for src in CU_FILES:
        dest = tmp_path_factory.mktemp("ptx") / f"{src.stem}.ptx"
        # sm_80 (A100) is the oldest GPU the benchmarks target, and C++11 is what NVRTC
        # at its most conservative accepts; warnings are errors so that they get fixed.
        proc = subprocess.run(
            ["nvcc", "-arch=sm_80", "--std=c++11", "-Werror", "all-warnings", "--ptx",
             "-o", str(dest), str(src)], capture_output=True, text=True)
        out[src.name] = proc, dest.read_text() if dest.exists() else ""
    return out


@pytest.mark.parametrize("name", [f.name for f in CU_FILES])
def test_cu_compiles_with_nvcc(ptx, name):
    proc, text = ptx[name]
    assert proc.returncode == 0, f"nvcc failed on {name}:\n{proc.stderr}"
    assert ".entry" in text


def test_every_launched_kernel_is_defined(ptx):
    entries = set()
    for _, text in ptx.values():
        entries |= set(re.findall(r"\.entry\s+(\w+)\s*\(", text))
    assert set(cuda.kernel_names()) <= entries, set(cuda.kernel_names()) - entries


# --- refusals that need no GPU --------------------------------------------------------

@pytest.mark.parametrize("locs, ctrl_locs", [((0,), ()), ((2, 0), (1,)), ((1, 0, 3), ())])
def test_numpy_state_is_refused_untouched(locs, ctrl_locs):
    state = random_state(4, np.random.default_rng(1))
    before = state.copy()
    matrix = gates.random_unitary(len(locs), np.random.default_rng(2))
    with pytest.raises(NotImplementedError, match="cupy arrays"):
        cuda.apply(state, matrix, locs, ctrl_locs)
    np.testing.assert_array_equal(state, before)


@pytest.mark.parametrize("state, matrix, locs, ctrl_locs, ctrl_vals, names", [
    (np.zeros(8, complex), np.eye(4), (0,), (), None, "matrix"),
    (np.zeros(8, complex), gates.X, (3,), (), None, "locs"),
    (np.zeros(8, complex), np.eye(4), (1, 1), (), None, "locs"),
    (np.zeros(8, complex), gates.X, (0,), (0,), None, "ctrl_locs"),
    (np.zeros(8, complex), gates.X, (0,), (1,), (2,), "ctrl_vals"),
    (np.zeros(8, complex), gates.X, (0,), (1, 2), (1,), "ctrl_vals"),
    (np.zeros(6, complex), gates.X, (0,), (), None, "state"),
    (np.zeros((2, 4), complex), gates.X, (0,), (), None, "state"),
])
def test_invalid_input_is_a_value_error_before_the_device_check(
        state, matrix, locs, ctrl_locs, ctrl_vals, names):
    before = state.copy()
    with pytest.raises(ValueError, match=names):
        cuda.apply(state, matrix, locs, ctrl_locs, ctrl_vals)
    np.testing.assert_array_equal(state, before)


@pytest.mark.skipif(GPU_OK, reason="cupy and a GPU are present")
def test_without_a_gpu_the_reason_is_given():
    device_array = types.SimpleNamespace(shape=(8,), dtype=np.dtype(np.complex128))
    with pytest.raises(NotImplementedError, match=re.escape(GPU_WHY)):
        cuda.apply(device_array, gates.X, (0,))
    cuda.sync()  # nothing to wait for, and no error


# --- the CUDA C run on the host, behind cuda.run --------------------------------------

SHIM = """
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
struct double2 { double x, y; };
struct float2 { float x, y; };
struct dim3 { unsigned x; };
static dim3 blockIdx = {0}, threadIdx = {0}, blockDim = {1}, gridDim = {1};
extern "C" void emu_block(unsigned b, unsigned g) { blockIdx.x = b; gridDim.x = g; }
static inline void __syncthreads() {}
"""


class _D2(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double)]


class _F2(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float)]


class _HostDevice(contextlib.nullcontext):
    id = 0


class HostArray(np.ndarray):
    """A numpy array that answers ``.device`` like a cupy array."""

    @property
    def device(self):
        return _HostDevice()


def _c_arg(a):
    if isinstance(a, np.ndarray):
        return ctypes.c_void_p, ctypes.c_void_p(a.ctypes.data)
    if isinstance(a, (np.complex128, np.complex64)):
        t = _D2 if isinstance(a, np.complex128) else _F2
        return t, t(a.real, a.imag)
    return {np.int32: ctypes.c_int, np.int64: ctypes.c_longlong}[type(a)], int(a)


@pytest.fixture(scope="module")
def host_lib(tmp_path_factory):
    cxx = shutil.which("c++") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no host C++ compiler (c++ or g++) on PATH")
    tmp = tmp_path_factory.mktemp("host")
    (tmp / "shim.h").write_text(SHIM)
    lib = tmp / "libstatevector.so"
    proc = subprocess.run(
        [cxx, "-O1", "-std=c++11", "-shared", "-fPIC", "-Wno-unknown-pragmas", "-include",
         str(tmp / "shim.h"), "-x", "c++", *map(str, CU_FILES), "-o", str(lib)],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return ctypes.CDLL(str(lib))


@pytest.fixture
def host_build(host_lib, monkeypatch):
    """A stand-in for cupy whose kernels are the host build: blockDim is 1, so each
    emulated thread walks its grid-stride loop over BLOCK times as many items."""

    def get_function(name):
        fn = getattr(host_lib, name)

        def launch(grid, block, args):
            fn.argtypes, values = zip(*map(_c_arg, args))
            for b in range(grid[0]):
                host_lib.emu_block(b, grid[0])
                fn(*values)
        return launch

    fake = types.SimpleNamespace(
        ndarray=HostArray, asarray=np.ascontiguousarray,
        RawModule=lambda code: types.SimpleNamespace(get_function=get_function),
        cuda=types.SimpleNamespace(
            Device=lambda i: contextlib.nullcontext(),
            get_current_stream=lambda: types.SimpleNamespace(synchronize=lambda: None)))
    cuda._clear_caches()  # no real kernels in, no fake ones out
    monkeypatch.setattr(cuda, "_load_cupy", lambda: (fake, "host emulation"))
    yield
    cuda._clear_caches()


def host_launch(state, matrix, locs, ctrl_locs, ctrl_vals):
    dev = state.copy().view(HostArray)
    return np.asarray(cuda.run(dev, check_gate(dev, matrix, locs, ctrl_locs, ctrl_vals)))


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("k, n", SIZES)
@pytest.mark.usefixtures("host_build")
def test_host_build_matches_naive(k, n, dtype):
    check_against_naive(host_launch, k, n, dtype)


@pytest.mark.usefixtures("host_build")
def test_host_build_with_a_capped_grid(monkeypatch):
    monkeypatch.setattr(cuda, "MAX_GRID", 3)
    for k in (1, 3):
        check_against_naive(host_launch, k, 9, np.complex128)


# --- on a GPU -------------------------------------------------------------------------

@pytest.fixture
def cp():
    import cupy
    return cupy


def _gpu_launch(cp):
    def launch(state, matrix, locs, ctrl_locs, ctrl_vals):
        dev = cp.asarray(state)
        assert cuda.apply(dev, matrix, locs, ctrl_locs, ctrl_vals) is dev
        return dev.get()
    return launch


@needs_gpu
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("k, n", SIZES)
def test_gpu_matches_naive(cp, k, n, dtype):
    check_against_naive(_gpu_launch(cp), k, n, dtype)


@needs_gpu
def test_gpu_with_a_capped_grid(cp, monkeypatch):
    # one CUDA block of BLOCK threads, each looping over 2**(14 - k - controls) / BLOCK items
    monkeypatch.setattr(cuda, "MAX_GRID", 1)
    for k in range(1, cuda.MAX_K + 1):
        check_against_naive(_gpu_launch(cp), k, 14, np.complex128, oracle=subspace.apply)


@needs_gpu
def test_gpu_large_state_and_cupy_matrices(cp):
    rng = np.random.default_rng(5)
    state = random_state(20, rng)
    dev = cp.asarray(state)
    for matrix, locs, ctrl_locs, ctrl_vals in [
            (gates.H, (19,), (0,), (1,)), (gates.T, (0,), (19, 7), (0, 1)),
            (gates.random_unitary(3, rng), (19, 0, 10), (4,), (0,)),
            (gates.random_unitary(5, rng), (3, 17, 0, 12, 8), (), None)]:
        subspace.apply(state, matrix, locs, ctrl_locs, ctrl_vals)
        cuda.apply(dev, cp.asarray(matrix), locs, ctrl_locs, ctrl_vals)
    cuda.sync()
    np.testing.assert_allclose(dev.get(), state, rtol=0, atol=1e-12)


@needs_gpu
def test_gpu_refusals_leave_the_state_untouched(cp):
    rng = np.random.default_rng(6)
    big = gates.random_unitary(cuda.MAX_K + 1, rng)
    for state, matrix, locs, match in [
            (cp.asarray(random_state(8, rng)), big, tuple(range(cuda.MAX_K + 1)), "qubits"),
            (cp.arange(8, dtype=cp.float64), gates.X, (0,), "float64"),
            (cp.asarray(random_state(4, rng))[::2], gates.X, (0,), "contiguous"),
            (cp.asarray(random_state(3, rng)), np.array([["a", 0], [0, 1]], object), (0,),
             "numeric matrix")]:
        before = state.copy()
        with pytest.raises(NotImplementedError, match=match):
            cuda.apply(state, matrix, locs)
        cp.testing.assert_array_equal(state, before)


@needs_gpu
def test_gpu_indices_past_2_to_the_31(cp):
    n = 32  # complex64, 32 GiB: an index above 2**31 overflows 32-bit arithmetic
    need = (8 << n) + (1 << 30)
    if cp.cuda.Device().mem_info[0] < need:
        pytest.skip(f"needs {need / 2**30:.0f} GiB of free GPU memory")
    state = cp.zeros(1 << n, dtype=cp.complex64)
    try:
        state[1] = 1
        cuda.apply(state, gates.X, (n - 1,), (0,))  # |1> -> |2**31 + 1>
        cuda.apply(state, gates.SWAP, (n - 1, n - 2))  # -> |2**30 + 1>
        cuda.sync()
        assert state[(1 << (n - 2)) + 1].item() == 1
        assert state[(1 << (n - 1)) + 1].item() == 0 and state[1].item() == 0
    finally:
        del state
        cp.get_default_memory_pool().free_all_blocks()
