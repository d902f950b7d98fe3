"""What the harness writes, read as runs (harness.store.files): a real circuit report, an
MPI job's, asv results written through asv's own API (with and without the context
``harness bench`` writes beside them), gate.json as the gate writes it, an evals report;
the same file read twice is one run; a file that holds no run is a FileError naming it,
never a crash."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from asv.benchmarks import Benchmarks
from asv.config import Config

from harness import provenance
from harness.circuit import command as circuit_command
from harness.gate import report as gate_report_writer
from harness.store import database, files, schema, write
from harness.store.files import asv_results
from tests.harness import fake_results

ROOT = Path(__file__).resolve().parents[2]


def test_a_real_circuit_report_is_one_run(tmp_path):
    report, _ = circuit_command.run("lib:qft", 6, "stride,fused,naive", rounds=3, budget=0.5,
                                    say=lambda text: None)
    report["run"] = provenance.context("circuit", ["circuit", "lib:qft"])
    path = tmp_path / "qft.json"
    path.write_text(json.dumps(report))
    run, = files.runs_of(path)
    assert files.kind_of(path) == "circuit"
    by = {r.backend: r for r in run.results}
    assert set(by) == {"stride", "fused", "naive"}
    assert by["stride"].seconds == report["backends"]["stride"]["seconds"]
    assert by["stride"].interval == tuple(report["backends"]["stride"]["interval"])
    assert by["fused"].role == "fusing" and by["fused"].extra["program"]["gates"] > 0
    assert by["stride"].settings["hash"] == by["stride"].settings_hash
    params = by["stride"].benchmark.params
    assert params == {"qubits": 6, "precision": "complex128", "threads": 1, "cache": "cold",
                      "ranks": 1, "digest": report["digest"]}
    assert run.machine.fingerprint == provenance.machine_facts()["fingerprint"]
    assert run.source == {"kind": "circuit"}
    assert files.runs_of(path)[0].id == run.id  # twice is once


def test_settings_of_one_program_are_a_result_each(tmp_path):
    # ghz on 4 qubits: every width from 2 up compiles to one plan, timed once, one row
    report, _ = circuit_command.run("lib:ghz", 4, "fused", fusion="all", rounds=2,
                                    budget=0.5, say=lambda text: None)
    merged = {label: row for label, row in report["backends"].items() if "=" in label}
    assert merged, list(report["backends"])
    report["run"] = provenance.context("circuit", ["circuit", "lib:ghz"])
    path = tmp_path / "ghz.json"
    path.write_text(json.dumps(report))
    run, = files.runs_of(path)
    by = {r.backend: r for r in run.results}
    for label, row in merged.items():
        names = [label.partition("=")[0], *row["same_program_as"]]
        assert len(names) == label.count("=") + 1
        for name in names:
            assert by[name].seconds == row["seconds"]
        for name, settings in row["same_program_as"].items():
            assert by[name].settings_hash == settings["hash"] != row["settings"]["hash"]
    assert len(by) == sum(1 + len(r.get("same_program_as", {}))
                          for r in report["backends"].values())


def test_an_mpi_jobs_report_keeps_its_communication(tmp_path):
    row = {"status": "ok", "reason": "", "seconds": 0.5, "interval": [0.5, 0.55],
           "samples": 4, "max_error": 1e-13, "role": "distributed", "baseline": False,
           "settings": {"backend": "mpi", "hash": "12345678", "ranks": 2},
           "comm": {"exchanges": 3, "bytes_per_rank": 8.0e6, "seconds": 0.02,
                    "wait_seconds": 0.001}, "peak_bytes_per_rank": 1 << 25}
    report = {"circuit": "lib:qcbm", "qubits": 22, "precision": "complex128", "threads": 1,
              "cache": "cold", "ranks": 2, "mpi": {"implementation": "Open MPI",
                                                   "version": "5.0"},
              "backends": {"mpi": row, "quest-mpi": {"status": "skipped",
                                                     "reason": "not built", "role": "peer"}},
              "run": provenance.context("circuit")}
    path = tmp_path / "mpi.json"
    path.write_text(json.dumps(report))
    run, = files.runs_of(path)
    mpi, quest = run.results
    assert mpi.comm.exchanges == 3 and mpi.comm.bytes_per_rank == 8.0e6
    assert mpi.extra["comm"] == {"wait_seconds": 0.001} and mpi.peak_bytes == 1 << 25
    assert mpi.benchmark.params["ranks"] == 2
    assert quest.status == "skipped" and quest.reason == "not built"


def _asv_results(tmp_path, context=True):
    """A results folder as `harness bench` leaves it: asv's results file and
    benchmarks.json, harness.settings' file, and (``context``) the run's context."""
    results_dir = tmp_path / "results"
    results_dir.mkdir()
    res = fake_results.new_results(results_dir, info={"cpu": "Fake CPU", "num_cpu": "8",
                                                      "ram": "16000000", "arch": "x86_64",
                                                      "os": "Linux"})
    name = "statevector_gates.Gate.time_gate"
    nan = math.nan
    fake_results.add(res, name, [["'X'", "'H'"], ["4", "20"], ["'stride'", "'qulacs'"]],
                     [1e-6, 2e-6, 1e-5, None, 1.1e-6, nan, 1.2e-5, 2.2e-5],
                     [[1e-6, 1.1e-6, 1.3e-6], [2e-6], [1e-5, 1.2e-5], None,
                      [1.1e-6, 1.2e-6], None, [1.2e-5, 1.3e-5], [2.2e-5, 2.4e-5]])
    fake_results.add(res, "machine.MemoryBandwidth.track_copy_bandwidth", [["'L2'"]], [41.5])
    res.save(str(results_dir))
    config = tmp_path / "asv.conf.json"
    config.write_text(json.dumps({"version": 1, "project": "x", "repo": str(ROOT),
                                  "results_dir": str(results_dir),
                                  "benchmark_dir": str(tmp_path)}))
    Benchmarks(Config.load(str(config)), [
        {"name": name, "type": "time", "unit": "seconds", "version": "1",
         "params": [], "param_names": ["gate", "n", "backend"]},
        {"name": "machine.MemoryBandwidth.track_copy_bandwidth", "type": "track",
         "unit": "GB/s", "version": "1", "params": [], "param_names": ["level"]}]).save()
    path = next((results_dir / "box").glob("abcdef12*.json"))
    if context:
        asv_results.write_context(path, provenance.context("bench", profile="quick"),
                                  {"stride": ("kernel", False), "qulacs": ("peer", True)})
    return results_dir, path


def test_asv_results_are_a_run_per_file(tmp_path):
    folder, path = _asv_results(tmp_path)
    assert files.kind_of(folder) == "asv"
    run, = files.runs_of(folder)
    assert run.commit == "abcdef1234567890" and run.profile == "quick"
    assert run.command == "bench"
    gates = [r for r in run.results if r.benchmark.suite == "statevector_gates"]
    by = {(r.benchmark.params["gate"], r.benchmark.params["n"], r.backend): r for r in gates}
    x4 = by[("X", 4, "stride")]
    assert x4.seconds == 1e-6 and x4.interval == (1e-6, 1.1e-6) and x4.samples == 3
    assert x4.times == [1e-6, 1.1e-6, 1.3e-6] and x4.role == "kernel"
    assert by[("X", 20, "qulacs")].status == "failed"
    assert by[("H", 4, "qulacs")].status == "skipped"
    assert by[("X", 4, "qulacs")].baseline and not x4.baseline
    assert x4.benchmark.case == "Gate.time_gate" and "backend" not in x4.benchmark.params
    track, = [r for r in run.results if r.benchmark.suite == "machine"]
    assert (track.value, track.unit, track.backend) == (41.5, "GB/s", "")
    assert files.runs_of(path.parent)[0].id == run.id  # one machine's folder: the same run


def test_asv_results_without_a_context_name_their_machine_from_asv(tmp_path):
    folder, _ = _asv_results(tmp_path, context=False)
    run, = files.runs_of(folder)
    assert run.machine.name == "box" and run.machine.cpu == "Fake CPU"
    assert run.machine.cores == 8 and run.machine.memory_bytes == 16000000 * 1024
    assert "machine.json" in run.source["machine"]
    assert run.started.year == 2026  # when the sweep ran (asv's date is the commit's)


def test_gate_json_is_a_run_per_revision(tmp_path):
    result = {"base": {"rev": "HEAD~1", "sha": "a" * 40}, "head": {"rev": "HEAD", "sha": "b" * 40},
              "tier1": [{"id": "gate/H/stride/n14", "base": 1000.0, "head": 1010.0,
                         "ratio": 1.01, "tolerance": 0.01, "verdict": "same"}],
              "tier2": [{"id": "circuit/QCBM/threaded/n20", "base_seconds": [0.2, 0.21, 0.25],
                         "head_seconds": [0.19, 0.2, 0.3], "ratios": [0.95], "ratio": 1.0,
                         "interval": [0.9, 1.0, 1.1, 0.95], "tolerance": 0.1,
                         "blocking": False, "verdict": "same"}],
              "not_judged": [], "settings": {"python": "3.11.7", "valgrind": "3.19"},
              "run": provenance.context("gate"), "exit": 0, "summary": "no regression"}
    gate_report_writer.write(result, tmp_path)
    base, head = files.runs_of(tmp_path / "gate.json")
    assert (base.commit, head.commit) == ("a" * 40, "b" * 40)
    assert not base.dirty and base.command == "gate"
    counted = {r.benchmark.case: r for r in head.results}
    assert counted["gate/H/stride/n14"].instructions == 1010.0
    wall = counted["circuit/QCBM/threaded/n20"]
    assert wall.seconds == 0.19 and wall.interval == (0.19, 0.2) and wall.times == [0.19, 0.2, 0.3]
    result.update(error="GateError: no revision nope", exit=2)
    gate_report_writer.write(result, tmp_path)
    with pytest.raises(files.FileError, match="could not run"):
        files.runs_of(tmp_path / "gate.json")


def test_an_evals_report_is_a_run(tmp_path):
    done = subprocess.run([sys.executable, "-m", "harness", "evals", "--eval", "llsq",
                           "--backend", "manual", "--backend", "reverse", "--backend",
                           "compiled", "--rounds", "2",
                           "--budget", "0.2", "--json", str(tmp_path / "e.json"),
                           "--no-record"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    run, = files.runs_of(tmp_path / "e.json")
    by = {r.backend: r for r in run.results}
    assert set(by) >= {"manual", "reverse"}
    assert by["manual"].role == "baseline" and by["manual"].baseline
    assert by["reverse"].interval[0] == by["reverse"].seconds and by["reverse"].samples == 2
    # a compiling backend keeps its own objective's time and its compile seconds
    assert by["compiled"].extra["objective_seconds"] > 0
    assert by["compiled"].extra["compile_seconds"] >= 0
    assert "objective_seconds" not in by["reverse"].extra
    objective = [r for r in run.results if r.role == "objective"]
    assert len(objective) == 1 and objective[0].seconds > 0
    assert by["manual"].benchmark.params == {"size": "16", "output": "gradient"}


@pytest.mark.parametrize("content, fragment", [
    (b"{", "not JSON"),
    (b"[]", "neither"),
    (b'{"circuit": "x", "backends": {"a": 1}}', "not the JSON of harness circuit"),
    (b'{"circuit": "x", "qubits": 2, "precision": "complex128", "backends": {"a": '
     b'{"status": "ok", "seconds": -1}}}', "not a run"),
    (b'{"evals": [{"eval": 3}]}', "harness evals"),
    (b'{"tier1": [], "tier2": [], "base": {"sha": "x"}, "head": {}}', "gate"),
])
def test_a_file_that_holds_no_run_is_an_error_naming_it(tmp_path, content, fragment):
    path = tmp_path / "odd.json"
    path.write_bytes(content)
    with pytest.raises(files.FileError, match=fragment) as caught:
        files.runs_of(path)
    assert str(path) in str(caught.value)


def test_record_stores_each_run_once_and_names_what_it_cannot_read(tmp_path):
    folder, _ = _asv_results(tmp_path)
    (tmp_path / "bad.json").write_text("{")
    db = tmp_path / "store.db"

    def record(*paths):
        return subprocess.run([sys.executable, "-m", "harness", "record", *map(str, paths),
                               "--db", str(db)], cwd=ROOT, capture_output=True, text=True,
                              timeout=600)
    first = record(folder, tmp_path / "bad.json", tmp_path / "none.json")
    assert first.returncode == 2
    assert "bad.json: not JSON" in first.stderr and "none.json: no such file" in first.stderr
    assert "1 run(s) recorded, 0 already there" in first.stdout
    again = record(folder)
    assert again.returncode == 0 and "0 run(s) recorded, 1 already there" in again.stdout
    store = database.Store(db)
    run, = files.runs_of(folder)
    assert write.add(store, run) == (run.id, False)
    store.close()


def test_this_machines_context_is_a_valid_run_header():
    context = provenance.context("circuit", ["circuit", "x"])
    assert set(context) == {"machine", "commit", "dirty", "command", "argv", "profile",
                            "versions", "tuning", "started"}
    assert schema.Machine.model_validate(context["machine"]).name == context["machine"]["name"]
