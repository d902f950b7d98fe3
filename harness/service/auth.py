"""Who may do what: every write needs a token (``Authorization: Bearer T``); reads are open
unless the service runs ``--private``, when they need one too, from the header or, for a
browser, the cookie that /login sets. A token is looked up by its digest
(harness.store.tokens); which runs it may write is decided once the run's machine is
known (harness.service.api).

401: no token, or not a valid one; 403: a valid token that may not do this. Writes take
the token from the header only, never from the cookie: a page elsewhere cannot make a
browser write with the cookie it holds.
"""

from fastapi import HTTPException, Request

from harness.store import tokens

COOKIE = "qsad_token"


def bearer(request):
    """The token of the Authorization header, or None."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _unauthorized(detail):
    return HTTPException(401, detail=detail, headers={"WWW-Authenticate": "Bearer"})


def valid_token(request, token, missing):
    """The row of ``token``; 401 saying ``missing`` where there is none, or that it is not
    valid where it is unknown or revoked."""
    if token is None:
        raise _unauthorized(missing)
    with request.app.state.store.reading() as c:
        row = tokens.find(c, token)
    if row is None:
        raise _unauthorized("the token is not valid here (unknown, or revoked)")
    return row


def writer(request: Request):
    """The token row a write is made with; 401 without a valid one."""
    return valid_token(request, bearer(request), "writing needs a token: Authorization: "
                       "Bearer <token> (python -m harness token create --machine NAME)")


async def reader(request: Request):
    """Nothing on an open service; on a private one, 401 without a valid token (header or
    cookie). Asynchronous, so that an open service's reads take no thread for it (a
    private one's lookup is one indexed row)."""
    return check_reader(request)


def check_reader(request):
    """:func:`reader`, called from code that is not a dependency (the pages)."""
    if not request.app.state.private:
        return None
    return valid_token(request, bearer(request) or request.cookies.get(COOKIE),
                       "this service is private: reading needs a token (Authorization: "
                       "Bearer <token>, or /login in a browser)")
