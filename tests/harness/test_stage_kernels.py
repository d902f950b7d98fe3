"""The stage kernels' roofline shares (harness.statevector.stage_kernels): the roofline
of one gate of each kind, the cases' states in the level they name, and a measurement
that runs the real kernels and keeps the state a state."""

import numpy as np
import pytest

from harness.statevector import stage_kernels
from harness.statevector.stage_kernels import Case
from kernels.statevector import fusion
from kernels.statevector.machine import cache_sizes


def test_one_gates_roofline_is_its_multiply_adds_or_its_pass():
    """At 1 G FMAs/s and 10 GB/s: a dense 3-qubit gate is 8 complex multiply-adds, 32
    FMAs, 32 ns an amplitude, above its pass (32 bytes, 3.2 ns); a diagonal one 4 ns of
    FMAs; a permutation moves amplitudes and multiplies none, so its pass bounds it."""
    dense = stage_kernels.roofline_seconds(Case("dense", 3, "split", "complex128", "L2"),
                                           1e9, 10.0)
    assert dense == (pytest.approx(32e-9), "compute")
    diagonal = stage_kernels.roofline_seconds(
        Case("diagonal", 3, "split", "complex128", "L2"), 1e9, 10.0)
    assert diagonal == (pytest.approx(4e-9), "compute")
    moves = stage_kernels.roofline_seconds(
        Case("permutation", 4, "staged", "complex64", "L1"), 1e9, 10.0)
    assert moves == (pytest.approx(16 / 10e9), "L1")


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_each_levels_state_fits_it(dtype):
    itemsize = np.dtype(dtype).itemsize
    assert itemsize << stage_kernels.qubits("L1", dtype) <= cache_sizes()[1] // 2
    assert itemsize << stage_kernels.qubits("L2", dtype) <= cache_sizes()[2]
    with pytest.raises(ValueError, match="level must be one of"):
        stage_kernels.qubits("L3", dtype)
    with pytest.raises(ValueError, match="kind must be one of"):
        stage_kernels.matrix("sparse", 2, np.random.default_rng(0))


def test_a_measurement_runs_each_case_on_its_kernels():
    """Two cases, one round: each time and roofline positive, the roofline below the
    time's scale by no absurd factor, the stage's gates of the case's width, and the
    state left normalised by the unitary gates it ran."""
    cases = [Case("dense", 3, "split", "complex64", "L1"),
             Case("permutation", 2, "staged", "complex128", "L1")]
    rng = np.random.default_rng(1)
    for case in cases:
        program, state = stage_kernels.stage(case, rng)
        assert program.info["layout"] == case.layout
        assert program.info["max_qubits"] == case.k
        assert all(len(fusion.span(g)) == case.k for s in program.stages for g in s.gates)
        assert np.linalg.norm(state) == pytest.approx(1, abs=1e-4)
    results = stage_kernels.measure(cases, rounds=1)
    for case in cases:
        seconds, roof, bound = results[case]
        assert 0 < roof < 100 * seconds and seconds < 1e-6
        # a permutation multiplies nothing: its pass bounds it, whatever was measured
        assert bound in (("compute", "L1") if case.kind == "dense" else ("L1",))
    lines = stage_kernels.table(results)
    assert lines[0].startswith("| gate |") and len(lines) == 2 + len(cases)


def test_the_command_prints_a_row_per_kind_and_width(capsys):
    assert stage_kernels.main(["--levels", "L1", "--kinds", "permutation", "--rounds", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].count("L1") == 4  # two layouts, two precisions
    # the split layout's lane gates in rows of their own, empty in the staged columns
    assert [line.split(" | ")[0] for line in lines[2:]] == [
        f"| permutation {k}" for k in stage_kernels.WIDTHS] + [
        f"| permutation {k} on lanes" for k in stage_kernels.WIDTHS]
    header, last = lines[0].split("|"), lines[-1].split("|")
    staged = [j for j, c in enumerate(header) if "staged" in c]
    assert len(staged) == 2 and all(last[j].strip() == "" for j in staged)
    assert all("%" in last[j] for j, c in enumerate(header) if "split" in c)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_a_lane_case_gives_every_gate_a_target_among_the_lanes(dtype):
    w = stage_kernels.fused.run_bits(dtype)
    case = Case("dense", 3, "split", np.dtype(dtype).name, "L1", lanes=True)
    program, _ = stage_kernels.stage(case, np.random.default_rng(2))
    gates = [g for s in program.stages for g in s.gates]
    assert gates and all(min(g.locs) < w and len(g.locs) == 3 for g in gates)
    # some gate has targets above the lanes too, or none would run groups of runs
    assert any(max(g.locs) >= w for g in gates)
    with pytest.raises(ValueError, match="layout has no lane gates"):
        stage_kernels.stage(case._replace(layout="staged"), np.random.default_rng(2))
