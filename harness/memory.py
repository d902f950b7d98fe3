"""Peak memory of one call, for any tool (numpy, C++, a JIT): the resident set's high-water
mark (VmHWM) reset before the call (``/proc/self/clear_refs``), read after it, less the
resident set before. Linux only; elsewhere None, and the suites skip the measurement."""


def _status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    raise OSError(f"{key} not in /proc/self/status")


def peak_increase(fn):
    """Bytes the process's resident set grew at its peak during ``fn()`` (None where the
    kernel does not let the high-water mark be reset)."""
    try:
        before = _status("VmRSS:")
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS
    except OSError:
        return None
    fn()
    return max(0, _status("VmHWM:") - before)
