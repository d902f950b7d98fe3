"""``harness evals --json`` as a run: each eval at one size is a benchmark, each AD
backend's row a result (the plain objective, the hand-written derivative, our engines,
the peers and any gradbench tool)."""

from harness.store.files.common import FileError, run_fields, status_fields, validated

UNTIMED = "validated against the hand-written derivative, but never timed"


def recognises(data):
    return isinstance(data.get("evals"), list)


def _result(benchmark, name, row):
    return {"benchmark": benchmark, **status_fields(name, row, UNTIMED),
            "extra": {k: row[k] for k in ("note", "objective_seconds", "compile_seconds")
                      if row.get(k) is not None and row.get(k) != ""}}


def read(data, where="an evals report"):
    try:
        results = []
        for case in data["evals"]:
            benchmark = {"suite": "evals", "case": case["eval"],
                         "params": {"size": str(case["size"]), "output": case["output"]}}
            results += [_result(benchmark, name, row)
                        for name, row in case["backends"].items()]
        doc = {**run_fields(data.get("run"), "evals"), "results": results}
    except (KeyError, TypeError, AttributeError) as exc:
        raise FileError(f"{where}: not the JSON of harness evals ({type(exc).__name__}: "
                        f"{exc})") from None
    return [validated(doc, where)]
