"""What this machine offers the kernels, as the OS and LLVM report it: the sizes of the
data caches (the fused backend's chunk, the memory level a state sits in) and the widest
packed instruction set numba compiles for."""

import os
from functools import cache

from llvmlite import binding


def cache_sizes():
    """{level: bytes} of the data caches of CPU 0 as the OS reports them (Linux sysfs);
    L2 falls back to 1 MiB where nothing is reported."""
    return {level: size for level, (size, _) in _caches().items()}


def way_bytes(level=2):
    """Bytes of one way of the cache at ``level`` (its size over its associativity): the
    span of addresses whose lines fall in distinct sets. Data that repeats with a stride
    of a multiple of it meets itself in the same sets (16 ways where none are reported)."""
    size, ways = _caches()[level] if level in _caches() else (cache_sizes()[2], 16)
    return size // ways


@cache
def _caches():
    """{level: (bytes, ways)} of CPU 0's data caches."""
    out = {}
    root = "/sys/devices/system/cpu/cpu0/cache"
    try:
        entries = os.listdir(root)
    except OSError:
        entries = []
    for entry in entries:
        try:
            with open(f"{root}/{entry}/level") as f:
                level = int(f.read())
            with open(f"{root}/{entry}/type") as f:
                kind = f.read().strip()
            with open(f"{root}/{entry}/size") as f:
                size = _parse_size(f.read().strip())
        except (OSError, ValueError):
            continue
        try:
            with open(f"{root}/{entry}/ways_of_associativity") as f:
                ways = max(1, int(f.read()))
        except (OSError, ValueError):
            ways = 16
        if kind in ("Data", "Unified"):
            out[level] = (size, ways)
    out.setdefault(2, (1 << 20, 16))
    return out


def level_of(nbytes):
    """The memory level ("L2", "L3" or "DRAM") a buffer of ``nbytes`` sits in once it has
    been touched, from the cache sizes the OS reports (L3 = L2 where there is none)."""
    sizes = cache_sizes()
    for level in (2, 3):
        if nbytes <= sizes.get(level, sizes[2]):
            return f"L{level}"
    return "DRAM"


def _parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text and text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text)


@cache
def isa():
    """The widest packed instruction set numba's host CPU offers: what LLVM splits the
    kernels' vectors into."""
    features = binding.get_host_cpu_features()
    for name, flag in (("avx512", "avx512f"), ("avx2", "avx2"), ("avx", "avx")):
        if features.get(flag, False):
            return name
    return "sse2"
