"""The change finder on series of known noise: its rates on seeded series (how often it
sees a change that is not there, how often it finds a step at its first run), properties
that hold at low noise whatever hypothesis draws (it draws the seed, the size, the noise
and the step: a failure is a real false alarm or miss, not noise built by hand), and the
awkward cases: too short, flat, lone wild runs, two steps."""

from pathlib import Path

import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.comparisons import changes


def series(rng, n, sigma, step_at=None, factor=1.0):
    values = 1e-3 * np.exp(rng.normal(0, sigma, n))
    if step_at is not None:
        values[step_at:] *= factor
    return values.tolist()


def test_the_rates_the_docstring_states():
    rng = np.random.default_rng(2026)
    false, found, n, trials = 0, 0, 30, 2000
    for _ in range(trials):
        false += bool(changes.find(series(rng, n, 0.03)))
        k = int(rng.integers(changes.MIN_POINTS, n - changes.CONFIRM))
        found += [c.index for c in changes.find(series(rng, n, 0.03, k, 1.15))] == [k]
    assert false / trials <= 0.008
    assert found / trials >= 0.91


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(12, 60), sigma=st.floats(0.0, 0.01),
       factor=st.sampled_from([1.15, 1 / 1.15, 1.3, 0.7, 2.0]), data=st.data())
def test_a_step_is_found_at_its_first_run(seed, n, sigma, factor, data):
    k = data.draw(st.integers(changes.MIN_POINTS, n - 1 - changes.CONFIRM))
    found = changes.find(series(np.random.default_rng(seed), n, sigma, k, factor))
    assert [c.index for c in found] == [k]
    assert found[0].ratio == pytest.approx(factor, rel=0.05)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 80), sigma=st.floats(0.0, 0.01),
       wild=st.lists(st.integers(0, 79), max_size=4, unique=True))
def test_noise_and_lone_wild_runs_are_no_change(seed, n, sigma, wild):
    values = series(np.random.default_rng(seed), n, sigma)
    spots = sorted(i for i in wild if i < n)
    # wild runs (a busy machine: 1.5x), never two in one block of CONFIRM + 1 runs
    if all(b - a > changes.CONFIRM for a, b in zip(spots, spots[1:])):
        for i in spots:
            values[i] *= 1.5
        assert changes.find(values) == []


def test_two_steps_are_two_changes():
    values = series(np.random.default_rng(1), 40, 0.01, 12, 1.3)
    values[26:] = [v * 0.6 for v in values[26:]]
    found = changes.find(values)
    assert [c.index for c in found] == [12, 26]
    assert found[0].ratio == pytest.approx(1.3, rel=0.05)
    assert found[1].ratio == pytest.approx(0.6, rel=0.05)


def test_instruction_counts_take_the_tighter_floor():
    flat = [1e6 * (1 + 1e-4 * (i % 3)) for i in range(20)]
    stepped = flat[:9] + [v * 1.05 for v in flat[9:]]
    assert changes.find(flat, "instructions") == []
    assert [c.index for c in changes.find(stepped, "instructions")] == [9]
    # as times, 5% is within the floor a time is given
    assert changes.find(stepped, "seconds") == []


@pytest.mark.parametrize("values", [[], [1.0], [1.0] * 8, [1.0] * 5 + [2.0] * 3,
                                    [0.0, -1.0, 1.0, None, 1.0, 1.0]])
def test_too_few_points_say_nothing(values):
    assert changes.find(values) == []


def test_a_change_in_the_last_runs_waits_for_its_confirmation():
    values = [1.0] * 10 + [2.0] * changes.CONFIRM
    assert changes.find(values) == []
    assert [c.index for c in changes.find(values + [2.0])] == [10]


def _real_series():
    """{backend: seconds} of 20 runs of one commit of `harness circuit lib:qcbm --qubits
    12 --backends stride,fused,qulacs,quest`, measured on this project's 2-core VM
    (tests/service/fixtures/qcbm12_20_runs.jsonl); fused's noise there is 3%."""
    lines = (Path(__file__).parents[1] / "service" / "fixtures" /
             "qcbm12_20_runs.jsonl").read_bytes().splitlines()
    out = {}
    for line in lines:
        for r in orjson.loads(line)["results"]:
            out.setdefault(r["backend"], []).append(r["seconds"])
    return out


@pytest.mark.parametrize("factor", [1.15, 1 / 1.15])
def test_twenty_real_runs_of_one_commit_and_a_step_of_fifteen_percent(factor):
    for backend, values in _real_series().items():
        assert len(values) == 20 and changes.find(values) == [], backend
        for k in range(changes.MIN_POINTS, len(values) - changes.CONFIRM):
            stepped = [v * (factor if i >= k else 1) for i, v in enumerate(values)]
            assert [c.index for c in changes.find(stepped)] == [k], (backend, k)
