"""Fixtures of the service's tests: a store on each database, the server over it in a
process of its own (tests/service/live.py), an admin token."""

import pytest

from harness.store import database, tokens
from tests.service.live import Server


@pytest.fixture
def store(db_url):
    opened = database.Store(db_url)
    yield opened
    opened.close()


@pytest.fixture
def server(store):
    running = Server(store.url)
    yield running
    running.stop()


@pytest.fixture
def admin(store):
    return tokens.create(store, "admin")
