"""The shapes of the API's answers, for its OpenAPI document (/api/v1/openapi.json): what
each route returns (harness.service.views makes it) and what a refusal says. The routes
answer with these shapes without validating them again on the way out; the tests and
schemathesis hold every answer to them."""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Refusal(_Shape):
    """A refused request: ``detail`` names the problem (a string, or pydantic's list of
    the fields that are wrong)."""
    detail: str | list[dict[str, Any]]


class Stored(_Shape):
    id: str


class RunSummary(_Shape):
    id: str
    machine: str
    machine_name: str
    fingerprint: str
    commit: str | None
    dirty: bool
    command: str
    profile: str | None
    started: str
    results: int


class RunList(_Shape):
    runs: list[RunSummary]
    total: int
    limit: int
    offset: int


class RankedRow(_Shape):
    backend: str
    seconds: float
    interval: list[float]
    rank: str
    ratio: float
    tie: bool
    role: str | None
    baseline: bool
    unlike: bool


class NotRanked(_Shape):
    backend: str
    status: str
    reason: str


class RankedBenchmark(_Shape):
    benchmark: str
    ranked: list[RankedRow]
    not_ranked: list[NotRanked]


class RunPage(_Shape):
    """A run as it was submitted (``run``: the schema docs/service.md publishes) and its
    results ranked benchmark by benchmark."""
    id: str
    machine: str
    run: dict[str, Any]
    benchmarks: list[RankedBenchmark]


class MachineInfo(_Shape):
    id: str
    name: str
    fingerprint: str
    cpu: str
    isa: str
    cores: int
    caches: dict[str, int]
    memory_bytes: int
    gpu: str | None
    arch: str
    os: str
    runs: int
    first: str
    last: str


class Machines(_Shape):
    machines: list[MachineInfo]


class RunInfo(_Shape):
    uid: str
    commit: str | None
    dirty: bool
    started: str
    command: str
    profile: str | None
    n_results: int
    machine: str
    machine_name: str
    fingerprint: str


class CompareRow(_Shape):
    benchmark: str
    backend: str
    measure: Literal["seconds", "instructions"]
    base: float
    head: float
    ratio: float | None
    interval: list[float | None] | None
    verdict: Literal["faster", "slower", "tie", "mismatch"]
    why: str | None = None


class Unmatched(_Shape):
    benchmark: str
    backend: str
    side: Literal["base", "head", "both"]
    status: str
    reason: str


class Comparison(_Shape):
    base: RunInfo
    head: RunInfo
    machines_differ: bool
    rows: list[CompareRow]
    unmatched: list[Unmatched]
    counts: dict[str, int]


class Point(_Shape):
    commit: str | None
    run: str
    started: str
    dirty: bool
    seconds: float | None
    interval: list[float] | None
    instructions: float | None
    value: float


class Change(_Shape):
    commit: str | None
    run: str
    index: int
    ratio: float
    threshold: float


class History(_Shape):
    benchmark: str
    backend: str
    machine: str
    machine_name: str
    fingerprint: str
    measure: Literal["seconds", "instructions"]
    points: list[Point]
    changes: list[Change]


class Fastest(_Shape):
    benchmark: str
    winner: str
    runner_up: str | None
    backends: int
    run: str
    commit: str | None


class Ranking(_Shape):
    """One benchmark ranked in its newest run on the machine (``ranked``), or, without a
    benchmark, the fastest of every benchmark there (``fastest``)."""
    machine: str
    machine_name: str
    fingerprint: str
    benchmark: str | None
    run: str | None = None
    commit: str | None = None
    started: str | None = None
    ranked: list[RankedRow] | None = None
    not_ranked: list[NotRanked] | None = None
    fastest: list[Fastest] | None = None


class GridMachine(_Shape):
    id: str
    name: str
    fingerprint: str


class GridCell(_Shape):
    ratio: float
    benchmarks: int
    lowest: float
    highest: float
    interval: list[float]
    baselines: list[str]


class GridGroup(_Shape):
    """The backends drawn against one baseline."""
    baseline: str
    backends: list[str]


class Grid(_Shape):
    suite: str | None
    machines: list[GridMachine]
    backends: list[str]
    cells: dict[str, dict[str, GridCell]]
    groups: list[GridGroup]


class EvalCell(_Shape):
    seconds: float | None = None
    x_best: float | None = None
    x_objective: float | None = None
    x_own_objective: float | None = None  #: a compiling engine's, over its own objective
    compile_seconds: float | None = None
    status: str | None = None
    reason: str | None = None


class EvalRow(_Shape):
    eval: str
    params: dict[str, Any]
    objective: float | None
    run: str
    cells: dict[str, EvalCell]


class EvalsGrid(_Shape):
    machine: str
    machine_name: str
    evals: list[str]
    engines: list[str]
    rows: dict[str, EvalRow]


class BenchmarkKey(_Shape):
    key: str
    suite: str


class Benchmarks(_Shape):
    benchmarks: list[BenchmarkKey]
    suites: dict[str, int]


class Backends(_Shape):
    benchmark: str
    backends: list[str]


class Health(_Shape):
    status: Literal["ok"]
    schema_revision: str | None
    runs: int
