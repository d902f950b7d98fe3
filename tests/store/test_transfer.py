"""``harness export`` and ``harness import``, as a user runs them, on SQLite and
PostgreSQL: a store exported, imported into an empty one and exported again gives the same
bytes; importing twice stores nothing new; a line that is not a run is named by its
number and the rest still imported."""

import subprocess
import sys

import numpy as np
import orjson
from hypothesis import HealthCheck, given, settings

from harness.store import database, schema, write
from tests.service.live import ROOT
from tests.store import runs as make


def harness(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, input=stdin,
                          capture_output=True, timeout=600)


def test_export_then_import_gives_the_store_back_exactly(db_url, tmp_path, postgres_server):
    store = database.Store(db_url)
    rng = np.random.default_rng(1)
    for day in (3, 1, 2):  # stored out of order: an export is by start
        write.add(store, schema.Run.model_validate(make.sample_run(
            rng, when=make.started(day), machine_doc=make.machine(f"m{day % 2}"))))
    first = harness("export", "--db", db_url)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert len(lines) == 3
    started = [orjson.loads(line)["started"] for line in lines]
    assert started == sorted(started)
    # into a store on the other database
    other = postgres_server.create_database() if db_url.startswith("sqlite") else \
        f"sqlite:///{tmp_path / 'other.db'}"
    dump = tmp_path / "runs.jsonl"
    dump.write_bytes(first.stdout)
    imported = harness("import", str(dump), "--db", other)
    assert imported.returncode == 0 and b"3 run(s) recorded" in imported.stderr
    again = harness("export", "--db", other)
    assert again.stdout == first.stdout
    twice = harness("import", "-", "--db", other, stdin=first.stdout)
    assert twice.returncode == 0 and b"0 run(s) recorded, 3 already there" in twice.stderr
    store.close()


def test_a_line_that_is_not_a_run_is_named_and_the_rest_imported(tmp_path):
    good = schema.Run.model_validate(make.sample_run(np.random.default_rng(2)))
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"{nope\n" + good.json + b'\n{"results": []}\n')
    done = harness("import", str(path), str(tmp_path / "missing.jsonl"),
                   "--db", str(tmp_path / "s.db"))
    assert done.returncode == 2
    assert b"runs.jsonl:1: not a run" in done.stderr
    assert b"runs.jsonl:3: not a run" in done.stderr
    assert b"missing.jsonl: no such file" in done.stderr
    assert b"1 run(s) recorded" in done.stderr


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(doc=make.runs())
def test_any_run_survives_the_export_line(tmp_path, doc):
    run = schema.Run.model_validate(doc)
    again = schema.Run.model_validate(orjson.loads(run.json))
    assert again.json == run.json and again.id == run.id
