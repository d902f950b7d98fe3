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

from harness import registry, results
from kernels.statevector import tuning
from kernels.statevector.settings import fusion as as_fusion
from kernels.statevector.settings import precision as as_precision

#: the settings two results must share to be ranked in one column
LIKE_KEYS = ("precision", "threads", "fusion", "cache")
#: The field, in settings and in a job's report, of the MPI a job over ranks ran on: the
#: word the distributed backend's name shares, declared once here (tests/test_structure.py
#: exempts this one declaration from its search for backend names)
MPI_FIELD = "mpi"
#: ... and, for a result of a job over MPI ranks, these too (absent from one process's, so
#: that its hashes stay what they were before distributed runs existed)
DISTRIBUTED_KEYS = ("ranks", MPI_FIELD)


def short_hash(settings):
    """8 hex digits of the SHA-256 of ``settings`` as canonical JSON."""
    text = json.dumps(settings, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def _package_version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def of(backend, precision="complex128", threads=1, what="circuit", fusion=None,
       cache="warm", ranks=None, mpi=None):
    """The settings of ``backend`` (a name :func:`harness.registry.simulator` takes, or a
    declaration) running ``what`` ("circuit" or "gate") in ``precision`` on ``threads``
    threads with ``fusion`` (a Fusion or what ``settings.fusion`` parses; None: the
    backend's default), its state ``cache`` "warm" (each call after another on the same
    state: asv's sweep) or "cold" (caches flushed first). Two settings of one backend
    that run alike are equal: its default and the declared setting it stands for have
    one hash. ``ranks`` and ``mpi`` (the MPI's {"implementation", "version"}): a job's
    ranks and the MPI it ran on, for a run over MPI."""
    b = registry.simulator(backend) if isinstance(backend, str) else backend
    setting = as_fusion(fusion)
    version = f"{b.package} {_package_version(b.package)}"
    if b.own:  # our kernels are numba code: its version is part of theirs
        version += f", numba {_package_version('numba')}"
    gate = what == "gate" and b.one_gate  # one gate is one pass, whatever a tool fuses
    distributed = {} if ranks is None else {
        "ranks": int(ranks), MPI_FIELD: f"{mpi['implementation']} {mpi['version']}"}
    # only where a backend reads the tuning, so that the others' hashes stay as they were
    tuned = {"tuning": tuning.describe()} if b.tuned else {}
    return with_hashes({
        "backend": b.name, "precision": as_precision(precision).name,
        "threads": int(threads), "fusion": "off" if gate else b.fusion_label(setting),
        "cache": cache, **distributed, **tuned,
        "fusion_detail": "one gate: one pass" if gate else b.fusion.rule,
        # a backend that flushes runs a state of subnormal amplitudes at full speed and
        # returns zeros for them (kernels.statevector.subnormals)
        "flushes_subnormals": b.flushes_subnormals,
        "version": version, "driven": dict(b.describe),
    })


def with_hashes(settings):
    """``settings`` with its ``hash`` and ``like`` (see the module's docstring)."""
    core = {k: v for k, v in settings.items() if k not in ("hash", "like")}
    like = {k: core.get(k) for k in LIKE_KEYS}
    like.update({k: core[k] for k in DISTRIBUTED_KEYS if k in core})
    return {**core, "hash": short_hash(core), "like": short_hash(like)}


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
    fusion = params.get("fusion")
    try:
        if fusion is not None:  # statevector_fusion: the setting timed
            fusion = int(fusion)
        elif suite == "statevector_circuits":  # unfused wherever the tool allows it
            fusion = registry.simulator(backend).unfused()
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
