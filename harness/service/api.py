"""The JSON API under /api/v1 (docs/service.md): submit a run, list and read runs and
machines, and the comparisons (harness.service.views). Every refusal is a JSON body
whose ``detail`` names the problem: 401 (no valid token), 403 (a token that may not write
this run), 404 (no such run, benchmark or machine), 413 (a body over the limit,
harness.service.app), 422 (a body or a parameter that is wrong).
"""

import re
from typing import Annotated

import orjson
import pydantic
from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request, Response
from sqlalchemy import func, select
from starlette.concurrency import run_in_threadpool

from harness.comparisons import history as history_mod
from harness.service import auth, responses, views
from harness.store import schema, tables, tokens, write

router = APIRouter(prefix="/api/v1", dependencies=[Depends(auth.reader)],
                   responses={401: {"model": responses.Refusal},
                              422: {"model": responses.Refusal}})
#: an Idempotency-Key: printable, without spaces, as long as a name may be
KEY = re.compile(r"^[!-~]{1,200}$")
ID = Annotated[str, Query(min_length=1, max_length=64)]
NAME = Annotated[str, Query(min_length=1, max_length=schema.NAME)]
KEYTEXT = Annotated[str, Query(min_length=1, max_length=4000)]


def _view(work, *args, **kwargs):
    """The view's data as the answer, written by orjson. A route that returns a Response
    is not validated against its response_model again (which cost as much as the
    comparison itself on a thousand rows): its shape is the OpenAPI document's, and the
    tests and schemathesis hold every answer to it."""
    try:
        data = work(*args, **kwargs)
    except views.BadRequest as exc:
        raise HTTPException(exc.status, detail=exc.detail) from None
    return Response(orjson.dumps(data), media_type="application/json")


def _problems(exc):
    """pydantic's errors, without the input they quote (which may be the whole run)."""
    return [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]}
            for e in exc.errors()[:50]]


def _store_run(request, token, run, key):
    refused = tokens.may_write(token, run.machine.name)
    if refused is not None:
        raise HTTPException(403, detail=refused)
    try:
        return write.add(request.app.state.store, run, key=key)
    except write.IdempotencyConflict as exc:
        raise HTTPException(422, detail=str(exc)) from None


@router.post("/runs", status_code=201, response_model=responses.Stored,
             responses={200: {"model": responses.Stored, "description": "already stored: "
                              "the same content, or the same Idempotency-Key"},
                        403: {"model": responses.Refusal},
                        413: {"model": responses.Refusal}},
             openapi_extra={"requestBody": {"required": True, "content": {
                 "application/json": {"schema": {"$ref": "#/components/schemas/Run"}}}}})
async def submit(request: Request, response: Response,
                 token: Annotated[object, Depends(auth.writer)]):
    """Store a run (its JSON, docs/service.md's schema): 201 and its id, or 200 and the
    same id when it was stored before (the same content, or the same Idempotency-Key).
    One transaction: the run is stored whole or not at all."""
    key = request.headers.get("idempotency-key")
    if key is not None and not KEY.match(key):
        raise HTTPException(422, detail="Idempotency-Key must be 1 to 200 printable "
                            "characters without spaces")
    body = await request.body()
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise HTTPException(422, detail=f"the body is not JSON: {exc}") from None
    try:
        run = schema.Run.model_validate(data)
    except pydantic.ValidationError as exc:
        raise HTTPException(422, detail=_problems(exc)) from None
    uid, created = await run_in_threadpool(_store_run, request, token, run, key)
    response.status_code = 201 if created else 200
    return {"id": uid}


@router.get("/runs", response_model=responses.RunList,
            responses={404: {"model": responses.Refusal}})
def runs(request: Request, machine: NAME | None = None,
         commit: Annotated[str | None, Query(max_length=64)] = None,
         limit: Annotated[int, Query(ge=1, le=500)] = 50,
         offset: Annotated[int, Query(ge=0, le=10**9)] = 0):
    """The runs, newest first, of a machine (its id, name or fingerprint) and at a commit
    (a hash or its start), where given."""
    return _view(views.runs, request.app.state.store, machine, commit, limit, offset)


@router.get("/runs/{run_id}", response_model=responses.RunPage,
            responses={404: {"model": responses.Refusal}})
def run(request: Request, run_id: Annotated[str, Path(max_length=64)]):
    """A run as it was submitted, with its results ranked per benchmark."""
    return _view(views.run, request.app.state.store, run_id)


@router.get("/machines", response_model=responses.Machines)
def machines(request: Request):
    """Every machine that has runs: its id, name, fingerprint and facts."""
    return _view(views.machines, request.app.state.store)


@router.get("/compare", response_model=responses.Comparison,
            responses={404: {"model": responses.Refusal}})
def compare(request: Request, base: ID, head: ID):
    """Two runs result by result: head / base with its interval and a verdict (faster,
    slower, tie where the intervals overlap, mismatch where the settings or the machines
    differ: never ranked); instruction counts compared exactly."""
    return _view(views.compare, request.app.state.store, base, head)


@router.get("/history", response_model=responses.History,
            responses={404: {"model": responses.Refusal}})
def history(request: Request, benchmark: KEYTEXT, backend: Annotated[str, Query(
        max_length=schema.NAME)], machine: NAME,
            measure: Annotated[str | None, Query(
                pattern=f"^({'|'.join(history_mod.MEASURES)})$")] = None):
    """One benchmark on one backend on one machine over runs, and the changes in it,
    each naming its first commit."""
    return _view(views.history, request.app.state.store, benchmark, backend, machine,
                 measure)


@router.get("/ranking", response_model=responses.Ranking,
            responses={404: {"model": responses.Refusal}})
def ranking(request: Request, machine: NAME, benchmark: KEYTEXT | None = None):
    """Who is fastest on one machine: one benchmark's backends in its newest run there,
    ties shared; without a benchmark, the winner of every benchmark."""
    return _view(views.ranking, request.app.state.store, machine, benchmark)


@router.get("/grid", response_model=responses.Grid)
def grid(request: Request, suite: Annotated[str | None, Query(max_length=schema.NAME)] = None):
    """Across machines: each backend as the geometric mean of its ratios to the same
    machine's baseline (same benchmark, same run), machine by backend."""
    return _view(views.grid, request.app.state.store, suite)


@router.get("/evals", response_model=responses.EvalsGrid,
            responses={404: {"model": responses.Refusal}})
def evals(request: Request, machine: NAME):
    """gradbench's grid on one machine: eval x engine, each engine's time over the plain
    objective's and over the best engine's."""
    return _view(views.evals, request.app.state.store, machine)


@router.get("/benchmarks", response_model=responses.Benchmarks)
def benchmarks(request: Request, suite: Annotated[str | None, Query(max_length=schema.NAME)] = None,
               contains: Annotated[str | None, Query(max_length=schema.NAME)] = None,
               limit: Annotated[int, Query(ge=1, le=1000)] = 200):
    """The benchmarks there are results of, and how many each suite has."""
    return _view(views.benchmarks, request.app.state.store, suite, contains, limit)


@router.get("/backends", response_model=responses.Backends,
            responses={404: {"model": responses.Refusal}})
def backends(request: Request, benchmark: KEYTEXT, machine: NAME | None = None):
    """The backends with results of a benchmark (on a machine)."""
    return _view(views.backends, request.app.state.store, benchmark, machine)


@router.get("/health", response_model=responses.Health)
def health(request: Request):
    """Whether the service can read its store: its schema revision and how many runs."""
    store = request.app.state.store
    with store.reading() as c:
        count = c.execute(select(func.count()).select_from(tables.Run)).scalar()
    return {"status": "ok", "schema_revision": store.revision(), "runs": count}
