"""The store on SQLite and on a real PostgreSQL server, the same tests on both: a run
comes back exactly as it was submitted, twice is once, a failed write leaves nothing,
and the lists of runs and machines say what is stored."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from sqlalchemy import func, select

from harness.store import database, read, schema, tables, tokens, write
from tests.store import runs as make

TABLES = (tables.Machine, tables.Run, tables.Benchmark, tables.Settings, tables.Result)


@pytest.fixture
def store(db_url):
    opened = database.Store(db_url)
    yield opened
    opened.close()


def counts(store):
    with store.reading() as c:
        return {t.__tablename__: c.execute(select(func.count()).select_from(t)).scalar()
                for t in TABLES}


def stored(store, doc):
    run = schema.Run.model_validate(doc)
    uid, created = write.add(store, run)
    assert uid == run.id
    return run, created


def test_a_new_store_is_at_the_newest_schema(store):
    assert store.revision() == store.head()
    store.upgrade()  # again: nothing to do
    assert store.revision() == store.head()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(doc=make.runs())
def test_a_run_comes_back_exactly_as_submitted(store, doc):
    run, _ = stored(store, doc)
    with store.reading() as c:
        data, back = read.document(c, run.id)
        assert data == run.json
        again = read.run(c, run.id)
    assert again == run and again.id == run.id


def test_twice_is_once(store):
    doc = make.sample_run(np.random.default_rng(1))
    run, created = stored(store, doc)
    before = counts(store)
    assert created and before["runs"] == 1
    assert before["results"] == len(doc["results"])
    _, again = stored(store, doc)
    assert not again and counts(store) == before
    # the same run spelt otherwise (keys in another order, its start in another zone,
    # its defaults written out) is the same run
    respelt = schema.Run.model_validate(run.document())
    assert respelt.id == run.id
    shifted = dict(doc, started="2026-11-01T13:00:00+01:00")
    assert doc["started"] == "2026-11-01T12:00:00+00:00"
    _, again = stored(store, dict(reversed(list(shifted.items()))))
    assert not again and counts(store) == before


def test_shared_benchmarks_and_settings_are_stored_once(store):
    rng = np.random.default_rng(2)
    stored(store, make.sample_run(rng, commit="a" * 40))
    first = counts(store)
    stored(store, make.sample_run(rng, commit="b" * 40))
    second = counts(store)
    assert second["runs"] == 2 and second["results"] == 2 * first["results"]
    assert second["benchmarks"] == first["benchmarks"] == 5
    assert second["settings"] == first["settings"] == 3
    assert second["machines"] == 1


def test_a_write_that_fails_half_way_leaves_nothing(store, monkeypatch):
    stored(store, make.sample_run(np.random.default_rng(3), commit="c" * 40))
    before = counts(store)
    real = write._insert_results

    def half(connection, rows):
        rows = list(rows)
        real(connection, rows[: len(rows) // 2])
        raise RuntimeError("killed half-way")

    monkeypatch.setattr(write, "_insert_results", half)
    doc = make.sample_run(np.random.default_rng(4), commit="d" * 40,
                          machine_doc=make.machine("other"))
    doc["results"][0]["benchmark"]["case"] = "a benchmark no run had"
    with pytest.raises(RuntimeError, match="half-way"):
        stored(store, doc)
    assert counts(store) == before
    monkeypatch.setattr(write, "_insert_results", real)
    _, created = stored(store, doc)
    assert created and counts(store)["runs"] == before["runs"] + 1


def test_runs_are_listed_newest_first_and_filtered(store):
    rng = np.random.default_rng(5)
    laptop, server = make.machine("laptop", cores=4), make.machine("server", cores=64)
    ids = {}
    for day, (m, commit) in enumerate([(laptop, "1" * 40), (server, "2" * 40),
                                       (laptop, "3" * 40)], start=1):
        run, _ = stored(store, make.sample_run(rng, machine_doc=m, commit=commit,
                                               when=make.started(day)))
        ids[commit[0]] = run.id
    with store.reading() as c:
        listed, total = read.runs(c)
        assert total == 3 and [r["id"] for r in listed] == [ids["3"], ids["2"], ids["1"]]
        listed, total = read.runs(c, machine="laptop")
        assert total == 2 and {r["machine_name"] for r in listed} == {"laptop"}
        assert read.runs(c, commit="222")[0][0]["id"] == ids["2"]
        page, total = read.runs(c, limit=1, offset=1)
        assert total == 3 and [r["id"] for r in page] == [ids["2"]]
        found = {m["name"]: m for m in read.machines(c)}
        assert set(found) == {"laptop", "server"}
        assert found["laptop"]["runs"] == 2 and found["server"]["cores"] == 64
        by_fingerprint = read.runs(c, machine=server["fingerprint"])[1]
        by_id = read.runs(c, machine=found["server"]["id"])[1]
        assert by_fingerprint == by_id == 1
        with pytest.raises(read.NotFound, match="nobody"):
            read.runs(c, machine="nobody")
        with pytest.raises(read.NotFound, match="no run"):
            read.document(c, "0" * 16)


def test_a_tampered_run_is_an_error_not_a_number(store):
    run, _ = stored(store, make.sample_run(np.random.default_rng(6)))
    results = tables.Result.__table__
    store.transact(lambda c: c.execute(results.update().where(results.c.position == 0)
                                       .values(seconds=123.0)))
    with store.reading() as c, pytest.raises(database.StoreError, match="digest"):
        read.document(c, run.id)


def test_an_idempotency_key_names_one_run(store):
    rng = np.random.default_rng(8)
    first = schema.Run.model_validate(make.sample_run(rng, commit="e" * 40))
    assert write.add(store, first, key="k-1") == (first.id, True)
    assert write.add(store, first, key="k-1") == (first.id, False)
    other = schema.Run.model_validate(make.sample_run(rng, commit="f" * 40))
    with pytest.raises(write.IdempotencyConflict, match="k-1"):
        write.add(store, other, key="k-1")
    assert counts(store)["runs"] == 1
    # a known run under a new key: the key now names it too
    assert write.add(store, first, key="k-2") == (first.id, False)
    with pytest.raises(write.IdempotencyConflict):
        write.add(store, other, key="k-2")
    assert write.add(store, other, key="k-3") == (other.id, True)


def test_the_newest_run_of_each_benchmark_is_kept_whatever_the_order_of_arrival(store):
    rng = np.random.default_rng(9)
    box = make.machine("box")
    middle = stored(store, make.sample_run(rng, machine_doc=box, when=make.started(2)))[0]
    newest = stored(store, make.sample_run(rng, machine_doc=box, when=make.started(3),
                                           n_benchmarks=2))[0]
    stored(store, make.sample_run(rng, machine_doc=box, when=make.started(1)))  # late
    latest, runs = tables.Latest.__table__, tables.Run.__table__
    with store.reading() as c:
        rows = c.execute(select(latest.c.benchmark_id, runs.c.uid)
                         .join(runs, runs.c.id == latest.c.run_id)).all()
    by_run = sorted(uid for _, uid in rows)
    # qft0 and qft1 are newest in the third day's run, qft2..4 in the second day's
    assert by_run == sorted([newest.id] * 2 + [middle.id] * 3)


def test_tokens_are_kept_as_digests_and_scoped(store):
    text = tokens.create(store, "machine", machine="laptop")
    admin = tokens.create(store, "admin")
    reader = tokens.create(store, "read")
    assert text.startswith(tokens.PREFIX) and len(text) > 40
    rows = tokens.listed(store)
    assert len(rows) == 3 and not any(text in str(tuple(r)) for r in rows)
    with store.reading() as c:
        row = tokens.find(c, text)
        assert tokens.may_write(row, "laptop") is None
        assert "laptop" in tokens.may_write(row, "server")
        assert tokens.may_write(tokens.find(c, admin), "anything") is None
        assert "only read" in tokens.may_write(tokens.find(c, reader), "laptop")
        assert tokens.find(c, text + "x") is None and tokens.find(c, "") is None
    tokens.revoke(store, row.id)
    with store.reading() as c:
        assert tokens.find(c, text) is None
    with pytest.raises(tokens.TokenError, match="no unrevoked"):
        tokens.revoke(store, row.id)
    for bad in (("owner", None), ("machine", None), ("admin", "laptop"), ("machine", "")):
        with pytest.raises(tokens.TokenError):
            tokens.create(store, *bad)
