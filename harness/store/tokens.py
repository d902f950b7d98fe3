"""Who may write to a store, and read a private one: tokens (``python -m harness token
create``), each shown once and kept only as the SHA-256 of its text.

A token's scope is ``machine`` (it writes runs of the machine it names, and reads),
``admin`` (it writes any run, and reads) or ``read`` (it reads a service started with
``--private``, and writes nothing). The text is 32 random bytes: its digest can be
looked up directly, and nothing is learnt from how long a lookup takes.
"""

import datetime
import hashlib
import secrets

from sqlalchemy import insert, select, update

from harness.store import schema, tables

SCOPES = ("machine", "admin", "read")
PREFIX = "qsad_"
TOKENS = tables.Token.__table__


class TokenError(ValueError):
    """A token cannot be made or is not valid; the message says why."""


def _digest(token):
    return hashlib.sha256(token.encode()).hexdigest()


def _now():
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


def create(store, scope, machine=None, note=""):
    """A new token of ``scope`` (for ``machine`` where the scope is machine): its text,
    which is not stored and cannot be shown again."""
    if scope not in SCOPES:
        raise TokenError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    if (scope == "machine") != (machine is not None):
        raise TokenError("a machine token names its machine (--machine NAME), and only it")
    if machine is not None and not 0 < len(machine) <= schema.NAME:
        raise TokenError(f"a machine's name has 1 to {schema.NAME} characters")
    token = PREFIX + secrets.token_urlsafe(32)
    row = {"digest": _digest(token), "scope": scope, "machine": machine,
           "note": note[:schema.NAME], "created": _now()}
    store.transact(lambda c: c.execute(insert(TOKENS).values(**row)))
    return token


def find(connection, token):
    """The token's row (scope, machine) when ``token`` is a valid, unrevoked token, else
    None."""
    if not token or len(token) > 200:
        return None
    return connection.execute(select(TOKENS).where(TOKENS.c.digest == _digest(token),
                                                   TOKENS.c.revoked.is_(None))).first()


def listed(store):
    """Every token's row, newest first (digests, never the tokens)."""
    with store.reading() as c:
        return c.execute(select(TOKENS).order_by(TOKENS.c.id.desc())).all()


def revoke(store, token_id):
    """Revoke the token with store id ``token_id``; TokenError when there is none."""
    done = store.transact(lambda c: c.execute(
        update(TOKENS).where(TOKENS.c.id == token_id, TOKENS.c.revoked.is_(None))
        .values(revoked=_now())).rowcount)
    if not done:
        raise TokenError(f"no unrevoked token has id {token_id}")


def may_write(row, machine_name):
    """None when the token ``row`` may store a run of ``machine_name``, else why not."""
    if row.scope == "admin":
        return None
    if row.scope == "machine" and row.machine == machine_name:
        return None
    if row.scope == "read":
        return "this token may only read"
    return (f"this token writes runs of machine {row.machine!r}, and this run's machine "
            f"is {machine_name!r}")
