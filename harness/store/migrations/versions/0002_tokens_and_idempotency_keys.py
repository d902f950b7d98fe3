"""Who may write (tokens, stored as digests) and the Idempotency-Key of each submission
that gave one.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("machine", sa.String(200)),
        sa.Column("note", sa.String(200), nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
        sa.Column("revoked", sa.DateTime),
        sa.PrimaryKeyConstraint("id", name="pk_tokens"),
        sa.UniqueConstraint("digest", name="uq_tokens_digest"))
    op.create_table(
        "idempotency_keys",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("run_id", sa.Integer, nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_idempotency_keys"),
        sa.UniqueConstraint("key", name="uq_idempotency_keys_key"),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"],
                                name="fk_idempotency_keys_run_id_runs"))


def downgrade():
    op.drop_table("idempotency_keys")
    op.drop_table("tokens")
