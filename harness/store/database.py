"""Opening a store: where it is (``--db URL``, else ``QSIM_AD_BENCH_DB``, else SQLite at
results/results.db; a path without ``://`` is an SQLite file), its engine, its upgrade to
the current schema (Alembic, harness/store/migrations), and its transactions.

SQLite is run in WAL mode, so readers never wait for a writer, and every write
transaction starts with ``BEGIN IMMEDIATE``: it takes the write lock at once, waiting for
it (``busy_timeout``) instead of failing half-way when two writers meet, and a write that
still finds the database busy is retried (:meth:`Store.transact`). PostgreSQL needs
neither; a race on a unique key there (two submitters storing one run at once) is the
caller's to resolve (harness.store.write).
"""

import contextlib
import fcntl
import os
import random
import time
from pathlib import Path

import orjson
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PATH = ROOT / "results" / "results.db"
#: the environment variable naming the store (an SQLAlchemy URL or an SQLite path)
ENV = "QSIM_AD_BENCH_DB"
MIGRATIONS = Path(__file__).with_name("migrations")
#: how long an SQLite writer waits for the lock, in milliseconds, and how often a write
#: that still found it busy is tried again
BUSY_MS = 30_000
WRITE_TRIES = 8
#: the key of PostgreSQL's advisory lock that one upgrade at a time holds
_UPGRADE_LOCK = 0x71736164  # "qsad"


class StoreError(Exception):
    """The store cannot be opened, upgraded or written; the message says why."""


def resolve_url(db=None):
    """The SQLAlchemy URL of the store ``db`` names (see the module's docstring)."""
    given = str(db or os.environ.get(ENV) or DEFAULT_PATH)
    if "://" not in given:
        path = Path(given).expanduser().resolve()
        return f"sqlite:///{path}"
    return given


def _json(value):
    return orjson.dumps(value).decode()


def _sqlite_engine(url):
    if url.database:
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, json_serializer=_json, json_deserializer=orjson.loads,
                           connect_args={"check_same_thread": False,
                                         "timeout": BUSY_MS / 1000})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # we say BEGIN ourselves (below)
        cursor = dbapi_connection.cursor()
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON",
                       f"busy_timeout={BUSY_MS}"):
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection):
        write = connection.get_execution_options().get("write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def _engine(url):
    try:
        url = make_url(url)
    except ArgumentError as exc:
        raise StoreError(f"not a database URL: {exc}") from None
    if url.get_backend_name() == "sqlite":
        return _sqlite_engine(url)
    if url.drivername == "postgresql":  # the driver we install, not SQLAlchemy's default
        url = url.set(drivername="postgresql+psycopg")
    try:
        return create_engine(url, json_serializer=_json, json_deserializer=orjson.loads,
                             pool_pre_ping=True, pool_size=10, max_overflow=20)
    except (ArgumentError, ImportError) as exc:
        raise StoreError(f"cannot open {url.render_as_string(hide_password=True)}: "
                         f"{exc}") from None


def _busy(exc):
    """Whether ``exc`` is SQLite still finding the database locked after its wait."""
    return isinstance(exc, OperationalError) and any(
        word in str(exc.orig).lower() for word in ("database is locked", "busy"))


class Store:
    """An open store (see the module's docstring); ``upgrade=False`` leaves its schema
    as it is (for a test that upgrades it itself)."""

    def __init__(self, db=None, upgrade=True):
        self.url = resolve_url(db)
        self.engine = _engine(self.url)
        self.dialect = self.engine.dialect.name
        if upgrade:
            self.upgrade()

    @property
    def where(self):
        """The store's URL as it may be shown (its password hidden)."""
        return self.engine.url.render_as_string(hide_password=True)

    def __repr__(self):
        return f"Store({self.where})"

    def close(self):
        self.engine.dispose()

    def _alembic(self, connection):
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.attributes["connection"] = connection
        return cfg

    def head(self):
        """The newest schema revision the migrations know."""
        return ScriptDirectory.from_config(self._alembic(None)).get_current_head()

    def revision(self):
        """The schema revision the store is at (None: an empty database)."""
        with self.engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()

    @contextlib.contextmanager
    def _upgrade_lock(self, connection):
        """One upgrade at a time, across processes: a file lock beside an SQLite file,
        PostgreSQL's advisory lock for the transaction."""
        if self.dialect == "sqlite":
            database = self.engine.url.database
            if not database or database == ":memory:":
                yield
                return
            with open(f"{database}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                yield
            return
        if self.dialect == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                               {"key": _UPGRADE_LOCK})
        yield

    def upgrade(self, revision="head"):
        """Bring the schema to ``revision`` (default the newest), once, whoever else is
        opening the store at the same time; StoreError saying why it cannot."""
        target = self.head() if revision == "head" else revision
        try:
            if self.revision() == target:
                return
            with self.engine.connect().execution_options(write=True) as connection:
                with connection.begin(), self._upgrade_lock(connection):
                    current = MigrationContext.configure(connection).get_current_revision()
                    if current != target:
                        command.upgrade(self._alembic(connection), target)
        except DBAPIError as exc:
            raise StoreError(f"cannot upgrade {self!r}: {exc.orig}") from None

    def transact(self, work):
        """``work(connection)`` in one write transaction, committed when it returns and
        rolled back when it raises; tried again (with a random back-off) while SQLite
        reports the database busy. Returns what ``work`` returns."""
        for attempt in range(WRITE_TRIES):
            try:
                with self.engine.connect().execution_options(write=True) as connection:
                    with connection.begin():
                        return work(connection)
            except OperationalError as exc:
                if not _busy(exc) or attempt == WRITE_TRIES - 1:
                    raise
                time.sleep(random.uniform(0.05, 0.2) * (attempt + 1))
        raise AssertionError("unreachable")

    @contextlib.contextmanager
    def reading(self):
        """A connection in one read transaction: one snapshot of the store."""
        with self.engine.connect() as connection, connection.begin():
            yield connection
