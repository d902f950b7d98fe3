"""Every test runs untuned: a tuning file on the machine that runs the tests (written by
``python -m harness tune``) must not change what the tests see. Tests of tuning point
it at a folder of their own (tests/statevector/test_tuning.py)."""

import pytest

from kernels.statevector import tuning


@pytest.fixture(autouse=True, scope="session")
def _untuned(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv(tuning.ENV, str(tmp_path_factory.mktemp("tuning")))
    tuning.load.cache_clear()
    yield
    mp.undo()
    tuning.load.cache_clear()
