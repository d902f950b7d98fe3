"""Validation before timing: every backend's result is compared with the reference once
per parameter set; a wrong result fails the benchmark and it is never timed."""

import hashlib
import inspect
import os
import sys
from pathlib import Path

import numpy as np

from harness import registry, threads
from harness.errors import ValidationError
from kernels.statevector import _validate, bits, circuits
from kernels.statevector.codegen.sources import cache_dir
from kernels.statevector.settings import COMPLEX128
from kernels.statevector.settings import precision as as_precision

#: From this size on a reference result is kept on disk (:func:`reference`): asv runs each
#: backend of a case in a process of its own, and would compute it once per backend.
CACHE_QUBITS = 14
#: The cache's size limit; the oldest files go first.
CACHE_BYTES = 2 << 30


def reference_backend(n, besides=()):
    """The backend whose results others are validated against at n qubits: the first
    reference (the narrowest limit first: the dense oracle, then the fast reference)
    whose circuit limit takes n, not one of ``besides``."""
    for backend in registry.references():
        if n <= backend.circuit_max_qubits and backend.name not in besides:
            return backend
    raise ValueError(f"no reference backend takes {n} qubits")


def cross_check_backend(n, besides):
    """A second backend, independent of ``besides`` (the reference and the backends
    under test), to check the reference with: the first of our CPU kernels in registry
    order whose circuit limit takes n; None if there is none."""
    for backend in registry.own().values():
        if (backend.one_gate and backend.device == "cpu"
                and n <= backend.circuit_max_qubits and backend.name not in besides):
            return backend
    return None


def run_on(backend, vec, instructions):
    """``backend``'s result of ``instructions`` on a copy of ``vec`` in complex128, its
    threads on every core (a reference is not timed)."""
    n = vec.shape[0].bit_length() - 1
    runner = backend.make(COMPLEX128)
    with threads.all_cores():
        program = runner.program(instructions, n)
        state = runner.load(vec)
        runner.run(state, program)
        runner.sync()
    return np.asarray(runner.result(state))


def reference(vec, instructions, backend=None):
    """The reference result of running ``instructions`` on a copy of ``vec``, by
    ``backend`` (default :func:`reference_backend`).

    From :data:`CACHE_QUBITS` qubits on, the result is also kept on disk under a key of
    everything it depends on: the amplitudes of ``vec``, every instruction (name, qubits,
    controls, matrix) and the source of the reference code. A later call with the same
    inputs reads it back instead of recomputing it; any change to them is a new key."""
    n = vec.shape[0].bit_length() - 1
    backend = backend or reference_backend(n)
    if n < CACHE_QUBITS:
        return run_on(backend, vec, instructions)
    path = _cache_dir() / f"{_key(backend, vec, instructions)}.npy"
    try:
        found = np.load(path)
        if found.shape == vec.shape:
            os.utime(path)  # recently used: kept longest
            return found
    except (OSError, ValueError):
        pass
    result = run_on(backend, vec, instructions)
    _store(path, result)
    return result


def _cache_dir():
    return Path(cache_dir()).parent / "reference"


def _key(backend, vec, instructions):
    h = hashlib.sha256(backend.name.encode())
    # the reference's own code: its kernel, the checks and bit helpers, circuits.run
    kernel = sys.modules[backend.make(COMPLEX128).module.__name__]
    for path in sorted({inspect.getsourcefile(m) for m in (kernel, bits, _validate)}
                       | {inspect.getsourcefile(circuits.run)}):
        h.update(Path(path).read_bytes())
    h.update(str(vec.dtype).encode() + np.ascontiguousarray(vec).tobytes())
    for inst in instructions:
        h.update(repr((inst.locs, inst.ctrl_locs, inst.ctrl_vals or ())).encode())
        h.update(np.ascontiguousarray(inst.matrix, dtype=np.complex128).tobytes())
    return h.hexdigest()[:32]


def _store(path, result):
    """Write ``result`` atomically, then trim the cache to :data:`CACHE_BYTES`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npy")
        np.save(tmp, result)
        os.replace(tmp, path)
        files = sorted(path.parent.glob("*.npy"), key=lambda p: p.stat().st_mtime)
        total = sum(p.stat().st_size for p in files)
        for old in files[:-1]:
            if total <= CACHE_BYTES:
                break
            total -= old.stat().st_size
            old.unlink()
    except OSError:
        pass  # a cache that cannot be written only costs time


def compare(name, got, expected, what="", precision=COMPLEX128):
    """Raise :class:`ValidationError` naming the backend if ``got`` differs from
    ``expected`` by more than ``precision``'s tolerance."""
    got = np.asarray(got)
    precision = as_precision(precision)
    if got.shape != expected.shape:
        raise ValidationError(f"{name} {what}: result shape {got.shape}, expected {expected.shape}")
    err = np.max(np.abs(got - expected)) if got.size else 0.0
    atol = precision.atol
    if not err <= atol:  # also catches NaN
        raise ValidationError(f"{name} {what} ({precision}): max amplitude error {err:.3g} "
                              f"> {atol:g}")
    return err


def validated_program(backend, vec, instructions, expected=None, what=""):
    """Build ``backend``'s program, run it once on a copy of ``vec`` (this also compiles
    and warms up JIT code), check the result, and return the program."""
    backend.require()
    precision = backend.precision
    n = vec.shape[0].bit_length() - 1
    program = backend.program(instructions, n)
    state = backend.load(vec)
    backend.run(state, program)
    backend.sync()
    if expected is None:
        # from the amplitudes the backend was given, rounded to its precision
        start = vec.astype(precision.dtype).astype(np.complex128)
        expected = reference(start, instructions)
    compare(backend.name, backend.result(state), expected, what, precision)
    return program
