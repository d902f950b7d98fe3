"""harness.results reads what asv wrote, through asv's API, with the minimum statistic."""

import math

from harness import ids, results
from harness.statevector import tables
from tests.harness import fake_results


def _write(tmp_path, machine="box"):
    res = fake_results.new_results(tmp_path, machine)
    # params vary fastest in the last position: (X,4,stride) (X,4,qulacs) (X,4,cuda) ...
    fake_results.add(res, ids.GATE_TIME,
                     [["'X'"], ["4", "20"], ["'stride'", "'qulacs'", "'cuda'"]],
                     [2e-6, 1e-6, math.nan, 3e-4, 4e-4, math.nan],
                     samples=[[2.5e-6, 2e-6, 3e-6], [1e-6, 1.1e-6], None, [3e-4, 2.9e-4],
                              [4e-4], None])
    for name, value in (("copy", 50.0), ("inplace", 100.0)):
        fake_results.add(res, f"machine.MemoryBandwidth.track_{name}_bandwidth", [], [value])
    res.save(str(tmp_path))
    return machine


def test_table_uses_sample_minimum_and_drops_skips(tmp_path):
    machine = _write(tmp_path)
    name, res = results.latest(tmp_path, machine)
    assert name == machine
    data = results.table(res, ids.GATE_TIME)
    assert data == {("X", 4, "stride"): 2e-6, ("X", 4, "qulacs"): 1e-6,
                    ("X", 20, "stride"): 2.9e-4, ("X", 20, "qulacs"): 4e-4}
    ratios = tables.gate_ratios(res, gates=("X",))
    assert "| X | 4 | 1 us | stride 2 us | 2.00 |" in ratios
    assert "| X | 20 | 400 us | stride 290 us | 0.72 |" in ratios
    bw = tables.bandwidth(res, min_qubits=20)
    # 2 * 16 B * 2**20 / 290 us = 115.7 GB/s = 116% of the in-place 100 GB/s, 231% of the
    # copy's 50 (a cache-resident state)
    # the level a 16 MiB state sits in on this machine; no level yardstick recorded: "-"
    from harness.statevector.levels import level_of
    level = level_of(16 << 20)
    assert f"| X | 20 | stride | 115.7 | {level} | - | 116% | 231% |" in bw
    assert f"| X | 20 | qulacs | 83.9 | {level} | - | 84% | 168% |" in bw
    assert "| X | 4 |" not in bw  # below min_qubits


def test_no_results_is_a_clear_error(tmp_path):
    import pytest
    with pytest.raises(FileNotFoundError, match="make bench"):
        results.latest(tmp_path)


def test_thread_table_shows_the_spread_and_flags_unsteady_cases(tmp_path):
    res = fake_results.new_results(tmp_path, "box")
    steady = [10e-6] * 18 + [11e-6, 12e-6]
    # one call in four loses a core for a scheduler tick: the minimum hides it
    unsteady = [5e-6] * 15 + [4e-3] * 5
    fake_results.add(res, ids.THREADS_TIME, [["'X'"], ["16"], ["'threaded'"], ["1", "2"]],
                     [10e-6, 5e-6], samples=[steady, unsteady])
    res.save(str(tmp_path))
    _, res = results.latest(tmp_path, "box")
    assert results.samples(res, ids.THREADS_TIME)[("X", 16, "threaded", 2)] == unsteady
    rows = [line for line in tables.thread_scaling(res).splitlines() if line.startswith("| X")]
    # min, median, p90, outliers (over 1.5x the median), speed-up by min and by median
    assert rows == ["| X | 16 | threaded | 1 | 20 | 10 us | 10 us | 11 us | 0 | 1.00 | 1.00 |",
                    "| X | 16 | threaded | 2 | 20 | 5 us | 5 us | 4 ms | 5 ! | 2.00 | 2.00 |"]
