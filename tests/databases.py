"""Real databases for the store's and the service's tests: SQLite files, and a PostgreSQL
server of Debian's ``postgresql`` package that the tests start themselves (as root, run
as the ``postgres`` user), listening on a Unix socket in a folder of its own, with a new
database for every test.

Where PostgreSQL is not installed the PostgreSQL cases are skipped, saying so, unless
``QSIM_AD_BENCH_REQUIRE`` names ``postgresql`` (``.ci/run`` sets it): then its absence is
a failure, so that CI cannot pass without having run them.
"""

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

#: the environment variable naming what a run of the tests must not skip
REQUIRE_ENV = "QSIM_AD_BENCH_REQUIRE"
_counter = itertools.count()


def required(what):
    return what in os.environ.get(REQUIRE_ENV, "").replace(",", " ").split()


def skip_or_fail(what, reason):
    """Skip saying ``reason``, or fail where this run must not skip ``what``."""
    if required(what):
        pytest.fail(f"{reason}, and {REQUIRE_ENV} requires {what}")
    pytest.skip(reason)


def _binaries():
    """The folder of initdb and postgres: on PATH, or Debian's versioned folder."""
    found = shutil.which("initdb")
    if found and shutil.which("postgres", path=str(Path(found).resolve().parent)):
        return Path(found).resolve().parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "postgres").exists():
            return Path(folder)
    return None


class PostgresServer:
    """A PostgreSQL server in a temporary folder, on a Unix socket there; stopped (and its
    folder removed) by :meth:`stop`."""

    def __init__(self):
        self.bin = _binaries()
        if self.bin is None:
            raise RuntimeError("PostgreSQL is not installed (Debian: apt-get install "
                               "postgresql)")
        self.root = Path(tempfile.mkdtemp(prefix="qsad-pg-"))
        self.root.chmod(0o755)
        self.data = self.root / "data"
        self.socket = self.root / "socket"
        self.data.mkdir()
        self.socket.mkdir()
        self.user = None
        if os.geteuid() == 0:  # postgres refuses to run as root
            self.user = pwd.getpwnam("postgres")
            for path in (self.data, self.socket):
                os.chown(path, self.user.pw_uid, self.user.pw_gid)
        self._run(["initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
                   "-E", "UTF8", "--no-sync"])
        self.process = subprocess.Popen(
            self._command(["postgres", "-D", str(self.data), "-k", str(self.socket),
                           "-c", "listen_addresses=", "-c", "fsync=off",
                           "-c", "max_connections=200"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self._wait()

    def _command(self, argv):
        argv = [str(self.bin / argv[0]), *argv[1:]]
        if self.user is not None:
            return ["runuser", "-u", "postgres", "--", *argv]
        return argv

    def _run(self, argv):
        done = subprocess.run(self._command(argv), capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"{argv[0]} failed: {done.stderr.strip()[-2000:]}")

    def _wait(self, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("postgres exited: "
                                   f"{self.process.stderr.read().decode()[-2000:]}")
            done = subprocess.run(self._command(["pg_isready", "-h", str(self.socket),
                                                 "-U", "postgres"]), capture_output=True)
            if done.returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError(f"postgres did not accept connections within {timeout} s")

    def url(self, database="postgres"):
        return f"postgresql+psycopg://postgres@/{database}?host={self.socket}"

    def create_database(self):
        """A new, empty database; its URL."""
        import psycopg  # the service extra's driver, present wherever a server runs

        name = f"t{os.getpid()}_{next(_counter)}"
        with psycopg.connect(host=str(self.socket), user="postgres", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self):
        with contextlib.suppress(ProcessLookupError):
            self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server():
    """One PostgreSQL server per test process, or a skip (or failure) saying why not."""
    try:
        server = PostgresServer()
    except (RuntimeError, OSError, KeyError) as exc:
        skip_or_fail("postgresql", f"no PostgreSQL server: {exc}")
    yield server
    server.stop()


DATABASES = ["sqlite", "postgresql"]


def new_database(request, folder):
    """The URL of a new, empty store of the kind ``request.param`` names: an SQLite file
    in ``folder``, or a database on this process's PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{folder / 'results.db'}"
    return request.getfixturevalue("postgres_server").create_database()


@pytest.fixture(params=DATABASES)
def db_url(request, tmp_path):
    """The URL of a new, empty store: an SQLite file, then a PostgreSQL database."""
    return new_database(request, tmp_path)
