"""Every benchmark id named in harness/ids.py points at a benchmark asv will find."""

import importlib

import pytest

from harness import ids


@pytest.mark.parametrize("name", sorted(ids.ALL))
def test_id_names_a_benchmark(name):
    module, cls, method = ids.ALL[name].split(".")
    suite = importlib.import_module(f"harness.benchmarks.{module}")
    bench = getattr(getattr(suite, cls), method)
    assert callable(bench)
    assert method.startswith(("time_", "track_", "peakmem_"))


def test_ids_are_distinct():
    assert len(set(ids.ALL.values())) == len(ids.ALL)
