"""Peak memory of one call, for any tool (numpy, C++, a JIT): the resident set's high-water
mark (VmHWM) reset before the call (``/proc/self/clear_refs``), read after it, less the
resident set before. Linux only; elsewhere None, and the suites skip the measurement.

Memory that earlier calls freed but the C allocator still holds is resident, and a call
that reuses it grows nothing: an earlier call would hide a later one's peak. So the
allocator gives its free memory back first (glibc's ``malloc_trim``, where it is the C
library), and every call is measured from the same footing."""

import ctypes
import ctypes.util


def _trimmer():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # no glibc: measured as it stands
        return None


_TRIM = _trimmer()


def _status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    raise OSError(f"{key} not in /proc/self/status")


def peak_increase(fn):
    """Bytes the process's resident set grew at its peak during ``fn()`` (None where the
    kernel does not let the high-water mark be reset)."""
    if _TRIM is not None:
        _TRIM(0)
    try:
        before = _status("VmRSS:")
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS
    except OSError:
        return None
    fn()
    return max(0, _status("VmHWM:") - before)
