"""Reading asv results back through asv's own results API (never by re-parsing JSON),
keyed by parameter values, with the minimum over samples as the statistic."""

import ast
import itertools
import os
from pathlib import Path

from asv import results as asv_results

from harness import ranking

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "results"


def machines(results_dir=RESULTS_DIR):
    return sorted(p.name for p in Path(results_dir).iterdir()
                  if p.is_dir() and (p / "machine.json").exists())


def latest(results_dir=RESULTS_DIR, machine=None):
    """The newest asv Results of ``machine`` (default: the only or this host's machine)."""
    names = machines(results_dir)
    if not names:
        raise FileNotFoundError(f"no asv results under {results_dir}; run `make bench` first")
    if machine is None:
        host = os.uname().nodename
        machine = host if host in names else names[0]
    found = list(asv_results.iter_results_for_machine(str(results_dir), machine))
    if not found:
        raise FileNotFoundError(f"no asv results for machine {machine!r} in {results_dir}")
    return machine, max(found, key=lambda r: r.date or 0)


def table(res, key):
    """{param tuple: statistic} for one benchmark; the minimum of the recorded samples
    where asv kept them (``--record-samples``), else asv's own value. Failed or skipped
    combinations are left out."""
    return {combo: min(sample) if sample else value
            for combo, value, sample in _rows(res, key)}


def spans(res, key):
    """{param tuple: (low, high)} for one benchmark: the spread of its recorded samples in
    this run, their minimum (the headline) to their median (harness.ranking.interval);
    None where asv kept no samples. Failed or skipped combinations are left out."""
    return {combo: ranking.interval(sample) if sample else None
            for combo, _, sample in _rows(res, key)}


def samples(res, key):
    """{param tuple: [every recorded sample, all rounds]} for one benchmark; asv's own
    value alone where it kept no samples. Failed or skipped combinations are left out."""
    return {combo: list(sample) if sample else [value] for combo, value, sample in _rows(res, key)}


def _rows(res, key):
    """(param tuple, asv's value, recorded samples or None) per combination that ran."""
    params = res.get_result_params(key)
    values = res.get_result_value(key, params)
    recorded = res.get_result_samples(key, params)
    for combo, value, sample in zip(itertools.product(*params), values, recorded):
        if value is None or value != value:  # None or NaN: failed or skipped
            continue
        yield tuple(ast.literal_eval(p) for p in combo), value, sample


def combinations(res, key):
    """The parameter tuples of benchmark ``key`` that produced a value."""
    return [combo for combo, _, _ in _rows(res, key)]


def load_file(path):
    """The asv Results in one results file."""
    return asv_results.Results.load(str(path))


def path_of(res, results_dir=RESULTS_DIR):
    """The file asv keeps ``res`` in (asv exposes it only as a private attribute)."""
    return Path(results_dir) / res._filename


def param_names(results_dir=RESULTS_DIR):
    """{benchmark: [parameter names]} from the benchmarks.json asv writes beside its
    results (the results files keep parameter values only)."""
    from asv import util
    from asv.benchmarks import Benchmarks
    path = Benchmarks.get_benchmark_file_path(str(results_dir))
    found = util.load_json(path, api_version=Benchmarks.api_version)
    return {name: list(b.get("param_names") or []) for name, b in found.items()
            if isinstance(b, dict)}
