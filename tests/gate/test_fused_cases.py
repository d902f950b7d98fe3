"""The gate's fusion cases build in this revision, agree with their independent
reference, and their check catches a wrong fused program."""

import pytest

from harness.gate import cases


def test_fusion_cases_are_gated_in_both_tiers():
    ids = [cid for cid, c in cases.CASES.items() if c.family == "fused"]
    assert {cases.CASES[c].tier for c in ids} == {1, 2}
    assert any(c.startswith("fuse/") for c in ids) and any(c.startswith("fused/") for c in ids)
    assert any(cases.CASES[c].threads == 2 for c in ids)


@pytest.mark.parametrize("cid", cases.select(["fuse/*", "fused/*"], tiers=(1,)))
def test_tier1_fusion_cases_check(cid):
    workload = cases.build(cases.CASES[cid])
    workload.check()
    workload.run()


def test_a_wrong_fused_program_fails_its_check(monkeypatch):
    from kernels.statevector import fused
    real = fused.compile

    def broken(*args, **kwargs):
        program = real(*args, **kwargs)

        def run(state):
            program(state)
            state[0] += 1e-3  # one amplitude off
            return state
        return run
    monkeypatch.setattr(fused, "compile", broken)
    workload = cases.build(cases.CASES["fused/QCBM/k2/n12"])
    with pytest.raises(AssertionError, match="max amplitude error"):
        workload.check()
