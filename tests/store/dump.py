"""A store as portable SQL: an INSERT per row of every table but Alembic's, in an order
that keeps foreign keys satisfied, with literal values SQLite and PostgreSQL both read.
The fixtures of earlier schemas (tests/store/fixtures/) were written by it from a store
at that schema, and loaded by ``load``:

    python -m tests.store.dump STORE.db > tests/store/fixtures/store_NNNN.sql
"""

import sys

from sqlalchemy import Boolean, MetaData, text

#: parents before children
ORDER = ("machines", "benchmarks", "settings", "runs", "results")


def _literal(value, kind):
    if value is None:
        return "NULL"
    if isinstance(kind, Boolean):  # SQLite keeps 0 and 1
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def dump(store):
    """The SQL text of every row of ``store`` (harness.store.database.Store)."""
    meta = MetaData()
    meta.reflect(store.engine)
    lines = []
    with store.engine.connect() as c:
        for name in ORDER:
            table = meta.tables[name]
            columns = [f'"{col.name}"' for col in table.columns]  # case, key: SQL words
            # raw values: JSON as its text, times as SQLite keeps them
            rows = c.execute(text(f"SELECT {', '.join(columns)} FROM {name} ORDER BY id"))
            for row in rows:
                values = ", ".join(_literal(v, col.type) for v, col in zip(row, table.columns))
                lines.append(f"INSERT INTO {name} ({', '.join(columns)}) VALUES ({values});")
    return "\n".join(lines) + "\n"


def load(store, sql):
    """Run the statements of a dump in ``store``, then move PostgreSQL's id sequences past
    the ids it inserted (a later insert would otherwise collide with them)."""
    with store.engine.begin() as c:
        for statement in sql.splitlines():
            if statement.strip():
                c.exec_driver_sql(statement.replace("%", "%%")
                                  if c.dialect.paramstyle in ("format", "pyformat")
                                  else statement)
        if c.dialect.name == "postgresql":
            for name in ORDER:
                c.exec_driver_sql(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                                  f"(SELECT COALESCE(MAX(id), 1) FROM {name}))")


if __name__ == "__main__":
    from harness.store.database import Store

    sys.stdout.write(dump(Store(sys.argv[1], upgrade=False)))
