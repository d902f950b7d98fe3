"""Adapters: one module per external tool, behind the project's own interfaces.

Each adapter module sets ``NAME``, ``AVAILABLE`` (bool) and ``REASON`` (why it is
unavailable, or the tool's version) and never raises on import; discovery here never
raises either, so one missing or broken tool cannot hide the others.

Besides the built-in modules of :data:`ADAPTERS`, any installed distribution can add a
backend as a plugin: an entry point in the group ``qsim_ad_bench.simulators`` or
``qsim_ad_bench.ad`` whose value is a module with the same interface, e.g. in its
``pyproject.toml``::

    [project.entry-points."qsim_ad_bench.simulators"]
    mysim = "mysim_bench.adapter"

A plugin is then registered as ``mysim`` and treated exactly like a built-in adapter.
"""

import importlib
import importlib.metadata

from .ad._base import declaration as ad_declaration
from .simulators._base import declaration as simulator_declaration

#: built-in adapter module -> what it adapts: "simulator" (a module of
#: adapters.simulators) or "ad" (of adapters.ad). Adding an adapter is one line here.
ADAPTERS = {
    "qulacs_sim": "simulator",
    "qiskit_aer_sim": "simulator",
    "lightning_sim": "simulator",
    "cirq_sim": "simulator",
    "qsim_sim": "simulator",
    "mindquantum_sim": "simulator",
    "qibojit_sim": "simulator",
    "projectq_sim": "simulator",
    "quest_sim": "simulator",
    "quest_mpi_sim": "simulator",
    "qiskit_aer_mpi_sim": "simulator",
    "torch_ad": "ad",
    "autograd_ad": "ad",
    "jax_ad": "ad",
    "jax_jit_ad": "ad",
    "algopy_ad": "ad",
}

#: what a plugin adapts -> the entry-point group it declares itself in.
PLUGIN_GROUPS = {"simulator": "qsim_ad_bench.simulators", "ad": "qsim_ad_bench.ad"}
#: what an adapter adapts -> the subpackage its built-in modules live in.
PACKAGES = {"simulator": "simulators", "ad": "ad"}

#: what an adapter module of each kind must define, besides NAME, AVAILABLE and REASON
#: (docs/architecture.md, "Adapters"); a module without all of it is listed
#: by :func:`available` with what it lacks and left out of :func:`modules`.
INTERFACE = {
    "simulator": ("from_numpy", "to_numpy", "gate", "circuit", "run", "apply", "sync"),
    "ad": ("gradient", "prepare", "sync"),
}


class PluginError(ImportError):
    """A plugin's entry point could not be used (it failed to load, or its name clashes)."""


def plugins():
    """``{name: (kind, entry point)}`` of the installed plugins, in a stable order.

    A plugin whose name is a built-in adapter's, or is declared twice, is still listed
    (under ``"<name> (<distribution>)"``) so that :func:`available` can say why it is not
    used; it never replaces the built-in one.
    """
    found = {}
    for kind, group in PLUGIN_GROUPS.items():
        try:
            points = importlib.metadata.entry_points(group=group)
        except Exception:  # a broken distribution's metadata must not stop discovery
            continue
        for ep in sorted(points, key=lambda e: (e.name, e.value)):
            name = ep.name
            if name in ADAPTERS or name in found:
                name = f"{ep.name} ({_distribution(ep)})"
            found[name] = (kind, ep)
    return found


def _distribution(ep):
    dist = getattr(ep, "dist", None)
    return getattr(dist, "name", None) or ep.value


def registry():
    """``{name: kind}`` of every adapter, built-in first, then the plugins."""
    return ADAPTERS | {name: kind for name, (kind, _) in plugins().items()}


def load(name):
    """The adapter module ``name``: a built-in adapter's module name (``qulacs_sim``), a
    plugin's entry-point name, or an adapter's ``NAME`` (``qulacs``, ``qiskit-aer``,
    ``jax-jit``): the names ``harness.statevector.backends.get`` takes. ValueError for an
    unknown name, listing the known ones.

    A registry name wins over a NAME; a NAME is looked up in registry order, built-in
    adapters first, so that the adapter found is the one :func:`available` uses. An
    adapter module that itself fails to import (a bug in it) raises here when it is the
    one named; use :func:`available` to survey adapters without raising.
    """
    if name in ADAPTERS:
        return importlib.import_module(f"{__name__}.{PACKAGES[ADAPTERS[name]]}.{name}")
    found = plugins()
    if name in found:
        return _load_plugin(name, *found[name])
    module, names = _by_tool_name(name, found)
    if module is None:  # every adapter was tried: ``names`` holds all their NAMEs
        raise ValueError(f"unknown adapter {name!r}; known: {sorted(ADAPTERS) + sorted(found)}"
                         f" or their NAMEs {sorted(names)}")
    return module


def _load_plugin(name, kind, ep):
    if name != ep.name:
        raise PluginError(f"plugin {ep.name!r} ({ep.group} = {ep.value!r}, from "
                          f"{_distribution(ep)}) is not used: an adapter of that name exists")
    try:
        return ep.load()
    except Exception as exc:
        raise PluginError(f"plugin {name!r} ({ep.group} = {ep.value!r}) failed to load: "
                          f"{type(exc).__name__}: {exc}") from exc


def _by_tool_name(tool, found):
    """``(module, NAMEs seen)``: the first adapter, in registry order, whose NAME is
    ``tool`` (None if none). The built-in module the NAME suggests (``qiskit-aer`` ->
    ``qiskit_aer_sim`` or ``qiskit_aer_ad``) is tried first, so that naming a tool does not
    import every other adapter; since the built-ins come first and their NAMEs are unique
    (tests/adapters/test_registry.py), that is the registry-order answer. Adapters that fail
    to load are passed over, as discovery passes over them."""
    stem = tool.replace("-", "_")
    guesses = [f"{stem}_{suffix}" for suffix in ("sim", "ad") if f"{stem}_{suffix}" in ADAPTERS]
    names = set()
    for candidate in [*guesses, *ADAPTERS, *found]:
        try:
            module = load(candidate)
        except Exception:  # a broken adapter or plugin: available() says why
            continue
        module_name = getattr(module, "NAME", None)
        if module_name == tool:
            return module, names
        if isinstance(module_name, str):
            names.add(module_name)
    return None, names


def _origin(name):
    return (f"{__name__}.{PACKAGES[ADAPTERS[name]]}.{name}" if name in ADAPTERS
            else f"plugin {name}")


def _survey(kind=None):
    """``{name: (module or None, ok, reason)}`` for every registered adapter (of ``kind``):
    the module is None where discovery refuses it (failed import, no AVAILABLE or NAME,
    part of :data:`INTERFACE` missing, a NAME another adapter of its kind has already,
    facts it declares that are not facts: a precision or fusion default that does not
    parse). Only the adapters of ``kind`` are imported, so that the AD suites do not
    import every simulator."""
    out = {}
    names = set()
    for name, k in registry().items():
        if kind is not None and k != kind:
            continue
        try:
            module = load(name)
        except PluginError as exc:
            out[name] = (None, False, str(exc))
            continue
        except Exception as exc:  # a broken adapter module must not stop discovery
            out[name] = (None, False, f"importing {_origin(name)} failed: "
                                      f"{type(exc).__name__}: {exc}")
            continue
        ok = getattr(module, "AVAILABLE", None)
        tool = getattr(module, "NAME", None)
        missing = [f for f in INTERFACE[k] if not callable(getattr(module, f, None))]
        if not isinstance(ok, bool):
            out[name] = (None, False, f"{_origin(name)} does not set AVAILABLE")
        elif not isinstance(tool, str) or not tool:
            out[name] = (None, False, f"{_origin(name)} does not set NAME")
        elif missing:
            out[name] = (None, False, f"{_origin(name)} lacks {', '.join(missing)} ({k} "
                                      f"adapters have {', '.join(INTERFACE[k])})")
        elif (k, tool) in names:
            out[name] = (None, False,
                         f"{_origin(name)}: NAME {tool!r} is already another adapter's")
        elif (refused := _refused_facts(module, k)) is not None:
            out[name] = (None, False, f"{_origin(name)} declares {refused}")
        else:
            names.add((k, tool))
            out[name] = (module, ok, str(getattr(module, "REASON", "")))
    return out


def _refused_facts(module, kind):
    """Why ``module``'s declared facts cannot make its declaration (None when they can):
    one plugin's bad facts must not stop every table."""
    make = simulator_declaration if kind == "simulator" else ad_declaration
    try:
        make(module)
    except Exception as exc:
        return f"facts that are not: {type(exc).__name__}: {exc}"
    return None


def available():
    """``{name: (ok, reason)}`` for every registered adapter, in registry order."""
    return {name: (ok, reason) for name, (_, ok, reason) in _survey().items()}


def modules(kind):
    """The adapter modules of ``kind`` ("simulator" or "ad"), built-in and plugins, whether
    their tool is installed or not (each says so in AVAILABLE/REASON); a module that fails
    to import, lacks part of the interface, or that discovery refuses otherwise, is left
    out (:func:`available` says why)."""
    return [module for module, _, _ in _survey(kind).values() if module is not None]


def simulator_declarations():
    """The declaration (kernels.statevector.backend.Backend) of every simulator adapter
    and plugin that :func:`modules` lists, in registry order, made from its module
    interface (``adapters.simulators._base.declaration``): role "peer" for a built-in
    adapter, "plugin" for a plugin."""
    return [simulator_declaration(module, "peer" if name in ADAPTERS else "plugin")
            for name, (module, _, _) in _survey("simulator").items() if module is not None]


def ad_declarations():
    """The declaration (kernels.ad.backend.ADBackend) of every AD adapter and plugin that
    :func:`modules` lists, in registry order (``adapters.ad._base.declaration``)."""
    return [ad_declaration(module, "peer" if name in ADAPTERS else "plugin")
            for name, (module, _, _) in _survey("ad").items() if module is not None]


def usable(kind):
    """``{name: module}`` of the adapters of ``kind`` ("simulator" or "ad") whose tool is
    available."""
    return {name: module for name, (module, ok, _) in _survey(kind).items() if ok}


def circuit_gradients():
    """``{label: (module, method)}`` of every gradient of a variational circuit the
    adapters offer (simulators and AD tools alike, available or not), labelled
    ``"<NAME>"`` for an adapter's default method and ``"<NAME>:<method>"`` for the others.

    An adapter offers them by declaring ``GRADIENT_METHODS`` (method names, the default
    first) and ``prepare_gradient(problem, method)`` / ``prepare_energy(problem, method)``
    (docs/architecture.md, "Adapters"; the layout in :mod:`adapters._gradients`);
    ``circuit_gradient(problem, theta)`` is the default method in one call.
    """
    out = {}
    for kind in PLUGIN_GROUPS:
        for module in modules(kind):
            methods = getattr(module, "GRADIENT_METHODS", ())
            for i, method in enumerate(methods):
                out[module.NAME if i == 0 else f"{module.NAME}:{method}"] = (module, method)
    return out
