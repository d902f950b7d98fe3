"""The headline, the rankings and the circuit x backend table of time / fastest against a
brute-force reference over seeded random results (opaque circuit names, skipped
combinations, a different largest n per suite), and the settings marks on fake settings
maps of the shape harness/settings.py records."""

import itertools
import math

import numpy as np
import pytest
from asv import results as asv_results

from harness import ids
from harness.statevector import backends, tables
from harness.timing import format_seconds
from tests.harness import fake_results

SUITES = {"gate": (["X", "H", "CNOT", "dense3"], (ids.GATE_TIME, ids.GATE64_TIME)),
          "circuit": (["lib:qv", "mqt:dj", "QFT", "lib:random", "mqt:qaoa"],
                      (ids.CIRCUIT_TIME, ids.CIRCUIT64_TIME))}


def random_results(rng):
    """In-memory asv Results of the four gate and circuit suites with random times and
    skips, {(key, (name, n, backend)): seconds} of what ran, and {key: its backends in
    params order}."""
    res = asv_results.Results({"machine": "m"}, {}, "abc", fake_results.DATE, "3.11", "e", {})
    ran, orders = {}, {}
    every = backends.names()
    for names, keys in SUITES.values():
        for key in keys:
            if rng.random() < 0.15:  # a suite with no results at all
                continue
            picked = [str(x) for x in rng.choice(names, rng.integers(1, len(names) + 1),
                                                 replace=False)]
            sizes = sorted(int(x) for x in rng.choice([4, 8, 12, 20], rng.integers(1, 4),
                                                      replace=False))
            on = [str(x) for x in rng.choice(every, rng.integers(1, 7), replace=False)]
            orders[key] = on
            values = []
            for combo in itertools.product(picked, sizes, on):
                skip = rng.random() < 0.3
                # a tie now and then: the table's order decides it
                t = math.nan if skip else float(rng.choice([1e-3, rng.lognormal(-8, 2)]))
                values.append(t)
                if not skip:
                    ran[key, combo] = t
            fake_results.add(res, key, [[repr(x) for x in picked], [str(n) for n in sizes],
                                        [repr(b) for b in on]], values)
    return res, ran, orders


def reference(ran, key):
    """{name: (largest n, [(backend, seconds)] fastest first)}, ties in params order."""
    by_name = {}
    for (k, (name, n, b)), t in ran.items():
        if k == key:
            by_name.setdefault(name, {}).setdefault(n, {})[b] = t
    out = {}
    for name, by_n in by_name.items():
        n = max(by_n)
        order = list(by_n[n])  # insertion order is asv's params order
        out[name] = (n, sorted(by_n[n].items(), key=lambda bt: (bt[1], order.index(bt[0]))))
    return out


def rows(markdown):
    """The cells of the first table in ``markdown`` (after any paragraph before it)."""
    table = next(p for p in markdown.split("\n\n") if p.startswith("|"))
    lines = [line for line in table.splitlines() if not line.startswith("|---")]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]


@pytest.mark.parametrize("seed", range(30))
def test_headline_against_a_brute_force_reference(seed):
    res, ran, _ = random_results(np.random.default_rng(seed))
    for what, (_, keys) in SUITES.items():
        text = tables.headline(res, what)
        expected = [(precision, reference(ran, key)) for (precision, _), key
                    in zip(tables.PRECISIONS[what], keys)]
        expected = [(p, found) for p, found in expected if found]
        if not expected:
            assert text == ""
            continue
        head, *body = rows(text)
        assert {r[0] for r in body} == {name for _, found in expected for name in found}
        for row in body:
            cells = row[1:]
            for precision, found in expected:
                sizes = {n for n, _ in found.values()}
                if len(sizes) == 1:
                    assert f"{precision} n={next(iter(sizes))}: fastest" in head
                    mine, cells = cells[:2], cells[2:]
                else:
                    n_cell, mine, cells = cells[0], cells[1:3], cells[3:]
                    assert n_cell == (str(found[row[0]][0]) if row[0] in found else "-")
                if row[0] not in found:
                    assert mine == ["-", "-"]
                    continue
                _, order = found[row[0]]
                (b0, t0), rest = order[0], order[1:]
                assert mine[0] == f"{b0} {format_seconds(t0)}"
                assert mine[1] == (f"{rest[0][0]} \u00d7{rest[0][1] / t0:.2f}" if rest else "-")
            assert cells == []


@pytest.mark.parametrize("seed", range(30))
def test_ranking_and_time_over_fastest_against_a_brute_force_reference(seed):
    res, ran, orders = random_results(np.random.default_rng(100 + seed))
    for what, (_, keys) in SUITES.items():
        for key in keys:
            found = reference(ran, key)
            expected = []
            for name, (n, order) in found.items():
                own = min((t for b, t in order if b in tables.OWN), default=None)
                # no samples recorded: no interval, so no ties either
                expected += [[name, str(n), str(rank), b, format_seconds(t), "-",
                              f"{t / order[0][1]:.2f}", "-" if own is None else f"{own / t:.2f}"]
                             for rank, (b, t) in enumerate(order, 1)]
            assert rows(tables.ranking(res, key, what))[1:] == expected
            head, *body = rows(tables.time_over_fastest(res, key, what))
            columns = head[3:]
            # the suite's order, whatever ran first: a skipped first case moves nothing
            with_results = {c[2] for k, c in ran if k == key}
            assert columns == [b for b in orders.get(key, []) if b in with_results]
            assert [r[0] for r in body] == list(found)
            for name, n, fastest, *cells in body:
                size, order = found[name]
                times = dict(order)
                assert (int(n), fastest) == (size, f"{order[0][0]} {format_seconds(order[0][1])}")
                assert cells == [f"{times[b] / order[0][1]:.2f}" if b in times else "-"
                                 for b in columns]


def entry(hash_, **fields):
    return {"hash": hash_, **fields}


def test_differing_marks_what_departs_from_most_of_the_column():
    same = {"precision": "complex128", "threads": 1, "fusion": "off"}
    settings = {("k", (1,)): entry("aa", **same), ("k", (2,)): entry("aa", **same),
                ("k", (3,)): entry("bb", **{**same, "fusion": "4 qubits"}),
                ("k", (4,)): entry("cc", **same)}
    column = [(i, ("k", (i,))) for i in (1, 2, 3, 4, 5)]  # 5: not in the map, not compared
    assert tables.differing(column, settings) == {
        3: "fusion 4 qubits (others: off)", 4: "settings cc (others: aa)"}
    # only the compared fields: a hash that differs elsewhere (a version) is not marked
    assert tables.differing(column, settings, tables.COMPARED) == {
        3: "fusion 4 qubits (others: off)"}
    assert tables.differing(column, None) == {}
    assert tables.differing(column[:2] + column[4:], settings) == {}


def test_differing_with_no_majority_marks_every_cell():
    settings = {("k", (1,)): entry("a", threads=1), ("k", (2,)): entry("b", threads=2),
                ("k", (3,)): entry("c", threads=4, like="x")}
    column = [(i, ("k", (i,))) for i in (1, 2, 3)]
    assert tables.differing(column[:2], settings) == {1: "threads 1 (others: 2)",
                                                      2: "threads 2 (others: 1)"}
    assert tables.differing(column, settings) == {
        1: "threads 1 (others: 2, 4)", 2: "threads 2 (others: 1, 4)",
        3: "threads 4 (others: 1, 2)"}  # the hashes ("like" too) are never named


def one_circuit(threads=None, hashes=None):
    """QFT at 12 on three backends (cirq fastest), and a settings map giving each backend
    ``threads`` and ``hashes``."""
    res = asv_results.Results({"machine": "m"}, {}, "abc", fake_results.DATE, "3.11", "e", {})
    fake_results.add(res, ids.CIRCUIT_TIME, [["'QFT'", "'lib:qv'"], ["12"],
                                             ["'stride'", "'qulacs'", "'cirq'"]],
                     [4e-3, 5e-3, 2e-3, 1e-3, 3e-3, 2e-3])
    settings = {}
    for name, b in itertools.product(("QFT", "lib:qv"), ("stride", "qulacs", "cirq")):
        settings[ids.CIRCUIT_TIME, (name, 12, b)] = entry(
            (hashes or {}).get((name, b), b), precision="complex128",
            threads=(threads or {}).get(b, 1), fusion="off")
    return res, settings


def test_ranking_and_headline_mark_a_backend_on_other_threads():
    res, settings = one_circuit(threads={"cirq": 4})
    text = tables.ranking(res, ids.CIRCUIT_TIME, "circuit", settings=settings)
    assert "| QFT | 12 | 1 | cirq \u20201 | 2 ms | - | 1.00 | 2.00 |" in text
    assert "| QFT | 12 | 2 | stride | 4 ms | - | 2.00 | 1.00 |" in text
    assert text.endswith("\u20201 cirq, QFT n=12: threads 4 (others: 1)\n\n"
                         "\u20202 cirq, lib:qv n=12: threads 4 (others: 1)")
    head = tables.headline(res, "circuit", settings=settings)
    # QFT: cirq (4 threads) is fastest, stride (1) runner-up; judged against every backend
    # of the row (most run 1 thread), only cirq is marked
    assert "| QFT | cirq \u20201 2 ms | stride \u00d72.00 |" in head
    assert "\u20201 cirq, QFT n=12 complex128: threads 4 (others: 1)" in head
    assert "stride, QFT" not in head
    # the same settings everywhere: nothing marked, no footnote
    res, same = one_circuit()
    assert MARK_FREE(tables.ranking(res, ids.CIRCUIT_TIME, "circuit", settings=same))
    assert MARK_FREE(tables.headline(res, "circuit", settings=same))


def MARK_FREE(text):  # noqa: N802  (reads as a predicate in the asserts)
    return tables.MARK not in text


def test_time_over_fastest_marks_a_cell_against_its_backends_column():
    res, settings = one_circuit(hashes={("lib:qv", "qulacs"): "fused"})
    text = tables.time_over_fastest(res, ids.CIRCUIT_TIME, settings=settings)
    assert "| circuit | n | fastest | stride | qulacs | cirq |" in text
    # qulacs's lib:qv result differs from its QFT one: two that differ, both marked
    assert "| QFT | 12 | cirq 2 ms | 2.00 | 2.50 \u20201 | 1.00 |" in text
    assert "| lib:qv | 12 | stride 1 ms | 1.00 | 3.00 \u20202 | 2.00 |" in text
    assert text.endswith("\u20201 qulacs, QFT n=12: settings qulacs (others: fused)\n\n"
                         "\u20202 qulacs, lib:qv n=12: settings fused (others: qulacs)")


def test_no_results_of_a_suite_is_an_empty_headline():
    res, _ = one_circuit()
    assert tables.headline(res, "gate") == ""
    assert tables.headline(res, "circuit").startswith(
        "| circuit | complex128 n=12: fastest | complex128: runner-up |\n")


def test_the_heatmap_marks_the_same_cells_as_the_table(monkeypatch, tmp_path):
    from reports import figures_statevector
    res, settings = one_circuit(hashes={("lib:qv", "qulacs"): "fused"})
    texts = []

    def keep(fig, path):
        texts.extend(t.get_text() for ax in fig.axes for t in ax.texts)
        return path.name

    monkeypatch.setattr(figures_statevector, "save", keep)
    [(caption, png)] = figures_statevector.circuit_figures(res, tmp_path, settings=settings)
    # rows QFT, lib:qv; columns stride, qulacs, cirq; one panel (no complex64 results)
    assert texts == ["2", "2.5\u2020", "1", "1", "3\u2020", "2"]
    assert png == "circuits_complex128.png" and "settings differ" in caption


def test_a_difference_within_the_noise_is_a_tie():
    """With samples recorded, each time carries its interval (minimum to median): a
    backend whose minimum lies within the fastest's interval ties with it, in the
    headline ("a ~ b"), the ranking (a shared rank, "~" before the ratio) and the circuit
    table; one told apart from it is ranked and compared as before."""
    res = asv_results.Results({"machine": "m"}, {}, "abc", fake_results.DATE, "3.11", "e", {})
    samples = [[1.00e-3, 1.10e-3, 1.20e-3],   # stride: 1.00 ms, median 1.10
               [1.05e-3, 1.06e-3, 1.30e-3],   # qulacs: 1.05 ms, within stride's interval
               [2.00e-3, 2.10e-3, 2.20e-3]]   # cirq: told apart
    fake_results.add(res, ids.CIRCUIT_TIME, [["'QFT'"], ["12"],
                                             ["'stride'", "'qulacs'", "'cirq'"]],
                     [1.1e-3, 1.06e-3, 2.1e-3], samples)
    head = tables.headline(res, "circuit")
    assert "| QFT | stride ~ qulacs 1 ms | cirq \u00d72.00 |" in head
    ranked = tables.ranking(res, ids.CIRCUIT_TIME, "circuit")
    assert "| QFT | 12 | 1= | stride | 1 ms | 1 ms - 1.1 ms | 1.00 |" in ranked
    assert "| QFT | 12 | 1= | qulacs | 1.05 ms | 1.05 ms - 1.06 ms | ~1.05 |" in ranked
    assert "| QFT | 12 | 3 | cirq | 2 ms | 2 ms - 2.1 ms | 2.00 |" in ranked
    over = tables.time_over_fastest(res, ids.CIRCUIT_TIME)
    assert "| QFT | 12 | stride 1 ms | 1.00 | ~1.05 | 2.00 |" in over
