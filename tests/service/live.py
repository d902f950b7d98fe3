"""The service as it is used: its own server process (``python -m harness serve``) on a
free port of 127.0.0.1, over a real store (tests/databases.py)."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from harness.store import schema, write

ROOT = Path(__file__).resolve().parents[2]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``python -m harness serve`` over ``db`` in a process of its own; ``stop()`` ends it
    (``kill=True``: SIGKILL, as a crash would)."""

    def __init__(self, db, *args, port=None):
        self.db, self.args = db, args
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(Path(os.environ.get("TMPDIR", "/tmp")) /
                        f"qsad-serve-{self.port}.log", "w+")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "harness", "serve", "--db", db, "--port", str(self.port),
             *args], cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
        self._wait()

    def _wait(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.log.seek(0)
                raise RuntimeError(f"the server exited: {self.log.read()[-3000:]}")
            try:
                if httpx.get(f"{self.url}/api/v1/health", timeout=2).status_code in (200, 401):
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the server did not answer within {timeout} s")

    def output(self):
        self.log.seek(0)
        return self.log.read()

    def stop(self, kill=False):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def headers(token):
    return {"Authorization": f"Bearer {token}"}


def add(store, doc):
    """Store a run document directly (the way a recording command does); its id."""
    return write.add(store, schema.Run.model_validate(doc))[0]
