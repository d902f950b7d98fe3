"""The one shape of a run and its results, as the harness submits it and the store keeps
it: checked at the edge (pydantic), published as JSON Schema (``python -m
harness.store.schema`` prints it; docs/service.md holds it), versioned.

``python -m harness.store.schema`` prints the schema; ``--write`` renders it into
docs/service.md.

A run is one command on one machine at one commit (``harness circuit``, an asv sweep, a
gate run, ``harness evals``); its results are one row each per benchmark and backend, as
that command ranked them. A run's id is a digest of its content, so the same run
submitted twice, from anywhere, is one run.

``SCHEMA_VERSION`` is the version a submission declares; the store accepts every version
it knows how to read (:data:`READS`) and keeps each run in the current one.
"""

import datetime
import hashlib
import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import orjson
from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from harness.markdown import between

SCHEMA_VERSION = 1
#: the versions a submission may declare
READS = (1,)
#: what a result's status may be: ok (measured), wrong (disagreed with the reference,
#: never timed), skipped (could not run here: a tool missing), refused (declined the
#: case: too many qubits, an operation it lacks), failed (raised)
STATUSES = ("ok", "wrong", "skipped", "refused", "failed")
#: bounds that keep one hostile submission from filling the store (the service also
#: limits the request's bytes)
MAX_RESULTS = 200_000
MAX_SAMPLES = 100_000
NAME = 200
TEXT = 10_000

#: the field of a run that says where it was read from: the word the source engine's name
#: shares, declared once here (tests/test_structure.py exempts this declaration)
SOURCE_FIELD = "source"

Status = Literal["ok", "wrong", "skipped", "refused", "failed"]
#: no NUL character in a string: PostgreSQL's text cannot hold one
_NO_NUL = r"^[^\x00]*$"
Name = Annotated[str, Field(min_length=1, max_length=NAME, pattern=_NO_NUL)]
Label = Annotated[str, Field(max_length=NAME, pattern=_NO_NUL)]
Text = Annotated[str, Field(max_length=TEXT, pattern=_NO_NUL)]
Hex = Annotated[str, Field(pattern=r"^[0-9a-f]{7,64}$")]
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Count = Annotated[int, Field(ge=0, le=2**62)]
#: a parameter's value, as asv and the commands name them: a flag, a number, a word
Param = bool | int | Annotated[float, Field(allow_inf_nan=False)] | Label | None


#: memory is reported a few MiB differently from boot to boot: the fingerprint takes it
#: in whole GiB
_GIB = 1 << 30


def fingerprint(facts):
    """16 hex digits of the SHA-256 of the facts that decide a machine's speed (its CPU
    model, instruction set, cores, caches, GPU, architecture, memory in whole GiB): what
    a machine is, for every comparison of raw times."""
    key = {k: facts.get(k) for k in ("cpu", "isa", "cores", "caches", "gpu", "arch")}
    key["memory_gib"] = round((facts.get("memory_bytes") or 0) / _GIB)
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


class _Model(BaseModel):
    # unknown fields are refused: a misspelt field would otherwise be dropped in silence
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Machine(_Model):
    """The machine that measured: its name (what people call it, what a token is scoped
    to), the fingerprint of its facts (:func:`fingerprint`: two machines
    compare raw times only when their fingerprints are equal) and the facts."""
    name: Name
    fingerprint: Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")]
    cpu: Label
    isa: Label
    cores: Annotated[int, Field(ge=1, le=1 << 20)]
    caches: Annotated[dict[Label, Count], Field(max_length=16)]
    memory_bytes: Count
    gpu: Label | None = None
    arch: Label = ""
    os: Label = ""

    @model_validator(mode="after")
    def _fingerprint_matches(self):
        expected = fingerprint(self.model_dump())
        if self.fingerprint != expected:
            raise ValueError(f"machine fingerprint {self.fingerprint} is not that of its "
                             f"facts ({expected}): a fingerprint is computed, not chosen")
        return self

    @property
    def id(self):
        """12 hex digits naming this machine in every store: its name and fingerprint."""
        return sha256(f"{self.name}\0{self.fingerprint}")[:12]


class Benchmark(_Model):
    """What was measured, apart from who measured it: the suite (an asv module, "circuit",
    "evals", "gate"), the case in it and its parameters (the backend is the result's)."""
    suite: Name
    case: Name
    params: Annotated[dict[Label, Param], Field(default_factory=dict, max_length=32)]

    @property
    def key(self):
        """The benchmark's one name, the same wherever it was measured:
        ``suite/case {"param":value,...}`` (the parameters in canonical JSON)."""
        text = f"{self.suite}/{self.case}"
        return f"{text} {canonical(self.params).decode()}" if self.params else text


class Comm(_Model):
    """What a run over MPI ranks sent, per rank."""
    exchanges: Count
    bytes_per_rank: Seconds
    seconds: Seconds


class Result(_Model):
    """One backend on one benchmark in one run. ``seconds`` is the headline time (the
    minimum of the samples), ``interval`` its spread in the same run (minimum to median,
    harness.ranking.interval); ``times`` the samples where they were kept.
    ``instructions``: instructions per call, counted (deterministic, compared exactly);
    ``value`` and ``unit``: any other measured number (a bandwidth, a ratio)."""
    benchmark: Benchmark
    backend: Label = ""
    version: Label | None = None
    role: Label | None = None
    #: the backend others on the same machine are drawn relative to (declared by the
    #: backend, read from the registry where the run was recorded)
    baseline: bool = False
    settings: Annotated[dict[Label, Any], Field(default_factory=dict, max_length=64)]
    settings_hash: Annotated[str, Field(max_length=64)] | None = None
    status: Status = "ok"
    reason: Text = ""
    seconds: Seconds | None = None
    interval: tuple[Seconds, Seconds] | None = None
    samples: Count = 0
    times: Annotated[list[Seconds], Field(max_length=MAX_SAMPLES)] | None = None
    max_error: Seconds | None = None
    roofline: Seconds | None = None
    instructions: Seconds | None = None
    peak_bytes: Count | None = None
    value: Annotated[float, Field(allow_inf_nan=False)] | None = None
    unit: Label | None = None
    comm: Comm | None = None
    extra: Annotated[dict[Label, Any], Field(default_factory=dict, max_length=64)]

    @field_validator("seconds", "max_error", "roofline", "instructions", "value")
    @classmethod
    def _positive_zero(cls, value):
        # -0.0 is 0.0: SQLite would give the sign back lost, and the run another digest
        return None if value is None else value + 0.0

    @field_validator("interval")
    @classmethod
    def _positive_zeros(cls, value):
        return None if value is None else (value[0] + 0.0, value[1] + 0.0)

    @model_validator(mode="after")
    def _consistent(self):
        if self.interval is not None:
            low, high = self.interval
            if low > high:
                raise ValueError(f"interval [{low}, {high}]: its low end is above its high")
            if self.seconds is None:
                raise ValueError("an interval without the seconds it is the spread of")
            slack = 1e-9 * max(1.0, high)
            if not low - slack <= self.seconds <= high + slack:
                raise ValueError(f"seconds {self.seconds} lies outside its interval "
                                 f"[{low}, {high}]")
        if self.status == "ok" and self.seconds is None and self.instructions is None \
                and self.value is None and self.peak_bytes is None:
            raise ValueError("a result with status ok measured nothing (seconds, "
                             "instructions, value or peak_bytes)")
        if self.status != "ok" and not self.reason:
            raise ValueError(f"a result with status {self.status} must say why (reason)")
        if self.times is not None and self.samples != len(self.times):
            raise ValueError(f"samples {self.samples} but {len(self.times)} times")
        return self


class Run(_Model):
    """One command on one machine at one commit, and its results (see the module's
    docstring). ``started`` is when the command started, in UTC; ``source`` where the
    run was read from (a file's kind and name), for people."""
    schema_version: int = SCHEMA_VERSION
    machine: Machine
    commit: Hex | None = None
    dirty: bool = False
    command: Name
    profile: Label | None = None
    argv: Annotated[list[Text], Field(max_length=1000)] = []
    versions: Annotated[dict[Label, Label], Field(max_length=256)] = {}
    tuning: Label | None = None
    started: AwareDatetime
    source: Annotated[dict[Label, Label], Field(max_length=16)] = {}
    results: Annotated[list[Result], Field(min_length=1, max_length=MAX_RESULTS)]

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, value):
        if value not in READS:
            raise ValueError(f"schema version {value} is not one this store reads "
                             f"({', '.join(map(str, READS))})")
        return value

    @field_validator("started")
    @classmethod
    def _in_utc(cls, value):
        # one instant, one text: the digest must not depend on the zone it was written in
        return value.astimezone(datetime.UTC)

    @model_validator(mode="after")
    def _serialisable(self):
        # settings and extra hold any JSON: what canonical JSON cannot hold (an integer
        # past 64 bits) is refused here, as a validation error, not later
        try:
            self.json  # noqa: B018 - computed to be checked, and kept
        except (TypeError, orjson.JSONEncodeError) as exc:
            raise ValueError(f"the run cannot be written as canonical JSON: {exc}") from None
        return self

    _json: bytes | None = PrivateAttr(None)

    @property
    def json(self):
        """The run as canonical JSON bytes (:func:`canonical`), in the current schema
        version: what its digest is taken of, and what an export holds."""
        if self._json is None:
            self._json = canonical(self)
        return self._json

    def document(self):
        """The run as JSON-ready data (dicts, lists, strings, numbers)."""
        return orjson.loads(self.json)

    @property
    def digest(self):
        """The SHA-256 of the run's canonical JSON: equal runs, equal digests."""
        return hashlib.sha256(self.json).hexdigest()

    @property
    def id(self):
        """The run's id in every store: 16 hex digits of its digest."""
        return self.digest[:16]


def fields(model):
    """A model's fields as orjson serialises them: every field, defaults included (what
    ``model_dump`` gives, a tenth of its time on a run of many results)."""
    if isinstance(model, BaseModel):
        return model.__dict__
    raise TypeError(f"{type(model).__name__} is not JSON")


def canonical(obj):
    """``obj`` (JSON-ready data, or models) as canonical JSON bytes (orjson: keys sorted
    at every level, no spaces, UTF-8): what digests are taken of and what an export
    holds."""
    return orjson.dumps(obj, default=fields, option=orjson.OPT_SORT_KEYS)


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def json_schema():
    """The JSON Schema of a submitted run (what docs/service.md publishes)."""
    schema = Run.model_json_schema()
    schema["$id"] = f"https://qsim-ad-bench/schema/run-{SCHEMA_VERSION}.json"
    schema["title"] = f"qsim-ad-bench run, schema version {SCHEMA_VERSION}"
    return schema


#: where the schema is published, between these lines (tests/store/test_schema.py holds
#: the page to the code; ``python -m harness.store.schema --write`` renders it there)
PAGE = Path(__file__).resolve().parents[2] / "docs" / "service.md"
BEGIN, END = "<!-- schema:begin -->", "<!-- schema:end -->"


def rendered(text):
    """``text`` (docs/service.md) with its JSON Schema block rendered from the code."""
    block = "```json\n" + json.dumps(json_schema(), indent=1, sort_keys=True) + "\n```"
    return between(text, BEGIN, END, block, PAGE)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        PAGE.write_text(rendered(PAGE.read_text()))
    else:
        print(json.dumps(json_schema(), indent=1, sort_keys=True))
