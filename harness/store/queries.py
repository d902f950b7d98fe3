"""The store's reads behind the comparisons (harness.comparisons): a run's results, one
benchmark and backend over runs, the newest run of each benchmark on each machine, the
benchmarks and backends there are. Each fetches only the columns comparing needs (no
samples, settings documents or extras), along an index: a run's results by its id, a
series by benchmark and backend, the newest runs from their own table
(harness.store.tables.Latest).
"""

import datetime
import hashlib
import json

from sqlalchemy import and_, bindparam, func, select

from harness.store import tables
from harness.store.read import BENCHMARKS, MACHINES, RESULTS, RUNS, NotFound, machine_ids, utc

LATEST = tables.Latest.__table__
#: what each comparison reads of a result, and no more (fetching a column costs as much
#: as finding the row): two runs compared, a run's backends ranked, a series; a result's
#: benchmark key, suite, case and parameters come from :func:`benchmarks_by_id`
COMPARED = (RESULTS.c.benchmark_id, RESULTS.c.backend, RESULTS.c.settings_hash,
            RESULTS.c.settings_id, RESULTS.c.status, RESULTS.c.reason, RESULTS.c.seconds,
            RESULTS.c.low, RESULTS.c.high, RESULTS.c.instructions)
RANKED = (RESULTS.c.benchmark_id, RESULTS.c.backend, RESULTS.c.role, RESULTS.c.baseline,
          RESULTS.c.settings_id, RESULTS.c.status, RESULTS.c.reason, RESULTS.c.seconds,
          RESULTS.c.low, RESULTS.c.high)
SERIES = (RESULTS.c.benchmark_id, RESULTS.c.status, RESULTS.c.seconds, RESULTS.c.low,
          RESULTS.c.high, RESULTS.c.instructions)
#: what a comparison reads of a run
RUN = (RUNS.c.id, RUNS.c.uid, RUNS.c.commit, RUNS.c.dirty, RUNS.c.started, RUNS.c.command,
       RUNS.c.profile, RUNS.c.n_results, MACHINES.c.uid.label("machine"),
       MACHINES.c.name.label("machine_name"), MACHINES.c.fingerprint)


def benchmarks_by_id(connection, ids, keys_only=False):
    """{benchmark id: (key, suite, case, params)} of ``ids`` (``keys_only``: {id: (key,)},
    without decoding the parameters), read once for all the rows that share them (a run
    of a thousand results has some hundred benchmarks: joining and decoding each row's
    took most of the time of comparing two runs)."""
    columns = (BENCHMARKS.c.id, BENCHMARKS.c.key) + (
        () if keys_only else (BENCHMARKS.c.suite, BENCHMARKS.c.case, BENCHMARKS.c.params))
    found, ids = {}, sorted(set(ids))
    for start in range(0, len(ids), 900):
        rows = connection.execute(select(*columns).where(
            BENCHMARKS.c.id.in_(ids[start:start + 900])))
        found.update((row[0], tuple(row[1:])) for row in rows)
    return found


def _datetime(value):
    """A time as the driver gives it: a datetime (PostgreSQL) or SQLite's text of one."""
    return value if isinstance(value, datetime.datetime) else datetime.datetime.fromisoformat(
        value)


#: {(dialect, query): (its SQL, the order of its parameters or None)}: each hot query is
#: compiled once per process and run through the driver's own cursor (SQLAlchemy's rows,
#: and compiling a statement anew, cost more than the query on a thousand results)
_COMPILED = {}


def _fetch(connection, name, build, **params):
    """(column names, rows as tuples) of the query ``build()`` makes (its values bound by
    name: ``bindparam``), compiled once as ``name``."""
    key = (connection.dialect.name, name)
    if key not in _COMPILED:
        compiled = build().compile(dialect=connection.dialect)
        _COMPILED[key] = (str(compiled), compiled.positiontup if compiled.positional else None)
    sql, order = _COMPILED[key]
    cursor = connection.connection.cursor()
    try:
        cursor.execute(sql, [params[n] for n in order] if order is not None else params)
        return [d[0] for d in cursor.description], cursor.fetchall()
    finally:
        cursor.close()


def _light(connection, name, build, keys_only=False, **params):
    """The result rows the query selects (:func:`_fetch`: a set of columns, and more) as
    dicts, each with its benchmark's key (and, unless ``keys_only``, suite, case and
    parameters) and its interval."""
    names, rows = _fetch(connection, name, build, **params)
    if not rows:
        return []
    at = names.index("benchmark_id")
    info = benchmarks_by_id(connection, {row[at] for row in rows}, keys_only)
    fields = ("key",) if keys_only else ("key", "suite", "case", "params")
    out = []
    for row in rows:
        d = dict(zip(names, row))
        d.update(zip(fields, info[row[at]]))
        low, high = d.pop("low"), d.pop("high")
        d["interval"] = None if low is None else (low, high)
        if "baseline" in d:
            d["baseline"] = bool(d["baseline"])
        if isinstance(d.get("extra"), str):  # the raw cursor gives a JSON column as text
            d["extra"] = json.loads(d["extra"])
        if "started" in d:
            d["started"] = utc(_datetime(d["started"])).isoformat()
        out.append(d)
    return out


def run_info(connection, uid):
    """A run's own fields (its id, machine, commit, start), NotFound when not stored."""
    row = connection.execute(select(*RUN).join(MACHINES, MACHINES.c.id == RUNS.c.machine_id)
                             .where(RUNS.c.uid == uid)).first()
    if row is None:
        raise NotFound(f"no run {uid!r} in the store")
    return run_summary(row)


def run_summary(row):
    out = dict(row._mapping)
    out["started"] = utc(out["started"]).isoformat()
    return out


def results_of_run(connection, run_id, columns=COMPARED):
    """Every result of the run with store id ``run_id``, in its order: ``columns`` of it
    (COMPARED, with its benchmark's key only; or RANKED)."""
    return _light(connection, ("results_of_run", columns), lambda: select(*columns).where(
        RESULTS.c.run_id == bindparam("run_id")).order_by(RESULTS.c.position),
        keys_only=columns is COMPARED, run_id=run_id)


def benchmark_id(connection, key):
    """The store id of the benchmark ``key`` (schema.Benchmark.key); NotFound."""
    found = connection.execute(select(BENCHMARKS.c.id).where(
        BENCHMARKS.c.key_hash == hashlib.sha256(key.encode()).hexdigest())).scalar()
    if found is None:
        raise NotFound(f"no benchmark {key!r} in the store")
    return found


def one_machine(connection, spec):
    """The one machine ``spec`` names (id, name or fingerprint): its id, name and
    fingerprint; NotFound, or LookupError where a name stands for two fingerprints."""
    ids = machine_ids(connection, spec)
    rows = connection.execute(select(MACHINES.c.id, MACHINES.c.uid, MACHINES.c.name,
                                     MACHINES.c.fingerprint)
                              .where(MACHINES.c.id.in_(ids))).all()
    if len(rows) > 1:
        raise Ambiguous(f"{spec!r} names {len(rows)} machines ("
                        + ", ".join(f"{r.uid}: fingerprint {r.fingerprint}" for r in rows)
                        + "); their times are not comparable: name one by its id")
    return rows[0]


class Ambiguous(LookupError):
    """A name that stands for more than one machine where one is needed."""


def series(connection, key, backend, machine_id):
    """Every result of benchmark ``key`` on ``backend`` by the machine ``machine_id``,
    with its run's id, commit and start, oldest first."""
    bench = benchmark_id(connection, key)
    rows = _light(connection, "series", lambda: select(
        *SERIES, RUNS.c.uid.label("run"), RUNS.c.commit, RUNS.c.dirty, RUNS.c.started)
        .join(RUNS, RUNS.c.id == RESULTS.c.run_id)
        .where(RESULTS.c.benchmark_id == bindparam("bench"),
               RESULTS.c.backend == bindparam("backend"),
               RUNS.c.machine_id == bindparam("machine"))
        .order_by(RUNS.c.started, RUNS.c.id), bench=bench, backend=backend, machine=machine_id)
    for row in rows:
        row["dirty"] = bool(row["dirty"])
    return rows


def newest(connection, machine_id=None, key=None, suite=None):
    """The results of the newest run of each benchmark on each machine (or only on
    ``machine_id``, only of ``key``, only of ``suite``), each with its run's id, commit,
    start and machine."""
    params = {"machine": machine_id, "suite": suite,
              "bench": benchmark_id(connection, key) if key is not None else None}
    given = tuple(name for name, value in params.items() if value is not None)

    def build():
        query = (select(*RANKED, RESULTS.c.position, RESULTS.c.extra,
                        RUNS.c.uid.label("run"), RUNS.c.commit, RUNS.c.started,
                        MACHINES.c.uid.label("machine"), MACHINES.c.name.label("machine_name"),
                        MACHINES.c.fingerprint)
                 .select_from(LATEST)
                 .join(RESULTS, and_(RESULTS.c.run_id == LATEST.c.run_id,
                                     RESULTS.c.benchmark_id == LATEST.c.benchmark_id))
                 .join(RUNS, RUNS.c.id == LATEST.c.run_id)
                 .join(MACHINES, MACHINES.c.id == LATEST.c.machine_id))
        if "machine" in given:
            query = query.where(LATEST.c.machine_id == bindparam("machine"))
        if "bench" in given:
            query = query.where(LATEST.c.benchmark_id == bindparam("bench"))
        if "suite" in given:
            query = query.join(BENCHMARKS, BENCHMARKS.c.id == LATEST.c.benchmark_id).where(
                BENCHMARKS.c.suite == bindparam("suite"))
        return query.order_by(MACHINES.c.name, RESULTS.c.run_id, RESULTS.c.position)

    rows = _light(connection, ("newest", given), build,
                  **{name: params[name] for name in given})
    return sorted(rows, key=lambda r: (r["machine_name"], r["machine"], r["key"],
                                       r["position"]))


def benchmarks(connection, suite=None, contains=None, limit=200):
    """Benchmark keys (and their suites) there are results of, by key."""
    query = select(BENCHMARKS.c.key, BENCHMARKS.c.suite)
    if suite:
        query = query.where(BENCHMARKS.c.suite == suite)
    if contains:
        query = query.where(BENCHMARKS.c.key.contains(contains, autoescape=True))
    return [dict(r._mapping) for r in connection.execute(query.order_by(BENCHMARKS.c.key)
                                                         .limit(limit))]


def suites(connection):
    """{suite: number of benchmarks}."""
    rows = connection.execute(select(BENCHMARKS.c.suite, func.count())
                              .group_by(BENCHMARKS.c.suite).order_by(BENCHMARKS.c.suite))
    return dict(rows.all())


def backends_of(connection, key, machine_id=None):
    """The backends with results of benchmark ``key`` (on ``machine_id``), by name."""
    query = select(RESULTS.c.backend).distinct().where(
        RESULTS.c.benchmark_id == benchmark_id(connection, key))
    if machine_id is not None:
        query = query.join(RUNS, RUNS.c.id == RESULTS.c.run_id).where(
            RUNS.c.machine_id == machine_id)
    return sorted(connection.execute(query).scalars())


def likes(connection, settings_ids):
    """{settings id: its ``like`` hash} (harness.settings: what must be equal for two
    results to share a column unmarked), for the documents that have one."""
    settings = tables.Settings.__table__
    rows = connection.execute(select(settings.c.id, settings.c.document)
                              .where(settings.c.id.in_(sorted(set(settings_ids)))))
    return {i: doc.get("like") for i, doc in rows if isinstance(doc, dict)}
