"""harness.results reads what asv wrote, through asv's API, with the minimum statistic."""

import datetime
import json
import math

from asv import results as asv_results
from asv.runner import BenchmarkResult

from harness import results, tables


def _write(tmp_path, machine="box"):
    (tmp_path / machine).mkdir()
    (tmp_path / machine / "machine.json").write_text(json.dumps({"machine": machine, "version": 1}))
    res = asv_results.Results({"machine": machine}, {}, "abcdef1234567890",
                              1700000000000, "3.11", "existing-py", {})
    bench = {"name": "statevector_gates.Gate.time_gate", "version": "1",
             "params": [["'X'"], ["4", "20"], ["'stride'", "'qulacs'", "'cuda'"]]}
    # params vary fastest in the last position: (X,4,stride) (X,4,qulacs) (X,4,cuda) ...
    values = [2e-6, 1e-6, math.nan, 3e-4, 4e-4, math.nan]
    samples = [[2.5e-6, 2e-6, 3e-6], [1e-6, 1.1e-6], None, [3e-4, 2.9e-4], [4e-4], None]
    res.add_result(bench, BenchmarkResult(result=values, samples=samples,
                                          number=[1] * 6, errcode=0, stderr="", profile=None),
                   started_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc), duration=1.0, record_samples=True)
    for name, value in (("copy", 50.0), ("inplace", 100.0)):
        track = {"name": f"machine.MemoryBandwidth.track_{name}_bandwidth", "version": "1",
                 "params": []}
        res.add_result(track, BenchmarkResult(result=[value], samples=[None], number=[None],
                                              errcode=0, stderr="", profile=None),
                       started_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc),
                       duration=1.0)
    res.save(str(tmp_path))
    return machine


def test_table_uses_sample_minimum_and_drops_skips(tmp_path):
    machine = _write(tmp_path)
    name, res = results.latest(tmp_path, machine)
    assert name == machine
    data = results.table(res, "statevector_gates.Gate.time_gate")
    assert data == {("X", 4, "stride"): 2e-6, ("X", 4, "qulacs"): 1e-6,
                    ("X", 20, "stride"): 2.9e-4, ("X", 20, "qulacs"): 4e-4}
    ratios = tables.gate_ratios(res, gates=("X",))
    assert "| X | 4 | 1 us | stride 2 us | 2.00 |" in ratios
    assert "| X | 20 | 400 us | stride 290 us | 0.72 |" in ratios
    bw = tables.bandwidth(res, min_qubits=20)
    # 2 * 16 B * 2**20 / 290 us = 115.7 GB/s = 231% of 50 GB/s (a cache-resident state)
    assert "| X | 20 | stride | 115.7 | 231% | 116% |" in bw
    assert "| X | 20 | qulacs | 83.9 | 168% | 84% |" in bw


def test_no_results_is_a_clear_error(tmp_path):
    import pytest
    with pytest.raises(FileNotFoundError, match="make bench"):
        results.latest(tmp_path)
