"""The backends that split a state over MPI ranks, as MPI jobs: strong scaling (the same n
on 1, 2, 4 ... ranks) and weak scaling (n = n0 + log2 R: a slice of the same size per
rank). Each parameter set is one job, ``python -m harness circuit SOURCE --ranks R``
(harness.distributed), started in ``setup_cache``: the job validates the backend's state
against the reference before it times it, and measures inside itself (the slowest rank,
between barriers). The tracks return what it measured: the time (the minimum over its
samples) and its median, the share of it spent in communication, the bytes each rank
sent.

A job with more ranks than this machine has cores is skipped (oversubscribed: its times
say nothing), as is one whose slices cannot hold the circuit's gates or whose backend is
not installed here; a backend that
returned a wrong state fails the benchmark. The profile says which circuits
(``distributed_circuits``), the largest n (``distributed_qubits``: strong scaling's n,
and weak scaling's at the most ranks) and the ranks (``distributed_ranks``).
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import profiles, registry
from harness.circuit import sources
from harness.distributed import launch
from harness.distributed.scaling import SCALINGS
from harness.distributed.scaling import size as scaled_size
from harness.errors import ValidationError

PROFILE = profiles.current()
CIRCUITS = sources.expand(PROFILE.get("distributed_circuits", ()))
QUBITS = PROFILE.get("distributed_qubits", [])
RANKS = PROFILE.get("distributed_ranks", [1, 2])
BACKENDS = registry.names(mpi=True)
#: Each job's timing: rounds at most and seconds of rounds (every row gets two samples).
ROUNDS, BUDGET = 5, 5.0
NOT_COUNTED = float("nan")


def size(scaling, n, ranks):
    return scaled_size(scaling, n, ranks, max(RANKS))


def job(circuit, n, ranks, backend):
    """The report row of one MPI job: {"status", "reason", and what it measured}."""
    ok, reason = registry.simulator(backend).available()
    if not ok:  # a backend not installed here starts no job: its reason is the row's
        return {"status": "skipped", "reason": reason}
    if launch.oversubscribed(ranks):
        return {"status": "skipped", "reason": f"{ranks} ranks on this machine's cores: "
                "oversubscribed, its times would say nothing"}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "job.json"
        run = subprocess.run(
            [sys.executable, "-m", "harness", "circuit", circuit, "--qubits", str(n),
             "--ranks", str(ranks), "--backends", backend, "--cache", "warm",
             "--rounds", str(ROUNDS), "--budget", str(BUDGET), "--json", str(out)],
            capture_output=True, text=True)
        if run.returncode == 2:
            return {"status": "skipped", "reason": run.stderr.strip()[-500:]}
        if not out.is_file():
            return {"status": "failed", "reason": (run.stderr or run.stdout)[-500:]}
        return json.loads(out.read_text())["backends"][backend]


class Distributed:
    params = (list(SCALINGS), CIRCUITS, QUBITS, RANKS, BACKENDS)
    param_names = ["scaling", "circuit", "n", "ranks", "backend"]
    timeout = 3600

    def setup_cache(self):
        """Every job once: strong and weak scaling share the job at the most ranks."""
        rows = {}
        for scaling in SCALINGS:
            for circuit in CIRCUITS:
                for n in QUBITS:
                    for ranks in RANKS:
                        for backend in BACKENDS:
                            key = (circuit, size(scaling, n, ranks), ranks, backend)
                            if key not in rows:
                                rows[key] = job(*key)
        return rows

    def setup(self, rows, scaling, circuit, n, ranks, backend):
        row = rows[(circuit, size(scaling, n, ranks), ranks, backend)]
        if row["status"] == "ok":
            return
        if row["status"] in ("wrong", "failed"):
            raise ValidationError(f"{backend} over {ranks} ranks: {row['reason']}")
        raise NotImplementedError(row["reason"])

    def _row(self, rows, scaling, circuit, n, ranks, backend):
        return rows[(circuit, size(scaling, n, ranks), ranks, backend)]

    def track_seconds(self, rows, *params):
        return self._row(rows, *params)["seconds"]

    track_seconds.unit = "seconds"

    def track_seconds_median(self, rows, *params):
        """The top of the time's interval in its job (the median of its samples): the
        spread the report shows beside the time."""
        return self._row(rows, *params)["interval"][1]

    track_seconds_median.unit = "seconds"

    # A peer's tool does not count what it sends (its row's comm is None): NaN there,
    # asv's value for a result that does not exist (None would be a failure).
    def track_comm_share(self, rows, *params):
        row = self._row(rows, *params)
        return NOT_COUNTED if row["comm"] is None else row["comm"]["seconds"] / row["seconds"]

    track_comm_share.unit = "fraction"

    def track_bytes_per_rank(self, rows, *params):
        comm = self._row(rows, *params)["comm"]
        return NOT_COUNTED if comm is None else comm["bytes_per_rank"]

    track_bytes_per_rank.unit = "bytes"
