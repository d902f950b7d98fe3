"""The report's one palette: every known backend (derived from the backends' own lists) has
its own (colour, marker) pair, each figure's group its own colours, an unknown name a pair
that is the same in every process; and the figures draw each backend in its pair."""

import os
import subprocess
import sys

import pytest
from matplotlib.colors import to_hex

from harness.ad import backends as ad_backends
from harness.statevector import backends as sv_backends
from harness.variational import backends as variational_backends
from reports import figures_statevector, figures_variational, palette
from tests.reports.test_reports import report_results


def test_every_known_backend_has_a_distinct_colour_and_marker():
    known = palette.table()
    expected = [*sv_backends.names(), *ad_backends.names(), *variational_backends.names()]
    assert list(known) == list(dict.fromkeys(expected))
    assert len(set(known.values())) == len(known)
    for style in known.values():
        assert style.colour in palette.COLOURS and style.marker in palette.MARKERS


@pytest.mark.parametrize("group", ["state vector", "AD", "variational"])
def test_a_figure_never_repeats_a_colour_while_the_palette_has_enough(group):
    members = [name for name, groups in palette.groups().items() if group in groups]
    colours = [palette.style(name).colour for name in members]
    assert len(members) <= len(palette.COLOURS)  # else the next assertion cannot hold
    assert len(set(colours)) == len(colours), group


def test_assign_keeps_pairs_distinct_past_the_colours():
    # 40 backends in one group, 12 in another sharing 5 of them
    groups = {f"b{i}": ("one",) for i in range(40)}
    groups |= {f"b{i}": ("one", "two") for i in range(35, 40)}
    groups |= {f"c{i}": ("two",) for i in range(7)}
    styles = palette.assign(groups)
    assert len(set(styles.values())) == len(styles)
    two = [styles[n].colour for n, g in groups.items() if "two" in g]
    assert len(set(two)) == len(two)
    first = [styles[f"b{i}"].colour for i in range(len(palette.COLOURS))]
    assert sorted(first) == sorted(palette.COLOURS)


@pytest.mark.slow  # a whole process (or a gate run) for what faster tests check
def test_an_unknown_backend_gets_the_same_pair_in_every_process():
    name = "somebody's-plugin"
    assert name not in palette.table()
    here = palette.style(name)
    assert here.colour in palette.COLOURS and here.marker in palette.MARKERS
    code = f"from reports import palette; print(*palette.style({name!r}))"
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert out.stdout.split() == list(here)


def _drawn(monkeypatch, module, fn, res, tmp_path):
    """{label: (colour, marker)} of every line the figure function ``fn`` draws."""
    lines = {}

    def keep(fig, path):
        for ax in fig.axes:
            for line in ax.get_lines():
                lines[line.get_label()] = (to_hex(line.get_color()), line.get_marker())
        return path.name

    monkeypatch.setattr(module, "save", keep)
    fn(res, tmp_path)
    return lines


def test_the_figures_draw_each_backend_in_its_pair(monkeypatch, tmp_path):
    from harness import results
    _, res = results.latest(report_results(tmp_path), "box")
    drawn = _drawn(monkeypatch, figures_statevector, figures_statevector.gate_figures, res,
                   tmp_path)
    drawn |= _drawn(monkeypatch, figures_variational, figures_variational.gradient_figure,
                    res, tmp_path)
    backends = {"naive", "stride", "qulacs", "adjoint", "param_shift", "lightning"}
    assert backends <= set(drawn)
    for name in backends:
        assert drawn[name] == tuple(palette.style(name)), name
    threads = _drawn(monkeypatch, figures_statevector, figures_statevector.threads_figure,
                     res, tmp_path)
    assert threads["qulacs n=8"] == tuple(palette.style("qulacs"))
