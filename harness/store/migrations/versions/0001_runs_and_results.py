"""The first schema: machines, runs, benchmarks, settings and results.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

NAME = 200


def _json():
    return sa.JSON(none_as_null=True)


def upgrade():
    op.create_table(
        "machines",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("uid", sa.String(12), nullable=False),
        sa.Column("name", sa.String(NAME), nullable=False),
        sa.Column("fingerprint", sa.String(16), nullable=False),
        sa.Column("facts", _json(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_machines"),
        sa.UniqueConstraint("uid", name="uq_machines_uid"))
    op.create_index("ix_machines_fingerprint", "machines", ["fingerprint"])
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("uid", sa.String(16), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("machine_id", sa.Integer, nullable=False),
        sa.Column("schema_version", sa.Integer, nullable=False),
        sa.Column("commit", sa.String(64)),
        sa.Column("dirty", sa.Boolean, nullable=False),
        sa.Column("command", sa.String(NAME), nullable=False),
        sa.Column("profile", sa.String(NAME)),
        sa.Column("argv", _json(), nullable=False),
        sa.Column("versions", _json(), nullable=False),
        sa.Column("tuning", sa.String(NAME)),
        sa.Column("started", sa.DateTime, nullable=False),
        sa.Column("source", _json(), nullable=False),
        sa.Column("n_results", sa.Integer, nullable=False),
        sa.Column("recorded", sa.DateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_runs"),
        sa.UniqueConstraint("uid", name="uq_runs_uid"),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"],
                                name="fk_runs_machine_id_machines"))
    op.create_index("ix_runs_commit", "runs", ["commit"])
    op.create_index("ix_runs_machine_started", "runs", ["machine_id", "started"])
    op.create_index("ix_runs_started", "runs", ["started"])
    op.create_table(
        "benchmarks",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("suite", sa.String(NAME), nullable=False),
        sa.Column("case", sa.String(NAME), nullable=False),
        sa.Column("params", _json(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_benchmarks"),
        sa.UniqueConstraint("key_hash", name="uq_benchmarks_key_hash"))
    op.create_index("ix_benchmarks_suite", "benchmarks", ["suite"])
    op.create_table(
        "settings",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("document", _json(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_settings"),
        sa.UniqueConstraint("digest", name="uq_settings_digest"))
    op.create_table(
        "results",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("run_id", sa.Integer, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("benchmark_id", sa.Integer, nullable=False),
        sa.Column("backend", sa.String(NAME), nullable=False),
        sa.Column("version", sa.String(NAME)),
        sa.Column("role", sa.String(NAME)),
        sa.Column("baseline", sa.Boolean, nullable=False),
        sa.Column("settings_id", sa.Integer, nullable=False),
        sa.Column("settings_hash", sa.String(64)),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("seconds", sa.Float(53)),
        sa.Column("low", sa.Float(53)),
        sa.Column("high", sa.Float(53)),
        sa.Column("samples", sa.BigInteger, nullable=False),
        sa.Column("times", _json()),
        sa.Column("max_error", sa.Float(53)),
        sa.Column("roofline", sa.Float(53)),
        sa.Column("instructions", sa.Float(53)),
        sa.Column("peak_bytes", sa.BigInteger),
        sa.Column("value", sa.Float(53)),
        sa.Column("unit", sa.String(NAME)),
        sa.Column("comm", _json()),
        sa.Column("extra", _json(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_results"),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name="fk_results_run_id_runs"),
        sa.ForeignKeyConstraint(["benchmark_id"], ["benchmarks.id"],
                                name="fk_results_benchmark_id_benchmarks"),
        sa.ForeignKeyConstraint(["settings_id"], ["settings.id"],
                                name="fk_results_settings_id_settings"))
    op.create_index("ix_results_run_position", "results", ["run_id", "position"])
    op.create_index("ix_results_series", "results", ["benchmark_id", "backend"])


def downgrade():
    for table in ("results", "settings", "benchmarks", "runs", "machines"):
        op.drop_table(table)
