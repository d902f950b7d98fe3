"""Runs read back from the store: each exactly as it was submitted (its document hashes
to its digest again, which :func:`document` checks), the list of runs with filters, and
the machines.

A machine is asked for by its id, its name or its fingerprint (:func:`machine_ids`): a
name that two fingerprints share (a host whose processor changed) names both.
"""

import datetime
import hashlib

from sqlalchemy import func, or_, select

from harness.store import schema, tables
from harness.store.database import StoreError

RUNS = tables.Run.__table__
MACHINES = tables.Machine.__table__
RESULTS = tables.Result.__table__
BENCHMARKS = tables.Benchmark.__table__
SETTINGS = tables.Settings.__table__


class NotFound(LookupError):
    """What was asked for is not in the store; the message says what."""


def utc(moment):
    """A time as the store keeps it (UTC, no zone) as an aware datetime."""
    return moment.replace(tzinfo=datetime.UTC)


def machine_document(row):
    return {"name": row.name, "fingerprint": row.fingerprint, **row.facts}


def machine_ids(connection, spec):
    """The ids of the machines ``spec`` names (a machine's id, name or fingerprint);
    NotFound when it names none."""
    found = connection.execute(select(MACHINES.c.id).where(or_(
        MACHINES.c.uid == spec, MACHINES.c.name == spec,
        MACHINES.c.fingerprint == spec))).scalars().all()
    if not found:
        raise NotFound(f"no machine is called {spec!r} (by id, name or fingerprint)")
    return found


def _result_document(row):
    return {
        "benchmark": {"suite": row.suite, "case": row.case, "params": row.params},
        "backend": row.backend, "version": row.version, "role": row.role,
        "baseline": row.baseline, "settings": row.document,
        "settings_hash": row.settings_hash, "status": row.status, "reason": row.reason,
        "seconds": row.seconds,
        "interval": None if row.low is None else [row.low, row.high],
        "samples": row.samples, "times": row.times, "max_error": row.max_error,
        "roofline": row.roofline, "instructions": row.instructions,
        "peak_bytes": row.peak_bytes, "value": row.value, "unit": row.unit,
        "comm": row.comm, "extra": row.extra,
    }


def _run_row(connection, uid):
    row = connection.execute(
        select(RUNS, MACHINES.c.name, MACHINES.c.fingerprint, MACHINES.c.facts,
               MACHINES.c.uid.label("machine_uid"))
        .join(MACHINES, MACHINES.c.id == RUNS.c.machine_id)
        .where(RUNS.c.uid == uid)).first()
    if row is None:
        raise NotFound(f"no run {uid!r} in the store")
    return row


def result_rows(connection, run_ids):
    """The results of the runs ``run_ids`` (store ids), in each run's order, with their
    benchmark and settings."""
    return connection.execute(
        select(RESULTS, BENCHMARKS.c.suite, BENCHMARKS.c.case, BENCHMARKS.c.params,
               BENCHMARKS.c.key, SETTINGS.c.document)
        .join(BENCHMARKS, BENCHMARKS.c.id == RESULTS.c.benchmark_id)
        .join(SETTINGS, SETTINGS.c.id == RESULTS.c.settings_id)
        .where(RESULTS.c.run_id.in_(list(run_ids)))
        .order_by(RESULTS.c.run_id, RESULTS.c.position)).all()


def _document(row, results):
    return {
        "schema_version": row.schema_version, "machine": machine_document(row),
        "commit": row.commit, "dirty": row.dirty, "command": row.command,
        "profile": row.profile, "argv": row.argv, "versions": row.versions,
        "tuning": row.tuning, "started": utc(row.started), schema.SOURCE_FIELD: row.source,
        "results": [_result_document(r) for r in results],
    }


def document(connection, uid):
    """The run ``uid`` as it was submitted: ``(canonical JSON bytes, data)``; NotFound,
    or StoreError where what is stored no longer hashes to the run's digest."""
    row = _run_row(connection, uid)
    doc = _document(row, result_rows(connection, [row.id]))
    data = schema.canonical(doc)
    if hashlib.sha256(data).hexdigest() != row.digest:
        raise StoreError(f"run {uid}: what is stored no longer matches its digest")
    return data, doc


def run(connection, uid):
    """The run ``uid`` as a schema.Run; NotFound when it is not stored."""
    return schema.Run.model_validate(document(connection, uid)[1])


def summary(row):
    """A run's row as the list of runs shows it."""
    return {"id": row.uid, "machine": row.machine_uid, "machine_name": row.name,
            "fingerprint": row.fingerprint, "commit": row.commit, "dirty": row.dirty,
            "command": row.command, "profile": row.profile,
            "started": utc(row.started).isoformat(), "results": row.n_results}


def runs(connection, machine=None, commit=None, limit=50, offset=0):
    """``(summaries, total)`` of the runs, newest first, of ``machine`` (id, name or
    fingerprint) and at ``commit`` (a whole hash or its start) where given."""
    query = (select(RUNS, MACHINES.c.name, MACHINES.c.fingerprint,
                    MACHINES.c.uid.label("machine_uid"))
             .join(MACHINES, MACHINES.c.id == RUNS.c.machine_id))
    if machine:
        query = query.where(RUNS.c.machine_id.in_(machine_ids(connection, machine)))
    if commit:
        query = query.where(RUNS.c.commit.startswith(commit.lower(), autoescape=True))
    total = connection.execute(select(func.count()).select_from(query.subquery())).scalar()
    rows = connection.execute(query.order_by(RUNS.c.started.desc(), RUNS.c.id.desc())
                              .limit(limit).offset(offset)).all()
    return [summary(row) for row in rows], total


def machines(connection):
    """Every machine: its id, name, fingerprint and facts, its runs and their span."""
    counts = (select(RUNS.c.machine_id, func.count().label("runs"),
                     func.min(RUNS.c.started).label("first"),
                     func.max(RUNS.c.started).label("last"))
              .group_by(RUNS.c.machine_id).subquery())
    rows = connection.execute(select(MACHINES, counts.c.runs, counts.c.first, counts.c.last)
                              .join(counts, counts.c.machine_id == MACHINES.c.id)
                              .order_by(MACHINES.c.name, MACHINES.c.fingerprint)).all()
    return [{"id": row.uid, **machine_document(row), "runs": row.runs,
             "first": utc(row.first).isoformat(), "last": utc(row.last).isoformat()}
            for row in rows]
