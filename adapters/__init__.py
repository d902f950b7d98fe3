"""Adapters: one module per external tool, behind the project's own interfaces.

Each adapter module sets ``AVAILABLE`` (bool) and ``REASON`` (why it is unavailable, or
the tool's version) and never raises on import; discovery here never raises either, so
one missing or broken tool cannot hide the others.
"""

import importlib

#: adapter module (in this package) -> what it adapts: "simulator" or "ad".
#: Adding an adapter is one line here.
ADAPTERS = {
    "qulacs_sim": "simulator",
    "torch_ad": "ad",
    "autograd_ad": "ad",
    "jax_ad": "ad",
    "jax_jit_ad": "ad",
    "algopy_ad": "ad",
}


def load(name):
    """The adapter module ``name``; ValueError for a name not in :data:`ADAPTERS`.

    An adapter module that itself fails to import (a bug in it) raises here; use
    :func:`available` to survey adapters without raising.
    """
    if name not in ADAPTERS:
        raise ValueError(f"unknown adapter {name!r}; known: {sorted(ADAPTERS)}")
    return importlib.import_module(f"{__name__}.{name}")


def available():
    """``{name: (ok, reason)}`` for every registered adapter, in registry order."""
    out = {}
    for name in ADAPTERS:
        try:
            module = load(name)
        except Exception as exc:  # a broken adapter module must not stop discovery
            out[name] = (False, f"importing {__name__}.{name} failed: "
                                f"{type(exc).__name__}: {exc}")
            continue
        ok = getattr(module, "AVAILABLE", None)
        if not isinstance(ok, bool):
            out[name] = (False, f"{__name__}.{name} does not set AVAILABLE")
        else:
            out[name] = (ok, str(getattr(module, "REASON", "")))
    return out


def modules(kind):
    """The adapter modules of ``kind`` ("simulator" or "ad"), whether their tool is
    installed or not (each says so in AVAILABLE/REASON); a module that fails to import is
    left out (:func:`available` says why)."""
    out = []
    for name, k in ADAPTERS.items():
        if k != kind:
            continue
        try:
            out.append(load(name))
        except Exception:  # a broken adapter module must not stop the others
            continue
    return out


def _usable(kind):
    return {name: load(name) for name, (ok, _) in available().items()
            if ok and ADAPTERS[name] == kind}


def simulators():
    """``{name: module}`` of the simulator adapters whose tool is available."""
    return _usable("simulator")


def ad():
    """``{name: module}`` of the AD adapters whose tool is available."""
    return _usable("ad")
