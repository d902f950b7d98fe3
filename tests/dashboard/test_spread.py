"""The spread files beside asv's graphs: one per graph, in the graph's shape, holding the
interval of the samples asv recorded (fastest to median) at each commit."""

import json

import pytest

from harness.dashboard import spread
from tests.dashboard.conftest import FASTEST, VALUES


def _pairs(html_dir, subdir):
    return {p.relative_to(html_dir / subdir) for p in (html_dir / subdir).rglob("*.json")}


def test_every_graph_has_a_spread_file(published):
    graphs = _pairs(published, spread.GRAPHS)
    assert graphs  # asv published something to put bars on
    assert graphs == _pairs(published, spread.SPREAD)


def test_each_point_carries_its_samples_interval(published):
    (graph,) = [p for p in (published / spread.GRAPHS).rglob("suite.Gate.time_gate.json")
                if "summary" not in p.parts]
    drawn = json.loads(graph.read_text())
    bars = json.loads((published / spread.SPREAD / graph.relative_to(
        published / spread.GRAPHS)).read_text())
    assert [rev for rev, _ in bars] == [rev for rev, _ in drawn]
    for (_, values), (_, spans), expected in zip(drawn, bars, VALUES, strict=True):
        for value, span, want in zip(values, spans, expected, strict=True):
            if want != want:  # a skipped peer: nothing drawn, no bar
                assert value is None and span is None
            else:
                # the median is asv's point: the bar runs from the fastest sample up to it
                assert span == pytest.approx([FASTEST * want, want])
                assert value == pytest.approx(want)


def test_summary_graphs_get_empty_spreads(published):
    summaries = list((published / spread.SPREAD / "summary").glob("*.json"))
    assert summaries
    assert all(json.loads(p.read_text()) == [] for p in summaries)
