"""Storing a run: whole, in one transaction, and once.

A run's id is its content's digest (harness.store.schema), so a run that is already
stored, whoever sent it and however often, is found by its id and stored no second time;
two submitters storing the same run at the same moment meet on the unique id, and the
one that loses finds the other's row. A run is written in one transaction: a writer
killed half-way leaves it absent, never partial.

Benchmarks and settings documents are shared by many results: each is stored once, by
its key's digest, and results refer to it.
"""

import datetime
import hashlib

import orjson
from sqlalchemy import insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from harness.store import schema, tables

#: how many keys one ``IN (...)`` looks up at once (SQLite's limit on parameters is
#: 32766 on current builds, 999 on old ones)
CHUNK = 900
_INSERTS = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}


def _now():
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


def naive_utc(moment):
    """``moment`` as the store keeps times: UTC, without a zone."""
    return moment.astimezone(datetime.UTC).replace(tzinfo=None)


def _lookup(connection, table, column, keys):
    """{key: id} of the rows of ``table`` whose ``column`` is one of ``keys``."""
    found = {}
    keys = list(keys)
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start:start + CHUNK]
        rows = connection.execute(select(column, table.c.id).where(column.in_(chunk)))
        found.update((key, id_) for key, id_ in rows)
    return found


def _ensure(connection, table, column, rows):
    """{key: id} of ``rows`` ({key: row to insert}), inserting those not stored yet; a
    row another writer inserts meanwhile is found, not inserted twice."""
    found = _lookup(connection, table, column, rows)
    missing = [row for key, row in rows.items() if key not in found]
    if missing:
        make = _INSERTS.get(connection.dialect.name)
        if make is not None:
            connection.execute(make(table).on_conflict_do_nothing(
                index_elements=[column.name]), missing)
        else:  # another database: no race resolved here, the transaction's unique key is
            connection.execute(insert(table), missing)
        found.update(_lookup(connection, table, column,
                             [k for k in rows if k not in found]))
    return found


def _machine_id(connection, machine):
    table = tables.Machine.__table__
    facts = machine.model_dump(exclude={"name", "fingerprint"})
    ids = _ensure(connection, table, table.c.uid, {machine.id: {
        "uid": machine.id, "name": machine.name, "fingerprint": machine.fingerprint,
        "facts": facts}})
    return ids[machine.id]


def _sha(data):
    return hashlib.sha256(data).hexdigest()


#: the columns of a result row, in the order :func:`_rows` gives them
RESULT_COLUMNS = ("run_id", "position", "benchmark_id", "backend", "version", "role",
                  "baseline", "settings_id", "settings_hash", "status", "reason", "seconds",
                  "low", "high", "samples", "times", "max_error", "roofline", "instructions",
                  "peak_bytes", "value", "unit", "comm", "extra")


def _json(value):
    return None if value is None else orjson.dumps(value, default=schema.fields).decode()


def _rows(run, run_id, bench_ids, settings_ids, keys):
    """Each result as a tuple of RESULT_COLUMNS, its JSON columns as text."""
    for position, (r, (bench_key, settings_key)) in enumerate(zip(run.results, keys)):
        low, high = r.interval if r.interval is not None else (None, None)
        yield (run_id, position, bench_ids[bench_key], r.backend, r.version, r.role,
               r.baseline, settings_ids[settings_key], r.settings_hash, r.status, r.reason,
               r.seconds, low, high, r.samples, _json(r.times), r.max_error, r.roofline,
               r.instructions, r.peak_bytes, r.value, r.unit, _json(r.comm), _json(r.extra))


def _insert_results(connection, rows):
    """Insert result tuples: PostgreSQL's COPY, elsewhere one executemany through the
    driver. Either is several times faster than SQLAlchemy's insert of dicts, whose
    per-row processing took most of the time of storing a run of 20,000 results."""
    table = tables.Result.__table__
    quote = connection.dialect.identifier_preparer.quote
    columns = ", ".join(quote(c) for c in RESULT_COLUMNS)
    if connection.dialect.driver == "psycopg":
        cursor = connection.connection.driver_connection.cursor()
        with cursor.copy(f"COPY {quote(table.name)} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        return
    marker = {"qmark": "?", "numeric": None, "named": None}.get(
        connection.dialect.paramstyle, "%s")
    if marker is None:  # a driver that takes names: SQLAlchemy's own insert
        connection.execute(insert(table), [dict(zip(RESULT_COLUMNS, row)) for row in rows])
        return
    values = ", ".join([marker] * len(RESULT_COLUMNS))
    connection.exec_driver_sql(f"INSERT INTO {quote(table.name)} ({columns}) "
                               f"VALUES ({values})", list(rows))


def _shared(run):
    """([(benchmark key digest, settings digest)] per result, {benchmark digest: row},
    {settings digest: row}): what the run's results refer to, each distinct one once."""
    benchmarks, settings, keys = {}, {}, []
    seen = {}
    for r in run.results:
        b = r.benchmark
        key = b.key
        bench_hash = seen.get(key)
        if bench_hash is None:
            bench_hash = seen[key] = _sha(key.encode())
            benchmarks[bench_hash] = {"key_hash": bench_hash, "key": key, "suite": b.suite,
                                      "case": b.case, "params": b.params}
        text = schema.canonical(r.settings)
        settings_hash = seen.get(text)
        if settings_hash is None:
            settings_hash = seen[text] = _sha(text)
            settings[settings_hash] = {"digest": settings_hash, "document": r.settings}
        keys.append((bench_hash, settings_hash))
    return keys, benchmarks, settings


def _stored(connection, uid):
    runs = tables.Run.__table__
    return connection.execute(select(runs.c.id).where(runs.c.uid == uid)).scalar()


class IdempotencyConflict(ValueError):
    """An Idempotency-Key that stored another run: a client reusing a key for new
    content."""


def _keyed(connection, key):
    """The id of the run an Idempotency-Key stored, or None."""
    keys, runs = tables.IdempotencyKey.__table__, tables.Run.__table__
    return connection.execute(select(runs.c.uid).join(keys, keys.c.run_id == runs.c.id)
                              .where(keys.c.key == key)).scalar()


def _remember(connection, key, run_id):
    keys = tables.IdempotencyKey.__table__
    connection.execute(insert(keys).values(key=key, run_id=run_id, created=_now()))


def _newest(connection, machine_id, run_id, started, benchmark_ids):
    """Make this run the newest of each of its benchmarks on its machine where it started
    later than the one recorded (harness.store.tables.Latest)."""
    latest = tables.Latest.__table__
    rows = [{"machine_id": machine_id, "benchmark_id": b, "run_id": run_id,
             "started": started} for b in sorted(set(benchmark_ids))]
    make = _INSERTS.get(connection.dialect.name)
    if make is None:  # another database: look, then write
        for row in rows:
            old = connection.execute(select(latest.c.started, latest.c.run_id).where(
                latest.c.machine_id == machine_id,
                latest.c.benchmark_id == row["benchmark_id"])).first()
            if old is None:
                connection.execute(insert(latest).values(**row))
            elif (old.started, old.run_id) < (started, run_id):
                connection.execute(latest.update().where(
                    latest.c.machine_id == machine_id,
                    latest.c.benchmark_id == row["benchmark_id"]).values(
                        run_id=run_id, started=started))
        return
    stmt = make(latest)
    newer = (latest.c.started < stmt.excluded.started) | (
        (latest.c.started == stmt.excluded.started) & (latest.c.run_id < stmt.excluded.run_id))
    connection.execute(stmt.on_conflict_do_update(
        index_elements=[latest.c.machine_id, latest.c.benchmark_id],
        set_={"run_id": stmt.excluded.run_id, "started": stmt.excluded.started},
        where=newer), rows)


def add(store, run, key=None):
    """Store ``run`` (a schema.Run); ``(its id, whether it was new)``. ``key``: the
    submission's Idempotency-Key, which names this run from now on; a key that already
    named another run raises IdempotencyConflict."""
    uid = run.id
    runs = tables.Run.__table__

    def work(connection):
        if key is not None:
            earlier = _keyed(connection, key)
            if earlier is not None:
                if earlier != uid:
                    raise IdempotencyConflict(
                        f"Idempotency-Key {key!r} already stored run {earlier}, whose "
                        "content differs from this one's: send new content under a new key")
                return uid, False
        existing = _stored(connection, uid)
        if existing is not None:
            if key is not None:
                _remember(connection, key, existing)
            return uid, False
        keys, benchmarks, settings = _shared(run)
        machine_id = _machine_id(connection, run.machine)
        bench_ids = _ensure(connection, tables.Benchmark.__table__,
                            tables.Benchmark.__table__.c.key_hash, benchmarks)
        settings_ids = _ensure(connection, tables.Settings.__table__,
                               tables.Settings.__table__.c.digest, settings)
        started = naive_utc(run.started)
        run_id = connection.execute(insert(runs).values(
            uid=uid, digest=run.digest, machine_id=machine_id,
            schema_version=run.schema_version, commit=run.commit, dirty=run.dirty,
            command=run.command, profile=run.profile, argv=run.argv, versions=run.versions,
            tuning=run.tuning, started=started, source=run.source,
            n_results=len(run.results), recorded=_now()).returning(runs.c.id)).scalar_one()
        _insert_results(connection, _rows(run, run_id, bench_ids, settings_ids, keys))
        _newest(connection, machine_id, run_id, started, bench_ids.values())
        if key is not None:
            _remember(connection, key, run_id)
        return uid, True

    try:
        return store.transact(work)
    except IntegrityError:
        # another writer stored this very run (or used this key) between our look and
        # our insert: what it stored answers
        with store.reading() as connection:
            earlier = _keyed(connection, key) if key is not None else None
            if earlier is not None and earlier != uid:
                raise IdempotencyConflict(f"Idempotency-Key {key!r} already stored run "
                                          f"{earlier}") from None
            if _stored(connection, uid) is not None:
                return uid, False
        raise
