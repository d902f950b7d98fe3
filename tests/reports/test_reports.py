"""python -m reports on small fake asv results: every figure and table is written and linked,
the tables hold the numbers, a suite without results is named, no results is an error; the
page leads with the headline, then contents whose every link has its anchor."""

import html
import math
import re

import pytest

from harness import ids
from reports import __main__ as cli
from reports import build, page
from tests.harness import fake_results

GATES = [["'X'", "'H'"], ["4", "8"], ["'naive'", "'stride'", "'qulacs'"]]
# (X,4,naive) (X,4,stride) (X,4,qulacs) (X,8,naive) ... ; naive skipped at 8 qubits
GATE_TIMES = [4e-5, 2e-6, 1e-6, math.nan, 8e-6, 1e-5,
              5e-5, 3e-6, 1.5e-6, math.nan, 9e-6, 9e-6]
#: the variational suite at 12 and 14 qubits; param_shift skipped at 14
VARIATIONAL = [["12", "14"], ["'adjoint'", "'param_shift'", "'lightning'"]]
INFO = {"cpu": "Fake CPU 9000", "num_cpu": "8", "ram": str(16 * 2**30)}


DISTRIBUTED = [["'strong'", "'weak'"], ["'lib:qft'"], ["20"], ["1", "2"], ["'mpi'"]]
#: QFT at 8 and 12 qubits on stride, qulacs and a peer that ran at 12 only
CIRCUITS = [["'QFT'"], ["8", "12"], ["'stride'", "'qulacs'", "'cirq'"]]
CIRCUIT_TIMES = [1e-4, 2e-4, math.nan, 4e-3, 5e-3, 2e-3]


def report_results(tmp_path, chunks=True, threads=True, skipped=(), machine="box",
                   circuits=(CIRCUITS, CIRCUIT_TIMES)):
    """Fake results of every suite the report reads; ``skipped``: benchmarks recorded
    with every combination skipped; ``circuits``: the circuit suite's (params, values)."""
    results_dir = tmp_path / "results"
    results_dir.mkdir(exist_ok=True)
    res = fake_results.new_results(results_dir, machine, INFO)
    fake_results.add(res, ids.GATE_TIME, GATES, GATE_TIMES)
    fake_results.add(res, ids.CIRCUIT_TIME, *circuits)
    fake_results.add(res, ids.GATE64_TIME, [["'X'"], ["10"], ["'stride'", "'qsim'"]],
                     [1e-4, 2e-4])
    fake_results.add(res, ids.CIRCUIT64_TIME, [["'QFT'"], ["10"], ["'stride'", "'qsim'"]],
                     [1e-3, 5e-4])
    fake_results.add(res, ids.GATE_CALL, [["'X'"], ["4"], ["'stride'"]], [4e-6])
    for name, value in (("copy", 10.0), ("inplace", 20.0)):
        fake_results.add(res, getattr(ids, f"{name.upper()}_BANDWIDTH"), [], [value])
    fake_results.add(res, ids.LEVEL_BANDWIDTH, [["'L2'", "'L3'", "'DRAM'"]], [60.0, 30.0, 20.0])
    fake_results.add(res, ids.FUSED_TIME, [["'QFT'"], ["12"], ["'stride'", "'fused'"], ["0", "4"]],
                     [4e-3, math.nan, math.nan, 2e-3])
    fake_results.add(res, ids.FUSED_PASSES, [["'QFT'"], ["12"], ["4"], ["'complex128'"]], [3])
    fake_results.add(res, ids.FUSED_ROOFLINE,
                     [["'QFT'"], ["12"], ["'default'", "'4'"], ["'complex128'"]], [0.4, 0.5])
    fake_results.add(res, ids.FUSED_CHOSEN,
                     [["'QFT'"], ["12"], ["'default'", "'4'"], ["'complex128'"]], [3, 4])
    if threads:
        fake_results.add(res, ids.THREADS_TIME, [["'X'"], ["8"], ["'qulacs'"], ["1", "2"]],
                         [1e-5, 6e-6])
    fake_results.add_ad(res)
    fake_results.add_evals(res)
    fake_results.add(res, ids.AD_VS_MANUAL, [[repr(("trmul", 30))], ["'manual'", "'torch'"]],
                     [1.01, 4.5])
    nan = math.nan
    for key, values in ((ids.VARIATIONAL_GRADIENT, [0.01, 0.5, 0.012, 0.04, nan, 0.05]),
                        (ids.VARIATIONAL_RATIO, [3.1, 200.0, 2.5, 4.2, nan, 3.0]),
                        (ids.VARIATIONAL_MEMORY, [0.06, 0.0, 0.2, 0.25, nan, 1.0])):
        fake_results.add(res, key, VARIATIONAL, values)
    fake_results.add(res, ids.VARIATIONAL_ENERGY, [["12", "14"], ["'ours'", "'lightning'"]],
                     [3e-3, 4e-3, 1e-2, 1.2e-2])
    # strong at 20 on 1 and 2 ranks; weak at 19 (1 rank) and 20 (2 ranks)
    for key, values in ((ids.DISTRIBUTED_TIME, [1.0, 0.6, 0.5, 0.6]),
                        (ids.DISTRIBUTED_MEDIAN, [1.1, 0.66, 0.55, 0.66]),
                        (ids.DISTRIBUTED_COMM, [0.0, 0.3, 0.0, 0.3]),
                        (ids.DISTRIBUTED_BYTES, [0, 3 * 2**22, 0, 3 * 2**22])):
        fake_results.add(res, key, DISTRIBUTED, values)
    if not chunks:
        res.remove_result(ids.AD_CHUNK)
    for name in skipped:
        fake_results.add(res, name, [["'X'"]], [math.nan])
    res.save(str(results_dir))
    return results_dir


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("full")
    out = tmp / "out"
    said = []
    index = build.build(report_results(tmp), "box", out, say=said.append)
    return index, out, said


def test_page_links_every_figure_and_table(full):
    index, out, said = full
    text = index.read_text()
    assert said == []
    pngs = re.findall(r'<img src="([^"]+)"', text)
    assert sorted(pngs) == ["ad_chunks.png", "ad_evals.png", "bandwidth.png",
                            "circuits_complex128.png", "circuits_complex64.png",
                            "distributed.png", "gate_H.png",
                            "gate_X.png", "threads.png", "variational_gradient.png",
                            "variational_memory.png"]
    for png in pngs:
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png
    mds = re.findall(r'<a href="([^"]+\.md)">', text)
    assert {"gate_ratios.md", "bandwidth.md", "ad_speedups.md", "ad_slowdown.md",
            "ad_trmul.md", "ad_chunks.md", "peer_ratios.md", "gate_ranking.md",
            "circuit_ratios.md", "circuit_ranking.md", "complex64_ranking.md",
            "circuit_over_fastest.md", "circuit64_over_fastest.md",
            "variational_ratio.md", "variational_gradients.md", "variational_targets.md",
            "variational_memory.md", "variational_energies.md", "fusion_ratios.md",
            "fusion_bandwidth.md", "ad_eval_times.md", "ad_eval_ratios.md",
            "ad_eval_targets.md", "ad_eval_memory.md", "distributed_scaling.md"} <= set(mds)
    for md in mds:
        assert (out / md).read_text().startswith("# "), md


def test_tables_hold_the_numbers(full):
    index, out, _ = full
    # the gate table covers every gate in the results, not only the seed's four
    assert "| H | 8 | 9 us | stride 9 us | 1.00 |" in (out / "gate_ratios.md").read_text()
    speedups = (out / "ad_speedups.md").read_text()
    assert "| problem | n | engine | vs torch | vs algopy |" in speedups
    # torch 50 us / reverse 15 us; algopy has no trmul result
    assert "| trmul | 30 | reverse | 3.33x | - |" in speedups
    assert "| ackley_loop | 1600 | forward | 2x | 5.33x |" in speedups
    evals = (out / "ad_eval_times.md").read_text()
    # time (x manual, x the plain f); torch was skipped on gmm
    assert "| llsq | 32 | 200 us (2x f) | 300 us (1.5x manual, 3x f) |" in evals
    assert "| gmm | d=2,k=5 | 1 ms (2x f) | 4 ms (4x manual, 8x f) |" in evals
    assert "| gmm | d=2,k=5 | 1 ms (2x f) | 4 ms (4x manual, 8x f) | 3 ms (3x manual, 6x f) | - |" \
        in evals
    assert "| gmm | d=2,k=5 | 7.5 / 4.1 |" in (out / "ad_eval_ratios.md").read_text()
    # MiB (x the objective's peak); no ratio over an objective's peak below 0.1 MiB
    memory = (out / "ad_eval_memory.md").read_text()
    assert "| llsq | 16 | 0.01 MiB | 0.02 MiB |" in memory
    assert "| gmm | d=2,k=5 | 4 MiB (2x f) | 12 MiB (6x f) |" in memory
    targets = (out / "ad_eval_targets.md").read_text()
    assert "| llsq 512: reverse / objective | not measured | <= 4 | - |" in targets
    assert "| llsq 32: source / torch | 0.833 | <= 1 | yes |" in targets
    assert "| ht 100: forward / torch:jacfwd | 2 | <= 1 | NO |" in targets
    assert "| ht | 100 | 1 ms | 4 ms (4x manual) | 9 ms (9x manual) | 2 ms (2x manual) |" in evals
    trmul = (out / "ad_trmul.md").read_text()
    assert "| reverse | 15 us | 1.5 | - |" in trmul and "| torch | 50 us | 5 | 4.5 |" in trmul
    assert "| ackley | 16000 | 1.2 | 5e+03 | 2.5 | 12 | - | 3 | - |" in \
        (out / "ad_slowdown.md").read_text()
    text = index.read_text()
    assert "<td>3.33x</td>" in text and "<th>vs torch</th>" in text


def test_variational_tables_hold_the_numbers_and_the_targets(full):
    _, out, _ = full
    grads = (out / "variational_gradients.md").read_text()
    assert "| n | adjoint | param_shift | lightning |" in grads
    assert "| 12 | 10 ms (1x) | 500 ms (50x) | 12 ms (1.2x) |" in grads
    assert "| 14 | 40 ms (1x) | - | 50 ms (1.25x) |" in grads
    assert "| 14 | 4.2 | - | 3 |" in (out / "variational_ratio.md").read_text()
    assert "Yao.jl" in (out / "variational_ratio.md").read_text()
    targets = (out / "variational_targets.md").read_text()
    assert "| adjoint gradient / energy <= 4.0 | 12 | 3.1 | yes |" in targets
    assert "| adjoint gradient / energy <= 4.0 | 14 | 4.2 | NO |" in targets
    assert "| adjoint / lightning adjoint <= 1 | 14 | 0.8 (40 ms vs 50 ms) | yes |" in targets
    assert "| adjoint / lightning adjoint <= 1 | 20 | not measured | - |" in targets
    assert "| 12 | 3 ms | 4 ms |" in (out / "variational_energies.md").read_text()


def test_peer_tables_rank_and_compare_with_missing_peers(full):
    _, out, _ = full
    ranking = (out / "circuit_ranking.md").read_text()
    # at the largest n (12): cirq 2 ms fastest, then stride (4 ms), then qulacs (5 ms)
    assert "| QFT | 12 | 1 | cirq | 2 ms | - | 1.00 | 2.00 |" in ranking
    assert "| QFT | 12 | 2 | stride | 4 ms | - | 2.00 | 1.00 |" in ranking
    assert "| QFT | 12 | 3 | qulacs | 5 ms | - | 2.50 | 0.80 |" in ranking
    ratios = (out / "circuit_ratios.md").read_text()
    assert "| circuit | n | best own kernel | qulacs | cirq |" in ratios
    assert "| QFT | 8 | stride 100 us | 0.50 | - |" in ratios  # cirq did not run at 8
    assert "| QFT | 12 | stride 4 ms | 0.80 | 2.00 |" in ratios
    assert "| X | 10 | 1 | stride | 100 us | - | 1.00 | 1.00 |" in \
        (out / "complex64_ranking.md").read_text()
    assert "| X | 10 | 2 | qsim | 200 us | - | 2.00 | 0.50 |" in \
        (out / "complex64_ranking.md").read_text()
    assert "| QFT | 10 | 1 | qsim | 500 us | - | 1.00 | 2.00 |" in \
        (out / "complex64_circuit_ranking.md").read_text()


def test_several_machines_side_by_side(tmp_path):
    report_results(tmp_path, machine="box")
    results_dir = report_results(tmp_path, machine="laptop", threads=False)
    out = tmp_path / "out"
    said = []
    text = build.build(results_dir, None, out, say=said.append).read_text()
    assert '<h3 id="machines">Machines</h3>' in text
    assert '<th class="text">box</th><th class="text">laptop</th>' in text
    for machine in ("box", "laptop"):
        assert (out / machine / "gate_X.png").exists() and f'src="{machine}/gate_X.png"' in text
        assert f"Who is fastest: every backend per circuit at the largest n ({machine})" in text
    assert (out / "box" / "threads.png").exists() and not (out / "laptop" / "threads.png").exists()
    assert said == ["laptop: no results for statevector_threads.GateThreads: run make bench"]


def test_page_names_machine_versions_and_settings(full):
    import numpy as np

    text = full[0].read_text()
    for expected in ("Fake CPU 9000", '<td class="text">8</td>', "16.0 GiB",
                     "2023-11-14 22:13 UTC", "abcdef123456", f"<td>{np.__version__}</td>",
                     "qulacs", "algopy", "minimum time", "complex128", "<td>commit date</td>",
                     "<td>benchmarks run</td>", "2026-01-01 00:00 UTC to 2026-01-01 00:00 UTC",
                     '<h3 id="simulator-peers">Simulator peers</h3>'):
        assert expected in text, expected
    import adapters
    for name, module in adapters.usable("simulator").items():  # every installed peer, its version
        assert (f'<td>{html.escape(module.NAME)}</td><td class="text">'
                f"{html.escape(module.REASON)}</td>") in text, name


def test_missing_suites_are_named_and_the_rest_is_built(tmp_path, capsys):
    results_dir = report_results(tmp_path, chunks=False, threads=False)
    out = tmp_path / "out"
    assert cli.main(["--results", str(results_dir), "--machine", "box", "--out", str(out),
                     "--no-screenshots"]) == 0
    stdout = capsys.readouterr().out
    for line in ("no results for ad_chunks.ForwardChunk: run make bench",
                 "no results for statevector_threads.GateThreads: run make bench"):
        assert line in stdout and line in (out / "index.html").read_text()
    assert not (out / "ad_chunks.png").exists() and not (out / "threads.png").exists()
    assert (out / "gate_X.png").exists() and (out / "ad_speedups.md").exists()
    assert f"report: {out / 'index.html'}" in stdout


def test_all_skipped_benchmark_is_named(tmp_path):
    results_dir = report_results(tmp_path, threads=False, skipped=[ids.THREADS_TIME])
    said = []
    build.build(results_dir, "box", tmp_path / "out", say=said.append)
    assert said == ["no results for statevector_threads.GateThreads.time_gate: every "
                    "combination failed or was skipped"]


def test_one_missing_benchmark_of_a_class_is_named_exactly(tmp_path):
    results_dir = report_results(tmp_path)
    name, res = build.results.latest(results_dir, "box")
    res.remove_result(ids.AD_VS_MANUAL)
    res.save(str(results_dir))
    said = []
    build.build(results_dir, "box", tmp_path / "out", say=said.append)
    assert said == ["no results for ad_problems.Gradient.track_vs_manual: run make bench"]


def test_no_results_is_a_clear_error(tmp_path, capsys):
    assert cli.main(["--results", str(tmp_path), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("no report: no asv results under") and "run `make bench`" in err
    assert not (tmp_path / "out").exists()


def test_markdown_html_renders_paragraphs_and_tables_in_scroll_boxes():
    got = page.markdown_html("Note <b>\n\n| a | b \\| c |\n|---|---|\n| 1 | 2 |")
    assert got == ('<p>Note &lt;b&gt;</p>\n<div class="scroll"><table><thead><tr><th>a</th>'
                   "<th>b | c</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody>"
                   "</table></div>")


def test_long_tables_are_folded():
    rows = "\n".join(f"| {i} |" for i in range(5))
    folded = page.markdown_html(f"| a |\n|---|\n{rows}", fold=4)
    assert folded.startswith("<details><summary>show all 5 rows</summary>")
    assert "<details>" not in page.markdown_html(f"| a |\n|---|\n{rows}", fold=5)


def test_the_page_leads_with_the_headline_then_the_contents(full):
    text = full[0].read_text()
    order = [text.index(marker) for marker in (
        '<h2 id="who-is-fastest">', '<h3 id="gates-fastest-at-the-largest-n">',
        '<h3 id="circuits-fastest-at-the-largest-n">', '<h2 id="contents">',
        '<h2 id="state-vector-gates">', '<h2 id="colours-and-markers">',
        '<h2 id="machine-versions-and-settings">', '<h3 id="simulator-peers">')]
    assert order == sorted(order)
    # X at the largest n (8): stride 8 us, then qulacs 10 us; complex64 at its own n (10)
    assert ("<td>X</td><td>stride 8 us</td><td>qulacs \u00d71.25</td><td>stride 100 us</td>"
            "<td>qsim \u00d72.00</td>") in text
    assert "<td>H</td><td>stride 9 us</td><td>qulacs \u00d71.00</td><td>-</td><td>-</td>" in text
    assert "<td>QFT</td><td>cirq 2 ms</td><td>stride \u00d72.00</td>" in text
    assert (full[1] / "headline.md").read_text().startswith("# Gates: fastest at the largest n")


def test_every_heading_has_an_anchor_and_every_link_a_target(full):
    text = full[0].read_text()
    headings = re.findall(r"<h([23])([^>]*)>", text)
    assert len(headings) > 30 and all('id="' in attrs for _, attrs in headings)
    anchors = re.findall(r'id="([^"]+)"', text)
    assert len(anchors) == len(set(anchors))
    links = re.findall(r'href="#([^"]+)"', text)
    assert set(links) <= set(anchors)
    # the contents list every heading but its own
    assert set(anchors) - set(links) == {"contents"}


def test_the_peers_table_is_rendered_cell_by_cell(full):
    # a peer's "how it is driven" holds bars (|0>), which a Markdown table would split
    text = full[0].read_text()
    peers = text[text.index('<h3 id="simulator-peers">'):text.index('<h3 id="settings-measured">')]
    for row in re.findall(r"<tr>(.*?)</tr>", peers):
        assert len(re.findall(r"<t[dh]", row)) == 4, row


def test_settings_marks_reach_the_page(tmp_path, monkeypatch):
    from harness.statevector import tables as sv_tables
    same = {"precision": "complex128", "fusion": "off"}
    fake = {(ids.CIRCUIT_TIME, ("QFT", 12, b)): {"hash": b, "threads": threads, **same}
            for b, threads in (("stride", 1), ("qulacs", 1), ("cirq", 4))}
    monkeypatch.setattr(sv_tables, "recorded_settings", lambda res, results_dir: fake)
    index = build.build(report_results(tmp_path), "box", tmp_path / "out", say=print)
    text = index.read_text()
    assert "<td>cirq \u20201</td>" in text  # the circuit ranking
    assert "<p>\u20201 cirq, QFT n=12: threads 4 (others: 1)</p>" in text
    # the headline pairs cirq (fastest, 4 threads) with stride: cirq is marked, judged
    # against every backend of the row
    assert "<td>cirq \u20201 2 ms</td><td>stride \u00d72.00</td>" in text
    assert "<p>\u20201 cirq, QFT n=12 complex128: threads 4 (others: 1)</p>" in text
    assert "stride, QFT n=12 complex128" not in text


def test_harness_table_prints_the_headline_first(tmp_path, capsys):
    from harness import tables
    assert tables.report("box", report_results(tmp_path)) == 0
    out = capsys.readouterr().out
    assert out.startswith("machine box, commit abcdef12\n\n## Who is fastest per gate")
    assert "| X | stride 8 us | qulacs \u00d71.25 | stride 100 us | qsim \u00d72.00 |" in out
    assert "## Circuit time / fastest per backend at the largest n\n\n" in out
    assert "| QFT | 12 | cirq 2 ms | 2.00 | 2.50 | 1.00 |" in out


def test_the_settings_recorded_beside_the_results_mark_a_fusing_backend(tmp_path):
    # harness.settings writes each result's settings beside asv's file. The circuit suite
    # runs qiskit-aer unfused (fusion 0), like our kernels; the fused backend fuses (up to
    # 4 qubits by default): not like for like, so it is marked
    from harness import results, settings
    circuits = ([["'QFT'"], ["12"], ["'stride'", "'qiskit-aer'", "'fused'"]],
                [4e-3, 3e-3, 2e-3])
    results_dir = report_results(tmp_path, circuits=circuits)
    _, res = results.latest(results_dir, "box")
    settings.write_for_results(results.path_of(res, results_dir),
                               {ids.CIRCUIT_TIME: ["circuit", "n", "backend"]})
    build.build(results_dir, "box", tmp_path / "out", say=print)
    ranking = (tmp_path / "out" / "circuit_ranking.md").read_text()
    assert "| QFT | 12 | 1 | fused \u20201 | 2 ms | - | 1.00 | 2.00 |" in ranking
    assert "| QFT | 12 | 2 | qiskit-aer | 3 ms | - | 1.50 | 1.33 |" in ranking
    assert "\u20201 fused, QFT n=12: fusion on (the tool's rule) (others: off)" in ranking


def test_fusion_tables_rank_the_fused_backend_and_count_its_passes(tmp_path):
    # fused at its best setting against stride, a fusing peer (best and off) and a peer
    # that does not fuse; its effective bandwidth from the passes recorded, judged against
    # the yardstick of the level a 20-qubit complex128 state (16 MiB) sits in
    from harness.statevector import fusion_tables, levels
    results_dir = tmp_path / "results"
    results_dir.mkdir()
    res = fake_results.new_results(results_dir, "box", INFO)
    fake_results.add(res, ids.FUSED_TIME,
                     [["'lib:qcbm'"], ["20"], ["'stride'", "'fused'", "'qulacs'", "'lightning'"],
                      ["0", "2", "4"]],
                     [0.4, math.nan, math.nan,        # stride at 0 only
                      math.nan, 0.12, 0.1,            # fused at 2 and 4
                      0.8, 0.5, 0.4,                  # qulacs off, 2, 4
                      0.2, math.nan, math.nan])       # lightning: no fusion
    fake_results.add(res, ids.FUSED_PASSES,
                     [["'lib:qcbm'"], ["20"], ["2", "4"], ["'complex128'"]], [16, 16])
    fake_results.add(res, ids.LEVEL_BANDWIDTH, [["'L2'", "'L3'", "'DRAM'"]], [60.0, 30.0, 20.0])
    res.save(str(results_dir))
    from harness import results
    _, loaded = results.latest(results_dir, "box")
    ratios = fusion_tables.ratios(loaded)
    assert "| lib:qcbm | 20 | complex128 | 100 ms (k4) | 0.25 | 0.50 | 0.25 k4, off 0.12 |" \
        in ratios
    level = levels.level_of(16 << 20)
    gbs = 2 * 16 * (16 << 20) / 0.1 / 1e9
    yard = {"L2": 60.0, "L3": 30.0, "DRAM": 20.0}[level]
    assert (f"| lib:qcbm | 20 | complex128 | 4 | 16 | 100 ms | {gbs:.1f} | {level} | "
            f"{100 * gbs / yard:.0f}% |") in fusion_tables.bandwidth(loaded)


def test_settings_of_one_program_are_one_row(tmp_path):
    """k2 and k4 compiled to one program (the suite's digests agree), k3 to another: the
    best setting is named with its twin, and the bandwidth table has a row per program,
    at the best time of the settings that ran it."""
    from harness import results
    from harness.statevector import fusion_tables
    results_dir = tmp_path / "results"
    results_dir.mkdir()
    res = fake_results.new_results(results_dir, "box", INFO)
    fake_results.add(res, ids.FUSED_TIME,
                     [["'lib:qcbm'"], ["20"], ["'stride'", "'fused'"], ["0", "2", "3", "4"]],
                     [0.4, math.nan, math.nan, math.nan, math.nan, 0.12, 0.15, 0.1])
    params = [["'lib:qcbm'"], ["20"], ["2", "3", "4"], ["'complex128'"]]
    fake_results.add(res, ids.FUSED_PASSES, params, [16, 12, 16])
    fake_results.add(res, ids.FUSED_PROGRAM, params, [0xabc, 0xdef, 0xabc])
    fake_results.add(res, ids.LEVEL_BANDWIDTH, [["'L2'", "'L3'", "'DRAM'"]], [60.0, 30.0, 20.0])
    res.save(str(results_dir))
    _, loaded = results.latest(results_dir, "box")
    assert "| lib:qcbm | 20 | complex128 | 100 ms (k2=k4) | 0.25 |" in fusion_tables.ratios(loaded)
    rows = [line for line in fusion_tables.bandwidth(loaded).splitlines()
            if line.startswith("| lib:qcbm")]
    assert [r.split(" | ")[3:6] for r in rows] == [["2=4", "16", "100 ms"], ["3", "12", "150 ms"]]


def test_the_roofline_table_shows_the_default_and_each_setting(tmp_path):
    from harness import results
    from harness.statevector import fusion_tables
    results_dir = tmp_path / "results"
    results_dir.mkdir()
    res = fake_results.new_results(results_dir, "box", INFO)
    params = [["'lib:qft'"], ["20"], ["'default'", "'2'", "'4'"], ["'complex128'"]]
    fake_results.add(res, ids.FUSED_ROOFLINE, params, [0.31, 0.2, 0.35])
    fake_results.add(res, ids.FUSED_CHOSEN, params, [3, 2, 4])
    res.save(str(results_dir))
    _, loaded = results.latest(results_dir, "box")
    table = fusion_tables.roofline(loaded)
    assert "| circuit | n | precision | default (k chosen) | k2 | k4 |" in table
    assert "| lib:qft | 20 | complex128 | 31% (k3) | 20% | 35%* |" in table


def test_distributed_scaling_holds_speedup_and_efficiency(full):
    _, out, _ = full
    text = (out / "distributed_scaling.md").read_text()
    # strong: 1 s on one rank, 0.6 s on two: speed-up 1.67, efficiency 83%; 30% of it
    # in communication, 12 MiB sent per rank
    assert "| strong | lib:qft | 20 | mpi | 2 | 600 ms | 600 ms - 660 ms | 1.67 | 83% | 30% " \
           "| 12.0 |" in text
    # weak: 19 qubits on one rank (0.5 s), 20 on two (0.6 s): efficiency 83%
    assert "| weak | lib:qft | 19 | mpi | 1 | 500 ms |" in text
    assert "| weak | lib:qft | 20 | mpi | 2 | 600 ms | 600 ms - 660 ms | 1.67 | 83% |" in text
    assert (out / "distributed.png").is_file()
