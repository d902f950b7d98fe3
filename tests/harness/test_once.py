"""setup_once: asv's runner re-runs setup before every timed call; ours build once."""

import sys

import pytest
from asv_runner.benchmarks.time import TimeBenchmark

from harness.benchmarks._once import setup_once


def _suite(decorate):
    class Suite:
        params = ([4, 8],)
        param_names = ["n"]
        repeat = (6, 6, 10.0)
        warmup_time = 0.0

        def __init__(self):
            self.built = []

        def setup(self, n):
            self.built.append(n)

        def time_call(self, n):
            assert self.built[-1] == n

    if decorate:
        Suite.setup = setup_once(Suite.setup)
    return Suite()


def _run(suite, param_idx):
    bench = TimeBenchmark("Suite.time_call", suite.time_call, [suite, sys.modules[__name__]])
    bench.set_param_idx(param_idx)
    assert bench.do_setup() is False  # not skipped
    return bench.do_run()


def test_asv_runner_sets_up_before_every_call_and_setup_once_builds_once():
    plain = _suite(decorate=False)
    assert len(_run(plain, 1)["samples"]) == 6
    assert plain.built == [8] * 6  # what setup_once exists for: one build per timed call

    once = _suite(decorate=True)
    result = _run(once, 1)
    assert len(result["samples"]) == 6 and result["number"] == 1
    assert once.built == [8]
    _run(once, 0)  # another parameter set in the same process builds again
    assert once.built == [8, 4]


def test_a_setup_that_raises_is_not_remembered():
    calls = []

    class Suite:
        @setup_once
        def setup(self, n):
            calls.append(n)
            raise NotImplementedError("skip")

    suite = Suite()
    for _ in range(2):
        with pytest.raises(NotImplementedError):
            suite.setup(4)
    assert calls == [4, 4]
