"""``harness submit`` and ``--submit`` as a user runs them, against a server of its own:
what cannot be sent waits in the outbox and goes with the next submit; what the service
refuses for its content is kept apart with the reason; a run is stored once however
often it is sent."""

import os
import subprocess
import sys

import httpx
import numpy as np
import orjson
import pytest

from harness.service import client
from harness.store import tokens
from tests.service.live import ROOT, Server, free_port
from tests.store import runs as make


@pytest.fixture(params=["sqlite"])
def db_url(request, tmp_path):
    """Submitting is the client's and the outbox's: one database is enough here."""
    return f"sqlite:///{tmp_path / 'results.db'}"


def harness(*args, env=None):
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=env)


def report(tmp_path, name, rng, **more):
    """A circuit report as `harness circuit --json` writes it (the shape the reader
    takes), for one small run."""
    doc = make.sample_run(rng, **more)
    path = tmp_path / f"{name}.json"
    backends = {}
    for r in doc["results"]:
        if r["benchmark"]["case"] == "qft0":
            backends[r["backend"]] = {"status": "ok", "reason": "", "seconds": r["seconds"],
                                      "interval": r["interval"], "samples": 5,
                                      "max_error": 1e-12, "role": "peer", "baseline": False,
                                      "settings": r["settings"]}
    context = {"machine": doc["machine"], "commit": doc["commit"], "dirty": False,
               "command": "circuit", "argv": ["circuit", name], "profile": None,
               "versions": {}, "tuning": "none", "started": doc["started"]}
    path.write_text(orjson.dumps({"circuit": name, "qubits": 10, "precision": "complex128",
                                  "threads": 1, "cache": "cold", "ranks": 1,
                                  "backends": backends, "run": context}).decode())
    return path


def test_what_cannot_be_sent_waits_and_goes_with_the_next_submit(tmp_path, store):
    rng = np.random.default_rng(1)
    token = tokens.create(store, "machine", machine="box")
    outbox = tmp_path / "outbox"
    files = [report(tmp_path, f"c{i}", rng) for i in range(3)]
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    # nobody listens there yet
    down = harness("submit", *map(str, files), "--to", url, "--token", token,
                   "--outbox", str(outbox))
    assert down.returncode == 1, down.stderr
    assert "3 run(s) kept" in down.stderr
    assert len(list(outbox.glob("*.json"))) == 3
    server = Server(store.url, port=port)
    try:
        up = harness("submit", "--to", url, "--token", token, "--outbox", str(outbox))
        assert up.returncode == 0, up.stderr
        assert "3 sent, 0 kept" in up.stderr
        assert list(outbox.glob("*.json")) == []
        # the same files again: stored already, nothing new
        again = harness("submit", *map(str, files), "--to", url, "--token", token,
                        "--outbox", str(outbox))
        assert again.returncode == 0 and again.stderr.count("was already stored") == 3
        assert httpx.get(f"{url}/api/v1/runs").json()["total"] == 3
    finally:
        server.stop()


def test_a_refused_run_is_kept_apart_with_the_reason(tmp_path, store, server):
    rng = np.random.default_rng(2)
    token = tokens.create(store, "machine", machine="box")
    outbox = tmp_path / "outbox"
    theirs = report(tmp_path, "theirs", rng, machine_doc=make.machine("other"))
    ours = report(tmp_path, "ours", rng)
    done = harness("submit", str(theirs), str(ours), "--to", server.url, "--token", token,
                   "--outbox", str(outbox))
    # the other machine's run is refused for the token (403): kept to send with another
    assert done.returncode == 1, done.stderr
    assert "'other'" in done.stderr
    assert [p.stem for p in outbox.glob("*.json")] == [client.files.runs_of(theirs)[0].id]
    assert httpx.get(f"{server.url}/api/v1/runs").json()["total"] == 1  # ours
    # a run the service can never take (413, 422) is moved out of the way
    bad = outbox / ("f" * 16 + ".json")
    bad.write_bytes(b'{"not": "a run"}')
    client.send(server.url, token, outbox, say=lambda text: None)
    refused = outbox / "refused"
    assert (refused / bad.name).exists()
    assert "422" in (refused / f"{bad.stem}.reason").read_text()


def test_no_token_is_said_and_nothing_is_lost(tmp_path, store, server):
    path = report(tmp_path, "c", np.random.default_rng(3))
    outbox = tmp_path / "outbox"
    env = {k: v for k, v in os.environ.items() if k != client.TOKEN_ENV}
    done = harness("submit", str(path), "--to", server.url, "--outbox", str(outbox), env=env)
    assert done.returncode == 2 and "no token" in done.stderr
    assert len(list(outbox.glob("*.json"))) == 1
    missing = harness("submit", str(tmp_path / "nothing.json"), "--to", server.url,
                      "--token", "x", "--outbox", str(outbox), env=env)
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_a_recording_command_submits_with_submit(tmp_path, store, server):
    token = tokens.create(store, "admin")
    outbox = tmp_path / "outbox"
    env = {**os.environ, client.OUTBOX_ENV: str(outbox)}
    done = harness("evals", "--eval", "llsq", "--backend", "manual", "--rounds", "1",
                   "--budget", "0.1", "--no-record", "--submit", server.url, "--token", token,
                   env=env)
    assert done.returncode == 0, done.stderr
    assert "stored at" in done.stderr
    runs = httpx.get(f"{server.url}/api/v1/runs").json()
    assert runs["total"] == 1 and runs["runs"][0]["command"] == "evals"
    assert list(outbox.glob("*.json")) == []
