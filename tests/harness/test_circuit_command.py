"""``python -m harness circuit``: exit 0 when every backend that ran agrees with the
reference, 1 when one returned a wrong state, 2 on bad input; the JSON and the state it
writes; skipped and refused backends listed with their reasons."""

import json
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import adapters
from adapters.simulators._base import declaration
from harness import registry
from harness import threads as threads_mod
from harness.__main__ import main
from harness.circuit import command as circuit_command
from kernels.statevector import circuits, naive, roofline

pytest.importorskip("qiskit")
ROOT = Path(__file__).resolve().parents[2]
QASM = Path(__file__).parent / "qasm"
FAST = "stride,subspace,naive"


def run_cli(capsys, *args):
    code = main(["circuit", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_library_circuit_on_the_kernels(capsys, tmp_path):
    out_json, out_state = tmp_path / "r.json", tmp_path / "s.npy"
    code, out, err = run_cli(capsys, "lib:ghz", "--qubits", 5, "--backends", FAST,
                             "--json", out_json, "--state", out_state)
    assert code == 0, err
    assert "circuit lib:ghz: 5 qubits, 5 gates" in out
    report = json.loads(out_json.read_text())
    assert set(report) >= {"circuit", "qubits", "gates", "precision", "settings_hash",
                           "ranks", "reference", "rounds", "cache", "backends"}
    assert report["ranks"] == 1 and report["cache"] == "cold"
    # validated against the dense oracle at 5 qubits, which the others agree with
    assert report["reference"]["backend"] == "naive"
    assert set(report["reference"]["agreed_by"]) == {"stride", "subspace"}
    assert (report["circuit"], report["qubits"], report["gates"]) == ("lib:ghz", 5, 5)
    assert report["precision"] == "complex128" and len(report["settings_hash"]) == 8
    assert set(report["backends"]) == {"stride", "subspace", "naive"}
    for row in report["backends"].values():
        assert row["status"] == "ok" and row["seconds"] > 0 and row["max_error"] < 1e-12
        low, high = row["interval"]
        assert low == row["seconds"] <= high and row["samples"] >= 1
        assert row["settings"]["precision"] == "complex128" and row["settings"]["threads"] == 1
        assert len(row["settings"]["hash"]) == 8
    state = np.load(out_state)
    expected = np.zeros(32, dtype=complex)
    expected[[0, 31]] = 2 ** -0.5
    np.testing.assert_allclose(state, expected, atol=1e-12)
    # the ranking: every backend that ran, fastest first, time / fastest of (~)1.00 on
    # top, each with its interval; the reference named, with what agreed with it
    lines = [line for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert len(lines) == 3 and " 1.00 " in lines[0]
    assert "reference: naive" in out and "interval: the samples' minimum" in out


def test_a_qasm_file_says_what_was_dropped(capsys):
    code, out, err = run_cli(capsys, QASM / "user_gates.qasm", "--backends", "stride,loop")
    assert code == 0, err
    assert "dropped 5 final measurements" in out and "dropped 1 barrier" in out


def test_mqt_bench_by_name(capsys, tmp_path):
    pytest.importorskip("mqt.bench")
    out_json = tmp_path / "r.json"
    code, out, err = run_cli(capsys, "mqt:qft", "--qubits", 6, "--backends", "stride",
                             "--json", out_json)
    assert code == 0, err
    assert json.loads(out_json.read_text())["circuit"] == "mqt:qft"


def test_skipped_and_refused_backends_are_listed_with_their_reasons(capsys, tmp_path):
    out_json = tmp_path / "r.json"
    code, out, err = run_cli(capsys, "lib:qft", "--qubits", 11, "--backends",
                             "stride,naive,cuda", "--json", out_json)
    assert code == 0, err
    report = json.loads(out_json.read_text())
    rows = report["backends"]
    assert rows["naive"]["status"] == "refused" and "up to 10 qubits" in rows["naive"]["reason"]
    # above the dense oracle's limit the fast reference validates
    assert report["reference"]["backend"] == "blocked"
    assert rows["cuda"]["status"] in ("skipped", "ok")
    assert "refused: naive:" in out


def test_complex64(capsys, tmp_path):
    out_json = tmp_path / "r.json"
    code, _, err = run_cli(capsys, "lib:qv", "--qubits", 6, "--backends", "stride,naive",
                           "--precision", "complex64", "--json", out_json)
    assert code == 0, err
    report = json.loads(out_json.read_text())
    assert report["precision"] == "complex64"
    assert report["backends"]["stride"]["status"] == "ok"
    assert 0 < report["backends"]["stride"]["max_error"] < 1e-4
    assert report["backends"]["naive"]["settings"]["precision"] == "complex64"


@pytest.mark.parametrize("args, message", [
    (["lib:nope", "--qubits", 3], "lib:nope is not in the circuit library"),
    (["lib:ghz"], "needs --qubits"),
    (["lib:ghz", "--qubits", 4, "--backends", "stride,nosuch"], "unknown backend(s) nosuch"),
    (["lib:ghz", "--qubits", 4, "--precision", "complex32"], "unknown precision"),
    (["lib:ghz", "--qubits", 60], "too many qubits for memory"),
    (["lib:ghz", "--qubits", 4, "--threads", 999], "--threads"),
    ([QASM / "reset.qasm"], "line 6: reset on qubit 1"),
    ([QASM / "syntax.qasm"], "line 5"),
    (["nowhere.qasm"], "cannot read nowhere.qasm"),
])
def test_bad_input_exits_2_with_the_reason(capsys, args, message):
    code, out, err = run_cli(capsys, *args)
    assert code == 2
    assert message in err and err.startswith("circuit: ")
    assert out == ""


def _wrong_simulator():
    """A plugin-like simulator adapter that flips one amplitude's sign."""
    m = types.ModuleType("wrong_sim")
    m.NAME, m.AVAILABLE, m.REASON, m.PRECISIONS = "wrong", True, "wrong 1.0", ("complex128",)
    m.SETTINGS = {"fusion": "off"}
    m.from_numpy = lambda vec: np.array(vec, dtype=np.complex128)
    m.to_numpy = lambda state: state.copy()
    m.gate = lambda inst: [inst]
    m.circuit = lambda insts, n: list(insts)
    m.sync = lambda: None

    def run(state, program):
        circuits.run(naive.apply, state, program)
        state[-1] *= -1
        return state
    m.run = run
    return m


def test_a_wrong_backend_exits_1(capsys, monkeypatch, tmp_path):
    wrong = _wrong_simulator()
    monkeypatch.setattr(adapters, "simulator_declarations",
                        lambda: [declaration(wrong, "plugin")])
    out_json = tmp_path / "r.json"
    code, out, err = run_cli(capsys, "lib:ghz", "--qubits", 3, "--backends", "stride,wrong",
                             "--json", out_json)
    assert code == 1
    assert "WRONG  wrong: max amplitude error" in out
    rows = json.loads(out_json.read_text())["backends"]
    assert rows["wrong"]["status"] == "wrong" and rows["wrong"]["max_error"] > 0.5
    assert rows["wrong"]["seconds"] is None  # never timed
    assert rows["stride"]["status"] == "ok"
    # a disagreement has the reference checked by a backend apart from both
    cross = json.loads(out_json.read_text())["reference"]["cross_check"]
    assert cross["agrees"] and cross["backend"] not in ("naive", "stride", "wrong")


def test_a_backend_that_raises_is_refused_and_stops_nothing(capsys, monkeypatch, tmp_path):
    broken = _wrong_simulator()

    def run(state, program):
        raise TypeError("an internal bug")
    broken.run = run
    monkeypatch.setattr(adapters, "simulator_declarations",
                        lambda: [declaration(broken, "plugin")])
    code, out, _ = run_cli(capsys, "lib:ghz", "--qubits", 3, "--backends", "wrong,stride")
    assert code == 0
    assert "refused: wrong: raised TypeError: an internal bug" in out


@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_every_sample_starts_from_the_circuits_start(capsys, monkeypatch, cache):
    """Each timed call gets a state loaded from the start, not the last call's result (a
    state run on again and again drifts, to subnormal floats in complex64): the start
    itself with cold caches, the warm-up's one run of the circuit with warm ones."""
    seen = []
    sim = _wrong_simulator()

    def run(state, program):
        seen.append(state.copy())
        return circuits.run(naive.apply, state, program)
    sim.run = run
    monkeypatch.setattr(adapters, "simulator_declarations",
                        lambda: [declaration(sim, "plugin")])
    # the calls on subnormal and normal states after the timing are not samples
    monkeypatch.setattr(circuit_command, "_stalls", lambda *args: None)
    code, _, err = run_cli(capsys, "lib:qft", "--qubits", 3, "--backends", "wrong,stride",
                           "--rounds", 4, "--budget", 5, "--cache", cache)
    assert code == 0, err
    start = np.zeros(8, complex)
    start[0] = 1
    qft = circuits.LIBRARY["qft"].make(3, np.random.default_rng(0))
    once = circuits.run(naive.apply, start.copy(), qft)
    timed = seen[1:]  # after validation's call
    assert len(timed) >= 2 * (2 if cache == "warm" else 1)
    for k, state in enumerate(timed):
        warmed = cache == "warm" and k % 2 == 1
        np.testing.assert_allclose(state, once if warmed else start, atol=1e-12)


@pytest.mark.slow  # a whole process (or a gate run) for what faster tests check
def test_the_command_line_entry_point(tmp_path):
    out_json = tmp_path / "r.json"
    done = subprocess.run([sys.executable, "-m", "harness", "circuit", "lib:ghz", "--qubits",
                           "4", "--backends", "stride", "--json", str(out_json)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert json.loads(out_json.read_text())["backends"]["stride"]["status"] == "ok"
    done = subprocess.run([sys.executable, "-m", "harness", "circuit", "lib:ghz"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 2 and "needs --qubits" in done.stderr


def test_fusion_all_times_every_setting_and_the_fused_backends_passes(capsys, tmp_path):
    out_json = tmp_path / "r.json"
    code, out, err = run_cli(capsys, "lib:qcbm", "--qubits", 8, "--backends",
                             "fused,stride,qulacs", "--fusion", "all", "--rounds", 1,
                             "--json", out_json)
    assert code == 0, err
    report = json.loads(out_json.read_text())
    rows = report["backends"]
    assert report["fusion"] == "all"
    # every setting once: the default under the backend's name, the others as name@k
    # (the fused backend's default is a width its planner chooses, so every k is run);
    # settings that compiled to one program are one row named after each of them
    stands_for = {each: label for label, row in rows.items()
                  for each in [label.partition("=")[0], *row.get("same_program_as", {})]}
    assert {"fused", *(f"fused@{k}" for k in range(1, 7))} <= set(stands_for)
    assert "stride" in rows
    hashes = [r["settings"]["hash"] for r in rows.values()]
    assert len(hashes) == len(set(hashes))
    digests = [r["program"]["digest"] for label, r in rows.items() if label.startswith("fused")]
    assert len(digests) == len(set(digests)), "two rows of one program"
    for label, row in rows.items():
        for other, settings in row.get("same_program_as", {}).items():
            assert label.endswith("@" + other.partition("@")[2]) or "=@" in label
            assert settings["backend"] == "fused" and settings["hash"] != row["settings"]["hash"]
    default = rows[stands_for["fused"]]
    assert default["settings"]["fusion"] == "on (the tool's rule)"
    chosen = default["program"]
    assert chosen["chosen"] and chosen["max_qubits"] in (2, 3, 4, 5)
    assert rows["stride"]["settings"]["fusion"] == "off"
    three = stands_for["fused@3"]
    info = rows[three]["program"]
    if three == "fused@3" or three.startswith("fused@3="):
        assert rows[three]["settings"]["fusion"] == "up to 3 qubits"
        assert info["max_qubits"] == 3
    assert info["passes"] >= 1 and info["level"] == "L2"
    assert info["effective_gbs"] > 0 and info["level_gbs"] > 0
    assert f"{three}: 264 gates fused into" in out and "(at most " in out
    assert "in-place yardstick" in out
    # the roofline: the least time the program's work could take here, over its time
    assert 0 < rows[three]["roofline"] and info["bound"] in ("compute", "L2")
    assert info["roofline_seconds"] == pytest.approx(
        rows[three]["roofline"] * rows[three]["seconds"])
    # stride declares one pass per gate: its work is the circuit's, gate by gate
    stride = rows["stride"]["program"]
    assert stride["one_pass_per_gate"] and stride["gates"] == 264
    assert stride["work"] == roofline.gates_alone(
        circuit_command.sources.load("lib:qcbm", 8).instructions)._asdict()
    assert 0 < rows["stride"]["roofline"] <= 1.5  # of its roofline; the noise aside
    assert "stride: 264 gates, one pass over the state each as declared" in out
    limits = report["limits"]
    assert limits["origin"] == "measured now" and limits["fmas_per_second"] > 0
    assert "% of its roofline" in out and "roofline limits (measured now)" in out
    if registry.simulator("qulacs").available()[0]:
        assert rows["qulacs"]["settings"]["fusion"] == "off"  # 0: not optimized
        assert rows["qulacs@2"]["status"] == "ok" and "qulacs@0" not in rows
        # fusing by its own rule: what it must do is not known
        assert "roofline" in rows["qulacs"] and "roofline" not in rows["qulacs@2"]


@pytest.mark.skipif(threads_mod.max_threads() < 2, reason="one core: no run on two threads")
def test_a_run_on_two_threads_is_judged_against_two_cores(capsys, tmp_path):
    out_json = tmp_path / "r.json"
    code, out, err = run_cli(capsys, "lib:qcbm", "--qubits", 12, "--backends", "fused",
                             "--threads", 2, "--rounds", 1, "--json", out_json)
    assert code == 0, err
    report = json.loads(out_json.read_text())
    limits, row = report["limits"], report["backends"]["fused"]
    # measured on two threads, never one core's limits (which put a two-thread run
    # above its roofline: 104% at 22 qubits)
    assert limits["origin"] == "measured now on 2 threads" and limits["threads"] == 2
    assert "G FMA/s on 2 cores" in out
    info = row["program"]
    assert info["roofline_seconds"] == pytest.approx(row["roofline"] * row["seconds"])
    assert row["settings"]["threads"] == 2


@pytest.mark.parametrize("fusion", ["sometimes", "9"])
def test_a_fusion_setting_nobody_declares_is_bad_input(capsys, fusion):
    code, _, err = run_cli(capsys, "lib:ghz", "--qubits", 4, "--backends", "fused,stride",
                           "--fusion", fusion)
    assert code == 2 and "--fusion" in err


def test_ties_and_the_cache_regime(capsys, tmp_path):
    """The same backend twice in one run (two settings that compute alike) is no
    ranking at all: a tie, within the noise; the regime asked for is in every row's
    settings; the rounds end once the fastest two are told apart or the budget ends."""
    out_json = tmp_path / "r.json"
    code, out, err = run_cli(capsys, "lib:qcbm", "--qubits", 10, "--backends",
                             "stride,subspace", "--cache", "warm", "--rounds", 6,
                             "--json", out_json)
    assert code == 0, err
    report = json.loads(out_json.read_text())
    assert report["cache"] == "warm"
    assert {r["settings"]["cache"] for r in report["backends"].values()} == {"warm"}
    assert report["rounds"]["run"] <= 6
    # subspace (numpy gathers) is far slower than stride: told apart, no tie
    assert report["rounds"]["settled"]
    assert "the fastest two told apart" in out


def test_ranking_marks_ties():
    from harness import ranking
    rows = {"a": (1.0, (1.0, 1.2)), "b": (1.1, (1.1, 1.3)), "c": (2.0, (2.0, 2.1))}
    assert ranking.ranks(rows) == {"a": "1=", "b": "1=", "c": "3"}
    assert ranking.ratio_cell(1.1, (1.1, 1.3), 1.0, (1.0, 1.2)) == "~1.10"
    assert ranking.ratio_cell(2.0, (2.0, 2.1), 1.0, (1.0, 1.2)) == "2.00"
    assert not ranking.settled(rows) and ranking.settled({"a": rows["a"], "c": rows["c"]})
    assert ranking.headline(rows) == ("a ~ b", "c x2.00")


@pytest.mark.parametrize("rounds, budget, expected", [(20, 1.0, 2), (1, 1.0, 1),
                                                      (20, 1e-9, 1)])
def test_every_row_gets_two_samples_whatever_the_budget(capsys, monkeypatch, tmp_path,
                                                        rounds, budget, expected):
    # Rounds end once every row has two samples (one sample has no spread), though each
    # backend's share of time is spent at its first call; --rounds 1 asks for one, and a
    # slow backend whose one call is longer than the whole budget gets that one. Every
    # backend is made "slow" here: its share of time per backend is less than one call.
    # (The first two budgets are far above a 6-qubit call, 10 ms once failed on a loaded
    # machine where one call took longer.)
    monkeypatch.setattr(circuit_command, "SECONDS_PER_BACKEND", 1e-12)
    out_json = tmp_path / "r.json"
    code, _, err = run_cli(capsys, "lib:ghz", "--qubits", 6, "--backends", "stride,loop",
                           "--budget", budget, "--rounds", rounds, "--json", out_json)
    assert code == 0, err
    report = json.loads(out_json.read_text())
    assert report["rounds"]["run"] == expected
    assert {r["samples"] for r in report["backends"].values()} == {expected}


def test_nothing_left_to_time_is_a_table_not_a_crash(capsys, tmp_path):
    # naive's circuit limit refuses 12 qubits: no row is timed, the run still reports
    out_json = tmp_path / "r.json"
    code, out, err = run_cli(capsys, "lib:ghz", "--qubits", 12, "--backends", "naive",
                             "--json", out_json)
    assert code == 0, err
    assert "refused: naive" in out
    assert json.loads(out_json.read_text())["rounds"]["run"] == 0
