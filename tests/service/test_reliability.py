"""The store under the service's load, over SQLite and PostgreSQL: eight processes
submitting a hundred runs each at once lose nothing and store nothing twice; a server
killed (SIGKILL) while it stores a run leaves that run whole or absent, and a retry
stores it once; eight processes recording into one store directly (as eight commands on
one machine do) do too."""

import multiprocessing
import threading
import time

import httpx
import numpy as np
import orjson
import pytest
from sqlalchemy import func, select

from harness.store import database, read, schema, tables, write
from tests.service.live import Server, headers
from tests.store import runs as make

PROCESSES, EACH = 8, 100


def _doc(worker, i, n_benchmarks=2):
    rng = np.random.default_rng(worker * 1000 + i)
    return make.sample_run(rng, machine_doc=make.machine(f"box{worker % 3}"),
                           commit=f"{worker:02x}{i:038x}", n_benchmarks=n_benchmarks)


def _submitter(url, token, worker, barrier, out):
    barrier.wait()
    statuses = []
    with httpx.Client(timeout=120) as http:
        for i in range(EACH):
            answer = http.post(f"{url}/api/v1/runs", content=orjson.dumps(_doc(worker, i)),
                               headers={"Content-Type": "application/json", **headers(token)})
            statuses.append(answer.status_code)
    out.put((worker, statuses))


def _whole(store):
    """(number of runs, whether each holds every result it says it has)."""
    runs, results = tables.Run.__table__, tables.Result.__table__
    with store.reading() as c:
        n = c.execute(select(func.count()).select_from(runs)).scalar()
        held = dict(c.execute(select(results.c.run_id, func.count())
                              .group_by(results.c.run_id)).all())
        said = dict(c.execute(select(runs.c.id, runs.c.n_results)).all())
    return n, held == said


def test_eight_processes_submitting_at_once_lose_nothing(store, server, admin):
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(PROCESSES), ctx.Queue()
    workers = [ctx.Process(target=_submitter, args=(server.url, admin, w, barrier, out))
               for w in range(PROCESSES)]
    for w in workers:
        w.start()
    found = dict(out.get(timeout=600) for _ in workers)
    for w in workers:
        w.join(60)
    assert all(statuses == [201] * EACH for statuses in found.values()), found
    assert _whole(store) == (PROCESSES * EACH, True)
    # all of them again: stored already, every one
    again = httpx.post(f"{server.url}/api/v1/runs", content=orjson.dumps(_doc(3, 7)),
                       headers={"Content-Type": "application/json", **headers(admin)})
    assert again.status_code == 200
    assert _whole(store) == (PROCESSES * EACH, True)


def _recorder(url, worker, barrier, out):
    store = database.Store(url)
    barrier.wait()
    shared = schema.Run.model_validate(_doc(200, 0))  # every recorder stores this one too
    out.put([write.add(store, schema.Run.model_validate(_doc(worker, i)))[1]
             for i in range(25)] + [write.add(store, shared)[1]])
    store.close()


def test_eight_processes_recording_into_one_store_at_once(store):
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(PROCESSES), ctx.Queue()
    workers = [ctx.Process(target=_recorder, args=(store.url, w, barrier, out))
               for w in range(PROCESSES)]
    for w in workers:
        w.start()
    created = [out.get(timeout=600) for _ in workers]
    for w in workers:
        w.join(60)
    # every run of its own stored by its recorder; the one they share, by one of them
    assert all(all(c[:-1]) for c in created)
    assert sum(c[-1] for c in created) == 1
    assert _whole(store) == (PROCESSES * 25 + 1, True)


def _big():
    doc = _doc(99, 0, n_benchmarks=8000)
    return schema.Run.model_validate(doc), orjson.dumps(doc)


def _writing(store):
    """Whether another connection is inside a write transaction on the store: SQLite's
    write lock cannot be taken; PostgreSQL shows a lock on the results table."""
    if store.dialect == "sqlite":
        raw = store.engine.raw_connection()
        try:
            raw.driver_connection.execute("PRAGMA busy_timeout = 0")
            raw.driver_connection.execute("BEGIN IMMEDIATE")
            raw.driver_connection.execute("ROLLBACK")
            return False
        except Exception as exc:  # sqlite3.OperationalError: database is locked
            return "locked" in str(exc)
        finally:
            raw.close()
    with store.engine.connect() as c:
        return bool(c.exec_driver_sql(
            "SELECT count(*) FROM pg_locks l JOIN pg_class t ON t.oid = l.relation "
            "WHERE t.relname = 'results' AND l.mode = 'RowExclusiveLock' "
            "AND l.pid <> pg_backend_pid()").scalar())


@pytest.mark.parametrize("when", ["receiving", "writing", "answered"])
def test_a_server_killed_while_it_stores_leaves_the_run_whole_or_absent(store, admin, when):
    """SIGKILL while the body is read and checked, inside the transaction that stores it
    (seen from outside: the write lock held), and after it answered."""
    run, body = _big()
    server = Server(store.url)
    answers = []

    def send():
        try:
            answers.append(httpx.post(f"{server.url}/api/v1/runs", content=body, timeout=120,
                                      headers={"Content-Type": "application/json",
                                               "Idempotency-Key": run.id, **headers(admin)}))
        except httpx.TransportError as exc:  # the server died under it
            answers.append(exc)

    sender = threading.Thread(target=send)
    sender.start()
    if when == "receiving":
        time.sleep(0.2)
    elif when == "writing":
        deadline = time.monotonic() + 60
        while not _writing(store):
            assert time.monotonic() < deadline and not answers, "never saw it writing"
            time.sleep(0.002)
    else:
        sender.join(120)
        assert answers[0].status_code == 201
    server.stop(kill=True)
    sender.join(120)
    fresh = database.Store(store.url)
    count, whole = _whole(fresh)
    assert whole and count == (1 if when == "answered" else 0), (count, answers)
    if count:
        with fresh.reading() as c:
            assert read.document(c, run.id)[0] == run.json
    # the retry stores it, once
    again = Server(store.url)
    try:
        answer = httpx.post(f"{again.url}/api/v1/runs", content=body, timeout=120,
                            headers={"Content-Type": "application/json",
                                     "Idempotency-Key": run.id, **headers(admin)})
        assert answer.status_code == (200 if count else 201)
        assert _whole(fresh) == (1, True)
        with fresh.reading() as c:
            assert read.document(c, run.id)[0] == run.json
    finally:
        again.stop()
        fresh.close()
