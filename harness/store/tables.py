"""The store's tables (SQLAlchemy 2), the layout the migrations build
(harness/store/migrations/versions/). A run is a row of ``runs`` on a row of ``machines``;
its results are rows of ``results``, each naming its benchmark (``benchmarks``: one row
per benchmark key, wherever it was measured) and its settings (``settings``: one row per
distinct settings document, which many results share).

Every column a run's JSON has is kept, so that a run is read back exactly as it was
submitted (harness.store.read); times are UTC, kept without a zone (SQLite has none).
"""

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from harness.store.schema import NAME

#: constraint names spelt out, so that every database (and Alembic's batch mode on
#: SQLite) knows each one by the same name
NAMING = {"ix": "ix_%(table_name)s_%(column_0_N_name)s",
          "uq": "uq_%(table_name)s_%(column_0_N_name)s",
          "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
          "pk": "pk_%(table_name)s"}


#: None is SQL NULL, not the JSON text 'null'
_JSON = JSON(none_as_null=True)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Machine(Base):
    """A machine: its name and fingerprint (schema.Machine), its facts as submitted."""
    __tablename__ = "machines"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uid: Mapped[str] = mapped_column(String(12), unique=True)
    name: Mapped[str] = mapped_column(String(NAME))
    fingerprint: Mapped[str] = mapped_column(String(16), index=True)
    facts: Mapped[dict] = mapped_column(_JSON)


class Run(Base):
    """A run's own fields (schema.Run) but its results."""
    __tablename__ = "runs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uid: Mapped[str] = mapped_column(String(16), unique=True)
    digest: Mapped[str] = mapped_column(String(64))
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    schema_version: Mapped[int] = mapped_column(Integer)
    commit: Mapped[str | None] = mapped_column(String(64), index=True)
    dirty: Mapped[bool] = mapped_column(Boolean)
    command: Mapped[str] = mapped_column(String(NAME))
    profile: Mapped[str | None] = mapped_column(String(NAME))
    argv: Mapped[list] = mapped_column(_JSON)
    versions: Mapped[dict] = mapped_column(_JSON)
    tuning: Mapped[str | None] = mapped_column(String(NAME))
    started: Mapped[object] = mapped_column(DateTime)
    source: Mapped[dict] = mapped_column(_JSON)
    n_results: Mapped[int] = mapped_column(Integer)
    recorded: Mapped[object] = mapped_column(DateTime)

    __table_args__ = (Index("ix_runs_machine_started", "machine_id", "started"),
                      Index("ix_runs_started", "started"))


class Benchmark(Base):
    """A benchmark key (schema.Benchmark.key) and its parts. ``key_hash`` (the key's
    SHA-256) is what is unique: a key may be longer than an index entry allows."""
    __tablename__ = "benchmarks"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    key: Mapped[str] = mapped_column(Text)
    suite: Mapped[str] = mapped_column(String(NAME), index=True)
    case: Mapped[str] = mapped_column(String(NAME))
    params: Mapped[dict] = mapped_column(_JSON)


class Settings(Base):
    """One settings document (a result's ``settings``), by the digest of its canonical
    JSON."""
    __tablename__ = "settings"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    document: Mapped[dict] = mapped_column(_JSON)


class Result(Base):
    """One result (schema.Result) of one run; ``position`` is its place in the run's
    list. ``low`` and ``high`` are its interval."""
    __tablename__ = "results"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"))
    position: Mapped[int] = mapped_column(Integer)
    benchmark_id: Mapped[int] = mapped_column(ForeignKey("benchmarks.id"))
    backend: Mapped[str] = mapped_column(String(NAME))
    version: Mapped[str | None] = mapped_column(String(NAME))
    role: Mapped[str | None] = mapped_column(String(NAME))
    baseline: Mapped[bool] = mapped_column(Boolean)
    settings_id: Mapped[int] = mapped_column(ForeignKey("settings.id"))
    settings_hash: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text)
    seconds: Mapped[float | None] = mapped_column(Float(53))
    low: Mapped[float | None] = mapped_column(Float(53))
    high: Mapped[float | None] = mapped_column(Float(53))
    samples: Mapped[int] = mapped_column(BigInteger)
    times: Mapped[list | None] = mapped_column(_JSON)
    max_error: Mapped[float | None] = mapped_column(Float(53))
    roofline: Mapped[float | None] = mapped_column(Float(53))
    instructions: Mapped[float | None] = mapped_column(Float(53))
    peak_bytes: Mapped[int | None] = mapped_column(BigInteger)
    value: Mapped[float | None] = mapped_column(Float(53))
    unit: Mapped[str | None] = mapped_column(String(NAME))
    comm: Mapped[dict | None] = mapped_column(_JSON)
    extra: Mapped[dict] = mapped_column(_JSON)

    __table_args__ = (Index("ix_results_run_position", "run_id", "position"),
                      Index("ix_results_series", "benchmark_id", "backend", "run_id"))


class Token(Base):
    """A token that may write (scope ``machine``: runs of the machine it names;
    ``admin``: any run) or only read (``read``, for a private service), kept as the
    SHA-256 of its text (harness.store.tokens)."""
    __tablename__ = "tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    scope: Mapped[str] = mapped_column(String(16))
    machine: Mapped[str | None] = mapped_column(String(NAME))
    note: Mapped[str] = mapped_column(String(NAME))
    created: Mapped[object] = mapped_column(DateTime)
    revoked: Mapped[object | None] = mapped_column(DateTime)


class IdempotencyKey(Base):
    """The run a submission's ``Idempotency-Key`` header stored."""
    __tablename__ = "idempotency_keys"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(NAME), unique=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"))
    created: Mapped[object] = mapped_column(DateTime)


class Latest(Base):
    """The newest run (by its start) holding each benchmark on each machine: what the
    rankings and the machine grid read."""
    __tablename__ = "latest"
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"), primary_key=True)
    benchmark_id: Mapped[int] = mapped_column(ForeignKey("benchmarks.id"), primary_key=True,
                                              index=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"))
    started: Mapped[object] = mapped_column(DateTime)
