"""Per-machine tuning: the constants the kernels and the fused planner use, measured on
this machine by ``python -m harness tune`` and cached, like FFTW's wisdom.

The cache is one JSON file per machine, named after a hash of what identifies it (the
CPU model, the widest ISA numba compiles for, the cache sizes the OS reports), in the
folder ``$QSIM_AD_BENCH_TUNING`` or ``~/.cache/qsim-ad-bench/tuning``. A kernel asks
:func:`value` for a constant; where this machine has no file, or the file lacks the
constant, it gets its own measured default (each states where and how it was measured).
:func:`describe` is what a result's settings carry: whether tuning was used and the
hash of the constants. A file that cannot be read or does not hold what the tuner wrote
is ignored, with a warning, never half-used.
"""

import hashlib
import json
import os
import warnings
from functools import cache
from pathlib import Path

from .machine import cache_sizes, isa

#: The folder of the cache, where set; else :data:`DEFAULT_FOLDER`.
ENV = "QSIM_AD_BENCH_TUNING"
DEFAULT_FOLDER = Path.home() / ".cache" / "qsim-ad-bench" / "tuning"
#: Bumped when the meaning of a constant changes: older files are then ignored.
FORMAT = 1


def cpu_model():
    """The CPU's model name as Linux reports it ('unknown' elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def machine_key():
    """What the constants depend on: a different CPU, ISA or cache gets its own file."""
    return {"cpu": cpu_model(), "isa": isa(),
            "caches": {f"L{k}": v for k, v in sorted(cache_sizes().items())},
            "format": FORMAT}


def _digest(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:8]


def path():
    """This machine's cache file (it may not exist)."""
    folder = Path(os.environ.get(ENV) or DEFAULT_FOLDER)
    return folder / f"{_digest(machine_key())}.json"


@cache
def load():
    """{name: value} tuned for this machine, or {} where there is no usable file."""
    p = path()
    if not p.exists():
        return {}
    try:
        doc = json.loads(p.read_text())
        if doc["machine"] != machine_key() or not isinstance(doc["constants"], dict):
            raise ValueError("it was written for another machine")
        return dict(doc["constants"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        warnings.warn(f"tuning: ignoring {p}: {exc}", stacklevel=2)
        return {}


def value(name, default):
    """The tuned constant ``name``, or ``default`` (the kernel's measured default) where
    this machine has none; of the default's type."""
    tuned = load().get(name)
    if tuned is None:
        return default
    return type(default)(tuned)


def describe():
    """What a result's settings say of tuning: 'none', or the hash of the constants."""
    constants = load()
    return _digest(constants) if constants else "none"


def save(constants, measured_with=None):
    """Write ``constants`` ({name: number}) as this machine's tuning; returns the path.
    ``measured_with``: how they were measured, kept for people who read the file."""
    p = path()
    p.parent.mkdir(parents=True, exist_ok=True)
    doc = {"machine": machine_key(), "constants": constants, "measured_with": measured_with}
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    tmp.replace(p)  # a reader sees the old file or the new one, never half of one
    load.cache_clear()
    return p
