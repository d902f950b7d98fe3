"""Validation before timing: every backend's result is compared with the reference once
per parameter set; a wrong result fails the benchmark and it is never timed."""

import hashlib
import inspect
import os
from pathlib import Path

import numpy as np

from harness.errors import ValidationError
from harness.statevector.backends import PRECISIONS
from kernels.statevector import circuits, naive, subspace

#: Largest state the dense oracle is used for; above it the reference is ``subspace``,
#: which the test suite checks against the dense oracle on every case.
DENSE_REFERENCE_QUBITS = 10

#: Amplitude tolerance per precision (unit-norm states, circuits of up to ~1000 gates).
ATOL = {"complex128": 1e-9, "complex64": 1e-4}



#: From this size on a reference result is kept on disk (:func:`reference`): asv runs each
#: backend of a case in a process of its own, and ``subspace`` takes ~25 ms a gate at 20
#: qubits, seconds per circuit, once per backend otherwise.
CACHE_QUBITS = 14
#: The cache's size limit; the oldest files go first.
CACHE_BYTES = 2 << 30


def reference(vec, instructions):
    """The reference result of running ``instructions`` on a copy of ``vec``.

    From :data:`CACHE_QUBITS` qubits on, the result is also kept on disk under a key of
    everything it depends on: the amplitudes of ``vec``, every instruction (name, qubits,
    controls, matrix) and the source of the reference code. A later call with the same
    inputs reads it back instead of recomputing it; any change to them is a new key."""
    n = vec.shape[0].bit_length() - 1
    kernel = naive.apply if n <= DENSE_REFERENCE_QUBITS else subspace.apply
    if n < CACHE_QUBITS:
        return circuits.run(kernel, vec.copy(), instructions)
    path = _cache_dir() / f"{_key(vec, instructions)}.npy"
    try:
        found = np.load(path)
        if found.shape == vec.shape:
            os.utime(path)  # recently used: kept longest
            return found
    except (OSError, ValueError):
        pass
    result = circuits.run(kernel, vec.copy(), instructions)
    _store(path, result)
    return result


def _cache_dir():
    from kernels.statevector._codegen import cache_dir
    return Path(cache_dir()).parent / "reference"


def _key(vec, instructions):
    from kernels.statevector import _validate, bits
    h = hashlib.sha256()
    # the reference's own code: its kernels, their checks and bit helpers, circuits.run
    for path in {inspect.getsourcefile(m) for m in (naive, subspace, bits, _validate)} | {
            inspect.getsourcefile(circuits.run)}:
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


def compare(name, got, expected, what="", precision="complex128"):
    """Raise :class:`ValidationError` naming the backend if ``got`` differs."""
    got = np.asarray(got)
    if got.shape != expected.shape:
        raise ValidationError(f"{name} {what}: result shape {got.shape}, expected {expected.shape}")
    err = np.max(np.abs(got - expected)) if got.size else 0.0
    atol = ATOL[precision]
    if not err <= atol:  # also catches NaN
        raise ValidationError(f"{name} {what} ({precision}): max amplitude error {err:.3g} "
                              f"> {atol:g}")
    return err


def validated_program(backend, vec, instructions, expected=None, what=""):
    """Build ``backend``'s program, run it once on a copy of ``vec`` (this also compiles
    and warms up JIT code), check the result, and return the program."""
    backend.require()
    precision = getattr(backend, "precision", "complex128")
    n = vec.shape[0].bit_length() - 1
    program = backend.program(instructions, n)
    state = backend.load(vec)
    backend.run(state, program)
    backend.sync()
    if expected is None:
        # from the amplitudes the backend was given, rounded to its precision
        start = vec.astype(PRECISIONS[precision]).astype(np.complex128)
        expected = reference(start, instructions)
    compare(backend.name, backend.result(state), expected, what, precision)
    return program
