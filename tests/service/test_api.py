"""The JSON API of a running server, over SQLite and PostgreSQL: every write needs a token
scoped to its machine; every refusal is 401, 403, 413 or 422 with a ``detail`` naming
the problem; a run comes back as it was sent; the comparisons give the verdicts their
numbers call for."""

import copy
import json
from pathlib import Path

import httpx
import numpy as np
import orjson
import pytest

from harness import provenance
from harness.store import schema, tokens
from tests.service.live import Server, add, headers
from tests.store import runs as make

FIXTURES = Path(__file__).with_name("fixtures")


def post(server, doc, token, **more):
    # the standard library's JSON: it writes what orjson would refuse (a 70-bit integer)
    body = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return httpx.post(f"{server.url}/api/v1/runs", content=body, timeout=60,
                      headers={"Content-Type": "application/json", **headers(token),
                               **more.pop("extra_headers", {})}, **more)


def get(server, path, **params):
    return httpx.get(f"{server.url}/api/v1/{path}", params=params, timeout=60)


def test_every_write_needs_a_valid_token_scoped_to_its_machine(server, store):
    doc = make.sample_run(np.random.default_rng(1), machine_doc=make.machine("laptop"))
    answer = httpx.post(f"{server.url}/api/v1/runs", content=orjson.dumps(doc))
    assert answer.status_code == 401 and "token" in answer.json()["detail"]
    assert answer.headers["www-authenticate"] == "Bearer"
    assert post(server, doc, "qsad_not-a-token").status_code == 401
    reader = tokens.create(store, "read")
    other = tokens.create(store, "machine", machine="server")
    answer = post(server, doc, reader)
    assert answer.status_code == 403 and "only read" in answer.json()["detail"]
    answer = post(server, doc, other)
    assert answer.status_code == 403 and "'laptop'" in answer.json()["detail"]
    assert get(server, "runs").json()["total"] == 0
    mine = tokens.create(store, "machine", machine="laptop")
    first = post(server, doc, mine)
    assert first.status_code == 201
    again = post(server, doc, mine)
    assert again.status_code == 200 and again.json() == first.json()
    assert first.json()["id"] == schema.Run.model_validate(doc).id
    row = next(r for r in tokens.listed(store) if r.machine == "laptop")
    tokens.revoke(store, row.id)
    assert post(server, doc, mine).status_code == 401
    assert get(server, "runs").json()["total"] == 1


def _deep(n):
    return b"[" * n + b"]" * n


@pytest.mark.parametrize("body, fragment", [
    (b"{not json", "not JSON"),
    (b"[1, 2]", "Input should be"),
    (b'{"machine": 1}', "machine"),
    (_deep(100_000), "not JSON"),
    (b'{"x": NaN}', "not JSON"),
])
def test_a_body_that_is_not_a_run_is_422_naming_the_problem(refusing, body, fragment):
    answer = post(refusing.server, body, refusing.admin)
    assert answer.status_code == 422, answer.text
    assert fragment in str(answer.json()["detail"])
    assert get(refusing.server, "runs").json()["total"] == 0


@pytest.mark.parametrize("change, field", [
    (lambda d: d["machine"].update(cores=3), "fingerprint"),
    (lambda d: d.update(results=[]), "results"),
    (lambda d: d.update(surprise=1), "surprise"),
    (lambda d: d["results"][0].update(seconds=-1.0), "seconds"),
    (lambda d: d["results"][0].update(status="ok", seconds=None, interval=None), "measured"),
    (lambda d: d["results"][0].update(status="wrong"), "reason"),
    (lambda d: d["results"][0].update(backend="a\x00b"), "backend"),
    (lambda d: d.update(started="yesterday"), "started"),
    (lambda d: d.update(started="2026-11-01T12:00:00"), "timezone"),
    (lambda d: d.update(schema_version=99), "schema version"),
])
def test_a_run_that_breaks_the_schema_is_422_naming_the_field(refusing, change, field):
    doc = make.sample_run(np.random.default_rng(2))
    change(doc)
    answer = post(refusing.server, doc, refusing.admin)
    assert answer.status_code == 422, answer.text
    assert field in str(answer.json()["detail"])
    assert get(refusing.server, "runs").json()["total"] == 0


def test_a_body_over_the_limit_is_413_declared_or_not(store, admin):
    small = Server(store.url, "--max-bytes", "20000")
    try:
        doc = make.sample_run(np.random.default_rng(3), n_benchmarks=60)
        body = orjson.dumps(doc)
        assert len(body) > 20000
        answer = post(small, body, admin)
        assert answer.status_code == 413 and "20000" in answer.json()["detail"]

        def chunks():  # no Content-Length: sent chunked, counted as it comes
            for i in range(0, len(body), 4096):
                yield body[i:i + 4096]
        answer = httpx.post(f"{small.url}/api/v1/runs", content=chunks(),
                            headers={"Content-Type": "application/json", **headers(admin)})
        assert answer.status_code == 413 and "20000" in answer.json()["detail"]
        fits = make.sample_run(np.random.default_rng(3), n_benchmarks=2)
        assert post(small, fits, admin).status_code == 201
    finally:
        small.stop()


def test_an_idempotency_key_stores_once_and_refuses_new_content(server, admin):
    rng = np.random.default_rng(4)
    first, second = make.sample_run(rng), make.sample_run(rng)
    key = {"Idempotency-Key": "run-42"}
    assert post(server, first, admin, extra_headers=key).status_code == 201
    assert post(server, first, admin, extra_headers=key).status_code == 200
    answer = post(server, second, admin, extra_headers=key)
    assert answer.status_code == 422 and "run-42" in answer.json()["detail"]
    answer = post(server, second, admin, extra_headers={"Idempotency-Key": "a key"})
    assert answer.status_code == 422 and "Idempotency-Key" in answer.json()["detail"]
    assert get(server, "runs").json()["total"] == 1


def test_a_run_comes_back_as_it_was_sent(server, admin):
    doc = make.sample_run(np.random.default_rng(5))
    doc["results"].append(make.result({"suite": "gate", "case": "<b>x</b>", "params": {}},
                                      "stride", None, instructions=1.5e6))
    uid = post(server, doc, admin).json()["id"]
    page = get(server, f"runs/{uid}").json()
    assert page["id"] == uid
    assert schema.Run.model_validate(page["run"]).json == schema.Run.model_validate(doc).json
    ranked = {b["benchmark"]: b for b in page["benchmarks"]}
    first = ranked['circuit/qft0 {"precision":"complex128","qubits":10}']["ranked"]
    assert [r["backend"] for r in first] == ["fused", "qulacs", "qsim"]
    assert first[0]["rank"] == "1" and first[0]["ratio"] == 1.0
    assert get(server, "runs/0123456789abcdef").status_code == 404
    listed = get(server, "runs", machine="box").json()
    assert listed["total"] == 1 and listed["runs"][0]["id"] == uid
    machines = get(server, "machines").json()["machines"]
    assert [m["name"] for m in machines] == ["box"] and machines[0]["runs"] == 1


def _timed(case, backend, seconds, spread=0.01, **more):
    return make.result({"suite": "circuit", "case": case, "params": {}}, backend, seconds,
                       spread=spread, **more)


def test_two_runs_compared_result_by_result(server, store):
    base = {"machine": make.machine(), "commit": "a" * 40, "command": "circuit",
            "started": make.started(1), "results": [
                _timed("c1", "fast", 1.0), _timed("c1", "slow", 1.0), _timed("c1", "same", 1.0),
                _timed("c1", "other", 1.0),
                make.result({"suite": "gate", "case": "g", "params": {}}, "", None,
                            instructions=1000.0),
                make.result({"suite": "gate", "case": "h", "params": {}}, "", None,
                            instructions=1000.0),
                _timed("c1", "gone", 1.0), _timed("c1", "broke", 1.0)]}
    head = copy.deepcopy(base)
    head.update(commit="b" * 40, started=make.started(2))
    by_name = {r["backend"] or r["benchmark"]["case"]: r for r in head["results"]}
    by_name["fast"].update(seconds=0.8, interval=[0.8, 0.808])
    by_name["slow"].update(seconds=1.2, interval=[1.2, 1.212])
    by_name["same"].update(seconds=1.005, interval=[1.005, 1.015])
    by_name["other"]["settings_hash"] = "ffff0000"
    by_name["h"]["instructions"] = 1001.0
    by_name["broke"].update(status="failed", reason="it raised", seconds=None, interval=None,
                            samples=0)
    head["results"] = [r for r in head["results"] if r["backend"] != "gone"]
    b, h = add(store, base), add(store, head)
    answer = get(server, "compare", base=b, head=h).json()
    verdicts = {r["backend"] or r["benchmark"]: r["verdict"] for r in answer["rows"]}
    assert verdicts == {"fast": "faster", "slow": "slower", "same": "tie", "other": "mismatch",
                        "gate/g": "tie", "gate/h": "slower"}
    rows = {r["backend"] or r["benchmark"]: r for r in answer["rows"]}
    assert rows["fast"]["ratio"] == pytest.approx(0.8)
    assert rows["fast"]["interval"] == pytest.approx([0.8 / 1.01, 0.808 / 1.0])
    assert rows["other"]["ratio"] is None and rows["other"]["why"] == "settings differ"
    assert rows["gate/h"]["ratio"] == pytest.approx(1.001)
    assert rows["gate/h"]["measure"] == "instructions"
    assert answer["counts"] == {"faster": 1, "slower": 2, "tie": 2, "mismatch": 1}
    unmatched = {(r["backend"], r["side"]): r for r in answer["unmatched"]}
    assert unmatched[("gone", "base")]["reason"] == "only the base run measured it"
    assert unmatched[("broke", "head")]["status"] == "failed"
    # on another machine: raw times are never compared
    elsewhere = copy.deepcopy(head)
    elsewhere["machine"] = make.machine("faraway", cores=64)
    other = add(store, elsewhere)
    answer = get(server, "compare", base=b, head=other).json()
    assert answer["machines_differ"] is True
    assert {r["verdict"] for r in answer["rows"]} == {"mismatch"}
    assert get(server, "compare", base=b, head="nope").status_code == 404


def _series_docs(step_at=None, factor=1.0):
    """The 20 real runs of one commit (tests/service/fixtures), with the times of runs
    from ``step_at`` on multiplied by ``factor`` and given a commit of their own."""
    lines = (FIXTURES / "qcbm12_20_runs.jsonl").read_bytes().splitlines()
    docs = [orjson.loads(line) for line in lines]
    for i, doc in enumerate(docs):
        if step_at is not None and i >= step_at:
            doc["commit"] = "5" * 40
            for r in doc["results"]:
                if r["seconds"] is not None:
                    r["seconds"] *= factor
                    r["interval"] = [x * factor for x in r["interval"]]
    return docs


def test_history_of_twenty_runs_of_one_commit_has_no_change(server, store):
    docs = _series_docs()
    for doc in docs:
        add(store, doc)
    key = schema.Run.model_validate(docs[0]).results[0].benchmark.key
    machine = docs[0]["machine"]["fingerprint"]
    for backend in ("stride", "fused", "qulacs", "quest"):
        answer = get(server, "history", benchmark=key, backend=backend, machine=machine).json()
        assert len(answer["points"]) == 20 and answer["measure"] == "seconds"
        assert answer["changes"] == [], (backend, answer["changes"])


@pytest.mark.parametrize("factor", [1.15, 1 / 1.15])
def test_a_step_of_fifteen_percent_in_time_is_flagged_at_its_commit(server, store, factor):
    docs = _series_docs(step_at=12, factor=factor)
    for doc in docs:
        add(store, doc)
    key = schema.Run.model_validate(docs[0]).results[0].benchmark.key
    for backend in ("stride", "fused", "qulacs", "quest"):
        answer = get(server, "history", benchmark=key, backend=backend,
                     machine=docs[0]["machine"]["name"]).json()
        changes = answer["changes"]
        assert len(changes) == 1, (backend, changes)
        assert changes[0]["commit"] == "5" * 40 and changes[0]["index"] == 12
        assert changes[0]["ratio"] == pytest.approx(factor, rel=0.06)


def test_a_step_of_five_percent_in_instruction_counts_is_flagged_at_its_commit(server, store):
    # the A/A spread of the gate's counts (harness/gate/tolerances.json: 0.02% at most)
    rng = np.random.default_rng(6)
    for i in range(20):
        count = 2.0e6 * (1.05 if i >= 9 else 1.0) * (1 + rng.uniform(-2e-4, 2e-4))
        add(store, {"machine": make.machine(), "commit": f"{i:040x}", "command": "gate",
                    "started": make.started(1 + i), "results": [make.result(
                        {"suite": "gate", "case": "gate/H/stride/n14", "params": {"tier": 1}},
                        "", None, instructions=count)]})
    answer = get(server, "history", benchmark='gate/gate/H/stride/n14 {"tier":1}', backend="",
                 machine="box").json()
    assert answer["measure"] == "instructions" and len(answer["points"]) == 20
    assert [(c["index"], c["commit"]) for c in answer["changes"]] == [(9, f"{9:040x}")]


def test_who_is_fastest_on_one_machine_with_ties(server, store):
    doc = {"machine": make.machine(), "commit": "c" * 40, "command": "circuit",
           "started": make.started(1), "results": [
               _timed("q", "a", 1.0, spread=0.1), _timed("q", "b", 1.05, spread=0.1),
               _timed("q", "c", 2.0), make.result({"suite": "circuit", "case": "q",
                                                   "params": {}}, "d", None, status="skipped",
                                                  reason="not installed")]}
    add(store, doc)
    answer = get(server, "ranking", machine="box", benchmark="circuit/q").json()
    assert [(r["backend"], r["rank"], r["tie"]) for r in answer["ranked"]] == [
        ("a", "1=", False), ("b", "1=", True), ("c", "3", False)]
    assert answer["not_ranked"] == [{"backend": "d", "status": "skipped",
                                     "reason": "not installed"}]
    summary = get(server, "ranking", machine="box").json()["fastest"]
    assert summary[0]["winner"] == "a ~ b" and summary[0]["runner_up"] == "c x2.00"
    assert get(server, "ranking", machine="nobody").status_code == 404


def test_machines_compared_by_ratios_to_their_own_baseline(server, store):
    for name, scale in (("laptop", 1.0), ("server", 3.0)):
        m = make.machine(name, cores=4 if name == "laptop" else 64)
        add(store, {"machine": m, "commit": "d" * 40, "command": "circuit",
                    "started": make.started(1), "results": [
                        _timed("q1", "peer", 1.0 * scale, baseline=True),
                        _timed("q1", "ours", 0.5 * scale if name == "laptop" else 1.5 * scale),
                        _timed("q2", "peer", 2.0 * scale, baseline=True),
                        _timed("q2", "ours", 0.5 * scale if name == "laptop" else 4.0 * scale)]})
    grid = get(server, "grid").json()
    ids = {m["name"]: m["id"] for m in grid["machines"]}
    laptop, server_ = grid["cells"][ids["laptop"]], grid["cells"][ids["server"]]
    # geometric means of the ratios: laptop sqrt(0.5 * 0.25), server sqrt(1.5 * 2.0)
    assert laptop["ours"]["ratio"] == pytest.approx((0.5 * 0.25) ** 0.5)
    assert server_["ours"]["ratio"] == pytest.approx((1.5 * 2.0) ** 0.5)
    assert laptop["peer"]["ratio"] == pytest.approx(1.0) and laptop["ours"]["benchmarks"] == 2
    assert grid["groups"] == [{"baseline": "peer", "backends": ["ours", "peer"]}]


def test_the_evals_as_gradbench_grid(server, store):
    def row(backend, seconds, role, **more):
        return make.result({"suite": "evals", "case": "llsq", "params": {"size": "16"}},
                           backend, seconds, role=role, baseline=role == "baseline", **more)
    add(store, {"machine": make.machine(), "commit": "e" * 40, "command": "evals",
                "started": make.started(1), "results": [
                    row("numpy", 1e-4, "objective"), row("manual", 1.2e-4, "baseline"),
                    row("reverse", 3e-4, "engine"), row("source", 2.4e-4, "engine"),
                    # a compiling engine: its own compiled objective and compile time
                    row("compiled", 1.5e-4, "engine",
                        extra={"objective_seconds": 5e-5, "compile_seconds": 2.5}),
                    row("jax", None, "engine", status="skipped", reason="too slow")]})
    grid = get(server, "evals", machine="box").json()
    cells = grid["rows"]['evals/llsq {"size":"16"}']["cells"]
    assert cells["reverse"]["x_objective"] == pytest.approx(3.0)
    assert cells["source"]["x_best"] == pytest.approx(2.0)
    assert cells["compiled"]["x_own_objective"] == pytest.approx(3.0)
    assert cells["compiled"]["compile_seconds"] == pytest.approx(2.5)
    assert cells["reverse"].get("x_own_objective") is None
    assert cells["jax"] == {"status": "skipped", "reason": "too slow"}
    assert grid["engines"] == ["compiled", "jax", "manual", "reverse", "source"]
    page = httpx.get(f"{server.url}/machines", params={"machine": "box", "suite": "evals"},
                     timeout=60).text
    # a skipped engine's cell is its status (the page once failed on one)
    assert "3 own" in page and "compiled in 2.5" in page and 'title="too slow">skipped' in page


def test_bad_queries_are_422_or_404_naming_what(server, store):
    add(store, make.sample_run(np.random.default_rng(7), machine_doc=make.machine("twin")))
    add(store, make.sample_run(np.random.default_rng(8),
                               machine_doc=make.machine("twin", cores=16)))
    answer = get(server, "ranking", machine="twin")
    assert answer.status_code == 422 and "2 machines" in answer.json()["detail"]
    assert get(server, "runs", limit=0).status_code == 422
    assert get(server, "runs", limit="x").status_code == 422
    assert get(server, "history", benchmark="x" * 5000, backend="a", machine="b").status_code == 422
    answer = get(server, "history", benchmark="circuit/none", backend="a",
                 machine=make.machine("twin")["fingerprint"])
    assert answer.status_code == 404 and "circuit/none" in answer.json()["detail"]
    assert httpx.get(f"{server.url}/static/../../pyproject.toml").status_code == 404
    assert httpx.get(f"{server.url}/vendor/..%2f..%2fpyproject.toml").status_code == 404


def test_every_answer_keeps_pages_to_their_own_scripts(refusing):
    for path in ("/", "/api/v1/runs", "/nowhere", "/machines"):
        answer = httpx.get(f"{refusing.server.url}{path}")
        csp = answer.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "default-src 'self'" in csp, path
        assert answer.headers["x-content-type-options"] == "nosniff"


def test_a_private_service_reads_only_with_a_token(store):
    private = Server(store.url, "--private")
    try:
        assert httpx.get(f"{private.url}/api/v1/runs").status_code == 401
        page = httpx.get(f"{private.url}/machines")
        assert page.status_code == 401 and "private" in page.text
        reader = tokens.create(store, "read")
        answer = httpx.get(f"{private.url}/api/v1/runs", headers=headers(reader))
        assert answer.status_code == 200
        with httpx.Client(base_url=private.url) as browser_like:
            login = browser_like.post("/login", data={"token": reader, "back": "/machines"})
            assert login.status_code == 303 and login.headers["location"] == "/machines"
            assert browser_like.get("/machines").status_code == 200
            # the cookie reads; it never writes
            doc = make.sample_run(np.random.default_rng(9))
            assert browser_like.post("/api/v1/runs", content=orjson.dumps(doc)).status_code == 401
        bad = httpx.post(f"{private.url}/login", data={"token": "nope", "back": "//evil"})
        assert bad.status_code == 401
    finally:
        private.stop()


def test_the_machine_fingerprint_of_this_host_is_accepted():
    facts = provenance.machine_facts()
    assert schema.Machine.model_validate(facts).fingerprint == facts["fingerprint"]
