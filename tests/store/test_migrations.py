"""Alembic's migrations, on SQLite and PostgreSQL: a store written at an earlier schema
(a fixture dumped from one, tests/store/fixtures/) upgrades to the newest with every run
intact, the tables the migrations build are the ones the code declares, and several
processes opening a new store at once upgrade it once."""

import multiprocessing
from pathlib import Path

import numpy as np
import orjson
import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from harness.store import database, read, schema, tables, write
from tests.store import dump
from tests.store import runs as make

FIXTURES = Path(__file__).with_name("fixtures")
#: (the revision a fixture was written at, its name)
EARLIER = [("0001", "store_0001")]


@pytest.mark.parametrize("revision, name", EARLIER)
def test_a_store_of_an_earlier_schema_upgrades_with_every_run_intact(db_url, revision, name):
    store = database.Store(db_url, upgrade=False)
    store.upgrade(revision)
    dump.load(store, (FIXTURES / f"{name}.sql").read_text())
    expected = [schema.Run.model_validate(orjson.loads(line))
                for line in (FIXTURES / f"{name}.runs.jsonl").read_bytes().splitlines()]
    store.upgrade()
    assert store.revision() == store.head() != revision
    with store.reading() as c:
        listed, total = read.runs(c, limit=100)
        assert total == len(expected)
        for run in expected:
            data, _ = read.document(c, run.id)  # its digest checked on the way
            assert data == run.json
    # the upgraded store takes new runs, and knows the old ones when they come again
    doc = make.sample_run(np.random.default_rng(7),
                          machine_doc=make.machine("laptop <b>", cores=4, l3=8 << 20))
    assert write.add(store, schema.Run.model_validate(doc))[1]
    assert not write.add(store, expected[0])[1]
    store.close()


def test_the_migrations_build_the_tables_the_code_declares(db_url):
    store = database.Store(db_url)
    with store.engine.connect() as c:
        diff = compare_metadata(MigrationContext.configure(c), tables.Base.metadata)
    store.close()
    assert diff == []


def _open(url, barrier):
    barrier.wait()
    database.Store(url).close()


def test_processes_opening_a_new_store_at_once_upgrade_it_once(db_url):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(4)
    workers = [ctx.Process(target=_open, args=(db_url, barrier)) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert [w.exitcode for w in workers] == [0] * 4
    store = database.Store(db_url, upgrade=False)
    assert store.revision() == store.head()
    store.close()
