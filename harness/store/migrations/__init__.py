"""The store's Alembic migrations: ``versions/`` holds one module per schema change, each
upgrading a store written by the one before (harness.store.database runs them)."""
