"""Small asv results written through asv's own Results API, for tests of what reads them
(harness tables, reports): one machine directory, benchmarks added one by one."""

import datetime
import json
import math

from asv import results as asv_results
from asv.runner import BenchmarkResult

from harness import ids

STARTED = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
DATE = 1700000000000  # ms since the epoch: 2023-11-14 22:13 UTC


def new_results(results_dir, machine="box", info=None):
    """An empty Results of ``machine``, with its machine.json written under results_dir;
    ``info``: more machine.json fields (cpu, num_cpu, ram, ...)."""
    (results_dir / machine).mkdir()
    fields = {"machine": machine, **(info or {})}
    (results_dir / machine / "machine.json").write_text(json.dumps({**fields, "version": 1}))
    return asv_results.Results(fields, {}, "abcdef1234567890", DATE, "3.11", "existing-py", {})


def add(res, name, params, values, samples=None):
    """Record benchmark ``name`` with ``params`` (lists of reprs); ``values`` in asv's
    order, the last parameter varying fastest; NaN is a skip. ``samples``: one list (or
    None) per value, kept as with ``asv run --record-samples``."""
    bench = {"name": name, "version": "1", "params": params}
    res.add_result(bench, BenchmarkResult(
        result=values, samples=samples or [None] * len(values), number=[None] * len(values),
        errcode=0, stderr="", profile=None),
        started_at=STARTED, duration=1.0, record_samples=samples is not None)


def add_ad(res):
    """The AD suites on three cases: gradients, slowdown ratios, a chunk sweep, objectives."""
    cases = [repr(("trmul", 30)), repr(("ackley_loop", 1600)), repr(("ackley", 16000))]
    backends = ["'manual'", "'forward'", "'reverse'", "'source'", "'finite'", "'torch'",
                "'algopy'"]
    nan = math.nan
    add(res, ids.AD_GRADIENT, [cases, backends],
        [1e-5, 2e-2, 1.5e-5, 1.2e-5, 2e-2, 5e-5, nan,
         4e-5, 3e-2, 2.5e-2, 2e-2, 1.5, 6e-2, 0.16,
         5e-4, 2.0, 1e-3, 9e-4, nan, 2e-3, nan])
    add(res, ids.AD_SLOWDOWN, [cases, backends],
        [2.5, 5000, 4.0, 3.0, 4000, 9.0, nan,
         0.1, 70, 55, 40, 3000, 4, 100,
         1.2, 5000, 2.5, 12.0, nan, 3, nan])
    add(res, ids.AD_CHUNK, [[repr(("ackley_loop", 1600))], ["512", "1600", "'default'"]],
        [2.5e-2, 3e-2, 3e-2])
    add(res, ids.AD_OBJECTIVE, [[repr(("trmul", 30))], ["'numpy'", "'torch'"]], [4e-6, 8e-6])


#: the eval suite's cases: two sizes of llsq, one (label) of gmm
EVAL_CASES = [repr(("llsq", 16)), repr(("llsq", 32)), repr(("gmm", "d=2,k=5"))]


def add_evals(res):
    """The eval suite: gradients of manual, reverse, source and torch (torch skipped on
    gmm), the Jacobian evals ht and ba_sparse (no peer), the plain objective, reverse's
    ratios sampled in one process, and the peak memory of the gradients and the
    objective."""
    backends = ["'manual'", "'reverse'", "'source'", "'torch'"]
    nan = math.nan
    add(res, ids.EVAL_GRADIENT, [EVAL_CASES, backends],
        [1e-4, 2e-4, 3e-4, 4e-4,
         2e-4, 3e-4, 5e-4, 6e-4,
         1e-3, 4e-3, 3e-3, nan])
    add(res, ids.EVAL_OBJECTIVE, [EVAL_CASES, ["'numpy'", "'torch'"]],
        [1e-4, 2e-4, 1e-4, 3e-4, 5e-4, nan])
    # ba_sparse: the peers have no sparse Jacobian (skipped)
    add(res, ids.EVAL_JACOBIAN, [[repr(("ht", 100)), repr(("ba_sparse", "n=2,m=10,p=40"))],
                                 ["'manual'", "'forward'", "'torch'", "'torch:jacfwd'"]],
        [1e-3, 4e-3, 9e-3, 2e-3, 3e-4, 2e-3, nan, nan])
    add(res, ids.EVAL_VS_OBJECTIVE, [EVAL_CASES, ["'reverse'"]], [2.1, 2.9, 7.5])
    add(res, ids.EVAL_VS_MANUAL, [EVAL_CASES, ["'reverse'"]], [1.9, 1.4, 4.1])
    # peak MiB one gradient adds (the first llsq below the ratio's floor), one objective's
    add(res, ids.EVAL_MEMORY, [EVAL_CASES, ["'manual'", "'reverse'"]],
        [0.01, 0.02, 0.5, 1.5, 4.0, 12.0])
    add(res, ids.EVAL_OBJECTIVE_MEMORY, [EVAL_CASES, ["'numpy'"]], [0.05, 0.5, 2.0])
