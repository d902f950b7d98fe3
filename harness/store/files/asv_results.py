"""An asv results folder (``results/``, or one machine's folder in it) as runs: each
results file is a run (one sweep of one commit on one machine), each benchmark's
parameter combination a result, read through asv's own Results API.

What asv does not keep, ``harness bench`` writes beside each results file (harness.bench):
the settings of every state-vector result (``.settings``, harness.settings) and the run's
context (``.run``: the machine's fingerprint, whether the tree was dirty, the profile, the
backends' roles). A folder copied from a machine of before that, or from plain asv, is
read from asv's machine.json alone, and its runs' source says so.

A time benchmark's result is the minimum of its samples with their spread (minimum to
median), or asv's own value where it kept none; a track benchmark's its value and unit; a
peakmem benchmark's its bytes. asv keeps a failure as no value and a skip as NaN.
"""

import ast
import datetime
import itertools
import math
from pathlib import Path

import orjson
from asv import results as asv_results
from asv import util as asv_util
from asv.benchmarks import Benchmarks

from harness import ranking
from harness import settings as settings_mod
from harness.store import schema
from harness.store.files.common import FileError, backend_facts, run_fields, validated

#: the parameters that name the backend a benchmark times (its other parameters are the
#: benchmark's)
BACKEND_PARAMS = ("backend", "kernel")
#: what sits in a machine's folder besides its results files
NOT_RESULTS = ("machine.json", "benchmarks.json")
CONTEXT_SUFFIX = ".run"


def context_path(results_file):
    """Where the run's context is kept beside an asv results file (a name asv does not
    read as results)."""
    results_file = Path(results_file)
    return results_file.with_name(results_file.stem + CONTEXT_SUFFIX)


def write_context(results_file, context, backends):
    """Write the run's context (harness.provenance.context) and the roles of
    ``backends`` ({name: (role, baseline)}) beside an asv results file."""
    doc = {**context, "backends": {name: list(facts) for name, facts in backends.items()}}
    context_path(results_file).write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))


def _load_json(path):
    try:
        return orjson.loads(Path(path).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None


def _benchmarks(results_dir):
    """{benchmark: {"param_names", "type", "unit"}} from asv's benchmarks.json, {} where
    there is none."""
    try:
        found = asv_util.load_json(Benchmarks.get_benchmark_file_path(str(results_dir)),
                                   api_version=Benchmarks.api_version)
    except Exception:  # missing, or of another asv: the names are then p0, p1, ...
        return {}
    return {name: b for name, b in found.items() if isinstance(b, dict)}


def _machine(folder, context):
    """The machine of a results folder: the context's, else asv's machine.json's facts
    (a fingerprint computed from what asv knows)."""
    if context and context.get("machine"):
        return context["machine"], None
    info = _load_json(folder / "machine.json") or {}
    try:
        memory = int(info.get("ram") or 0) * 1024  # asv: kB
    except ValueError:
        memory = 0
    facts = {"cpu": str(info.get("cpu") or "unknown"), "isa": "unknown",
             "cores": max(1, int(info.get("num_cpu") or 1)), "caches": {},
             "memory_bytes": memory, "gpu": None, "arch": str(info.get("arch") or ""),
             "os": str(info.get("os") or "")}
    name = str(info.get("machine") or folder.name)
    return ({"name": name, "fingerprint": schema.fingerprint(facts), **facts},
            "from asv's machine.json: no fingerprint was recorded with these results")


def _value(text):
    """An asv parameter's value: the scalar its repr is, else the repr itself."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    if isinstance(value, float) and not math.isfinite(value):
        return text
    return value if isinstance(value, (str, int, float, bool)) or value is None else text


def _measured(kind, unit, value, sample):
    if kind == "time":
        if sample:
            sample = [float(s) for s in sample]
            return {"seconds": min(sample), "interval": list(ranking.interval(sample)),
                    "samples": len(sample), "times": sample}
        return {"seconds": float(value), "samples": 1}
    if kind == "peakmem":
        return {"peak_bytes": int(value)}
    return {"value": float(value), "unit": unit}


def _results(res, key, info, settings, backends):
    names = list(info.get("param_names") or [])
    kind = info.get("type") or key.rpartition(".")[2].split("_")[0]
    unit = info.get("unit")
    suite, _, case = key.partition(".")
    params = res.get_result_params(key)
    if len(names) != len(params):
        names = [f"p{i}" for i in range(len(params))]
    values = res.get_result_value(key, params)
    samples = res.get_result_samples(key, params)
    stderr = (res.stderr.get(key) or "").strip().splitlines()
    errcode = res.errcode.get(key)
    for combo, value, sample in zip(itertools.product(*params), values, samples):
        named = dict(zip(names, (_value(p) for p in combo)))
        found = next((p for p in BACKEND_PARAMS if p in named), None)
        backend = str(named.pop(found)) if found else ""
        role, baseline = tuple(backends[backend]) if backend in backends else (
            backend_facts(backend) if backend else (None, False))
        row = {"benchmark": {"suite": suite, "case": case, "params": named},
               "backend": backend, "role": role, "baseline": bool(baseline)}
        try:  # keyed as harness.settings wrote them
            stored = settings.get((key, tuple(ast.literal_eval(p) for p in combo)))
        except (ValueError, SyntaxError):
            stored = None
        if stored:
            row.update(settings=stored, settings_hash=stored.get("hash"),
                       version=stored.get("version"))
        if value is None:
            row.update(status="failed", reason=(
                stderr[-1] if stderr else f"asv recorded a failure (exit {errcode})"
                if errcode else "asv recorded a failure (its files keep no reason)"))
        elif isinstance(value, float) and math.isnan(value):
            row.update(status="skipped", reason="skipped: not run for this combination "
                       "(NotImplementedError in its setup)")
        else:
            row.update(_measured(kind, unit, value, sample))
        yield row


def backends_in(results_file):
    """The names of the backends a results file's benchmarks time."""
    results_file = Path(results_file)
    res = asv_results.Results.load(str(results_file))
    benchmarks = _benchmarks(results_file.parents[1])
    found = set()
    for key in res.get_all_result_keys():
        names = list((benchmarks.get(key) or {}).get("param_names") or [])
        for index in (names.index(p) for p in BACKEND_PARAMS if p in names):
            params = res.get_result_params(key)
            if index < len(params):
                found.update(str(_value(v)) for v in params[index])
            break
    return sorted(found)


def read_file(results_file, benchmarks=None):
    """The run of one asv results file."""
    results_file = Path(results_file)
    try:
        res = asv_results.Results.load(str(results_file))
    except Exception as exc:  # asv raises its own errors, and JSON's, and KeyErrors
        raise FileError(f"{results_file}: not an asv results file ({type(exc).__name__}: "
                        f"{exc})") from None
    context = _load_json(context_path(results_file))
    machine, note = _machine(results_file.parent, context)
    fields = run_fields(context, "asv") if context else run_fields(
        {"machine": machine, "command": "bench"}, "asv")
    if note:
        fields[schema.SOURCE_FIELD]["machine"] = note
    if not context:  # asv's date is the commit's; when the sweep ran is its first start
        first = min(res.started_at.values(), default=res.date or 0)
        fields["started"] = datetime.datetime.fromtimestamp(
            first / 1000, datetime.UTC).isoformat()
    fields.update(machine=machine, commit=res.commit_hash)
    if benchmarks is None:
        benchmarks = _benchmarks(results_file.parents[1])
    settings = settings_mod.load(results_file)
    backends = (context or {}).get("backends") or {}
    results = [row for key in sorted(res.get_all_result_keys())
               for row in _results(res, key, benchmarks.get(key) or {}, settings, backends)]
    if not results:
        raise FileError(f"{results_file}: asv recorded no benchmark in it")
    return validated({**fields, "results": results}, str(results_file))


def results_files(folder):
    """The asv results files under ``folder``: a results folder (machine folders in it)
    or one machine's folder."""
    folder = Path(folder)
    machines = [folder] if (folder / "machine.json").exists() else sorted(
        p for p in folder.iterdir() if p.is_dir() and (p / "machine.json").exists())
    return [f for m in machines for f in sorted(m.glob("*.json")) if f.name not in NOT_RESULTS]


def read(folder):
    """The runs of every asv results file under ``folder``."""
    files = results_files(folder)
    if not files:
        raise FileError(f"{folder}: no asv results in it (a results folder holds a folder "
                        "per machine, each with a machine.json)")
    return [read_file(f) for f in files]
