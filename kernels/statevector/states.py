"""State allocation with a memory check first, so that an impossible size is refused with
a clear message instead of a MemoryError (or the OOM killer) halfway through, and on a
cache-line boundary, where the SIMD kernels run fastest."""

import os

import numpy as np


def available_memory():
    """Bytes of memory available to this process now (MemAvailable, else total RAM)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _fmt(nbytes):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if nbytes < 1024 or unit == "EiB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024


def check_fits(n, dtype=np.complex128, copies=1):
    """Raise MemoryError, before allocating anything, if ``copies`` states of n qubits
    would not fit in the memory available now."""
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer number of qubits, got {n!r}")
    need = copies * (1 << int(n)) * np.dtype(dtype).itemsize
    have = available_memory()
    if need > have:
        raise MemoryError(
            f"a state of {n} qubits ({copies} cop{'y' if copies == 1 else 'ies'} of "
            f"2**{n} {np.dtype(dtype).name}) needs {_fmt(need)}, only {_fmt(have)} available")


#: Byte alignment of the states allocated here: one cache line. The SIMD kernels move
#: 64-byte vectors; at malloc's 16-byte alignment every vector straddles two lines, and a
#: gate that changes every other line (CNOT 2 -> 1) touches all of them: 1.5x slower at
#: 14 and 16 qubits. The kernels take any contiguous array; these are just faster.
ALIGNMENT = 64


def empty(size, dtype=np.complex128):
    """An uninitialised 1-D array of ``size`` elements whose first element starts on a
    cache line (:data:`ALIGNMENT`)."""
    dtype = np.dtype(dtype)
    nbytes = int(size) * dtype.itemsize
    raw = np.empty(nbytes + ALIGNMENT, dtype=np.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    return raw[start:start + nbytes].view(dtype)


def zeros(size, dtype=np.complex128):
    """:func:`empty`, filled with zeros."""
    out = empty(size, dtype)
    out.fill(0)
    return out


def aligned(vec, dtype=None):
    """A copy of the 1-D array ``vec`` (as ``dtype``, default its own) on a cache line."""
    vec = np.asarray(vec)
    out = empty(vec.size, vec.dtype if dtype is None else dtype)
    out[...] = vec.reshape(-1)
    return out


def zero_state(n, dtype=np.complex128):
    """|0...0> on n qubits."""
    check_fits(n, dtype)
    state = zeros(1 << n, dtype)
    state[0] = 1
    return state


def random_state(n, rng, dtype=np.complex128):
    """A normalised random state from the generator ``rng`` (np.random.default_rng(seed))."""
    check_fits(n, dtype, copies=2)
    dim = 1 << n
    state = empty(dim)
    state.real = rng.standard_normal(dim)  # the real parts drawn first, then the imaginary
    state.imag = rng.standard_normal(dim)
    state /= np.linalg.norm(state)
    return state if np.dtype(dtype) == state.dtype else aligned(state, dtype)
