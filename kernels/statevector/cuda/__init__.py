"""CuPy raw CUDA kernels on cupy arrays: the seed's CUDA section, taken further.

The CUDA C is in ``cuda/statevector.cu``; CuPy compiles it with NVRTC on first use and
keeps the binary in its on-disk cache. One thread handles one amplitude pair (a
single-qubit gate) or one block of 2**k amplitudes (k = 2..5), its index turned into an
amplitude index by inserting zero bits at the target (and, for blocks, control)
positions, as the numba kernels do. A single-qubit gate takes the cheapest pair update
its matrix allows, chosen by ``stride.structure`` so that both kernels agree on the paths.

cupy is imported on first use, never at import time, so the package and its CPU kernels
work without cupy or a GPU; ``apply`` then raises NotImplementedError saying why.
"""

from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from .._validate import check_gate
from ..backend import Backend
from ..compiled import stride
from ..compiled._plan import control_masks, subspace_plan
from ..runner import PREPARED_GATES, KernelRunner, kernel_runner

SOURCE = Path(__file__).with_name("statevector.cu")

#: Threads per CUDA block. 256 keeps even the 32x32 complex128 kernel, at 240 registers
#: a thread, within one multiprocessor's 64K registers.
BLOCK = 256
#: Most CUDA blocks per launch; beyond BLOCK * MAX_GRID work items the kernels'
#: grid-stride loops give each thread several, instead of launching a huge grid.
MAX_GRID = 1 << 20
#: Largest gate: a thread keeps its 2**k amplitudes in registers and the CUDA block the
#: matrix in shared memory; at k = 6 the first spills and the second (64 KiB) overflows.
MAX_K = 5

_SUFFIX = {np.dtype(np.complex128): "c128", np.dtype(np.complex64): "c64"}


@cache
def _load_cupy():
    """(cupy, description) or (None, why not); asked once per process."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install failing at import
        return None, f"cupy is not importable ({type(exc).__name__}: {exc})"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # no driver: CUDARuntimeError rather than a zero count
        return None, f"cupy finds no usable CUDA device ({type(exc).__name__}: {exc})"
    if count < 1:
        return None, "cupy finds no CUDA device"
    return cupy, f"cupy {cupy.__version__} with {count} CUDA device(s)"


def available():
    """(True, what was found) or (False, why the cuda kernel cannot run here)."""
    cp, why = _load_cupy()
    return cp is not None, why


def sync():
    """Wait for the current device's queued work, so that a timer around ``apply``
    measures the GPU work, not just its launch. Nothing to wait for without cupy."""
    cp, _ = _load_cupy()
    if cp is not None:
        cp.cuda.Device().synchronize()


def single_qubit_name(path, dtype):
    return f"single_qubit_{path}_{_SUFFIX[np.dtype(dtype)]}"


def subspace_name(k, dtype):
    d = 1 << k
    return f"subspace_{d}x{d}_{_SUFFIX[np.dtype(dtype)]}"


def kernel_names():
    """Every kernel name ``apply`` may launch (the tests check that the .cu defines them)."""
    return tuple(
        [single_qubit_name(p, t) for t in _SUFFIX for p in stride.PATHS]
        + [subspace_name(k, t) for t in _SUFFIX for k in range(2, MAX_K + 1)])


def grid_size(count):
    """CUDA blocks for ``count`` work items of BLOCK threads each, capped at MAX_GRID."""
    return max(1, min(-(-count // BLOCK), MAX_GRID))


@cache
def _module():
    # compiled (per device) on first use; the RawKernels it hands out follow the device too
    cp, _ = _load_cupy()
    return cp.RawModule(code=SOURCE.read_text())


@cache
def _kernel(name):
    return _module().get_function(name)


@lru_cache(maxsize=1024)
def _device_plan(device_id, n, locs, ctrl_locs, ctrl_vals):
    """The subspace plan's index arrays on one device, uploaded once per gate signature."""
    cp, _ = _load_cupy()
    offsets, masks, lens, base_off, count = subspace_plan(n, locs, ctrl_locs, ctrl_vals)
    with cp.cuda.Device(device_id):
        arrays = tuple(cp.asarray(a) for a in (offsets, masks, lens))
        # cached for launches on any stream, so the upload must be finished, not queued
        cp.cuda.get_current_stream().synchronize()
    return arrays + (len(masks), base_off, count)


def _host_matrix(matrix, dtype):
    if not isinstance(matrix, np.ndarray) and hasattr(matrix, "get"):
        matrix = matrix.get()  # a cupy matrix: the single-qubit path needs its values
    try:
        return np.ascontiguousarray(matrix, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise NotImplementedError(
            f"the cuda kernel needs a numeric matrix ({type(exc).__name__}: {exc})") from None


def _device_matrix(cp, matrix, dtype, device_id):
    if isinstance(matrix, cp.ndarray):
        return cp.ascontiguousarray(matrix.astype(dtype, copy=False))
    host = _host_matrix(matrix, dtype)
    return _uploaded(device_id, host.dtype.str, host.tobytes())


@lru_cache(maxsize=256)
def _uploaded(device_id, dtype, data):
    """A gate matrix (flattened) on one device. Circuits reuse a handful of matrices, so
    each is copied once rather than paying a host-to-device copy on every gate."""
    cp, _ = _load_cupy()
    with cp.cuda.Device(device_id):
        u = cp.asarray(np.frombuffer(data, dtype=dtype))
        cp.cuda.get_current_stream().synchronize()  # as in _device_plan
    return u


def _clear_caches():
    """Forget compiled kernels and uploaded arrays (the tests swap cupy for a stand-in)."""
    for cached in (_module, _kernel, _device_plan, _uploaded):
        cached.cache_clear()


def _require(state, g):
    """NotImplementedError for what this kernel does not run, before any work."""
    if isinstance(state, np.ndarray):
        raise NotImplementedError(
            "the cuda kernel runs on cupy arrays, not numpy arrays; "
            "move the state to the GPU with cupy.asarray")
    cp, why = _load_cupy()
    if cp is None:
        raise NotImplementedError(f"the cuda kernel cannot run here: {why}")
    if not isinstance(state, cp.ndarray):
        raise NotImplementedError(
            f"the cuda kernel runs on cupy arrays, not {type(state).__name__}")
    if state.dtype not in _SUFFIX:
        raise NotImplementedError(
            f"the cuda kernel handles complex128 and complex64 states, not {state.dtype}")
    # the kernels index a plain array of double2/float2, which must also be aligned
    if not state.flags.c_contiguous or state.data.ptr % state.itemsize:
        raise NotImplementedError("the cuda kernel needs a contiguous, aligned state")
    if len(g.locs) > MAX_K:
        raise NotImplementedError(
            f"the cuda kernel handles gates on up to {MAX_K} qubits, not {len(g.locs)}")


def run(state, g):
    """Launch the kernel for a checked gate ``g`` on a state ``_require`` accepted."""
    cp, _ = _load_cupy()
    with state.device:
        if len(g.locs) == 1:
            (u00, u01), (u10, u11) = _host_matrix(g.matrix, state.dtype)
            path = stride.structure(u00, u01, u10, u11)
            cmask, cval = control_masks(g.ctrl_locs, g.ctrl_vals)
            npairs = state.size // 2
            args = (state, u00, u01, u10, u11, np.int32(g.locs[0]), np.int64(cmask),
                    np.int64(cval), np.int64(npairs))
            fn, count = _kernel(single_qubit_name(path, state.dtype)), npairs
        else:
            offsets, masks, lens, ngroups, base_off, count = _device_plan(
                state.device.id, g.n, g.locs, g.ctrl_locs, g.ctrl_vals)
            u = _device_matrix(cp, g.matrix, state.dtype, state.device.id)
            args = (state, u, offsets, masks, lens, np.int32(ngroups), np.int64(base_off),
                    np.int64(count))
            fn = _kernel(subspace_name(len(g.locs), state.dtype))
        fn((grid_size(count),), (BLOCK,), args)
    return state


def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    g = check_gate(state, matrix, locs, ctrl_locs, ctrl_vals)
    _require(state, g)
    return run(state, g)


class CudaRunner(KernelRunner):
    """The cuda kernel as a backend: states are cupy arrays on the current device, and
    ``sync`` waits for the queued launches (inside the timed region)."""

    def load(self, vec):
        cp, why = _load_cupy()
        if cp is None:
            raise NotImplementedError(f"the cuda kernel cannot run here: {why}")
        return cp.asarray(vec, dtype=self.dtype)

    def sync(self):
        sync()

    def result(self, state):
        return state.get()


#: The dtypes its CUDA kernels are compiled for (default first); states are cupy arrays
#: on the GPU, where CUDA's threads run it.
BACKEND = Backend(name="cuda", role="kernel", precisions=tuple(t.name for t in _SUFFIX),
                  runner=kernel_runner(__name__, CudaRunner), device="cuda",
                  threads="device", available=available, describe=PREPARED_GATES,
                  package="cupy-cuda12x",
                  # NVRTC compiles without --ftz: the device computes with subnormals
                  # (at full speed in its FMA units, unlike an x86 core)
                  flushes_subnormals="no")
