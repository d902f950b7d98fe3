"""gate.md and gate.json from a synthetic result: regressions first, their drill-down,
the cases listed but not judged, the trailers and the error of a run that failed."""

import json

from harness.gate import report


def _result():
    row = {"tolerance": 0.01, "tolerance_source": "A/A", "dumps": {}}
    return {
        "base": {"rev": "HEAD~1", "sha": "a" * 40, "subject": "before"},
        "head": {"rev": "HEAD", "sha": "b" * 40, "subject": "after"},
        "exit": 1, "summary": "1 regression: gate/H/stride/n14 +50.0%", "seconds": 100.0,
        "tier1": [
            {**row, "id": "gate/X/stride/n14", "base": 100.0, "head": 100.0, "ratio": 1.0,
             "verdict": "same"},
            {**row, "id": "gate/H/stride/n14", "base": 100.0, "head": 150.0, "ratio": 1.5,
             "verdict": "regression", "accepted": None,
             "functions": [["numba:stride_hadamard_u4_serial(...)", 90, 140, 50]],
             "python": [["kernels/statevector/prepared.py:prepare.<locals>.apply", 10, 12, 2]]},
            {**row, "id": "ad/trmul/reverse/n30", "base": 100.0, "head": 80.0, "ratio": 0.8,
             "verdict": "faster"},
        ],
        "tier2": [{"id": "wall/H/stride/n22", "base_seconds": [0.01, 0.011],
                   "head_seconds": [0.012, 0.012], "ratios": [1.2, 1.09], "ratio": 1.1,
                   "interval": [0.9, 1.1, 1.3, 0.98], "tolerance": 0.1, "blocking": False,
                   "verdict": "same"}],
        "not_judged": [{"id": "wall/H/cuda/n26", "tier": 2, "status": "unavailable",
                        "reason": "no GPU"},
                       {"id": "gate/T/stride/n14", "tier": 1, "status": "changed",
                        "reason": "its definition differs"}],
        "acceptances": [{"pattern": "ad/*", "reason": "why not", "commit": "c" * 40,
                         "subject": "s"}],
        "malformed_trailers": ["cccccccccc: Perf-accepted: nothing"],
        "settings": {"valgrind": "valgrind-3.19.0"},
    }


def test_markdown_orders_regressions_first_and_explains_them(tmp_path):
    path = report.write(_result(), tmp_path)
    text = path.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert rows[0].startswith("| `gate/H/stride/n14`") and "REGRESSION" in rows[0]
    assert rows[1].startswith("| `ad/trmul/reverse/n30`") and "faster" in rows[1]
    assert "+50.00%" in rows[0] and "±1.0%" in rows[0]
    assert "### `gate/H/stride/n14`: +50.00%" in text
    assert "| `numba:stride_hadamard_u4_serial(...)` | 90 | 140 | +50 |" in text
    assert "prepare.<locals>.apply" in text
    assert "| `wall/H/stride/n22` |" in text and "[0.900, 1.300] (98%)" in text
    assert "| `wall/H/cuda/n26` | unavailable | no GPU |" in text
    assert "| `gate/T/stride/n14` | changed |" in text
    assert "`ad/*`: why not" in text and "ignored (no case or no reason)" in text
    assert "**1 regression: gate/H/stride/n14 +50.0%** (exit 1)" in text
    assert json.loads((tmp_path / "gate.json").read_text())["exit"] == 1


def test_markdown_of_a_run_that_could_not_run(tmp_path):
    result = {"base": {"rev": "nope"}, "head": {"rev": "HEAD"}, "exit": 2,
              "summary": "could not run: unknown revision 'nope'", "error": "unknown revision",
              "tier1": [], "tier2": [], "not_judged": []}
    text = report.write(result, tmp_path).read_text()
    assert "The gate could not run" in text and "(exit 2)" in text


def test_callgrind_function_names():
    from harness.gate.counts import function_name
    numba = {"0x4936718": "numba:stride_hadamard_u4_serial"}
    assert function_name("???:0x0000000004936718 [???]", numba) == \
        "numba:stride_hadamard_u4_serial"
    assert function_name("???:0x0000000004936718'2 [???]", numba) == \
        "numba:stride_hadamard_u4_serial"
    assert function_name("???:0x00000000000000aa [???]", numba) == "JIT code at 0x00000000000000aa"
    assert function_name("/src/Python/ceval.c:_PyEval_EvalFrameDefault'2 [/lib/libpython3.11.so]",
                         {}) == "_PyEval_EvalFrameDefault"
    assert function_name("/io/numba/typeconv.cpp:TypeManager::select(int const*) const "
                         "[/x/_dispatcher.so]", {}) == \
        "TypeManager::select(int const*) const"
