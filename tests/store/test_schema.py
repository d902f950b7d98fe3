"""The schema of a run: what it refuses and how (the field named), what it normalises so
that one run has one digest, and the JSON Schema docs/service.md publishes, held to the
code."""

import numpy as np
import pydantic
import pytest

from harness.store import schema
from tests.store import runs as make


def doc():
    return make.sample_run(np.random.default_rng(0), n_benchmarks=1)


def test_the_published_schema_is_the_codes():
    text = schema.PAGE.read_text()
    assert schema.rendered(text) == text, (
        "docs/service.md's JSON Schema differs from harness/store/schema.py: run "
        "`python -m harness.store.schema --write`")
    assert '"title": "qsim-ad-bench run, schema version 1"' in text


def test_one_run_one_digest_however_it_is_written():
    first = schema.Run.model_validate(doc())
    moved = doc()
    moved["started"] = "2026-11-01T07:00:00-05:00"  # the same instant, in another zone
    moved["results"] = [dict(reversed(list(r.items()))) for r in moved["results"]]
    assert schema.Run.model_validate(moved).id == first.id
    written_out = first.document()  # every default written out
    assert schema.Run.model_validate(written_out).json == first.json
    negative_zero = doc()
    negative_zero["results"][0].update(seconds=-0.0, interval=[-0.0, 0.0])
    positive_zero = doc()
    positive_zero["results"][0].update(seconds=0.0, interval=[0.0, 0.0])
    assert schema.Run.model_validate(negative_zero).id == \
        schema.Run.model_validate(positive_zero).id
    other = doc()
    other["results"][0]["seconds"] *= 1.0000001
    other["results"][0]["interval"][0] = other["results"][0]["seconds"]
    assert schema.Run.model_validate(other).id != first.id


@pytest.mark.parametrize("change, where", [
    (lambda d: d["results"][0]["settings"].update(big=2 ** 70), "canonical JSON"),
    (lambda d: d["results"][0]["benchmark"]["params"].update(x=float("nan")), "params"),
    (lambda d: d["results"][0]["benchmark"].update(case="x" * 201), "case"),
    (lambda d: d["results"][0].update(interval=[2.0, 1.0], seconds=1.5), "low end"),
    (lambda d: d["results"][0].update(times=[1.0], samples=3), "samples"),
    (lambda d: d["machine"].update(name=""), "name"),
    (lambda d: d.update(commit="not-hex"), "commit"),
])
def test_what_the_schema_refuses_it_names(change, where):
    d = doc()
    change(d)
    with pytest.raises(pydantic.ValidationError, match=where):
        schema.Run.model_validate(d)


def test_a_benchmark_key_is_its_suite_case_and_sorted_parameters():
    b = schema.Benchmark(suite="s", case="c", params={"b": 2, "a": "x"})
    assert b.key == 's/c {"a":"x","b":2}'
    assert schema.Benchmark(suite="s", case="c").key == "s/c"
