"""The instruction counts as asv history: the suite reports what one callgrind run counted
and skips, with the reason, what it could not count."""

import pytest

from harness.benchmarks import gate_counts
from harness.errors import ValidationError
from harness.gate import cases
from harness.gate.runner import GateError


def test_suite_covers_the_profile_cases():
    assert gate_counts.CASES
    assert all(cases.CASES[c].tier == 1 for c in gate_counts.CASES)


def test_suite_reports_counts_and_skips_with_reasons(monkeypatch):
    first, second, third = gate_counts.CASES[:3]
    skipped = {second: {"status": "missing", "reason": "missing: x"},
               third: {"status": "failed", "reason": "max amplitude error 1"}}
    monkeypatch.setattr(gate_counts.counts, "count_checkout",
                        lambda root, ids, gate_dir: ({first: 1234.5}, skipped))
    suite = gate_counts.Instructions()
    cache = suite.setup_cache()
    suite.setup(cache, first)
    assert suite.track_instructions(cache, first) == 1234.5
    with pytest.raises(NotImplementedError, match="missing: x"):
        suite.setup(cache, second)
    with pytest.raises(ValidationError, match="max amplitude error"):  # a failure, not a skip
        suite.setup(cache, third)


def test_suite_without_valgrind_skips_every_case(monkeypatch):
    def no_valgrind(root, ids, gate_dir):
        raise GateError("valgrind not found")

    monkeypatch.setattr(gate_counts.counts, "count_checkout", no_valgrind)
    suite = gate_counts.Instructions()
    cache = suite.setup_cache()
    for case in gate_counts.CASES:
        with pytest.raises(NotImplementedError, match="valgrind not found"):
            suite.setup(cache, case)
