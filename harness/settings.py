"""The settings every timed state-vector result carries, and their short hashes
(docs/architecture.md, "Settings").

A result is only comparable with another measured under the same precision, thread count
and fusion; each also depends on the tool's version and on how it is driven (its named
gates, its API). :func:`of` gathers all of these for one backend, with two hashes:

- ``hash``: of everything, the identity of the configuration (what changes when a tool
  is upgraded or driven differently);
- ``like``: of the settings that must be equal for two backends to share a comparison
  column (precision, threads, fusion). A table marks a cell whose ``like`` differs from
  the rest of its column.

``python -m harness bench`` writes the settings of every benchmark result it produced
next to asv's results (:func:`write_for_results`); reports read them back (:func:`load`).
"""

import hashlib
import importlib.metadata
import json
from pathlib import Path

#: the settings two results must share to be ranked in one column
LIKE_KEYS = ("precision", "threads", "fusion")
#: what a kernel of ours does about fusion: one pass over the state per gate
KERNEL_FUSION = "off (one pass per gate)"
UNDECLARED = "not declared"


def fusion_state(text):
    """"off", "on" or "not declared", from an adapter's SETTINGS["fusion"] sentence,
    which starts with "off" or "none" when the tool does not fuse."""
    words = str(text).strip().lower()
    if words.startswith(("off", "none")):
        return "off"
    return UNDECLARED if words.startswith(UNDECLARED) else "on"


def short_hash(settings):
    """8 hex digits of the SHA-256 of ``settings`` as canonical JSON."""
    text = json.dumps(settings, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def _package_version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def fusion_setting(k):
    """The ``fusion`` value of an explicit setting: "off" for 0, else the widest gate."""
    return "off" if k == 0 else f"up to {k} qubits"


def of(backend, precision="complex128", threads=1, what="circuit", fusion=None):
    """The settings of ``backend`` (a name of harness.statevector.backends) running
    ``what`` ("circuit" or "gate") in ``precision`` on ``threads`` threads with
    ``fusion`` (a declared setting; None: the backend's default)."""
    from harness.statevector import backends
    from kernels.statevector import KERNELS
    if backend == "fused":
        from kernels.statevector import fused
        k = fused.DEFAULT_MAX_QUBITS if fusion is None else fusion
        settings = {
            "backend": backend, "precision": precision, "threads": int(threads),
            "fusion": fusion_setting(k),
            "fusion_detail": f"kernels.statevector.fusion.fuse(max_qubits={k}), cache-"
                             f"blocked stages of 2**{fused.block_qubits(precision)} "
                             f"amplitudes, {fused.isa()}",
            "version": f"qsim-ad-bench {_package_version('qsim-ad-bench')}, "
                       f"numba {_package_version('numba')}",
            "driven": "kernels.statevector.fused.compile, once; one call per circuit",
        }
    elif backend in KERNELS:
        settings = {
            "backend": backend, "precision": precision, "threads": int(threads),
            "fusion": "off", "fusion_detail": KERNEL_FUSION,
            "version": f"qsim-ad-bench {_package_version('qsim-ad-bench')}, "
                       f"numba {_package_version('numba')}",
            "driven": "prepared gates (kernels.statevector.prepared), one kernel call "
                      "per gate",
        }
    else:
        module = backends.adapter_module(backend)
        declared = dict(getattr(module, "SETTINGS", {}) or {})
        detail = str(declared.pop("fusion", UNDECLARED))
        declared.pop("threads", None)
        settings = {
            "backend": backend, "precision": precision, "threads": int(threads),
            # one gate is one pass whatever the tool would do with a circuit
            "fusion": "off" if what == "gate" else (
                fusion_state(detail) if fusion is None else fusion_setting(fusion)),
            "fusion_detail": detail if fusion is None else f"setting {fusion} ({detail})",
            "version": str(getattr(module, "REASON", "")),
            "driven": {k: str(v) for k, v in declared.items()},
        }
    return with_hashes(settings)


def with_hashes(settings):
    """``settings`` with its ``hash`` and ``like`` (see the module's docstring)."""
    core = {k: v for k, v in settings.items() if k not in ("hash", "like")}
    return {**core, "hash": short_hash(core),
            "like": short_hash({k: core.get(k) for k in LIKE_KEYS})}


def for_params(benchmark, params):
    """The settings of one state-vector benchmark result: ``benchmark`` is the asv name
    (``statevector_circuits.Circuit.time_circuit``), ``params`` its parameter dict; None
    for a benchmark that times no backend."""
    backend = params.get("backend")
    if backend is None:
        return None
    suite = benchmark.split(".")[0]
    precision = params.get("precision") or (
        "complex64" if "Complex64" in benchmark else "complex128")
    from harness.statevector import backends
    fusion = params.get("fusion")
    if fusion is not None:  # statevector_fusion: the setting timed
        fusion = int(fusion)
    elif suite == "statevector_circuits":  # unfused wherever the tool allows it
        fusion = backends.unfused(backend)
    try:
        return of(backend, precision, int(params.get("threads", 1)),
                  "gate" if suite in ("statevector_gates", "statevector_threads") else
                  "circuit", fusion)
    except ValueError:  # a backend no longer known here
        return None


def settings_path(results_file):
    """Where the settings of an asv results file are kept: beside it, a JSON document
    whose name does not end in .json (asv would read it as a results file)."""
    results_file = Path(results_file)
    return results_file.with_name(results_file.stem + ".settings")


def write_for_results(results_file, param_names):
    """Write, beside one asv results file, the settings of every state-vector result in
    it; ``param_names``: {benchmark: [parameter names]} (asv's benchmarks.json)."""
    from harness import results
    res = results.load_file(results_file)
    table = {}
    for key in res.get_all_result_keys():
        names = param_names.get(key) or []
        if "backend" not in names:
            continue
        rows = {}
        for combo in results.combinations(res, key):
            found = for_params(key, dict(zip(names, combo)))
            if found:
                rows[json.dumps(list(combo))] = found
        if rows:
            table[key] = rows
    path = settings_path(results_file)
    path.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    return path


def load(results_file):
    """``{(benchmark, params tuple): settings}`` written for an asv results file, or {}
    when it has none (results from before settings were recorded)."""
    try:
        table = json.loads(settings_path(results_file).read_text())
    except (OSError, ValueError):
        return {}
    return {(key, tuple(json.loads(combo))): settings
            for key, rows in table.items() for combo, settings in rows.items()}
