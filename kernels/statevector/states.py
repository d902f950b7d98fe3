"""State allocation with a memory check first, so that an impossible size is refused with
a clear message instead of a MemoryError (or the OOM killer) halfway through."""

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


def zero_state(n, dtype=np.complex128):
    """|0...0> on n qubits."""
    check_fits(n, dtype)
    state = np.zeros(1 << n, dtype=dtype)
    state[0] = 1
    return state


def random_state(n, rng, dtype=np.complex128):
    """A normalised random state from the generator ``rng`` (np.random.default_rng(seed))."""
    check_fits(n, dtype, copies=2)
    dim = 1 << n
    state = rng.standard_normal(dim) + 1j * rng.standard_normal(dim)
    state /= np.linalg.norm(state)
    return state.astype(dtype, copy=False)
