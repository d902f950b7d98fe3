"""Alembic's environment for the store: harness.store.database hands it the connection to
migrate (``config.attributes["connection"]``), so that no alembic.ini is needed and the
migration runs in the caller's transaction."""

from alembic import context

from harness.store.tables import Base

connection = context.config.attributes["connection"]
# batch mode: SQLite alters a table by copying it, which Alembic does for us
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
