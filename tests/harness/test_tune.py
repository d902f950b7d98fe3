"""``python -m harness tune``: what it measures, that it writes this machine's tuning,
and that the kernels, the planner and the roofline then read it."""

import numpy as np
import pytest

from harness.__main__ import main
from harness.statevector import levels
from harness.tune import command as tune_command
from harness.tune import limits as tune_limits
from kernels.statevector import fused, fusion, roofline, tuning
from kernels.statevector.fused import planner


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv(tuning.ENV, str(tmp_path))
    tuning.load.cache_clear()
    yield tmp_path
    tuning.load.cache_clear()


def test_a_gate_in_a_stage_is_timed_per_amplitude():
    seconds = tune_command.gate_seconds([0, 2], np.complex64, np.random.default_rng(0),
                                        rounds=2)
    assert set(seconds) == {0, 2}
    # a microsecond per amplitude would be a thousand times too slow
    assert all(0 < t < 1e-6 for t in seconds.values())


def test_limits_are_measured_without_tuning_and_read_with_it(folder):
    found, source = tune_limits.limits(["complex128"], ["L2"])
    assert source == "measured now"
    assert found.fmas["complex128"] > 0 and found.gbs["L2"] > 0
    tuning.save({"fmas_complex128": 1e10, "gbs_L2": 50.0})
    found, source = tune_limits.limits(["complex128"], ["L2"])
    assert source == f"tuned {tuning.describe()}"
    assert found == ((({"complex128": 1e10}), {"L2": 50.0}))
    # a level the tuning lacks: everything is measured now, nothing half from each
    assert tune_limits.limits(["complex128"], ["L2", "DRAM"])[1] == "measured now"


def test_a_state_in_l3_is_judged_by_a_pass_over_its_own_size(folder, monkeypatch):
    caps = levels.capacities()
    tuning.save({"fmas_complex64": 1e10, "gbs_L2": 50.0, "gbs_L3": 1.0, "gbs_DRAM": 2.0})
    sizes = []
    monkeypatch.setattr(levels, "size_gbs", lambda nbytes, threads=1: sizes.append(
        (nbytes, threads)) or 30.0)
    found, origin, level = tune_limits.for_state("complex64", caps["L2"] // 4)
    assert (level, found.gbs, sizes) == ("L2", {"L2": 50.0}, [])
    assert origin == f"tuned {tuning.describe()}"
    found, origin, level = tune_limits.for_state("complex64", 4 * caps["L3"])
    assert (level, found.gbs, sizes) == ("DRAM", {"L2": 50.0, "DRAM": 2.0}, [])
    if caps["L3"] > caps["L2"]:
        # the tuning's L3 yardstick (half the L3) is not used: the state's size is
        nbytes = caps["L2"] * 2
        found, origin, level = tune_limits.for_state("complex64", nbytes)
        assert (level, found.gbs, sizes) == ("L3", {"L2": 50.0, "L3": 30.0}, [(nbytes, 1)])
        assert found.fmas == {"complex64": 1e10}
        assert "L3 on a buffer of the state's" in origin


def test_if_missing_keeps_the_tuning_in_force(folder, capsys):
    tuning.save({"gbs_L2": 50.0})
    assert main(["tune", "--if-missing"]) == 0
    assert "in force" in capsys.readouterr().out
    assert tuning.load() == {"gbs_L2": 50.0}


@pytest.mark.slow
def test_tune_writes_every_constant_the_kernels_read(folder, capsys):
    assert main(["tune"]) == 0
    out = capsys.readouterr().out
    constants = tuning.load()
    assert f"tuning {tuning.describe()} written to {tuning.path()}" in out
    for p in ("complex128", "complex64"):
        assert constants[roofline.fmas_key(p)] > 0
        assert all(constants[planner.gate_key(k, p)] > 0
                   for k in range(fusion.MAX_QUBITS + 1))
        assert constants[fused.block_key(p)] >= 4
    assert all(constants[roofline.gbs_key(level)] > 0 for level in ("L2", "L3", "DRAM"))
    assert tune_limits.limits(["complex64"], ["L2", "L3"])[1].startswith("tuned")
