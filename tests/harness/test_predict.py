"""``python -m harness predict``: the exchange plan priced on a described cluster, the
exchanges inside a node told from those over the link, and bad descriptions refused."""

import json

import pytest

from harness.__main__ import main
from harness.distributed import predict
from kernels.statevector import distributed

pytest.importorskip("qiskit")


def test_exchanges_split_by_node_and_priced_by_the_link():
    # 4 ranks on 2 nodes: global bit 0 pairs ranks of one node, bit 1 ranks of two
    report = predict.predict("lib:qft", 10, ranks=4, nodes=2, link_gbps=8.0,
                             latency_us=10.0)
    circuit = predict.sources.load("lib:qft", 10)
    plan = distributed.plan.plan(circuit.instructions, 10, 2)
    comm = report["communication"]
    intra, inter = comm["intra"], comm["inter"]
    # an exchange of both global bits swaps a quarter slice with rank 1 (same node) and
    # with ranks 2 and 3 (the other node): it counts on both sides
    assert plan.exchanges <= intra["exchanges"] + inter["exchanges"]
    assert inter["exchanges"] > 0 and intra["exchanges"] > 0
    assert intra["bytes_per_rank"] + inter["bytes_per_rank"] == plan.sent(16 * 2**8)
    assert intra["messages"] == 0 < inter["messages"]  # a node's pairs swap in place
    # over the link: the node's 2 ranks share 1 GB/s (8 Gb/s), plus 10 us a message
    assert inter["seconds"] == pytest.approx(
        inter["bytes_per_rank"] * 2 / 1e9 + inter["messages"] * 10e-6)
    assert report["seconds"] == pytest.approx(report["compute"]["seconds"] + comm["seconds"])
    assert report["compute"]["how"].startswith("measured")  # 8 qubits fit here
    assert 0 <= report["comm_share"] <= 1


def test_one_node_sends_nothing_over_the_link(capsys, tmp_path):
    out = tmp_path / "p.json"
    code = main(["predict", "lib:qcbm", "--qubits", "10", "--ranks", "4", "--json", str(out)])
    assert code == 0
    report = json.loads(out.read_text())
    assert report["communication"]["inter"]["exchanges"] == 0
    assert report["communication"]["intra"]["exchanges"] > 0
    assert "predicted" in capsys.readouterr().out


def test_sizes_and_node_counts_make_a_table(capsys, tmp_path):
    out = tmp_path / "grid.json"
    code = main(["predict", "lib:qft", "--qubits", "9", "10", "--nodes", "1", "4",
                 "--ranks-per-node", "2", "--model", "--json", str(out)])
    assert code == 0
    reports = json.loads(out.read_text())["predictions"]
    assert sorted((r["qubits"], r["nodes"], r["ranks"]) for r in reports) == [
        (9, 1, 2), (9, 4, 8), (10, 1, 2), (10, 4, 8)]
    assert all(r["compute"]["how"].startswith("modelled") for r in reports)
    # one node sends nothing over the link; four do
    assert {r["nodes"]: r["communication"]["inter"]["bytes_per_rank"] > 0
            for r in reports} == {1: False, 4: True}
    text = capsys.readouterr().out
    assert "4 nodes" in text and text.count("\n") >= 4


def test_a_prediction_plans_past_the_ranks_the_backend_runs_on():
    report = predict.predict("lib:ghz", 12, ranks=256, nodes=16, model=True)
    assert report["ranks"] == 256 and report["slice_bytes"] == 16 * 2**4


@pytest.mark.parametrize("args, message", [
    (["--ranks-per-node", "3"], "power of two"),
    (["--ranks", "3"], "power of two"),
    (["--ranks", "4", "--nodes", "3"], "divide"),
    (["--ranks", "4", "--link-gbps", "0"], "link-gbps"),
    (["--ranks", "4", "--latency-us", "-1"], "latency-us"),
    (["--ranks", "64", "--qubits", "4"], "at least one qubit"),
])
def test_bad_descriptions_exit_2(capsys, args, message):
    argv = ["predict", "lib:ghz", *args]
    if "--qubits" not in args:
        argv += ["--qubits", "6"]
    assert main(argv) == 2
    assert message in capsys.readouterr().err
