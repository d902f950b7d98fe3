"""The newest run of each benchmark on each machine, kept as runs arrive, so that the
rankings and the machine grid read one row per benchmark instead of every result stored;
filled here from the runs already stored.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "latest",
        sa.Column("machine_id", sa.Integer, nullable=False),
        sa.Column("benchmark_id", sa.Integer, nullable=False),
        sa.Column("run_id", sa.Integer, nullable=False),
        sa.Column("started", sa.DateTime, nullable=False),
        sa.PrimaryKeyConstraint("machine_id", "benchmark_id", name="pk_latest"),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"],
                                name="fk_latest_machine_id_machines"),
        sa.ForeignKeyConstraint(["benchmark_id"], ["benchmarks.id"],
                                name="fk_latest_benchmark_id_benchmarks"),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name="fk_latest_run_id_runs"))
    op.create_index("ix_latest_benchmark_id", "latest", ["benchmark_id"])
    # the newest run (latest start, then latest stored) of each benchmark on each machine
    op.execute("""
        INSERT INTO latest (machine_id, benchmark_id, run_id, started)
        SELECT machine_id, benchmark_id, run_id, started FROM (
            SELECT runs.machine_id, results.benchmark_id, runs.id AS run_id, runs.started,
                   ROW_NUMBER() OVER (PARTITION BY runs.machine_id, results.benchmark_id
                                      ORDER BY runs.started DESC, runs.id DESC) AS n
            FROM results JOIN runs ON runs.id = results.run_id
            GROUP BY runs.machine_id, results.benchmark_id, runs.id, runs.started
        ) AS ranked WHERE n = 1""")


def downgrade():
    op.drop_table("latest")
