"""The comparison service as an ASGI application (FastAPI): the API (harness.service.api),
the pages (harness.service.pages) and their static files, over one store.

Around every request: a limit on the body's bytes (413 before the body is read where its
length is declared, as soon as it passes the limit where it is not), and headers that keep
a page from running anything but its own scripts (a Content-Security-Policy of 'self'
only: no inline script, no other origin), so that even markup that slipped into a page
could not run. A store that cannot be read answers 503; anything unforeseen 500, both
with a JSON ``detail``.
"""

import contextlib
import gc
import logging
import os

from fastapi import FastAPI, HTTPException, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from harness.service import api, arguments, pages
from harness.store import database, schema

log = logging.getLogger("harness.service")
#: what every answer carries: only this origin's scripts, styles and data
HEADERS = [
    (b"content-security-policy", b"default-src 'self'; script-src 'self'; style-src 'self'; "
     b"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
     b"frame-ancestors 'none'; form-action 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]
#: the environment a worker process reads its settings from (harness.service.command)
ENV = {"db": database.ENV, "private": "QSIM_AD_BENCH_PRIVATE",
       "max_bytes": "QSIM_AD_BENCH_MAX_BYTES"}


class Guard:
    """The body limit and the headers (see the module's docstring), around the app."""

    def __init__(self, app, max_bytes):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None:
            try:
                length = int(declared)
            except ValueError:
                length = -1
            if length < 0 or length > self.max_bytes:
                return await self._refuse(send, 413 if length > 0 else 400, (
                    f"the body is {length} bytes; this service takes at most "
                    f"{self.max_bytes}" if length > 0 else "Content-Length is not a number"))
        seen = 0

        async def limited():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise HTTPException(413, detail=f"the body passed {self.max_bytes} bytes, "
                                        "the most this service takes")
            return message

        async def headed(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + HEADERS
            await send(message)

        await self.app(scope, limited, headed)

    async def _refuse(self, send, status, detail):
        body = JSONResponse({"detail": detail}, status_code=status)
        await send({"type": "http.response.start", "status": status,
                    "headers": body.raw_headers + HEADERS})
        await send({"type": "http.response.body", "body": body.body})


def _openapi(app):
    """FastAPI's document, with the submitted run's schema (harness.store.schema) among
    its components, which POST /runs reads by hand (to refuse a body over its limit and
    parse it once) and so does not declare itself."""
    if app.openapi_schema:
        return app.openapi_schema
    doc = get_openapi(title=app.title, version=app.version, description=app.description,
                      routes=app.routes)
    run = schema.Run.model_json_schema(ref_template="#/components/schemas/{model}")
    components = doc.setdefault("components", {}).setdefault("schemas", {})
    components.update(run.pop("$defs", {}))
    components["Run"] = run
    app.openapi_schema = doc
    return doc


def create_app(db=None, private=False, max_bytes=arguments.MAX_BYTES, store=None):
    """The service over the store ``db`` (a URL or path; default the embedded one), or an
    open ``store``; ``private``: reads need a token too."""

    @contextlib.asynccontextmanager
    async def lifespan(app):
        app.state.store = store or database.Store(db)
        # what is loaded by now (the libraries, the schemas) lives as long as the server:
        # kept out of the collector's full passes, which otherwise walked all of it in the
        # middle of a request (tens of milliseconds at the tail of a comparison's latency)
        gc.collect()
        gc.freeze()
        yield
        if store is None:
            app.state.store.close()

    app = FastAPI(title="qsim-ad-bench comparison service", version=str(schema.SCHEMA_VERSION),
                  description="Every run of every machine in one store, compared: "
                  "docs/service.md.", openapi_url="/api/v1/openapi.json", docs_url=None,
                  redoc_url=None, lifespan=lifespan)
    app.state.private = private
    app.include_router(api.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=pages.STATIC), name="static")
    app.mount("/vendor", StaticFiles(directory=pages.VENDOR), name="vendor")
    app.openapi = lambda: _openapi(app)

    @app.exception_handler(StarletteHTTPException)
    async def _refused(request: Request, exc):
        if exc.status_code == 405:  # Allow: every method of the path, not one route's
            methods = sorted({m for route in (*api.router.routes, *pages.router.routes)
                              if route.matches(request.scope)[0] != Match.NONE
                              for m in route.methods})
            return JSONResponse({"detail": "Method Not Allowed"}, status_code=405,
                                headers={"Allow": ", ".join(methods)})
        return await http_exception_handler(request, exc)

    @app.exception_handler(database.StoreError)
    @app.exception_handler(SQLAlchemyError)
    async def _store_failed(request: Request, exc):
        log.error("store error on %s: %s", request.url.path, exc)
        return JSONResponse({"detail": f"the store cannot answer: {type(exc).__name__}"},
                            status_code=503)

    @app.exception_handler(Exception)
    async def _failed(request: Request, exc):
        log.exception("error on %s", request.url.path)
        return JSONResponse({"detail": f"internal error: {type(exc).__name__}"},
                            status_code=500)

    return Guard(app, max_bytes)


def factory():
    """The app as a worker process of ``serve --workers N`` makes it, from its
    environment (:data:`ENV`)."""
    return create_app(os.environ.get(ENV["db"]), os.environ.get(ENV["private"]) == "1",
                      int(os.environ.get(ENV["max_bytes"]) or arguments.MAX_BYTES))
