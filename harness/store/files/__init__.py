"""What the harness writes, read as runs of the store: an asv results folder (a run per
results file), the JSON of ``harness circuit`` and ``harness evals``, and the gate's
``gate.json`` (a run per revision it measured). Each file says itself which machine
measured it (its ``"run"`` field, harness.provenance); a file from before that field
existed is taken as this machine's, and the run's source says so.

A run is made from the file's content alone, never from its path or the time it is read:
the same file read twice, or recorded by the command that wrote it and read again later,
is the same run (harness.store.write stores it once).
"""

from pathlib import Path

import orjson

from harness.store.files import asv_results, circuit_report, evals_report, gate_report
from harness.store.files.common import FileError

#: a JSON file's kind, told by the field only that kind has
READERS = {"circuit": circuit_report, "evals": evals_report, "gate": gate_report}

__all__ = ["FileError", "kind_of", "runs_of"]


def _json(path):
    try:
        return orjson.loads(path.read_bytes())
    except OSError as exc:
        raise FileError(f"{path}: cannot read it: {exc.strerror}") from None
    except orjson.JSONDecodeError as exc:
        raise FileError(f"{path}: not JSON: {exc}") from None


def kind_of(path, data=None):
    """"asv" for a results folder, else the kind of a JSON file (READERS), or FileError
    naming what the file is not."""
    path = Path(path)
    if path.is_dir():
        return "asv"
    data = _json(path) if data is None else data
    if isinstance(data, dict):
        for kind, reader in READERS.items():
            if reader.recognises(data):
                return kind
    raise FileError(f"{path}: neither an asv results folder nor the JSON of harness "
                    "circuit, harness evals or the gate")


def runs_of(path):
    """The runs a file or folder holds (schema.Run), or FileError saying why none."""
    path = Path(path)
    if not path.exists():
        raise FileError(f"{path}: no such file or folder")
    if path.is_dir():
        return asv_results.read(path)
    data = _json(path)
    return READERS[kind_of(path, data)].read(data, str(path))
