"""The store's reads behind the comparisons (harness.comparisons): a run's results, one
benchmark and backend over runs, the newest run of each benchmark on each machine, the
benchmarks and backends there are. Each fetches only the columns comparing needs (no
samples, settings documents or extras), along an index: a run's results by its id, a
series by benchmark and backend, the newest runs from their own table
(harness.store.tables.Latest).
"""

import hashlib

from sqlalchemy import and_, func, select

from harness.store import tables
from harness.store.read import BENCHMARKS, MACHINES, RESULTS, RUNS, NotFound, machine_ids, utc

LATEST = tables.Latest.__table__
#: what a comparison reads of a result
LIGHT = (RESULTS.c.run_id, RESULTS.c.benchmark_id, BENCHMARKS.c.key, BENCHMARKS.c.suite,
         BENCHMARKS.c.case, BENCHMARKS.c.params, RESULTS.c.position, RESULTS.c.backend,
         RESULTS.c.role, RESULTS.c.baseline, RESULTS.c.settings_hash, RESULTS.c.settings_id,
         RESULTS.c.status, RESULTS.c.reason, RESULTS.c.seconds, RESULTS.c.low, RESULTS.c.high,
         RESULTS.c.samples, RESULTS.c.instructions, RESULTS.c.value, RESULTS.c.unit,
         RESULTS.c.max_error, RESULTS.c.roofline, RESULTS.c.peak_bytes)
#: what a comparison reads of a run
RUN = (RUNS.c.id, RUNS.c.uid, RUNS.c.commit, RUNS.c.dirty, RUNS.c.started, RUNS.c.command,
       RUNS.c.profile, RUNS.c.n_results, MACHINES.c.uid.label("machine"),
       MACHINES.c.name.label("machine_name"), MACHINES.c.fingerprint)


def _light(row):
    out = dict(row._mapping)
    low, high = out.pop("low"), out.pop("high")
    out["interval"] = None if low is None else (low, high)
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


def results_of_run(connection, run_id):
    """Every result of the run with store id ``run_id``, in its order."""
    rows = connection.execute(
        select(*LIGHT).join(BENCHMARKS, BENCHMARKS.c.id == RESULTS.c.benchmark_id)
        .where(RESULTS.c.run_id == run_id).order_by(RESULTS.c.position))
    return [_light(r) for r in rows]


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
    rows = connection.execute(
        select(*LIGHT, RUNS.c.uid.label("run"), RUNS.c.commit, RUNS.c.dirty, RUNS.c.started)
        .join(BENCHMARKS, BENCHMARKS.c.id == RESULTS.c.benchmark_id)
        .join(RUNS, RUNS.c.id == RESULTS.c.run_id)
        .where(RESULTS.c.benchmark_id == bench, RESULTS.c.backend == backend,
               RUNS.c.machine_id == machine_id)
        .order_by(RUNS.c.started, RUNS.c.id))
    out = []
    for r in rows:
        row = _light(r)
        row["started"] = utc(row["started"]).isoformat()
        out.append(row)
    return out


def newest(connection, machine_id=None, key=None, suite=None):
    """The results of the newest run of each benchmark on each machine (or only on
    ``machine_id``, only of ``key``, only of ``suite``), each with its run's id, commit,
    start and machine."""
    join = and_(RESULTS.c.run_id == LATEST.c.run_id,
                RESULTS.c.benchmark_id == LATEST.c.benchmark_id)
    query = (select(*LIGHT, RUNS.c.uid.label("run"), RUNS.c.commit, RUNS.c.started,
                    MACHINES.c.uid.label("machine"), MACHINES.c.name.label("machine_name"),
                    MACHINES.c.fingerprint)
             .select_from(LATEST)
             .join(RESULTS, join)
             .join(BENCHMARKS, BENCHMARKS.c.id == LATEST.c.benchmark_id)
             .join(RUNS, RUNS.c.id == LATEST.c.run_id)
             .join(MACHINES, MACHINES.c.id == LATEST.c.machine_id))
    if machine_id is not None:
        query = query.where(LATEST.c.machine_id == machine_id)
    if key is not None:
        query = query.where(LATEST.c.benchmark_id == benchmark_id(connection, key))
    if suite is not None:
        query = query.where(BENCHMARKS.c.suite == suite)
    out = []
    for r in connection.execute(query.order_by(MACHINES.c.name, BENCHMARKS.c.key,
                                               RESULTS.c.position)):
        row = _light(r)
        row["started"] = utc(row["started"]).isoformat()
        out.append(row)
    return out


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
