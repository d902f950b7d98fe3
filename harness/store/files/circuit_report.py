"""``harness circuit --json`` (one process or ``--ranks``) as a run: the circuit at its
size, precision, threads, cache regime and ranks is the benchmark, each backend's row a
result (a fusion setting's row, ``fused@3``, a backend of its own)."""

from harness.store.files.common import FileError, run_fields, status_fields, validated

COMM = ("exchanges", "bytes_per_rank", "seconds")
UNTIMED = "validated against the reference, but never timed"


def recognises(data):
    return "circuit" in data and "backends" in data


def _result(benchmark, name, row):
    settings = row.get("settings") or {}
    extra = {k: row[k] for k in ("program", "subnormal_slowdown") if row.get(k)}
    comm = row.get("comm")
    if comm:
        extra["comm"] = {k: v for k, v in comm.items() if k not in COMM}
        comm = {k: comm[k] for k in COMM}
    return {"benchmark": benchmark, **status_fields(name, row, UNTIMED),
            "version": settings.get("version"), "settings": settings,
            "settings_hash": settings.get("hash"),
            "max_error": row.get("max_error"), "roofline": row.get("roofline"),
            "comm": comm or None, "peak_bytes": row.get("peak_bytes_per_rank"),
            "extra": extra}


def _names(name, row):
    """[(name, settings)] of the settings a row stands for: ``fused=@2``, the default and
    fused@2 compiled to one program and timed once (harness.circuit.command
    .same_programs), is a result of each with its own settings, so that each setting's
    history goes on whatever it merges with."""
    return [(name.partition("=")[0], row.get("settings")),
            *(row.get("same_program_as") or {}).items()]


def read(data, where="a circuit report"):
    try:
        params = {"qubits": data["qubits"], "precision": data["precision"],
                  "threads": data.get("threads", 1), "cache": data.get("cache"),
                  "ranks": data.get("ranks", 1)}
        if data.get("digest"):  # the circuit itself: two files of one name differ
            params["digest"] = data["digest"]
        benchmark = {"suite": "circuit", "case": data["circuit"], "params": params}
        results = [_result(benchmark, each, dict(row, settings=settings))
                   for name, row in data["backends"].items()
                   for each, settings in _names(name, row)]
        doc = {**run_fields(data.get("run"), "circuit"), "results": results}
    except (KeyError, TypeError, AttributeError) as exc:
        raise FileError(f"{where}: not the JSON of harness circuit ({type(exc).__name__}: "
                        f"{exc})") from None
    return [validated(doc, where)]
