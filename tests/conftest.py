"""Every test runs untuned: a tuning file on the machine that runs the tests (written by
``python -m harness tune``) must not change what the tests see. Tests of tuning point
it at a folder of their own (tests/statevector/test_tuning.py).

And every command a test runs records into a store of the test run's own, never into
the checkout's results/results.db (harness.store.database.ENV), nor submits anywhere.
"""

import pytest

from harness import browser
from harness.store import database
from kernels.statevector import tuning
from tests.databases import db_url, postgres_server, skip_or_fail  # noqa: F401 - fixtures


@pytest.fixture(autouse=True, scope="session")
def _untuned(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv(tuning.ENV, str(tmp_path_factory.mktemp("tuning")))
    tuning.load.cache_clear()
    yield
    mp.undo()
    tuning.load.cache_clear()


@pytest.fixture(autouse=True, scope="session")
def _own_store(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv(database.ENV, str(tmp_path_factory.mktemp("store") / "results.db"))
    yield
    mp.undo()


@pytest.fixture(scope="session")
def chromium():
    """Installs chromium and chromedriver with apt when missing, or skips saying why
    (fails, where QSIM_AD_BENCH_REQUIRE names chromium: tests/databases.py)."""
    try:
        return browser.ensure_chromium(install=True)
    except browser.BrowserUnavailable as error:
        skip_or_fail("chromium", f"no headless Chromium: {error}")
