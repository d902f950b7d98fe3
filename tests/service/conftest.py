"""Fixtures of the service's tests: a store on each database, the server over it in a
process of its own (tests/service/live.py), an admin token; and one server per database
that a module's refusals share."""

import types

import pytest

from harness.store import database, tokens
from tests.databases import DATABASES, new_database
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


@pytest.fixture(scope="module", params=DATABASES)
def refusing(request, tmp_path_factory):
    """One server per database, with an admin token, for tests that are refused and store
    nothing: a server's start (2-3 s) per case made a third of the API tests' time. Each
    test checks that its store is still empty, so a refusal that stored anyway fails."""
    store = database.Store(new_database(request, tmp_path_factory.mktemp("refusing")))
    running = Server(store.url)
    yield types.SimpleNamespace(server=running, admin=tokens.create(store, "admin"),
                                store=store)
    running.stop()
    store.close()
