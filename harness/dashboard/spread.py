"""The spread of each point the dashboard draws, written beside asv's graphs.

asv's graphs hold one value per commit (asv's median) and drop everything else. For each
graph file ``graphs/<params>/<benchmark>.json`` this writes ``spread/<params>/<benchmark>.json``
of the same shape, ``[[revision, [low, high] or None per combination], ...]`` (a bare pair for
a benchmark without parameters), from the samples asv recorded (``--record-samples``): the
same interval the report and ``harness table`` show (``harness.ranking.interval``: the
fastest sample to the median). spread.js reads it and draws the bars. Where asv kept no
samples an entry is None; every other graph file (the summaries: geometric means over the
parameters) gets an empty list.
"""

import itertools
import json
from collections import defaultdict
from pathlib import Path

from asv import results as asv_results
from asv.graph import Graph

from harness import ranking

GRAPHS = "graphs"
SPREAD = "spread"


def _spans(res, key):
    """[[low, high] or None] per combination of benchmark ``key`` in ``res``, in asv's order."""
    params = res.get_result_params(key)
    combos = max(1, len(list(itertools.product(*params))))
    recorded = res.get_result_samples(key, params) or [None] * combos
    return [list(ranking.interval(sample)) if sample else None for sample in recorded]


def _mean(spans):
    """Per combination, the mean of the intervals that exist: asv averages a revision's values
    over its results (environments) the same way."""
    out = []
    for column in zip(*spans):
        found = [span for span in column if span is not None]
        out.append([sum(s[0] for s in found) / len(found), sum(s[1] for s in found) / len(found)]
                   if found else None)
    return out


def _graph_params(res):
    """The params of the graphs ``res`` lands in, as asv publish builds them (branch aside):
    the results' own params and its environment variables, None written as ''."""
    params = {**res.params, **{f"env-{k}": v for k, v in res.env_vars.items()}}
    return {k: "" if v is None else v for k, v in params.items()}


def write(html_dir, results_dir):
    """Write the spread file of every graph asv published in ``html_dir``, from the results in
    ``results_dir``; returns how many files it wrote."""
    html_dir = Path(html_dir)
    index = json.loads((html_dir / "index.json").read_text())
    revision = {commit: int(rev) for rev, commit in index["revision_to_hash"].items()}
    benchmarks = index["benchmarks"]

    # (graph params, benchmark) -> revision -> the intervals of each result at that revision
    found = defaultdict(lambda: defaultdict(list))
    for res in asv_results.iter_results(str(results_dir)):
        if res.commit_hash not in revision:
            continue
        params = _graph_params(res)
        for key in res.get_result_keys(benchmarks):
            found[(json.dumps(params, sort_keys=True), key)][revision[res.commit_hash]].append(
                _spans(res, key))

    computed = {}
    for graph_params in index["graph_param_list"]:
        # a graph's params add the branch and None for keys other results have
        wanted = {k: v for k, v in graph_params.items() if k != "branch" and v is not None}
        for key, bench in benchmarks.items():
            by_revision = found.get((json.dumps(wanted, sort_keys=True), key), {})
            points = [[rev, _mean(spans)] for rev, spans in sorted(by_revision.items())]
            if not bench["params"]:
                points = [[rev, spans[0]] for rev, spans in points]
            computed[Path(Graph.get_file_path(graph_params, key) + ".json")] = points
    # Every graph file gets one, so the page never asks for a file that is not there; the
    # summaries (geometric means over the parameters) have no samples of their own: [].
    graphs = sorted(p.relative_to(html_dir) for p in (html_dir / GRAPHS).rglob("*.json"))
    for path in graphs:
        out = html_dir / SPREAD / path.relative_to(GRAPHS)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(computed.get(path, []), separators=(",", ":")))
    return len(graphs)
